"""A ring all-reduce drawn as a grid, step by step: which workers' numbers each chunk holds.

Rows are workers, columns chunks; a cell is striped with the colours of the workers whose numbers
it sums, framed once it holds the complete sum, and this step's sends are arrows. Notebook 10's
figures (helpers.demos.nb10_tensor_parallel) draw it once per step and in the live demo.
"""

import numpy as np
from matplotlib.colors import to_rgb
from matplotlib.ticker import NullLocator
from matplotlib.transforms import offset_copy

from helpers.plots import NEUTRAL, OKABE_ITO

# One Okabe-Ito colour per worker (colour-blind safe); black is kept for text.
WORKER_COLORS = [OKABE_ITO[c] for c in ("orange", "sky_blue", "bluish_green", "yellow", "blue",
                                        "vermillion", "reddish_purple")] + [NEUTRAL]


def ring_sends(n_workers, step):
    """The (sender, chunk) pairs of ring step `step` (1 .. 2(N-1)); each goes to sender + 1."""
    n, s = n_workers, step - 1
    if s < n - 1:                                         # reduce-scatter step s
        return [(r, (r - s) % n) for r in range(n)]
    s -= n - 1                                            # all-gather step s
    return [(r, (r + 1 - s) % n) for r in range(n)]


def ring_state(n_workers, step):
    """After `step` steps: held[r][c] = the set of workers whose numbers worker r's chunk c sums."""
    held = [[{r} for _ in range(n_workers)] for r in range(n_workers)]
    for k in range(1, step + 1):
        moving = [(r, c, set(held[r][c])) for r, c in ring_sends(n_workers, k)]   # all send at once
        for r, c, data in moving:
            receiver = held[(r + 1) % n_workers]
            receiver[c] = receiver[c] | data if k <= n_workers - 1 else data
    return held


def _cells(n_workers, step):
    """The grid's colours after `step` steps (rows: workers; each chunk cut in N stripes, one per
    worker whose numbers it sums) and the frames round the cells that hold the complete sum."""
    n = n_workers
    held = ring_state(n, step)
    colors = np.array([to_rgb(WORKER_COLORS[w % len(WORKER_COLORS)]) for w in range(n)])
    image = np.ones((n, n * n, 3))
    frames = []
    for r in range(n):
        for c in range(n):
            for w in held[r][c]:
                image[r, c * n + w] = colors[w]
            if len(held[r][c]) == n:
                x0, x1, y0, y1 = c + 0.06, c + 0.94, r + 0.08, r + 0.92
                frames += [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0), (np.nan, np.nan)]
    return image, frames


def _sends(n_workers, step):
    """Where this step's arrows start, one per worker (worker N-1's goes round to worker 0 in
    two)."""
    starts = []
    for sender, c in ring_sends(n_workers, step):
        starts.append((c + 0.5, sender + 0.6))
        if sender == n_workers - 1:
            starts.append((c + 0.5, -0.32))
    return starts


def ring_grid(ax, n_workers, text=None):
    """The grid of N workers x N chunks, its labels, and the artists a step changes (returned).
    text(x, y, string, **style): how the labels are made (ax.text by default)."""
    n = n_workers
    # one mesh
    mesh = ax.pcolormesh(np.linspace(0, n, n * n + 1), np.arange(n + 1), np.ones((n, n * n, 3)))
    grid = [ax.hlines(range(n + 1), 0, n, color="black", lw=1),
            ax.vlines(range(n + 1), 0, n, color="black", lw=1)]
    (frames,) = ax.plot([], [], color="black", lw=2.5)
    # the last goes down off the grid and in at the top
    moves = [(0, 0.8)] * (n - 1) + [(0, 0.6), (0, 0.7)]
    (us, vs) = zip(*moves, strict=True)
    arrows = ax.quiver(np.zeros(n + 1), np.zeros(n + 1), us, vs, angles="xy", scale_units="xy",
                       scale=1, width=0.006, color="black")
    fit_ring(ax, n)
    # Labels as plain text, not ticks: Tick objects cost more to make than this whole grid.
    ax.xaxis.set_major_locator(NullLocator())
    ax.yaxis.set_major_locator(NullLocator())
    text = text or ax.text
    labels = [text(c + 0.5, n + 0.42, str(c), ha="center", va="top", fontsize=10) for c in range(n)]
    # 4 points left of the grid, for any N
    left = offset_copy(ax.transData, ax.figure, x=-4, units="points")
    labels += [text(0, r + 0.5, str(r), ha="right", va="center", fontsize=10, transform=left)
               for r in range(n)]
    ax.grid(False)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    return {"n": n, "mesh": mesh, "grid": grid, "frames": frames, "arrows": arrows,
            "labels": labels}


def fit_ring(ax, n_workers):
    """Axis limits that show the grid of n_workers, its labels and the arrows round the ring."""
    ax.set_xlim(0, n_workers)
    ax.set_ylim(n_workers + 0.4, -0.4)


def stepped_artists(ring):
    """The grid's artists that a step changes (the grid lines are drawn over the cells)."""
    return [ring["mesh"], *ring["grid"], ring["frames"], ring["arrows"]]


def show_step(ring, step):
    """Colour the grid, frame the complete sums and point the arrows for the ring after `step`
    steps; return the artists that changed."""
    image, frames = _cells(ring["n"], step)
    ring["mesh"].set_array(image)
    ring["frames"].set_data(*(zip(*frames, strict=True) if frames else ([], [])))
    ring["arrows"].set_visible(step > 0)
    if step > 0:
        ring["arrows"].set_offsets(_sends(ring["n"], step))
    return stepped_artists(ring)


def draw_ring(ax, n_workers, step):
    """Worker rows x chunk columns; a cell is striped with the colours of the workers it sums, and
    this step's sends are arrows. Returns the grid's artists (ring_grid)."""
    ring = ring_grid(ax, n_workers)
    show_step(ring, step)
    return ring
