"""Notebook 09's demo of one decode step.

The demo is computed, not measured (so a redraw is quick): the bytes of weights and KV cache
one step reads (bfloat16), the MLP's share, and the roofline's time per step over batch
sizes, from the model's config and the GPU's published bandwidth and peak FLOP/s.
"""

import math
from functools import cache

import matplotlib
import numpy as np
from ipywidgets import Dropdown, SelectionSlider
from matplotlib.lines import TICKLEFT, Line2D
from matplotlib.ticker import FormatStrFormatter, NullLocator
from matplotlib.transforms import ScaledTranslation, offset_copy

from helpers.bandwidth import (
    GPUS,
    decode_weight_bytes,
    knee_batch,
    kv_cache_bytes,
    roofline_seconds,
)
from helpers.config_params import count_params
from helpers.demos.stamps import Label, in_place
from helpers.language import Text, said, say, translate
from helpers.plots import COLORS, NEUTRAL
from helpers.widgets import LiveFigure

MODELS = ("gpt2", "gpt2-xl", "tinyllama-1.1b", "llama-2-7b", "llama-3-8b", "mixtral-8x7b",
          "gpt3-175b")
# Published peak figures (helpers.bandwidth.GPUS, from NVIDIA's datasheets), and a laptop CPU.
HARDWARE = {f"{g.name}: {g.bandwidth / 1e12:.2f} TB/s, {g.peak_flops / 1e12:.0f} TFLOP/s":
            (g.bandwidth, g.peak_flops) for g in GPUS.values()}
HARDWARE[say("laptop CPU: about 60 GB/s, 1 TFLOP/s")] = (60e9, 1e12)   # said in the control
BATCHES = [2**i for i in range(11)]  # 1 ... 1024 sequences, one new token each
CONTEXTS = [128, 512, 2048, 8192, 32768]
BYTES_PER_PARAM = 2  # bfloat16 weights and cache
SAMPLE = {"model": "llama-3-8b", "batch": 64, "context": 8192,
          "hardware": "A100 80GB SXM: 2.04 TB/s, 312 TFLOP/s"}
LABELS = {"mlp": "MLP", "attention": say("attention layers"), "other": say("the rest"),
          "kv": "KV cache"}
TABLE_ROWS = [say("one step, batch"), say("context tokens"), *LABELS.values(),
              say("knee with cache:")]
# characters of the box; its values end at this column (the last row's follows its name)
TABLE_WIDTH = 27
TABLE_FONT = 9
ROW_PT = 11             # points from one row's baseline to the next
MONO_ADVANCE = 0.602    # a DejaVu Sans Mono character's width, in em
HANGUL_ADVANCE = 0.94   # a NanumGothic syllable's (the Korean edition's row names), in em
TICK_SLOTS = 6          # labels for up to six decades on the y axis
YLABEL_PT = 46          # the y label's distance left of the axes: room for labels such as "100000"
CURVES = ("no_kv", "with_kv", "no_kv_label", "with_kv_label", "knee", "knee_label")


@cache
def _model(name):
    breakdown = count_params(name, weights_only=name == "gpt3-175b")
    weights = decode_weight_bytes(breakdown, BYTES_PER_PARAM)
    active = breakdown.active - breakdown.components["embedding"] + breakdown.d_model
    return breakdown, weights, active


def step_bytes(name, batch, context):
    """Bytes one decode step reads, by part: MLP, attention, other weights, KV cache (None: 0)."""
    breakdown, weights, _ = _model(name)
    other = sum(v for k, v in weights.items() if k not in ("mlp", "attention"))
    kv = 0 if context is None else batch * kv_cache_bytes(breakdown, context, BYTES_PER_PARAM)
    return {"mlp": weights["mlp"], "attention": weights["attention"], "other": other, "kv": kv}


def step_seconds(name, batch, context, bandwidth, peak_flops):
    """The roofline's time for one step: 2 FLOPs per active weight per sequence vs bytes read."""
    _, _, active = _model(name)
    n_bytes = sum(step_bytes(name, batch, context).values())
    return roofline_seconds(2 * active * batch, n_bytes, peak_flops, bandwidth)


@cache
def _curves(model, context, hardware):
    """ms per step over BATCHES for weights only and with the KV cache, and both knees."""
    bandwidth, peak = HARDWARE[hardware]
    breakdown, _, active = _model(model)
    no_kv = [step_seconds(model, b, None, bandwidth, peak) * 1e3 for b in BATCHES]
    with_kv = [step_seconds(model, b, context, bandwidth, peak) * 1e3 for b in BATCHES]
    knee = peak * BYTES_PER_PARAM / (2 * bandwidth)
    kv_knee = knee_batch(active, kv_cache_bytes(breakdown, context, BYTES_PER_PARAM), peak,
                         bandwidth, BYTES_PER_PARAM)
    return no_kv, with_kv, knee, kv_knee


