"""Notebook 10's figures: the data flow of the split, and a demo of who holds which block.

Drawn, not run: the figures are arithmetic on GPT-2 small's shapes, so a redraw is fast.
`dataflow(n_workers)` draws x -> shards -> partial outputs -> all-reduce (section 2);
`make()` is the live demo: W1's columns and W2's rows coloured by the worker that holds
them, with the bytes one all-reduce hands in and the bytes a ring sends per worker.
"""

from ipywidgets import Dropdown, IntSlider
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from helpers.plots import NEUTRAL, OKABE_ITO
from helpers.tensor_parallel import ring_bytes
from helpers.widgets import LiveFigure

SAMPLE = {"n_workers": 8, "T": 4096, "dtype": "float32"}
D_MODEL, D_FF = 768, 3072                     # GPT-2 small: c_fc 768 -> 3072, c_proj 3072 -> 768
BYTES = {"float64": 8, "float32": 4, "bfloat16": 2}
N_WORKERS = [1, 2, 3, 4, 6, 8]
# One Okabe-Ito colour per worker (colour-blind safe); black is kept for text.
WORKER_COLORS = [OKABE_ITO[c] for c in ("orange", "sky_blue", "bluish_green", "yellow", "blue",
                                        "vermillion", "reddish_purple")] + [NEUTRAL]


def _box(ax, x, y, text, color="white", width=1.5, height=0.62):
    """A rounded box centred at (x, y) with its text."""
    ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                boxstyle="round,pad=0.02,rounding_size=0.08",
                                facecolor=color, edgecolor="black", linewidth=1))
    ax.text(x, y, text, ha="center", va="center", fontsize=10)


def _arrow(ax, start, end):
    ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "->", "lw": 1.2, "color": "black"})


def dataflow(n_workers=2, T="T"):
    """A Figure: x goes to every worker; each makes a full-size partial output; one all-reduce sums them."""
    fig = Figure(figsize=(9.6, 1.0 + 1.15 * n_workers))
    ax = fig.add_axes((0.0, 0.0, 1.0, 0.86))
    ax.set_axis_off()
    rows = [n_workers - 1 - r for r in range(n_workers)]          # worker 0 on top
    middle = (n_workers - 1) / 2
    _box(ax, 0.8, middle, f"x\n({T}, d_model)\non every worker", width=1.45, height=0.95)
    for r, y in zip(range(n_workers), rows, strict=True):
        color = WORKER_COLORS[r % len(WORKER_COLORS)]
        _arrow(ax, (1.55, middle), (2.1, y))
        _box(ax, 2.95, y, f"W1[:, units {r}]\ncolumns", color)
        _arrow(ax, (3.7, y), (4.05, y))
        _box(ax, 4.6, y, "GELU", width=1.0)
        _arrow(ax, (5.1, y), (5.45, y))
        _box(ax, 6.2, y, f"W2[units {r}, :]\nrows", color)
        _arrow(ax, (6.95, y), (7.3, y))
        _box(ax, 8.15, y, f"partial {r}\n({T}, d_model)", width=1.55)
        _arrow(ax, (8.95, y), (9.45, middle))
    _box(ax, 10.35, middle, "all-reduce\nsum, + b2:\noutput on\nevery worker", width=1.7,
         height=min(0.7 * n_workers + 0.4, 2.2))
    ax.set_xlim(-0.1, 11.3)
    ax.set_ylim(-0.6, n_workers - 0.4)
    fig.suptitle(f"{n_workers} workers: each turns x into a full-size partial output from its own "
                 "hidden units;\none all-reduce adds them up", fontsize=11)
    return fig


def draw(fig, n_workers, T, dtype):
    """W1's columns and W2's rows, lined up by hidden unit and coloured by the worker holding them."""
    ax = fig.add_subplot(1, 1, 1)
    fig.subplots_adjust(left=0.17, right=0.97, bottom=0.27, top=0.88)
    gap = 160
    width = D_FF // n_workers                  # N_WORKERS all divide d_ff = 3072
    for rank in range(n_workers):
        start = rank * width
        color = WORKER_COLORS[rank % len(WORKER_COLORS)]
        # W1 (d_model x d_ff): the columns of these hidden units; below it, W2's rows of the same units.
        ax.add_patch(Rectangle((start, gap), width, D_MODEL, facecolor=color, edgecolor="black"))
        ax.add_patch(Rectangle((start, -gap - D_MODEL), width, D_MODEL, facecolor=color,
                               edgecolor="black"))
        ax.text(start + width / 2, 0, f"w{rank}" if n_workers > 4 else f"worker {rank}",
                ha="center", va="center", fontsize=10)
    ax.set_xlim(0, D_FF)
    ax.set_ylim(-gap - D_MODEL - 20, gap + D_MODEL + 20)
    ax.set_yticks([gap + D_MODEL / 2, -gap - D_MODEL / 2],
                  ["W1 = c_fc\ncolumns", "W2 = c_proj\nrows"])
    ax.grid(False)
    ax.set_xlabel("hidden unit (column of W1 = row of W2)")
    ax.set_ylabel("weight matrix")
    full = 2 * D_MODEL * D_FF
    ax.set_title(f"GPT-2 small's MLP over {n_workers} worker(s): "
                 f"{full // n_workers:,} weights each (1/{n_workers} of {full:,})", fontsize=11)
    buffer = T * D_MODEL * BYTES[dtype]
    if n_workers > 1:
        wire = ring_bytes(buffer, n_workers)
        lines = (f"all-reduce buffer: T x d_model x bytes = {T:,} x {D_MODEL} x {BYTES[dtype]} = "
                 f"{buffer / 2**20:.2f} MiB, whatever N is\n"
                 f"a ring sends 2(N-1)/N x buffer = {wire / 2**20:.2f} MiB per worker "
                 f"({wire / buffer:.2f}x the buffer)")
    else:
        lines = "one worker holds everything: nothing crosses the wire"
    fig.text(0.02, 0.03, lines, fontsize=10)


def make():
    controls = {
        "n_workers": Dropdown(options=N_WORKERS, value=2, description="N workers"),
        "T": IntSlider(value=1024, min=1, max=8192, step=1, description="T (tokens)"),
        "dtype": Dropdown(options=list(BYTES), value="float32", description="dtype"),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 4.2), title="Tensor-parallel split")
