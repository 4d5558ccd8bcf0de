"""The live demo of each notebook, found by its module's name.

`helpers/demos/nb01_matrix_multiply.py` is the demo of `notebooks/01_matrix_multiply.ipynb`:
a new notebook's demo needs no registration. Each demo module has `make()` -> LiveFigure and
`SAMPLE`, a setting the benchmark moves the controls to when it times a redraw.
"""

import importlib
import pkgutil
import re

_MODULE = re.compile(r"nb(\d\d_\w+)")


def _discover():
    """{notebook name: demo module name}, e.g. {'01_matrix_multiply': 'helpers.demos.nb01_...'}."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        match = _MODULE.fullmatch(info.name)
        if match:
            found[match.group(1)] = f"{__name__}.{info.name}"
    return dict(sorted(found.items()))


DEMOS = _discover()


def load(notebook):
    """The demo module of a notebook, e.g. load('01_matrix_multiply')."""
    if notebook not in DEMOS:
        raise ValueError(f"no demo for {notebook!r}; demos exist for {sorted(DEMOS)}")
    return importlib.import_module(DEMOS[notebook])
