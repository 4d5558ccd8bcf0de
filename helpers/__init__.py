"""Companion package of the course "Inside the Transformer MLP".

Each module holds one idea; open any of them. Submodules load on first use,
so `import helpers` is quick and `helpers.activations.gelu` just works.
"""

import importlib

# The one definition of the version: pyproject.toml reads it, and every notebook's setup cell
# checks it (tools/sync_notebooks.py writes it there).
__version__ = "0.1.0"

_SUBMODULES = {
    "activations", "attention", "bandwidth", "bench", "block", "capacity", "checks", "config_params", "data",
    "dataflow", "demos", "device", "facts", "launch", "ffn", "gated", "gpt2", "kv_memory", "moe", "network3d", "params", "plots", "progress",
    "setup", "tensor_parallel", "timing", "validate", "widgets",
}


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "setup_notebook":
        return importlib.import_module(f"{__name__}.setup").setup_notebook
    if name == "presentation":
        return importlib.import_module(f"{__name__}.plots").presentation
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")