def _values(model, batch, context, hardware):
    """The box's value on each row, and the title."""
    parts = step_bytes(model, batch, context)
    weights = parts["mlp"] + parts["attention"] + parts["other"]
    _, with_kv, _, kv_knee = _curves(model, context, hardware)
    with_cache = (said("never") if kv_knee == float("inf")
                  else said("batch {batch:,.0f}", batch=kv_knee))
    now = with_kv[BATCHES.index(batch)]
    values = [str(batch), str(context), *(f"{parts[key] / 1e9:.1f} GB" for key in LABELS),
              f" {with_cache}"]
    title = said("{model}: MLP {mlp:.0%} of weight bytes, KV cache {kv:.0%} of all bytes read\n"
                 "{ms:.1f} ms per step at batch {batch}: {rate:,.0f} tokens/s", model=model,
                 mlp=parts["mlp"] / weights,
                 kv=parts["kv"] / sum(parts.values()), ms=now, batch=batch, rate=batch / now * 1e3)
    return now, values, title


def _row(fig, ax, i, column=0):
    """Where row i of the box sits: `column` characters from its left edge, on the row's
    baseline."""
    shift = ScaledTranslation(column * MONO_ADVANCE * TABLE_FONT / 72, -(8 + i * ROW_PT) / 72,
                              fig.dpi_scale_trans)
    return ax.transAxes + shift


def _columns(text):
    """How many monospace characters wide `text` is (a Hangul syllable, drawn in the Hangul font, is
    wider)."""
    return sum(HANGUL_ADVANCE / MONO_ADVANCE if "\uac00" <= c <= "\ud7a3" else 1 for c in text)


def _box(fig, ax):
    """The box of what one step reads: its row names (drawn once) and a text per row for its value,
    right-aligned but the last (the knee with the cache, a number or "never"), which follows its
    name."""
    fallback = matplotlib.rcParams["font.family"][1:]   # the Korean edition's Hangul font
    style = {"family": ["monospace", *fallback] if fallback else "monospace",
             "fontsize": TABLE_FONT, "va": "baseline"}
    names = [translate(name) if isinstance(name, Text) else name for name in TABLE_ROWS]
    # The names sit below the grid, so that a grid redrawn over them looks as a fresh one.
    for i, name in enumerate(names):
        ax.text(0.02, 0.97, name, transform=_row(fig, ax, i), zorder=1, **style)
    values = [ax.add_artist(Label(0.02, 0.97, "", transform=_row(fig, ax, i, TABLE_WIDTH),
                                  ha="right", **style))
              for i in range(len(TABLE_ROWS) - 1)]
    last = len(TABLE_ROWS) - 1
    # after its name
    knee = ax.add_artist(Label(0.02, 0.97, "", transform=_row(fig, ax, last, _columns(names[last])),
                               **style))
    return [*values, knee]


def _y_limits(no_kv, with_kv):
    """The curves' y range with margins (axes.ymargin of their span in decades), as a log axis
    autoscales it."""
    low, high = math.log10(min(no_kv)), math.log10(max(with_kv))
    pad = matplotlib.rcParams["axes.ymargin"] * (high - low)
    return 10 ** (low - pad), 10 ** (high + pad)


def _y_ticks(ax):
    """The y axis's grid lines, tick marks and labels, as a log axis draws them but as the axes'
    own artists: a move redraws these, and the axis keeps only its label, drawn once."""
    rc = matplotlib.rcParams
    on_y = ax.get_yaxis_transform()   # x in axes fractions, y in data
    grid = ax.add_line(Line2D([], [], transform=on_y, color=rc["grid.color"],
                              linewidth=rc["grid.linewidth"],
                              linestyle=rc["grid.linestyle"], alpha=rc["grid.alpha"], zorder=1.5))
    marks = ax.add_line(Line2D([], [], transform=on_y, marker=TICKLEFT, linestyle="none",
                               clip_on=False,
                               markersize=rc["ytick.major.size"],
                               markeredgewidth=rc["ytick.major.width"],
                               color=rc["ytick.color"], zorder=1.5))
    at_ticks, va, ha = ax.get_yaxis_text1_transform(rc["ytick.major.pad"] + rc["ytick.major.size"])
    labels = [ax.add_artist(Label(0, 1, "", transform=at_ticks, va=va, ha=ha,
                                  fontsize=rc["ytick.labelsize"]))
              for _ in range(TICK_SLOTS)]
    ax.yaxis.set_major_locator(NullLocator())
    ax.yaxis.set_label_coords(0, 0.5, transform=offset_copy(ax.transAxes, ax.figure, x=-YLABEL_PT,
                                                            units="points"))
    return {"grid": grid, "marks": marks, "labels": labels}


