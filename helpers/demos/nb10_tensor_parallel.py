"""Notebook 10's figures: the data flow of both splits, and a ring all-reduce step by step.

Drawn, not run, so a redraw is fast. `dataflow(n_workers)` draws the Megatron split (section 2):
x -> W1 columns -> GELU -> W2 rows -> one all-reduce; `rows_dataflow()` the other way round (W1
cut by rows, section 8), with its all-reduce before GELU. `ring_steps(n_workers)` shows every step
of a ring all-reduce side by side (section 4), and `make()` is the live demo: a slider that walks
through the steps, for 2 to 8 workers. Its grids for every N are made with it, and the images of
every step's title and count when it shows (helpers.demos.stamps): a move repaints the same
artists over the same background, for any N, with no text to lay out.

A ring all-reduce over N workers cuts each buffer into N chunks. In reduce-scatter step s
(s = 0 .. N-2) worker r sends its chunk (r - s) % N to worker (r + 1) % N, which adds it to its
own; then worker r holds the complete chunk (r + 1) % N. In all-gather step s worker r passes on
the complete chunk (r + 1 - s) % N, and its neighbour keeps it. helpers.demos.ring follows which
workers' numbers each chunk holds and draws the grid.
"""

from ipywidgets import Dropdown, IntSlider
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch
from matplotlib.transforms import offset_copy

from helpers.demos.ring import (
    WORKER_COLORS,
    draw_ring,
    fit_ring,
    ring_grid,
    show_step,
    stepped_artists,
)
from helpers.demos.stamps import Label, in_place
from helpers.language import said, say
from helpers.plots import OKABE_ITO
from helpers.widgets import LiveFigure

SAMPLE = {"n_workers": 4, "step": 3}        # n_workers first: it sets the step slider's range
N_WORKERS = [2, 3, 4, 6, 8]
SENT_BELOW_PT = 29      # the demo's count of what was sent, in points below the axes


def _box(ax, x, y, text, color="white", width=1.5, height=0.62):
    """A rounded box centred at (x, y) with its text."""
    ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                boxstyle="round,pad=0.02,rounding_size=0.08",
                                facecolor=color, edgecolor="black", linewidth=1))
    ax.text(x, y, text, ha="center", va="center", fontsize=10)


def _arrow(ax, start, end, color="black"):
    ax.annotate("", xy=end, xytext=start,
                arrowprops={"arrowstyle": "->", "lw": 1.2, "color": color})


def dataflow(n_workers=2, T="T"):
    """A Figure: x goes to every worker; each makes a full-size partial output; one all-reduce sums
    them."""
    fig = Figure(figsize=(9.6, 1.0 + 1.15 * n_workers))
    ax = fig.add_axes((0.0, 0.0, 1.0, 0.86))
    ax.set_axis_off()
    rows = [n_workers - 1 - r for r in range(n_workers)]          # worker 0 on top
    middle = (n_workers - 1) / 2
    _box(ax, 0.8, middle, said("x\n({T}, d_model)\non every worker", T=T), width=1.45, height=0.95)
    for r, y in zip(range(n_workers), rows, strict=True):
        color = WORKER_COLORS[r % len(WORKER_COLORS)]
        _arrow(ax, (1.55, middle), (2.1, y))
        _box(ax, 2.95, y, said("W1[:, units {r}]\ncolumns", r=r), color)
        _arrow(ax, (3.7, y), (4.05, y))
        _box(ax, 4.6, y, "GELU", width=1.0)
        _arrow(ax, (5.1, y), (5.45, y))
        _box(ax, 6.2, y, said("W2[units {r}, :]\nrows", r=r), color)
        _arrow(ax, (6.95, y), (7.3, y))
        _box(ax, 8.15, y, said("partial {r}\n({T}, d_model)", r=r, T=T), width=1.55)
        _arrow(ax, (8.95, y), (9.45, middle))
    _box(ax, 10.35, middle, said("all-reduce\nsum, + b2:\noutput on\nevery worker"), width=1.7,
         height=min(0.7 * n_workers + 0.4, 2.2))
    ax.set_xlim(-0.1, 11.3)
    ax.set_ylim(-0.6, n_workers - 0.4)
    fig.suptitle(said("{n_workers} workers: each turns x into a full-size partial output from its "
                      "own hidden units;\n"
                      "one all-reduce adds them up", n_workers=n_workers),
                 fontsize=11)
    return fig


