"""Notebook 03's demo: pick d_model, the expansion factor and the activation; see the
shapes, parameters and FLOPs of the FFN and the hidden activations of one token.

The hidden units are drawn as points, each at its input and its output: what the activation does
to each one, with no axis that counts them (how many units ReLU switches off is notebook 04's first
prediction, which the learner makes before counting).

Its changing text (titles, widths) is drawn from images of its strings, made for all 60 settings
when the figure shows (helpers.demos.stamps), so that a first look at one is as quick as a repeat.
"""

from functools import lru_cache

import numpy as np
from ipywidgets import Dropdown

from helpers import activations, language
from helpers.demos.stamps import Label, in_place
from helpers.language import said
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

SAMPLE = {"d_model": 512, "expansion": 16, "activation": "relu"}
D_MODELS = (64, 128, 256, 512)
EXPANSIONS = (1, 2, 4, 8, 16)
ACTIVATIONS = ("relu", "gelu", "silu")
SHOWN = 400              # 400 of the units, evenly spread over their sorted values, are drawn
VALUE_LIMIT = 4.2        # every setting's hidden values lie within -3.9 and 3.9


@lru_cache(maxsize=len(D_MODELS))
def _hidden_layers(d_model):
    """{d_ff: pre-activations h = x @ W1 + b1 (d_ff,)} of one random token, for every d_ff of
    this d_model. Each d_ff draws x, W1 and b1 in turn from a generator seeded 3, so a shape's
    numbers are the first ones of one long stream: drawn once for all its d_ff."""
    longest = max(EXPANSIONS) * d_model
    stream = np.random.default_rng(3).standard_normal(d_model * (1 + longest) + longest,
                                                      dtype=np.float32)
    x = stream[:d_model]
    layers = {}
    for d_ff in (e * d_model for e in EXPANSIONS):
        end_W1 = d_model * (1 + d_ff)
        W1 = stream[d_model:end_W1].reshape(d_model, d_ff) / np.sqrt(d_model)
        b1 = 0.1 * stream[end_W1:end_W1 + d_ff]
        layers[d_ff] = x @ W1 + b1
    return layers


def _hidden(d_model, d_ff):
    """Pre-activations h = x @ W1 + b1 (d_ff,) of one random token, fixed seed per shape."""
    return _hidden_layers(d_model)[d_ff]


@lru_cache(maxsize=2 * len(D_MODELS) * len(EXPANSIONS) * len(ACTIVATIONS))
def _numbers(d_model, expansion, activation, lang):
    """What the figure shows: widths, the left title, the sorted curves and the right title, in the
    language `lang` (part of the cache's key: a title said in Korean is not kept for English)."""
    d_ff = expansion * d_model
    params = 2 * d_model * d_ff + d_ff + d_model
    # per token: two matmuls, 2 FLOPs per multiply-add
    flops = 4 * d_model * d_ff
    h = np.sort(_hidden(d_model, d_ff))
    a = activations.get(activation)(h)
    shown = np.unique(np.linspace(0, d_ff - 1, SHOWN).astype(int))
    return {
        "widths": [d_model, d_ff, d_ff, d_model],
        "names": ["x", "x @ W1 + b1", activation, "out"],
        "left_title": said("d_ff = {expansion} x {d_model} = {d_ff:,}\n"
                           "{params:,} parameters, {flops:,} FLOPs per token",
                           expansion=expansion, d_model=d_model, d_ff=d_ff, params=params,
                           flops=flops),
        "before": h[shown], "after": a[shown], "span": [h[0], h[-1]],
        "right_title": said(
            "One token's {d_ff:,} hidden units: each one's output against its input", d_ff=d_ff),
    }


def _widths(ax, n):
    """The four steps as bars to scale (the widest, d_ff, spans the panel), each with its width;
    returns the bars and their labels."""
    bars, labels = [], []
    for i, (w, label) in enumerate(zip(n["widths"], n["names"], strict=True)):
        share = w / max(n["widths"])
        bars += ax.barh(i, share, left=-share / 2, color=COLORS["mlp"] if i in (1, 2)
                        else "#9ecae1", edgecolor="black").patches
        labels.append(ax.add_artist(Label(0, i, f"{label}\n({w:,})", ha="center", va="center",
                                          fontsize=9)))
    ax.set_xlim(-0.55, 0.55)
    ax.set_yticks(range(4), ["input", "up", "activation", "down"])
    ax.set_xticks([])
    ax.grid(False)   # no grid lines across the bars, which are repainted on every move
    ax.invert_yaxis()
    ax.set_ylabel(said("step of the forward pass"))
    ax.set_xlabel(said("width = features per token (to scale)"))
    ax.set_title(n["left_title"], fontsize=9, y=1.0)   # y: where it stays, drawn by its Label
    return bars, labels