def _move_y_ticks(ticks, low, high):
    """A tick, a grid line and a label ("%g") at each power of ten from low to high."""
    decades = [10.0**k for k in range(math.ceil(math.log10(low)), math.floor(math.log10(high)) + 1)]
    ticks["grid"].set_data([0, 1, np.nan] * len(decades), np.repeat(decades, 3))
    ticks["marks"].set_data([0] * len(decades), decades)
    for i, label in enumerate(ticks["labels"]):
        label.set_text(f"{decades[i]:g}" if i < len(decades) else "")
        label.set_y(decades[i] if i < len(decades) else 1)


def draw(fig, model, batch, context, hardware):
    """The roofline's time per decode step over batch sizes, with this step's bytes by part.
    Returns the artists that `update` changes."""
    ax = fig.subplots()  # one axes: a second one (a bar chart) doubled the redraw time
    ax.set_xscale("log")
    ax.set_yscale("log")
    artists = {
        "ax": ax,
        "no_kv": ax.plot([], [], "-", color=COLORS["mlp"])[0],
        "with_kv": ax.plot([], [], "o-", color=COLORS["kv"], markersize=3)[0],
        "no_kv_label": ax.add_artist(Label(0, 0, " " + said("weights only"), color=COLORS["mlp"],
                                           fontsize=9, va="center")),
        "with_kv_label": ax.add_artist(Label(0, 0, " + KV cache", color=COLORS["kv"], fontsize=9,
                                             va="center")),
        "knee": ax.axvline(1, color=NEUTRAL, linestyle=":"),
        "knee_label": ax.add_artist(Label(0, 0, "", color=NEUTRAL, fontsize=9, va="bottom")),
        "point": ax.plot([], [], "o", color="black", markersize=7)[0],
        "values": _box(fig, ax),
        "y_ticks": _y_ticks(ax),
        "shown": None,
    }
    ax.set_xlim(0.7, BATCHES[-1] * 6)
    ax.set_xlabel(said("batch (sequences decoding together)"))
    ax.set_ylabel(said("ms per decode step (roofline)"))
    ax.minorticks_off()  # minor ticks and math-text labels of log axes are slow to draw
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.set_title("", fontsize=10, y=1.0)
    artists["title"] = in_place(ax.title)   # y given: where it stays, drawn by its Label
    update(fig, artists, model, batch, context, hardware)
    return artists


def _move_curves(artists, model, context, hardware):
    """Both curves, their labels and the knee for one model, context and GPU; the y axis fits
    them."""
    no_kv, with_kv, knee, _ = _curves(model, context, hardware)
    artists["no_kv"].set_data(BATCHES, no_kv)
    artists["with_kv"].set_data(BATCHES, with_kv)
    artists["no_kv_label"].set_position((BATCHES[-1], no_kv[-1]))
    artists["with_kv_label"].set_position((BATCHES[-1], with_kv[-1]))
    artists["knee"].set_xdata([knee, knee])
    artists["knee_label"].set_position((knee, no_kv[0]))
    artists["knee_label"].set_text(" " + said("knee, weights only: batch {knee:.0f}", knee=knee))
    low, high = _y_limits(no_kv, with_kv)
    artists["ax"].set_ylim(low, high)
    _move_y_ticks(artists["y_ticks"], low, high)


def update(fig, artists, model, batch, context, hardware):
    """Move the curves (when the model, context or GPU changed), the point, the box's values and
    the title. Return what may change, the same artists for every move (so that a move of the
    batch and one of the model repaint over the same background), in drawing order."""
    ax = artists["ax"]
    now, values, title = _values(model, batch, context, hardware)
    artists["point"].set_data([batch], [now])
    for text, value in zip(artists["values"], values, strict=True):
        text.set_text(value)
    ax.set_title(title, fontsize=10, y=1.0)
    artists["title"].set_text(title)
    if artists["shown"] != (model, context, hardware):
        artists["shown"] = (model, context, hardware)
        _move_curves(artists, model, context, hardware)
    ticks = artists["y_ticks"]
    changed = [artists["point"], artists["title"], *artists["values"], ticks["grid"],
               ticks["marks"],
               *ticks["labels"], ax.spines["left"], ax.spines["bottom"],
               *(artists[k] for k in CURVES)]
    ids = {id(a) for a in changed}
    return [a for a in ax.get_children() if id(a) in ids]


def make():
    controls = {
        "model": Dropdown(options=list(MODELS), value="gpt3-175b", description=said("model name")),
        "batch": SelectionSlider(options=BATCHES, value=1, description=said("batch size")),
        "context": SelectionSlider(options=CONTEXTS, value=2048,
                                   description=said("context tokens")),
        "hardware": Dropdown(options=[(translate(h) if isinstance(h, Text) else h, h)
                                      for h in HARDWARE],
                             value=list(HARDWARE)[-2], description=said("GPU or CPU")),
    }
    options = {"model": MODELS, "batch": BATCHES, "context": CONTEXTS, "hardware": list(HARDWARE)}
    # one control moved
    ahead = [{name: value} for name, values in options.items() for value in values]
    return LiveFigure(draw, controls, figsize=(8.0, 4.0), title=said("What one decode step reads"),
                      update=update, ahead=ahead)
