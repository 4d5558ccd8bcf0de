"""Notebook 01's pictures and demo: one output as a dot product, one changed token, and
X (T x d) @ W (d x m) = Z (T x m) drawn to scale with T, d and m on the edges."""

import numpy as np
from ipywidgets import IntSlider
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from helpers.language import said, say, translate
from helpers.plots import NEUTRAL, OKABE_ITO
from helpers.widgets import LiveFigure

# One colour per role, the same in every picture of the notebook.
INPUT = OKABE_ITO["sky_blue"]        # x, X: the tokens
WEIGHT = OKABE_ITO["orange"]         # W
OUTPUT = OKABE_ITO["bluish_green"]   # z, Z
BLANK = "white"

SAMPLE = {"T": 16, "d": 32, "m": 128}
# The live title's templates by (one weight, one token), translated once and filled at each move.
TITLES = {(False, False): say("X @ W = Z: 2·T·d·m = {flops:,} FLOPs; W holds {weights:,} weights, "
                             "shared by all {T} tokens"),
          (False, True): say("X @ W = Z: 2·T·d·m = {flops:,} FLOPs; W holds {weights:,} weights, "
                             "shared by all {T} token"),
          (True, False): say("X @ W = Z: 2·T·d·m = {flops:,} FLOPs; W holds {weights:,} weight, "
                             "shared by all {T} tokens"),
          (True, True): say("X @ W = Z: 2·T·d·m = {flops:,} FLOPs; W holds {weights:,} weight, "
                            "shared by all {T} token")}


def _cells(ax, values, left, top, fill, numbers=True):
    """A matrix as a grid of unit cells, row 0 at the top; fill[r][c] colours each cell."""
    rows, cols = fill.shape[:2] if values is None else values.shape
    for r in range(rows):
        for c in range(cols):
            ax.add_patch(Rectangle((left + c, top - r - 1), 1, 1, facecolor=fill[r][c],
                                   edgecolor=NEUTRAL, lw=0.8))
            if numbers:
                ax.text(left + c + 0.5, top - r - 0.5, f"{values[r, c]:g}", ha="center",
                        va="center", fontsize=9)


def _fill(shape, color, mask=None):
    """An array of colours: `color` where mask is True (everywhere without a mask), else blank."""
    fill = np.full(shape, BLANK, dtype=object)
    fill[np.ones(shape, bool) if mask is None else mask] = color
    return fill


def dot_product(x, W, column):
    """Figure: x (d,) @ W (d, m) = z (m,), with one column of W and its output entry marked."""
    x, W = np.asarray(x, float), np.asarray(W, float)
    d, m = W.shape
    z = x @ W
    fig = Figure(figsize=(9.0, 3.2))
    ax = fig.add_axes((0.01, 0.02, 0.98, 0.8))
    middle = d / 2 + 0.5                       # x and z sit at the height of W's middle
    in_column = np.zeros((d, m), bool)
    in_column[:, column] = True
    out_entry = np.zeros((1, m), bool)
    out_entry[0, column] = True
    left_W, left_z = d + 1.5, d + m + 3.0
    _cells(ax, x[None, :], 0, middle, _fill((1, d), INPUT))
    _cells(ax, W, left_W, d, _fill((d, m), WEIGHT, in_column))
    _cells(ax, z[None, :], left_z, middle, _fill((1, m), OUTPUT, out_entry))
    for at, sign in ((d + 0.75, "@"), (d + m + 2.25, "=")):
        ax.text(at, middle - 0.5, sign, ha="center", va="center", fontsize=14)
    for left, top, name in ((0, middle, "x"), (left_W, d, "W"), (left_z, middle, "z = x @ W")):
        ax.text(left, top + 0.3, name, ha="left", va="bottom", fontsize=11)
    for c in range(m):
        ax.text(left_W + c + 0.5, -0.3, f"{c + 1}", ha="center", va="top", fontsize=9,
                weight="bold" if c == column else "normal")
    terms = " + ".join(f"({a:g})·({b:g})" for a, b in zip(x, W[:, column], strict=True))
    ax.text(left_W + m / 2, -1.3, said("output {n} = {terms} = {value:g}", n=column + 1,
                                       terms=terms, value=z[column]),
            ha="center", va="top", fontsize=10)
    ax.set_xlim(-0.3, left_z + m + 0.3)
    ax.set_ylim(-2.3, d + 1.2)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(said(
        "Output {n} = x · column {n} of W = {value:g}: each output has its own column",
        n=column + 1, value=z[column]), fontsize=11)
    return fig