def _hidden_panel(ax_h, n, activation):
    """One token's hidden units as points, each at its input h (x axis) and its output after the
    activation (y axis), over the line output = input that spans the token's inputs: where a point
    leaves the line, the activation changed that unit. Fixed axes; the activation's name labels its
    points. Returns the line, the points and that label."""
    color = COLORS.get(activation, "black")
    (before,) = ax_h.plot(n["span"], n["span"], color=COLORS["neutral"], lw=1,
                          label=said("unchanged: output = input"))
    (after,) = ax_h.plot(n["before"], n["after"], ".", color=color, ms=3)
    # Above the flat left part of every activation, below the legend.
    label = ax_h.add_artist(Label(-3.9, 0.3, said("after {activation}", activation=activation),
                                  color=color, fontsize=9, va="bottom"))
    ax_h.set_xlim(-VALUE_LIMIT, VALUE_LIMIT)
    ax_h.set_xticks(range(-4, 5))
    ax_h.set_ylim(-VALUE_LIMIT, VALUE_LIMIT)
    ax_h.set_yticks(range(-4, 5))
    ax_h.set_xlabel(said("a hidden unit's input h = x @ W1 + b1"))
    ax_h.set_ylabel(said("its output after the activation"))
    ax_h.set_title(n["right_title"], fontsize=9, y=1.0)
    ax_h.legend(loc="upper left", fontsize=9)
    return before, after, label


def draw(fig, d_model, expansion, activation):
    """Left: the shapes d_model -> d_ff -> d_model. Right: one token's d_ff hidden values.
    Returns the artists that `update` changes."""
    n = _numbers(d_model, expansion, activation, language.current())
    ax, ax_h = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.4]})
    bars, labels = _widths(ax, n)
    before, after, after_label = _hidden_panel(ax_h, n, activation)
    fig.subplots_adjust(left=0.13, right=0.97, wspace=0.3)
    # The titles drawn from images of them, one per setting (made when the figure shows: `ahead`).
    titles = [in_place(a.title) for a in (ax, ax_h)]
    return {"ax": ax, "ax_h": ax_h, "bars": bars, "labels": labels, "before": before,
            "after": after, "after_label": after_label, "titles": titles}


def update(fig, artists, d_model, expansion, activation):
    """Resize the bars, move the curves and rewrite the texts on fixed axes; return what
    changed, so that a move repaints only these."""
    n = _numbers(d_model, expansion, activation, language.current())
    widest = max(n["widths"])
    for bar, text, w, label in zip(artists["bars"], artists["labels"], n["widths"], n["names"],
                                   strict=True):
        bar.set_x(-w / widest / 2)
        bar.set_width(w / widest)
        text.set_text(f"{label}\n({w:,})")
    color = COLORS.get(activation, "black")
    artists["before"].set_data(n["span"], n["span"])
    artists["after"].set_data(n["before"], n["after"])
    artists["after"].set_color(color)
    artists["after_label"].set_text(said("after {activation}", activation=activation))
    artists["after_label"].set_color(color)
    artists["ax"].set_title(n["left_title"], fontsize=9, y=1.0)
    artists["ax_h"].set_title(n["right_title"], fontsize=9, y=1.0)
    for label, text in zip(artists["titles"], (n["left_title"], n["right_title"]), strict=True):
        label.set_text(text)
    return [*artists["bars"], *artists["labels"], artists["before"], artists["after"],
            artists["after_label"], *artists["titles"]]


def _warm_up():
    """Draw every shape's random token once (about 6 million random numbers), so that a first
    look at any setting is as quick as a repeat."""
    for d_model in D_MODELS:
        _hidden_layers(d_model)


def make():
    _warm_up()
    controls = {
        "d_model": Dropdown(options=list(D_MODELS), value=512, description="d_model"),
        "expansion": Dropdown(options=list(EXPANSIONS), value=4, description="d_ff / d_model"),
        "activation": Dropdown(options=list(ACTIVATIONS), value="gelu", description="activation"),
    }
    every = [{"d_model": d, "expansion": e, "activation": a} for d in D_MODELS for e in EXPANSIONS
             for a in ACTIVATIONS]
    return LiveFigure(draw, controls, figsize=(10.0, 4.0), title=said("The FFN of one token"),
                      update=update, ahead=every)
