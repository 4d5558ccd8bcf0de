"""The live demo of each notebook, by notebook name.

Each demo module has `make()` -> LiveFigure and `SAMPLE`, a setting the
benchmark moves the controls to when it times a redraw.
"""

import importlib

DEMOS = {
    "01_matrix_multiply": "helpers.demos.matmul",
}


def load(notebook):
    """The demo module of a notebook, e.g. load('01_matrix_multiply')."""
    if notebook not in DEMOS:
        raise ValueError(f"no demo for {notebook!r}; demos exist for {sorted(DEMOS)}")
    return importlib.import_module(DEMOS[notebook])
