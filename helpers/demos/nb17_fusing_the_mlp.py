"""Notebook 17's demo: TODO, what it shows. A redraw must take at most 150 ms (make bench)."""

import numpy as np
from ipywidgets import FloatSlider

from helpers.plots import COLORS
from helpers.widgets import LiveFigure

SAMPLE = {"factor": 1.5}


def draw(fig, factor):
    ax = fig.subplots()
    x = np.linspace(-3, 3, 200)
    ax.plot(x, factor * x, color=COLORS["mlp"])
    ax.set(xlabel="x", ylabel="factor * x", title=f"A line of slope {factor:.1f}")


def make():
    controls = {"factor": FloatSlider(value=1.0, min=-2.0, max=2.0, step=0.1, description="factor")}
    return LiveFigure(draw, controls, figsize=(6.0, 3.2), title="TODO: the demo's title")
