"""The live demo of each notebook, by notebook name.

Each demo module has `make()` -> LiveFigure and `SAMPLE`, a setting the
benchmark moves the controls to when it times a redraw.
"""

import importlib

DEMOS = {
    "01_matrix_multiply": "helpers.demos.nb01_matrix_multiply",
    "02_activations": "helpers.demos.nb02_activations",
    "03_ffn_forward": "helpers.demos.nb03_ffn_forward",
    "04_network_3d": "helpers.demos.nb04_network_3d",
    "05_swiglu_gate": "helpers.demos.nb05_swiglu_gate",
    "06_parameter_table": "helpers.demos.nb06_parameter_table",
    "07_position_wise": "helpers.demos.nb07_position_wise",
    "08_the_block": "helpers.demos.nb08_the_block",
    "09_decode_bandwidth": "helpers.demos.nb09_decode_bandwidth",
    "10_tensor_parallel": "helpers.demos.nb10_tensor_parallel",
    "11_mixture_of_experts": "helpers.demos.nb11_mixture_of_experts",
    "12_kv_memory_editing": "helpers.demos.nb12_kv_memory_editing",
}


def load(notebook):
    """The demo module of a notebook, e.g. load('01_matrix_multiply')."""
    if notebook not in DEMOS:
        raise ValueError(f"no demo for {notebook!r}; demos exist for {sorted(DEMOS)}")
    return importlib.import_module(DEMOS[notebook])
