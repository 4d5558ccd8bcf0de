"""Notebook 03's demo: pick d_model, the expansion factor and the activation; see the
shapes, parameters and FLOPs of the FFN and the hidden activations of one token."""

from functools import lru_cache

import numpy as np
from ipywidgets import Dropdown

from helpers import activations
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

SAMPLE = {"d_model": 512, "expansion": 16, "activation": "relu"}


@lru_cache(maxsize=8)
def _hidden(d_model, d_ff):
    """Pre-activations h = x @ W1 + b1 (d_ff,) of one random token, fixed seed per shape."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(d_model, dtype=np.float32)
    W1 = rng.standard_normal((d_model, d_ff), dtype=np.float32) / np.sqrt(d_model)
    b1 = 0.1 * rng.standard_normal(d_ff, dtype=np.float32)
    return x @ W1 + b1


def draw(fig, d_model, expansion, activation):
    """Left: the shapes d_model -> d_ff -> d_model. Right: one token's d_ff hidden values."""
    d_ff = expansion * d_model
    params = 2 * d_model * d_ff + d_ff + d_model
    flops = 4 * d_model * d_ff                      # per token: two matmuls, 2 FLOPs per multiply-add
    ax, ax_h = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.4]})

    widths = [d_model, d_ff, d_ff, d_model]
    names = ["x", "x @ W1 + b1", activation, "out"]
    for i, (w, label) in enumerate(zip(widths, names, strict=True)):
        ax.barh(i, w, left=-w / 2, color=COLORS["mlp"] if i in (1, 2) else "#9ecae1",
                edgecolor="black")
        ax.text(0, i, f"{label}\n({w:,})", ha="center", va="center", fontsize=9)
    ax.set_yticks(range(4), ["input", "up", "activation", "down"])
    ax.set_xticks([])
    ax.set_ylabel("step of the forward pass")
    ax.invert_yaxis()
    ax.set_xlabel("width = features per token (to scale)")
    ax.set_title(f"d_ff = {expansion} x {d_model} = {d_ff:,}\n"
                 f"{params:,} parameters, {flops:,} FLOPs per token", fontsize=9)

    h = np.sort(_hidden(d_model, d_ff))
    a = activations.get(activation)(h)
    zero, negative = np.mean(a == 0), np.mean(a < 0)
    shown = np.unique(np.linspace(0, d_ff - 1, 400).astype(int))   # a sorted curve: 400 points draw it
    ax_h.plot(shown, h[shown], color=COLORS["neutral"], lw=1, label="before (x @ W1 + b1)")
    ax_h.plot(shown, a[shown], color=COLORS.get(activation, "black"), lw=1.5, label=f"after {activation}")
    ax_h.set_xlabel(f"hidden neuron (sorted by its input), {d_ff:,} in all")
    ax_h.set_ylabel("value")
    ax_h.set_title(f"One token's hidden layer: {zero:.0%} exactly 0, {negative:.0%} negative",
                   fontsize=9)
    ax_h.legend(loc="upper left", fontsize=9)
    fig.subplots_adjust(left=0.13, right=0.97, wspace=0.3)


def make():
    controls = {
        "d_model": Dropdown(options=[64, 128, 256, 512], value=512, description="d_model"),
        "expansion": Dropdown(options=[1, 2, 4, 8, 16], value=4, description="d_ff / d_model"),
        "activation": Dropdown(options=["relu", "gelu", "silu"], value="gelu",
                               description="activation"),
    }
    return LiveFigure(draw, controls, figsize=(10.0, 4.0), title="The FFN of one token")
