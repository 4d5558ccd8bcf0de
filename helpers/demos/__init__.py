"""The live demo of each notebook, by notebook name.

Each demo module has `make()` -> LiveFigure and `SAMPLE`, a setting the
benchmark moves the controls to when it times a redraw.
"""

import importlib

DEMOS = {
    "01_matrix_multiply": "helpers.demos.matmul",
    "02_activations": "helpers.demos.activations",
    "03_ffn_forward": "helpers.demos.ffn_forward",
    "04_network_3d": "helpers.demos.network_3d",
    "05_swiglu_gate": "helpers.demos.swiglu",
    "06_parameter_table": "helpers.demos.parameter_table",
    "07_position_wise": "helpers.demos.position_wise",
    "08_the_block": "helpers.demos.block",
    "09_decode_bandwidth": "helpers.demos.decode",
    "10_tensor_parallel": "helpers.demos.tensor_parallel",
    "11_mixture_of_experts": "helpers.demos.moe",
    "12_kv_memory_editing": "helpers.demos.kv_memory",
}


def load(notebook):
    """The demo module of a notebook, e.g. load('01_matrix_multiply')."""
    if notebook not in DEMOS:
        raise ValueError(f"no demo for {notebook!r}; demos exist for {sorted(DEMOS)}")
    return importlib.import_module(DEMOS[notebook])
