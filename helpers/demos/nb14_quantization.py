"""Notebook 14's demo: bits and grouping of the fact model's MLP weights, and what they cost.

The histogram of MLP 0's c_fc weights is drawn once; a move repaints the quantisation levels of
one group (row 0's first group: per tensor, the whole tensor's) and the title, which says the
weight error, the output error and the recall of the 118 facts. Every setting is computed when
the demo is made (one fake-quantised copy of the model each), so a move only redraws.
"""

import copy
from functools import lru_cache

import numpy as np
import torch
from ipywidgets import Dropdown, SelectionSlider
from matplotlib.collections import LineCollection

from helpers import kv_memory
from helpers import quantize as Q
from helpers.capacity import one_thread
from helpers.checks.state import kept
from helpers.demos.stamps import in_place
from helpers.language import said, say
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

BITS = (2, 3, 4, 5, 6, 8)
GROUPINGS = ("tensor", "row", "64", "32", "16")
SAMPLE = {"bits": 3, "grouping": "32"}


def _granularity(grouping):
    return grouping if grouping in ("tensor", "row") else int(grouping)


@lru_cache(maxsize=1)
def _model():
    with kept():   # building the model draws from torch's generator before its weights load
        model, vocab = kv_memory.load()
    return model, kv_memory.make_prompts(vocab, ["the capital of {} is"])


@lru_cache(maxsize=1)
def _table():
    """{(bits, grouping): (levels of the shown group, W error, output error, recall)}."""
    model, prompts = _model()
    W = model.blocks[0].mlp.c_fc.weight.detach()
    table = {}
    with torch.no_grad(), one_thread():
        exact = model(prompts.idx)
        for bits in BITS:
            for grouping in GROUPINGS:
                k = _granularity(grouping)
                q, scale = Q.quantize(W, bits, k)
                step = float(scale[0, 0])
                levels = step * np.arange(-Q.levels(bits), Q.levels(bits) + 1)
                rounded = copy.deepcopy(model)
                for block in rounded.blocks:
                    block.mlp = Q.fake_quantized(block.mlp, bits, k)
                out = rounded(prompts.idx)
                recall = (kv_memory.answer_logits(out, prompts).argmax(-1)
                          == prompts.answer).float().mean()
                table[bits, grouping] = (levels, Q.relative_error(Q.dequantize(q, scale), W),
                                         Q.relative_error(out, exact), float(recall))
    return table


def draw(fig, bits, grouping):
    """The weights' histogram (once) and the levels; returns the artists that update changes."""
    model, _ = _model()
    W = model.blocks[0].mlp.c_fc.weight.detach().flatten().numpy()
    ax = fig.subplots()
    edge = 1.05 * float(np.abs(W).max())
    ax.hist(W, bins=np.linspace(-edge, edge, 81), color=COLORS["mlp"], alpha=0.8)
    ax.set_xlim(-edge, edge)
    ax.set_ylim(0, ax.get_ylim()[1])
    ax.grid(False)
    ax.set(xlabel=said("weight of MLP 0's c_fc (all 16,384)"), ylabel="count")
    ax.set_title(" ", y=1.0)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.17, top=0.86)
    top = ax.get_ylim()[1]
    artists = {"ax": ax, "top": top,
               "levels": ax.add_collection(LineCollection([], colors=COLORS["neutral"],
                                                          linewidths=0.8),
                                           autolim=False),
               "title": in_place(ax.title)}
    _show(artists, bits, grouping)
    return artists


def _show(artists, bits, grouping):
    levels, w_err, out_err, recall = _table()[bits, str(grouping)]
    top = artists["top"]
    artists["levels"].set_segments([[(v, 0), (v, top)] for v in levels])
    where = {"tensor": say("per tensor"), "row": say("per row")}.get(
        str(grouping), say("groups of {size}", size=grouping))
    artists["title"].set_text(said("{bits} bits, {where}: weight error {w_err:.0%}, output error "
                                   "{out_err:.0%}, recall "
                                   "{recall:.0%}", bits=bits, where=where, w_err=w_err,
                                   out_err=out_err, recall=recall))
    return [artists["levels"], artists["title"]]


def update(fig, artists, bits, grouping):
    return _show(artists, bits, grouping)


def make():
    _table()   # every setting computed now, so that a move only redraws
    controls = {"bits": SelectionSlider(options=list(BITS), value=4, description="bits"),
                "grouping": Dropdown(options=list(GROUPINGS), value="row",
                                     description=said("scale per"))}
    return LiveFigure(draw, controls, figsize=(8.0, 3.4),
                      title=said(
                          "Fewer bits, wider steps: the levels of one group over the weights"),
                      update=update)
