"""Notebook 15's demo: a threshold slider over the fact model's MLP 1 for one prompt.

Left: the hidden units (one column each) of every word of "the capital of france is", lit where
the unit is on (|h| above the threshold times the word's largest). Right: the bytes of MLP 1's
weights a decode step reads for the last word: dense, with the exact set known only after c_fc,
and with the set known before (a perfect predictor). The title gives the facts the model still
answers with every unit under the threshold dropped in both MLPs. Everything is computed when the
demo is made (eleven thresholds); a move sets the image, three bar widths and two titles, and
repaints only those over the rest of the figure, drawn once (the titles' images are made once for
each threshold when the figure shows).
"""

from functools import lru_cache

import numpy as np
import torch
from ipywidgets import SelectionSlider

from helpers import facts, kv_memory, sparsity
from helpers.capacity import one_thread
from helpers.checks.state import kept
from helpers.demos.stamps import Stamp
from helpers.plots import COLORS, NEUTRAL
from helpers.widgets import LiveFigure

LAYER = 1
WORDS = "the capital of france is".split()
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(11))
SAMPLE = {"threshold": 0.2}


def _dropped(threshold):
    """A hook that zeroes the units under threshold x the token's largest."""
    def hook(module, inputs, output):
        return output * sparsity.active_units(output, threshold)
    return hook


@lru_cache(maxsize=1)
def _table():
    """For each threshold: the active mask (T, d_ff) of the prompt, the Bytes, and the fact accuracy."""
    with kept(), one_thread():
        model, vocab = kv_memory.load()
        prompts = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES)
        idx = torch.tensor([vocab.encode(WORDS)])
        h = sparsity.record_mlps(model, idx)[LAYER][1][0]                     # (T, d_ff)
        cfg = model.config
        table = {}
        for t in THRESHOLDS:
            active = sparsity.active_units(h, t)
            with kv_memory.hooks({b.mlp.act: _dropped(t) for b in model.blocks}):
                acc = kv_memory.accuracy(model, prompts)
            table[t] = active.numpy(), sparsity.bytes_read(active[-1], cfg.d_model, cfg.d_ff, bias=True), acc
    return table


def _titles(threshold):
    mask, b, acc = _table()[threshold]
    left = f"MLP {LAYER}: {1 - mask[-1].mean():.0%} of units off for 'is' at threshold {threshold:.2f}"
    right = f"facts still right: {acc:.0%}"
    return left, right


def draw(fig, threshold):
    ax1, ax2 = fig.subplots(1, 2, width_ratios=(2.2, 1))
    fig.subplots_adjust(bottom=0.17, wspace=0.55)   # the bars' labels beside the units, not over them; x labels in
    mask, b, _ = _table()[threshold]
    image = ax1.imshow(mask, aspect="auto", interpolation="nearest", vmin=0, vmax=1,
                       cmap=_cmap(), extent=(-0.5, mask.shape[1] - 0.5, len(WORDS) - 0.5, -0.5))
    ax1.set_yticks(range(len(WORDS)), WORDS)
    ax1.grid(False)   # no grid over the units
    image.set_zorder(3)   # above the axes' lines, where a move repaints it
    ax1.set(xlabel="hidden unit (a row of c_fc and a column of c_proj)", ylabel="word")
    kib = np.array(b) / 1024
    bars = ax2.barh([2, 1, 0], kib, color=[NEUTRAL, COLORS["mlp"], COLORS["reference"]])
    for bar in bars:
        bar.set_zorder(3)   # above the grid and the axis, where a move repaints them
    ax2.set_yticks([2, 1, 0], ["dense", "exact set", "known before"])
    ax2.set_xlim(0, 1.05 * kib[0])
    ax2.set(xlabel="KiB of MLP 1 read for 'is'", ylabel="weights read")
    left, right = _titles(threshold)
    ax1.set_title(left, y=1.0)
    ax2.set_title(right, y=1.0)
    artists = {"image": image, "bars": list(bars), "left": ax1.add_artist(Stamp([ax1.title])),
               "right": ax2.add_artist(Stamp([ax2.title])), "ax1": ax1, "ax2": ax2}
    artists["left"].key, artists["right"].key = left, right      # the images are the titles' own
    return artists


def _cmap():
    from matplotlib.colors import ListedColormap
    return ListedColormap(["#f2f2f2", COLORS["mlp"]])


def update(fig, artists, threshold):
    """Set what draw made to another threshold; return the artists that changed."""
    mask, b, _ = _table()[threshold]
    artists["image"].set_data(mask)
    for bar, value in zip(artists["bars"], np.array(b) / 1024, strict=True):
        bar.set_width(value)
    left, right = _titles(threshold)
    artists["ax1"].set_title(left, y=1.0)
    artists["ax2"].set_title(right, y=1.0)
    artists["left"].key, artists["right"].key = left, right
    return [artists["image"], *artists["bars"], artists["left"], artists["right"]]


def make():
    _table()
    controls = {"threshold": SelectionSlider(options=THRESHOLDS, value=0.1,
                                             description="threshold (share of the word's largest |h|)")}
    return LiveFigure(draw, controls, figsize=(9.0, 3.2), title="Which units a step could skip", update=update,
                      ahead=[{"threshold": t} for t in THRESHOLDS])
