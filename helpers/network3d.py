"""Drawing a layered network with matplotlib: nodes, weighted edges, lit nodes, "off" units.

In 3D (the shape): layer l sits in the plane depth = l * spacing; its nodes form a grid
in that plane. Face-on in 2D (the sizes): each layer's grid seen from the front, side by
side at one scale, so the hidden grid shows its 4x the nodes. Flat in 2D (the values):
each layer is one column of nodes, so the column heights show the 1 : 4 : 1 of
d -> 4d -> d.

Colour means one thing only: a node's value (blue < 0, white = 0, red > 0). Edges are one
line collection per weight matrix (one artist, fast to redraw), grey, drawn solid for a
positive weight and dashed for a negative one, darker and thicker the larger |w| is.
"""

import math

import numpy as np
from matplotlib import colormaps
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgb
from matplotlib.lines import Line2D
from mpl_toolkits.mplot3d.art3d import Line3DCollection

from helpers import validate
from helpers.plots import NEUTRAL

# node values: blue < 0, white = 0, red > 0; the only colour in these figures
NODE_CMAP = "coolwarm"
EDGE_RGB = np.array(to_rgb(NEUTRAL))  # every edge is grey: its sign is its line style
POSITIVE, NEGATIVE = "solid", (0, (3.0, 2.0))  # line styles: w > 0 solid, w < 0 dashed
NEARLY_OFF = 0.1  # a unit that passes at most 10% of its pre-activation counts as off


def switched_off(h, a, keep=NEARLY_OFF):
    """True where a unit passes at most `keep` of its input, |a| <= keep * |h|; h, a: (..., d_ff).

    ReLU's off units are its exact zeros (every h < 0); GELU passes Phi(h) of h, which falls
    below 10% only for h < -1.28.
    """
    h, a = validate.as_array(h, "h"), validate.as_array(a, "a")
    keep = validate.non_negative_number(keep, "keep")
    if h.shape != a.shape:
        raise ValueError(f"a has shape {a.shape}; expected {h.shape}, the shape of h (one value "
                         "per unit)")
    return np.abs(a) <= keep * np.abs(h)


def _layer_sizes(sizes):
    """Require a list of node counts, one per layer, such as [8, 32, 8]."""
    if not isinstance(sizes, (list, tuple)):
        raise TypeError(f"sizes must be a list of node counts, one per layer (e.g. [8, 32, 8]), "
                        f"got {type(sizes).__name__} {sizes!r}")


