"""Notebook 02's demo: pick activations and an x-range; see them and their slopes."""

import numpy as np
from ipywidgets import FloatRangeSlider, SelectMultiple

from helpers import activations
from helpers.plots import COLORS, LINESTYLES
from helpers.widgets import LiveFigure

NAMES = ("relu", "gelu", "gelu_tanh", "silu")
SAMPLE = {"names": ("relu", "gelu_tanh", "silu"), "x_range": (-8.0, 2.0)}
POINTS = 240   # enough for smooth curves at this size; fewer points draw faster


def draw(fig, names, x_range):
    """Left: the chosen activations over x_range. Right: their derivatives."""
    lo, hi = x_range
    if hi - lo < 1e-3:
        hi = lo + 1e-3
    x = np.linspace(lo, hi, POINTS)
    ax_f, ax_d = fig.subplots(1, 2)
    for name in names:
        f, df = activations.ACTIVATIONS[name]
        style = dict(ls=LINESTYLES[name], color=COLORS[name], label=name)
        ax_f.plot(x, f(x), **style)
        ax_d.plot(x, df(x), **style)
    for ax in (ax_f, ax_d):
        ax.axhline(0, color="black", lw=0.6)
        ax.set_xlabel("x (pre-activation)")
        ax.locator_params(nbins=4)  # few tick labels: each one is text to lay out and render
    if names:
        ax_f.legend(loc="upper left")  # one legend serves both panels
    ax_f.set(title="f(x) over the chosen range", ylabel="f(x)")
    ax_d.set(title="f'(x): exactly 0 means no gradient", ylabel="f'(x)")
    if not names:
        ax_f.text(0.5, 0.5, "pick at least one activation", ha="center", transform=ax_f.transAxes)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.9, wspace=0.22)  # fixed: fast


def make():
    controls = {
        "names": SelectMultiple(options=NAMES, value=("relu", "gelu", "silu"), rows=4,
                                description="activations"),
        "x_range": FloatRangeSlider(value=(-4.0, 4.0), min=-10.0, max=10.0, step=0.5,
                                    description="x range", continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(9.0, 3.4), title="ReLU vs GELU vs SiLU")
