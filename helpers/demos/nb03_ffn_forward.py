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


def _numbers(d_model, expansion, activation):
    """What the figure shows: widths, the left title, the sorted curves and the right title."""
    d_ff = expansion * d_model
    params = 2 * d_model * d_ff + d_ff + d_model
    flops = 4 * d_model * d_ff                      # per token: two matmuls, 2 FLOPs per multiply-add
    h = np.sort(_hidden(d_model, d_ff))
    a = activations.get(activation)(h)
    zero, negative = np.mean(a == 0), np.mean(a < 0)
    shown = np.unique(np.linspace(0, d_ff - 1, 400).astype(int))   # a sorted curve: 400 points draw it
    return {
        "widths": [d_model, d_ff, d_ff, d_model],
        "names": ["x", "x @ W1 + b1", activation, "out"],
        "left_title": f"d_ff = {expansion} x {d_model} = {d_ff:,}\n"
                      f"{params:,} parameters, {flops:,} FLOPs per token",
        "x": shown, "before": h[shown], "after": a[shown],
        "xlabel": f"hidden neuron (sorted by its input), {d_ff:,} in all",
        "right_title": f"One token's hidden layer: {zero:.0%} exactly 0, {negative:.0%} negative",
    }


def draw(fig, d_model, expansion, activation):
    """Left: the shapes d_model -> d_ff -> d_model. Right: one token's d_ff hidden values.
    Returns the artists that `update` changes."""
    n = _numbers(d_model, expansion, activation)
    ax, ax_h = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.4]})
    bars, labels = [], []
    for i, (w, label) in enumerate(zip(n["widths"], n["names"], strict=True)):
        bars += ax.barh(i, w, left=-w / 2, color=COLORS["mlp"] if i in (1, 2) else "#9ecae1",
                        edgecolor="black").patches
        labels.append(ax.text(0, i, f"{label}\n({w:,})", ha="center", va="center", fontsize=9))
    ax.set_yticks(range(4), ["input", "up", "activation", "down"])
    ax.set_xticks([])
    ax.set_ylabel("step of the forward pass")
    ax.invert_yaxis()
    ax.set_xlabel("width = features per token (to scale)")
    ax.set_title(n["left_title"], fontsize=9)
    (before,) = ax_h.plot(n["x"], n["before"], color=COLORS["neutral"], lw=1, label="before (x @ W1 + b1)")
    (after,) = ax_h.plot(n["x"], n["after"], color=COLORS.get(activation, "black"), lw=1.5,
                         label=f"after {activation}")
    ax_h.set_xlabel(n["xlabel"])
    ax_h.set_ylabel("value")
    ax_h.set_title(n["right_title"], fontsize=9)
    legend = ax_h.legend(loc="upper left", fontsize=9)
    fig.subplots_adjust(left=0.13, right=0.97, wspace=0.3)
    return {"ax": ax, "ax_h": ax_h, "bars": bars, "labels": labels, "before": before, "after": after,
            "legend": legend}


def update(fig, artists, d_model, expansion, activation):
    """Resize the bars, move the curves and rewrite the texts (no new axes)."""
    n = _numbers(d_model, expansion, activation)
    for bar, text, w, label in zip(artists["bars"], artists["labels"], n["widths"], n["names"], strict=True):
        bar.set_x(-w / 2)
        bar.set_width(w)
        text.set_text(f"{label}\n({w:,})")
    ax, ax_h = artists["ax"], artists["ax_h"]
    ax.set_xlim(-n["widths"][1] / 2 * 1.05, n["widths"][1] / 2 * 1.05)
    ax.set_title(n["left_title"], fontsize=9)
    artists["before"].set_data(n["x"], n["before"])
    artists["after"].set_data(n["x"], n["after"])
    artists["after"].set_color(COLORS.get(activation, "black"))
    artists["legend"].get_texts()[1].set_text(f"after {activation}")
    artists["legend"].legend_handles[1].set_color(COLORS.get(activation, "black"))
    ax_h.relim()
    ax_h.autoscale_view()
    ax_h.set_xlabel(n["xlabel"])
    ax_h.set_title(n["right_title"], fontsize=9)


def make():
    controls = {
        "d_model": Dropdown(options=[64, 128, 256, 512], value=512, description="d_model"),
        "expansion": Dropdown(options=[1, 2, 4, 8, 16], value=4, description="d_ff / d_model"),
        "activation": Dropdown(options=["relu", "gelu", "silu"], value="gelu",
                               description="activation"),
    }
    return LiveFigure(draw, controls, figsize=(10.0, 4.0), title="The FFN of one token", update=update)
