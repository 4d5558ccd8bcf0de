"""Notebook 15's demo: a threshold slider over the fact model's MLP 1 for one prompt.

Left: the hidden units (one column each) of every word of "the capital of france is", lit where the
unit is on (|h| above the threshold times the word's largest). Right: the bytes of MLP 1's weights a
decode step reads for the last word: dense, with the exact set known only after c_fc, and with the
set known before (a perfect predictor). The title gives the facts the model still answers with every
unit under the threshold dropped in both MLPs. Everything is computed when the demo is made (eleven
thresholds). A move changes only the mask's image, the three bars and the two titles (drawn from
images made once for each threshold when the figure shows), painted over the rest, which is drawn
once.
"""

from functools import lru_cache

import numpy as np
import torch
from ipywidgets import SelectionSlider

from helpers import facts, hooks, kv_memory, sparsity
from helpers.capacity import one_thread
from helpers.checks.state import kept
from helpers.demos.stamps import Stamp
from helpers.language import said
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
    """For each threshold: the active mask (T, d_ff) of the prompt, the Bytes, and the fact
    accuracy."""
    with kept(), one_thread():
        model, vocab = kv_memory.load()
        prompts = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES)
        idx = torch.tensor([vocab.encode(WORDS)])
        h = sparsity.record_mlps(model, idx)[LAYER][1][0]                     # (T, d_ff)
        cfg = model.config
        table = {}
        for t in THRESHOLDS:
            active = sparsity.active_units(h, t)
            with hooks.attached({b.mlp.act: _dropped(t) for b in model.blocks}):
                acc = kv_memory.accuracy(model, prompts)
            table[t] = active.numpy(), sparsity.bytes_read(active[-1], cfg.d_model, cfg.d_ff,
                                                           bias=True), acc
    return table


def _titles(threshold):
    mask, b, acc = _table()[threshold]
    left = said("MLP {layer}: {off:.0%} of units off for 'is' at threshold {threshold:.2f}",
                layer=LAYER, off=1 - mask[-1].mean(), threshold=threshold)
    right = said("facts still right: {accuracy:.0%}", accuracy=acc)
    return left, right


def draw(fig, threshold):
    """The mask of every word (left) and the three bars (right), on fixed axes; returns the artists
    `update` changes."""
    ax1, ax2 = fig.subplots(1, 2, width_ratios=(2.2, 1))
    # fixed: nothing moves
    fig.subplots_adjust(left=0.09, right=0.985, bottom=0.17, top=0.88, wspace=0.5)
    # a grid over a picture of units hides them
    ax1.grid(False)
    # the grid under the bars, which a move repaints
    ax2.set_axisbelow(True)
    mask, b, _ = _table()[threshold]
    image = ax1.imshow(mask, aspect="auto", interpolation="nearest", vmin=0, vmax=1,
                       cmap=_cmap(), extent=(-0.5, mask.shape[1] - 0.5, len(WORDS) - 0.5, -0.5))
    ax1.set_yticks(range(len(WORDS)), WORDS)
    ax1.set(xlabel=said("hidden unit (a row of c_fc and a column of c_proj)"), ylabel="word")
    kib = np.array(b) / 1024
    bars = ax2.barh([2, 1, 0], kib, color=[NEUTRAL, COLORS["mlp"], COLORS["reference"]])
    ax2.set_yticks([2, 1, 0], ["dense", said("exact set"), said("known before")])
    # dense is the same at every threshold
    ax2.set_xlim(0, 1.05 * kib[0])
    ax2.set(xlabel=said("KiB of MLP {layer} read for 'is'", layer=LAYER),
            ylabel=said("weights read"))
    artists = {"image": image, "bars": list(bars), "left": ax1.add_artist(Stamp([ax1.title])),
               "right": ax2.add_artist(Stamp([ax2.title])), "ax1": ax1, "ax2": ax2}
    _show(artists, threshold)
    return artists


def _show(artists, threshold):
    """Set the mask, the bars' lengths and the titles for this threshold; return what changed."""
    mask, b, _ = _table()[threshold]
    artists["image"].set_data(mask)
    for bar, kib in zip(artists["bars"], np.array(b) / 1024, strict=True):
        bar.set_width(kib)
    left, right = _titles(threshold)
    artists["ax1"].set_title(left, y=1.0)
    artists["ax2"].set_title(right, y=1.0)
    artists["left"].key, artists["right"].key = left, right      # the images are the titles' own
    spines = [spine for ax in (artists["ax1"], artists["ax2"]) for spine in ax.spines.values()
              if spine.get_visible()]
    # spines: drawn over both
    return [artists["image"], *artists["bars"], *spines, artists["left"], artists["right"]]


def update(fig, artists, threshold):
    """A move: the mask, the three bars and the two titles change; the axes, ticks and labels
    stay."""
    return _show(artists, threshold)


def _cmap():
    from matplotlib.colors import ListedColormap
    return ListedColormap(["#f2f2f2", COLORS["mlp"]])


def make():
    _table()
    controls = {"threshold": SelectionSlider(
        options=THRESHOLDS, value=0.1,
        description=said("threshold (share of the word's largest |h|)"))}
    return LiveFigure(draw, controls, figsize=(9.0, 3.2),
                      title=said("Which units a step could skip"),
                      update=update, ahead=[{"threshold": t} for t in THRESHOLDS])