def rows_dataflow(n_workers=2, T="T"):
    """A Figure: W1 cut by rows gives partial pre-activations, which must be summed before GELU."""
    fig = Figure(figsize=(11.0, 1.2 + 1.15 * n_workers))
    ax = fig.add_axes((0.0, 0.0, 1.0, 0.84))
    ax.set_axis_off()
    rows = [n_workers - 1 - r for r in range(n_workers)]
    middle = (n_workers - 1) / 2
    for r, y in zip(range(n_workers), rows, strict=True):
        color = WORKER_COLORS[r % len(WORKER_COLORS)]
        _box(ax, 0.8, y, said("x[:, features {r}]", r=r), width=1.45)
        _arrow(ax, (1.55, y), (1.95, y))
        _box(ax, 2.75, y, said("W1[features {r}, :]\nrows", r=r), color, width=1.55)
        _arrow(ax, (3.55, y), (3.9, y))
        _box(ax, 4.75, y, said("partial pre-act.\n({T}, d_ff)", T=T), width=1.6)
        _arrow(ax, (5.55, y), (6.05, middle))
    _box(ax, 6.95, middle, said("all-reduce 1\n({T}, d_ff):\n4x the bytes", T=T),
         OKABE_ITO["vermillion"], width=1.6, height=min(0.7 * n_workers + 0.3, 1.6))
    _arrow(ax, (7.75, middle), (8.1, middle))
    _box(ax, 8.65, middle, "+ b1,\nGELU", width=0.95, height=0.9)
    _arrow(ax, (9.15, middle), (9.5, middle))
    _box(ax, 10.3, middle, said("W2, split again:\nall-reduce 2\n({T}, d_model)", T=T),
         OKABE_ITO["vermillion"], width=1.5, height=min(0.7 * n_workers + 0.3, 1.6))
    ax.set_xlim(-0.1, 11.2)
    ax.set_ylim(-0.6, n_workers - 0.4)
    fig.suptitle(said("W1 cut by rows: each worker holds only part of every pre-activation, and "
                      "GELU needs the whole sum,\n"
                      "so an all-reduce of (T, d_ff) comes before GELU and a second one after W2"),
                 fontsize=11)
    return fig


# ---- the ring all-reduce, step by step ------------------------------------------------------

def _phase(n_workers, step):
    """What step `step` does, as a phrase the title puts after its number."""
    if step == 0:
        return say("the start: each worker holds its own buffer, in N chunks")
    if step <= n_workers - 1:
        return say("reduce-scatter {step} of {steps}: each adds the chunk it receives", step=step,
                   steps=n_workers - 1)
    return say("all-gather {step} of {steps}: each keeps the complete chunk it receives",
               step=step - n_workers + 1, steps=n_workers - 1)


def ring_steps(n_workers=3):
    """A Figure: every step of a ring all-reduce over n_workers, from start to finish."""
    n = n_workers
    fig = Figure(figsize=(2.3 * (2 * n - 1) + 0.6, 3.4))
    axes = fig.subplots(1, 2 * n - 1)
    for step, ax in enumerate(axes):
        draw_ring(ax, n, step)
        ax.set_title(said("the start") if step == 0 else said("reduce-scatter {step}", step=step)
                     if step < n else said("all-gather {step}", step=step - n + 1), fontsize=10)
        ax.set_xlabel(said("chunk c"), labelpad=16)
        ax.set_ylabel(said("worker r"), labelpad=12)
    fig.suptitle(said("A ring all-reduce over {n} workers: {steps} reduce-scatter steps leave one "
                      "complete chunk (framed) on each worker,\n"
                      "{steps} all-gather steps pass those around; every worker sends one chunk "
                      "per step, 2({n}-1)/{n} of its buffer in all", n=n, steps=n - 1),
                 fontsize=11)
    fig.subplots_adjust(left=0.07, right=0.99, top=0.74, bottom=0.14, wspace=0.25)
    return fig


