"""Drawing a layered network in 3D with matplotlib: nodes, weighted edges, lit nodes.

Layer l sits in the plane depth = l * spacing; its nodes form a grid in that plane.
Edges are one Line3DCollection per weight matrix (one artist, fast to redraw),
coloured by the sign of the weight (red > 0, blue < 0) and faded by its size.
"""

import math

import numpy as np
from matplotlib import colormaps
from mpl_toolkits.mplot3d.art3d import Line3DCollection

from helpers import validate

NODE_CMAP = "coolwarm"  # hidden activations: blue < 0, white = 0, red > 0
POSITIVE, NEGATIVE = np.array([0.84, 0.15, 0.16]), np.array([0.12, 0.47, 0.71])


def layer_positions(sizes, spacing=4.0):
    """One (n, 3) array of (depth, y, z) node positions per layer of `sizes` nodes."""
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


def strongest_edges(W, k):
    """(rows, cols) of the k entries of W (n_in, n_out) with the largest |weight|."""
    validate.ndim(W, "W", 2)
    k = min(validate.positive_int(k, "k"), W.size)
    flat = np.argpartition(np.abs(W).ravel(), W.size - k)[W.size - k:]
    flat = np.sort(flat)
    return np.unravel_index(flat, W.shape)


def edge_colors(w, w_max=None):
    """RGBA per weight: red for positive, blue for negative, alpha growing with |w|."""
    w = np.asarray(w, dtype=float)
    w_max = np.abs(w).max() if w_max is None else w_max
    strength = np.abs(w) / (w_max if w_max > 0 else 1.0)
    rgb = np.where((w >= 0)[:, None], POSITIVE, NEGATIVE)
    return np.column_stack([rgb, 0.1 + 0.8 * strength])


def draw_edges(ax, from_pos, to_pos, W, k=None, linewidth=0.8):
    """Draw W's edges (all, or the k strongest) from one layer to the next; return how many."""
    validate.ndim(W, "W", 2)
    if W.shape != (len(from_pos), len(to_pos)):
        raise ValueError(f"W has shape {W.shape}; expected ({len(from_pos)}, {len(to_pos)}) "
                         "= (nodes in this layer, nodes in the next)")
    rows, cols = strongest_edges(W, k) if k else np.indices(W.shape).reshape(2, -1)
    segments = np.stack([from_pos[rows], to_pos[cols]], axis=1)  # (edges, 2 ends, 3)
    ax.add_collection3d(Line3DCollection(segments, colors=edge_colors(W[rows, cols]),
                                         linewidths=linewidth))
    return len(rows)


def draw_nodes(ax, pos, values=None, vmax=None, size=30, color="#555555"):
    """Scatter one layer's nodes; with `values` they are lit by NODE_CMAP (0 = white)."""
    if values is None:
        return ax.scatter(*pos.T, s=size, color=color, edgecolors="black", linewidths=0.3,
                          depthshade=False)
    values = np.asarray(values, dtype=float)
    if values.shape != (len(pos),):
        raise ValueError(f"values has shape {values.shape}; expected ({len(pos)},), one per node")
    vmax = np.abs(values).max() if vmax is None else vmax
    return ax.scatter(*pos.T, c=values, cmap=colormaps[NODE_CMAP], vmin=-vmax, vmax=vmax,
                      s=size, edgecolors="black", linewidths=0.3, depthshade=False)


def frame(ax, positions, title, elev=20.0, azim=-60.0):
    """Limits, labels, title and view angle for a network drawn from `positions`."""
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