def changed_rows(X, X_changed, Z, Z_changed):
    """Figure: which entries of X and of Z = X @ W differ between two runs, token by token."""
    moved_in = np.asarray(X) != np.asarray(X_changed)
    moved_out = np.asarray(Z) != np.asarray(Z_changed)
    (T, d), m = moved_in.shape, moved_out.shape[1]
    fig = Figure(figsize=(8.0, 2.9))
    ax = fig.add_axes((0.01, 0.02, 0.8, 0.8))
    left_Z = d + 3.0
    _cells(ax, None, 0, T, _fill((T, d), INPUT, moved_in), numbers=False)
    _cells(ax, None, left_Z, T, _fill((T, m), OUTPUT, moved_out), numbers=False)
    ax.text(d + 1.5, T / 2, said("@ W"), ha="center", va="center", fontsize=12)
    for t in range(T):
        ax.text(-0.3, T - t - 0.5, said("token {t}", t=t), ha="right", va="center", fontsize=10)
    ax.text(0, T + 0.3, f"X ({T} x {d})", ha="left", va="bottom", fontsize=11)
    ax.text(left_Z, T + 0.3, f"Z = X @ W ({T} x {m})", ha="left", va="bottom", fontsize=11)
    ax.legend(handles=[Patch(facecolor=INPUT, edgecolor=NEUTRAL, label=said("changed in X")),
                       Patch(facecolor=OUTPUT, edgecolor=NEUTRAL, label=said("changed in Z")),
                       Patch(facecolor=BLANK, edgecolor=NEUTRAL, label="unchanged")],
              loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    ax.set_xlim(-2.6, left_Z + m + 0.3)
    ax.set_ylim(-0.3, T + 1.2)
    ax.set_aspect("equal")
    ax.set_axis_off()
    rows_in = ", ".join(str(t) for t in sorted(set(np.nonzero(moved_in)[0].tolist())))
    rows_out = ", ".join(str(t) for t in sorted(set(np.nonzero(moved_out)[0].tolist())))
    ax.set_title(said("Change token {rows_in}: row {rows_out} of Z moves, the others stay bit for "
                      "bit", rows_in=rows_in, rows_out=rows_out), fontsize=11)
    return fig


def _block(ax, color):
    """A matrix drawn to scale as one rectangle, with texts for its sizes on its top and left
    edges and its name below (placed by `_place_block`)."""
    rect = ax.add_patch(Rectangle((0, 0), 1, 1, facecolor=color, edgecolor="black", lw=1.0))
    cols = ax.annotate("", (0, 0), xytext=(0, 3), textcoords="offset points",
                       ha="center", va="bottom", fontsize=10)
    rows = ax.annotate("", (0, 0), xytext=(-3, 0), textcoords="offset points",
                       ha="right", va="center", fontsize=10, rotation=90)
    name = ax.annotate("", (0, 0), xytext=(0, -4), textcoords="offset points",
                       ha="center", va="top", fontsize=11, weight="bold")
    return rect, cols, rows, name


def _place_block(block, left, top, width, height, name, rows, cols):
    """Move and resize a matrix from `_block` and rewrite its sizes."""
    rect, cols_text, rows_text, name_text = block
    rect.set_bounds(left, top - height, width, height)
    cols_text.xy = (left + width / 2, top)
    cols_text.set_text(cols)
    rows_text.xy = (left, top - height / 2)
    rows_text.set_text(rows)
    name_text.xy = (left + width / 2, top - height)
    name_text.set_text(name)


def _place(artists, T, d, m):
    """Lay X (T x d) @ W (d x m) = Z (T x m) out to scale, filling the axes: move the blocks and
    the signs, set the limits and the title."""
    ax = artists["ax"]
    high = max(T, d)
    gap = max(0.12 * (d + 2 * m) + 1, 0.4 * high)   # room for the labels between the blocks
    left_W, left_Z = d + gap, d + m + 2 * gap
    X, W, Z = artists["blocks"]
    _place_block(X, 0, 0, d, T, "X", f"T = {T}", f"d = {d}")
    _place_block(W, left_W, 0, m, d, "W", f"d = {d}", f"m = {m}")
    _place_block(Z, left_Z, 0, m, T, "Z", f"T = {T}", f"m = {m}")
    middle = -min(T, d) / 2
    at, equals = artists["signs"]
    at.set_position((d + gap / 2, middle))
    equals.set_position((left_W + m + gap / 2, middle))
    # Equal scale on both axes, set by hand (no layout pass): the blocks fill the axes,
    # with a few pixels left around them for the labels.
    wide, (width_px, height_px) = left_Z + m, (ax.bbox.width, ax.bbox.height)
    pad_side, pad_top, pad_bottom = 24, 22, 24
    scale = min((width_px - 2 * pad_side) / wide, (height_px - pad_top - pad_bottom) / high)
    left = -(width_px / scale - wide) / 2
    bottom = -high - (height_px / scale - high) * pad_bottom / (pad_top + pad_bottom)
    ax.set_xlim(left, left + width_px / scale)
    ax.set_ylim(bottom, bottom + height_px / scale)
    ax.set_title(artists["titles"][d * m == 1, T == 1].format(
        flops=2 * T * d * m, weights=d * m, T=T), fontsize=11)


def draw(fig, T, d, m):
    """X (T x d) @ W (d x m) = Z (T x m) to scale, T, d and m on the edges; FLOPs and weights.
    Returns the artists that `update` moves."""
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.8))
    ax.set_axis_off()
    artists = {"ax": ax, "blocks": [_block(ax, color) for color in (INPUT, WEIGHT, OUTPUT)],
               "signs": [ax.text(0, 0, sign, ha="center", va="center", fontsize=14)
                         for sign in "@="],
               "titles": {key: translate(template) for key, template in TITLES.items()}}
    _place(artists, T, d, m)
    return artists


def update(fig, artists, T, d, m):
    """Lay the blocks out again for new sizes; every artist moves, so all are returned (what
    stays is the blank figure)."""
    _place(artists, T, d, m)
    return [*(a for block in artists["blocks"] for a in block), *artists["signs"],
            artists["ax"].title]


def make():
    controls = {
        "T": IntSlider(value=4, min=1, max=64, description=said("T (tokens)"),
                       continuous_update=False),
        "d": IntSlider(value=4, min=1, max=64, description=said("d (input size)"),
                       continuous_update=False),
        "m": IntSlider(value=8, min=1, max=256, description=said("m (output size)"),
                       continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 3.5), title="X @ W = Z", update=update)