def _clamped(n_workers, step):
    """The step within the ring's 0 .. 2(N-1)."""
    return max(0, min(step, 2 * (n_workers - 1)))


def _sent(n_workers, step):
    """The line under the grid: how much of its buffer each worker has sent so far, and in all."""
    sent = f"{step}/{n_workers}" if step else "0"
    return said("each worker has sent {sent} x its buffer S; at the end, {total}/{n} x S",
                sent=sent, total=2 * (n_workers - 1), n=n_workers)


def draw(fig, n_workers, step):
    """The live demo: the ring after `step` steps, with this step's sends drawn as arrows.
    Returns what `update` changes."""
    ax = fig.add_subplot(1, 1, 1)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.9, bottom=0.2)
    ax.set_xlabel(said("chunk of the buffer (stripes: whose numbers it holds; framed: the "
                       "complete sum)"), labelpad=16)
    ax.set_ylabel(said("worker r"), labelpad=16)
    # A second line under the x label (which ends 27 points below the axes): what each worker has
    # sent.
    below_label = offset_copy(ax.transAxes, fig, y=-SENT_BELOW_PT, units="points")
    sent = ax.add_artist(Label(0.5, 0, "", transform=below_label, ha="center", va="top",
                               fontsize=10, clip_on=False))

    def label(x, y, string, **style):   # a grid's worker and chunk numbers: images of their strings
        return ax.add_artist(Label(x, y, string, clip_on=False, **style))

    # Every grid made now, hidden but the one shown: a move repaints the same artists for every N.
    rings = {n: ring_grid(ax, n, text=label) for n in N_WORKERS}
    ax.set_title("", fontsize=10, y=1.0)   # y: where it stays, drawn by its Label
    state = {"ax": ax, "sent": sent, "rings": rings, "n": None, "title": in_place(ax.title)}
    update(fig, state, n_workers, step)
    return state


def _show_grid(state, n_workers):
    """Show the grid of n_workers in the demo's axes and hide the others."""
    for ring in state["rings"].values():
        for artist in [*stepped_artists(ring), *ring["labels"]]:
            artist.set_visible(ring["n"] == n_workers)
    fit_ring(state["ax"], n_workers)


def update(fig, state, n_workers, step):
    """Walk the ring to `step` (the grid of another number of workers when that changed) and rewrite
    the title and the count of what was sent; return what changed, in drawing order."""
    ax, n = state["ax"], n_workers
    step = _clamped(n, step)
    if state["n"] != n:
        state["n"] = n
        _show_grid(state, n)
    show_step(state["rings"][n], step)
    ax.set_title(said("Step {step} of {steps}, {phase}", step=step, steps=2 * (n - 1),
                      phase=_phase(n, step)),
                 fontsize=10, y=1.0)
    state["title"].set_text(ax.get_title())
    state["sent"].set_text(_sent(n, step))
    changed = [state["title"], state["sent"]]
    for ring in state["rings"].values():
        changed += [*stepped_artists(ring), *ring["labels"]]
    return changed


def make():
    step = IntSlider(value=3, min=0, max=2 * (4 - 1), description=said("ring step"))
    workers = Dropdown(options=N_WORKERS, value=4, description=said("N workers"))

    def fit_steps(change):                 # the ring over N workers has 2(N-1) steps
        step.max = 2 * (change["new"] - 1)

    # before LiveFigure's own observer: the range is set first
    workers.observe(fit_steps, names="value")
    # their titles and counts
    every = [{"n_workers": n, "step": s} for n in N_WORKERS for s in range(2 * n - 1)]
    return LiveFigure(draw, {"n_workers": workers, "step": step}, figsize=(7.6, 4.2),
                      title=said("Ring all-reduce, step by step"), update=update, ahead=every)
