"""Notebook 10's demo: pick N workers and see how W1 and W2 are sliced, and what crosses the wire.

Drawn, not run: the figure is arithmetic on GPT-2 small's shapes, so a redraw is fast.
"""

import matplotlib
from ipywidgets import Dropdown, IntSlider
from matplotlib.patches import Rectangle

from helpers.widgets import LiveFigure

SAMPLE = {"n_workers": 8, "T": 4096, "dtype": "float32"}
D_MODEL, D_FF = 768, 3072                     # GPT-2 small: c_fc 768 -> 3072, c_proj 3072 -> 768
BYTES = {"float64": 8, "float32": 4, "bfloat16": 2}
CMAP = "tab10"
N_WORKERS = [1, 2, 3, 4, 6, 8]


def draw(fig, n_workers, T, dtype):
    """W1's columns and W2's rows, lined up by hidden unit and coloured by the worker holding them."""
    ax = fig.add_subplot(1, 1, 1)
    fig.subplots_adjust(left=0.17, right=0.97, bottom=0.24, top=0.88)
    gap = 160
    width = D_FF // n_workers                  # N_WORKERS all divide d_ff = 3072
    for rank in range(n_workers):
        start = rank * width
        color = matplotlib.colormaps[CMAP](rank % 10)
        # W1 (d_model x d_ff): the columns of these hidden units.
        ax.add_patch(Rectangle((start, gap), width, D_MODEL, facecolor=color, edgecolor="black"))
        # W2 (d_ff x d_model): the rows of the same hidden units, drawn below them.
        ax.add_patch(Rectangle((start, -gap - D_MODEL), width, D_MODEL, facecolor=color,
                               edgecolor="black"))
        ax.text(start + width / 2, 0, f"w{rank}" if n_workers > 4 else f"worker {rank}",
                ha="center", va="center", fontsize=9)
    ax.set_xlim(0, D_FF)
    ax.set_ylim(-gap - D_MODEL - 20, gap + D_MODEL + 20)
    ax.set_yticks([gap + D_MODEL / 2, -gap - D_MODEL / 2],
                  ["W1 = c_fc\ncolumns", "W2 = c_proj\nrows"])
    ax.grid(False)
    ax.set_xlabel("hidden unit (column of W1 = row of W2)")
    ax.set_ylabel("weight matrix")
    full = 2 * D_MODEL * D_FF
    ax.set_title(f"GPT-2 small's MLP over {n_workers} worker(s): "
                 f"{full // n_workers:,} weights each (1/{n_workers} of {full:,})")
    nbytes = T * D_MODEL * BYTES[dtype]
    wire = (f"one all-reduce per forward: T x d_model x bytes = {T:,} x {D_MODEL} x {BYTES[dtype]}"
            f" = {nbytes:,} bytes ({nbytes / 2**20:.2f} MiB), whatever N is"
            if n_workers > 1 else "one worker holds everything: nothing crosses the wire")
    fig.text(0.02, 0.03, wire, fontsize=9)


def make():
    controls = {
        "n_workers": Dropdown(options=N_WORKERS, value=2, description="N workers"),
        "T": IntSlider(value=1024, min=1, max=8192, step=1, description="T (tokens)",
                       continuous_update=False),
        "dtype": Dropdown(options=list(BYTES), value="float32", description="dtype"),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 4.2), title="Tensor-parallel split")
