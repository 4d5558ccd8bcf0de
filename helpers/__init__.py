"""Companion package of the course "Inside the Transformer MLP".

Each module holds one idea; open any of them. Submodules load on first use,
so `import helpers` is quick and `helpers.activations.gelu` just works.
"""

import importlib
import pkgutil

# The one definition of the version: pyproject.toml reads it, and every notebook's setup cell
# checks it (tools/sync_notebooks.py writes it there).
__version__ = "0.1.0"


def _submodules():
    """The names of helpers' modules and subpackages, found in its folder (no list to keep)."""
    return {info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")}


def __getattr__(name):
    if not name.startswith("_") and name in _submodules():
        return importlib.import_module(f"{__name__}.{name}")
    if name == "setup_notebook":
        return importlib.import_module(f"{__name__}.setup").setup_notebook
    if name == "presentation":
        return importlib.import_module(f"{__name__}.plots").presentation
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_submodules(), "setup_notebook", "presentation"})