def layer_positions(sizes, spacing=4.0):
    """One (n, 3) array of (depth, y, z) node positions per layer of `sizes` nodes."""
    _layer_sizes(sizes)
    spacing = validate.positive_number(spacing, "spacing")
    positions = []
    for layer, n in enumerate(sizes):
        n = validate.positive_int(n, f"sizes[{layer}]")
        cols = math.ceil(math.sqrt(n))
        rows = math.ceil(n / cols)
        i = np.arange(n)
        y = (i % cols) - (cols - 1) / 2
        z = (i // cols) - (rows - 1) / 2
        positions.append(np.column_stack([np.full(n, layer * spacing), y, z]))
    return positions


def column_positions(sizes, spacing=1.0):
    """One (n, 2) array of (x, y) node positions per layer: a column of n nodes centred on y = 0."""
    _layer_sizes(sizes)
    spacing = validate.positive_number(spacing, "spacing")
    positions = []
    for layer, n in enumerate(sizes):
        n = validate.positive_int(n, f"sizes[{layer}]")
        positions.append(np.column_stack([np.full(n, layer * spacing), (n - 1) / 2 - np.arange(n)]))
    return positions


def face_positions(sizes, gap=2.0):
    """One (n, 2) array per layer: its grid seen face-on, the layers side by side `gap` apart, one
    scale."""
    gap = validate.positive_number(gap, "gap")
    faces, right = [], -gap
    for grid in layer_positions(sizes, spacing=1.0):
        flat = grid[:, 1:].copy()                             # (y, z): the grid in its own plane
        half = (flat[:, 0].max() - flat[:, 0].min()) / 2
        # its centre, one gap right of the last grid
        flat[:, 0] += right + gap + half
        right = flat[:, 0].max()
        faces.append(flat)
    return faces


def draw_faces(ax, weights, k=None, size=20, fade=0.45, gap=2.0):
    """The layers of weights [(n0, n1), (n1, n2), ...] face-on, side by side, edges faded; return
    positions.

    One grid unit is one node spacing in every layer, so a layer with 4x the nodes is twice as wide
    and twice as tall. Nodes are grey; edges are the k strongest of each matrix (all when k is
    None).
    """
    if not isinstance(weights, (tuple, list)) or not weights:
        raise TypeError("weights must be a list of weight matrices (n_in, n_out), got "
                        f"{type(weights).__name__}")
    for i, W in enumerate(weights):
        validate.ndim(W, f"weights[{i}]", 2)
    sizes = [weights[0].shape[0]] + [W.shape[1] for W in weights]
    positions = face_positions(sizes, gap=gap)
    for i, W in enumerate(weights):
        draw_edges(ax, positions[i], positions[i + 1], W, k=k, linewidth=0.7, fade=fade)
    for pos in positions:
        draw_nodes(ax, pos, size=size)
    ax.set_aspect("equal")
    ax.set_xticks([p[:, 0].mean() for p in positions])
    ax.set_yticks([])
    ax.grid(False)
    return positions


def strongest_edges(W, k):
    """(rows, cols) of the k entries of W (n_in, n_out) with the largest |weight|."""
    validate.ndim(W, "W", 2)
    k = min(validate.positive_int(k, "k"), W.size)
    flat = np.argpartition(np.abs(W).ravel(), W.size - k)[W.size - k:]
    flat = np.sort(flat)
    return np.unravel_index(flat, W.shape)


def _strength(w, w_max=None):
    w = np.asarray(w, dtype=float)
    w_max = np.abs(w).max() if w_max is None else w_max
    return np.abs(w) / (w_max if w_max > 0 else 1.0)


def edge_colors(w, w_max=None, fade=1.0):
    """RGBA per weight: grey whatever the sign, alpha growing with |w| (times `fade`, for a faded
    view)."""
    strength = _strength(w, w_max)
    return np.column_stack([np.tile(EDGE_RGB, (len(strength), 1)), fade * (0.15 + 0.75 * strength)])


def edge_styles(w):
    """A line style per weight: solid where w >= 0, dashed where w < 0."""
    return [POSITIVE if v >= 0 else NEGATIVE for v in np.asarray(w, dtype=float)]


OFF_MARK = {"marker": "x", "color": "black", "linewidths": 2.0}


def key(off=False):
    """Legend entries [(handle, label)]: the two edge styles and, with off=True, the off mark."""
    off = validate.boolean(off, "off")
    entries = [(Line2D([], [], color=NEUTRAL, lw=2, ls=POSITIVE), "weight > 0"),
               (Line2D([], [], color=NEUTRAL, lw=2, ls=NEGATIVE), "weight < 0")]
    if off:
        entries.append((Line2D([], [], marker="x", color="black", ls="", mew=2.0, markersize=8),
                        f"off: passes at most {NEARLY_OFF:.0%} of its input"))
    return entries


def _segments(from_pos, to_pos, W, k):
    validate.ndim(W, "W", 2)
    if k is not None:
        validate.positive_int(k, "k")  # None draws every edge
    if W.shape != (len(from_pos), len(to_pos)):
        raise ValueError(f"W has shape {W.shape}; expected ({len(from_pos)}, {len(to_pos)}) "
                         "= (nodes in this layer, nodes in the next)")
    rows, cols = strongest_edges(W, k) if k else np.indices(W.shape).reshape(2, -1)
    # (edges, 2, dim), (edges,)
    return np.stack([from_pos[rows], to_pos[cols]], axis=1), W[rows, cols]


def draw_edges(ax, from_pos, to_pos, W, k=None, linewidth=0.8, fade=1.0):
    """Draw W's edges (all, or the k strongest) from one layer to the next; return how many.

    Grey lines, solid for w > 0 and dashed for w < 0, darker and wider for larger |w|;
    fade (0 to 1] scales their opacity, for a view where the nodes matter more.
    """
    linewidth = validate.positive_number(linewidth, "linewidth")
    if not 0 < validate.positive_number(fade, "fade") <= 1:
        raise ValueError(f"fade must be an opacity factor in (0, 1], got {fade!r}")
    segments, w = _segments(from_pos, to_pos, W, k)
    style = {"colors": edge_colors(w, fade=fade), "linestyles": edge_styles(w),
             "linewidths": linewidth * (0.6 + 0.8 * _strength(w))}
    if segments.shape[-1] == 3:
        ax.add_collection3d(Line3DCollection(segments, **style))
    else:
        ax.add_collection(LineCollection(segments, zorder=1, **style))
    return len(segments)


def draw_nodes(ax, pos, values=None, vmax=None, size=30, color=NEUTRAL, alpha=1.0):
    """Scatter one layer's nodes (2D or 3D); with `values` they are lit by NODE_CMAP (0 = white)."""
    validate.ndim(pos, "pos", 2)
    size = validate.positive_number(size, "size")
    if not 0 <= validate.non_negative_number(alpha, "alpha") <= 1:
        raise ValueError(f"alpha must be an opacity from 0 to 1, got {alpha!r}")
    if vmax is not None:
        validate.non_negative_number(vmax, "vmax")
    kwargs = {"depthshade": False} if pos.shape[1] == 3 else {"zorder": 2}
    if values is None:
        return ax.scatter(*pos.T, s=size, color=color, alpha=alpha, edgecolors="black",
                          linewidths=0.3, **kwargs)
    values = np.asarray(values, dtype=float)
    if values.shape != (len(pos),):
        raise ValueError(f"values has shape {values.shape}; expected ({len(pos)},), one per node")
    vmax = np.abs(values).max() if vmax is None else vmax
    return ax.scatter(*pos.T, c=values, cmap=colormaps[NODE_CMAP], vmin=-vmax, vmax=vmax,
                      s=size, edgecolors="black", linewidths=0.3, **kwargs)


def mark_off(ax, pos, off, size=30):
    """Cross out the nodes where the boolean mask `off` is True; return how many."""
    off = np.asarray(off, dtype=bool)
    if off.shape != (len(pos),):
        raise ValueError(f"off has shape {off.shape}; expected ({len(pos)},), one True/False per "
                         "node")
    if off.any():
        kwargs = {"depthshade": False} if pos.shape[1] == 3 else {"zorder": 3}
        # larger than the node: it shows
        ax.scatter(*pos[off].T, s=1.6 * size, **OFF_MARK, **kwargs)
    return int(off.sum())


def draw_columns(ax, weights, hidden, off=None, k=None, vmax=None, size=20, spacing=1.0):
    """A d -> d_ff -> d network flat in 2D, hidden nodes lit by `hidden` and `off` ones crossed out.

    weights: (W1 (d, d_ff), W2 (d_ff, d)); hidden: (d_ff,) values; returns the hidden scatter
    (for a colourbar). Input and output nodes are grey: only the hidden layer carries values.
    """
    if not isinstance(weights, (tuple, list)) or len(weights) != 2:
        raise TypeError(f"weights must be the pair (W1, W2), got {type(weights).__name__}")
    W1, W2 = weights
    validate.ndim(W1, "W1", 2)
    validate.ndim(W2, "W2", 2)
    positions = column_positions([W1.shape[0], W1.shape[1], W2.shape[1]], spacing=spacing)
    draw_edges(ax, positions[0], positions[1], W1, k=k, linewidth=0.6)
    draw_edges(ax, positions[1], positions[2], W2, k=k, linewidth=0.6)
    draw_nodes(ax, positions[0], size=size, alpha=0.35)
    draw_nodes(ax, positions[2], size=size, alpha=0.35)
    lit = draw_nodes(ax, positions[1], hidden, vmax=vmax, size=size)
    if off is not None:
        mark_off(ax, positions[1], off, size=size)
    ax.set_xticks([p[0, 0] for p in positions])
    ax.set_xlim(-0.3 * spacing, 2.3 * spacing)
    ax.set_yticks([])
    ax.grid(False)
    return lit


def project(points, elev=20.0, azim=-60.0):
    """(screen (n, 2), depth (n,)) of 3D points (n, 3) seen from elev, azim (degrees), as view_init
    sees them.

    An orthographic view, with no perspective: sizes along the screen stay comparable. Larger depth
    is nearer the viewer, so drawing in order of depth paints near nodes over far ones.
    """
    points = validate.as_array(points, "points")
    if points.ndim != 2 or points.shape[1] != 3:
        raise ValueError(
            f"points must have shape (n, 3), one (x, y, z) per row, got {points.shape}")
    e = np.radians(validate.real_number(elev, "elev"))
    a = np.radians(validate.real_number(azim, "azim"))
    toward_eye = np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    right = np.array([-np.sin(a), np.cos(a), 0.0])
    up = np.cross(toward_eye, right)
    return points @ np.column_stack([right, up]), points @ toward_eye


def frame(ax, positions, title, elev=20.0, azim=-60.0):
    """Limits, labels, title and view angle for a network drawn in 3D from `positions`."""
    if not isinstance(title, str):
        raise TypeError("title must be a string (the finding the figure shows), got "
                        f"{type(title).__name__}")
    elev = validate.real_number(elev, "elev")
    azim = validate.real_number(azim, "azim")
    every = np.concatenate(positions)
    lo, hi = every.min(axis=0) - 0.5, every.max(axis=0) + 0.5
    ax.set(xlim=(lo[0], hi[0]), ylim=(lo[1], hi[1]), zlim=(lo[2], hi[2]))
    ax.set_box_aspect(hi - lo)  # true proportions: layers stand apart, grids stay square
    ax.set_xlabel("layer (depth)")
    ax.set_ylabel("node (row)")
    ax.set_zlabel("node (column)")
    ax.set_xticks([p[0, 0] for p in positions])
    ax.set_xticklabels([str(i) for i in range(len(positions))])
    ax.set_yticks([])
    ax.set_zticks([])
    ax.set_title(title)
    ax.view_init(elev=elev, azim=azim)
