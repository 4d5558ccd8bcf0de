"""Notebook 04's demo: a d -> 4d -> d -> ... network in 3D; pick sizes, activation and view.

About 60 edges in all (the strongest of each matrix), nodes large enough to read on a
projector, off units crossed out on top of their nodes, and preset views: "side" shows
each layer edge-on, so the hidden layers stand twice as tall (4x the nodes); "turn"
rotates the network about its vertical axis. The 3D positions are projected onto the
screen by `network3d.project` (an orthographic view) and drawn on plain 2D axes, far
nodes first: a redraw then costs a fraction of a matplotlib 3D axes. A move changes the
edges, the nodes, the crosses and the title in place and repaints only those.
"""

from functools import cache

import numpy as np
from ipywidgets import Dropdown, FloatSlider, IntSlider
from matplotlib.collections import LineCollection

from helpers import activations, language, network3d
from helpers.language import said
from helpers.widgets import LiveFigure

SAMPLE = {"n_layers": 5, "d": 6, "activation": "gelu", "view": "side", "turn": 30.0}
EDGES = 60        # drawn in all: the strongest of each matrix, split evenly
NODE_SIZE = 70    # points^2: a node about 8 points across
EDGE_WIDTH = 1.3  # points: the width of an edge of average strength
# (elev, azim): 3D depth, or the layer sizes
VIEWS = {"angled": (22.0, -58.0), "side": (6.0, -80.0)}


def layer_sizes(n_layers, d):
    """d, 4d, d, 4d, ...: FFN blocks one after another, n_layers layers of nodes."""
    return [d if layer % 2 == 0 else 4 * d for layer in range(n_layers)]


def forward(sizes, activation, seed=0):
    """Random weights (one (n_in, n_out) matrix per layer pair), every layer's values, and the
    hidden layers' pre-activations (None for the input and output layers)."""
    rng = np.random.default_rng(seed)
    weights = [rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out))
               for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True)]
    act = activations.get(activation)
    values, pre = [rng.normal(size=sizes[0])], [None]   # one input token
    for i, W in enumerate(weights):
        h = values[-1] @ W
        last = i == len(weights) - 1
        values.append(h if last else act(h))              # no activation after the last
        pre.append(None if last else h)
    return weights, values, pre


@cache
def network(n_layers, d, activation, lang):
    """What a setting draws, whatever the view: node positions in 3D, node values, the off mask,
    the strongest edges of each matrix (node indices, weights), and the title in the language `lang`
    (part of the cache's key: a title said in Korean is not kept for English)."""
    sizes = layer_sizes(n_layers, d)
    weights, values, pre = forward(sizes, activation)
    # the largest grid's side, in node steps
    widest = np.ceil(np.sqrt(max(sizes))) - 1
    # grids never overlap
    positions = network3d.layer_positions(sizes, spacing=max(3.0, 1.5 * widest))
    starts = np.cumsum([0] + sizes)
    k = max(4, EDGES // len(weights))
    # (from node, to node, weight), matrix by matrix
    edges = []
    for i, W in enumerate(weights):
        rows, cols = network3d.strongest_edges(W, k)
        edges.append((starts[i] + rows, starts[i + 1] + cols, W[rows, cols]))
    off = [np.zeros(len(v), bool) if h is None else network3d.switched_off(h, v)
           for v, h in zip(values, pre, strict=True)]
    hidden = sum(len(h) for h in pre if h is not None)
    shown, total = sum(len(w) for *_, w in edges), sum(W.size for W in weights)
    title = said("{sizes} with {activation}: {off} of {hidden} hidden nodes off (x)\n"
                 "{shown} strongest of {total:,} edges: solid w > 0, dashed w < 0; "
                 "colour: node value",
                 sizes=" -> ".join(map(str, sizes)), activation=activation,
                 off=int(np.concatenate(off).sum()), hidden=hidden, shown=shown, total=total)
    return np.concatenate(positions), np.concatenate(values), np.concatenate(off), edges, title


@cache
def edge_style(n_layers, d, activation):
    """Each edge's colour, line style and width: grey, solid for w > 0 and dashed for w < 0,
    darker and wider the larger |w| is within its matrix."""
    *_, edges, _ = network(n_layers, d, activation, language.current())
    colors, styles, widths = [], [], []
    for *_, w in edges:
        strength = np.abs(w) / max(np.abs(w).max(), 1e-300)
        colors.append(network3d.edge_colors(w))
        styles += network3d.edge_styles(w)
        widths.append(EDGE_WIDTH * (0.6 + 0.8 * strength))
    return np.concatenate(colors), styles, np.concatenate(widths)


def draw(fig, n_layers, d, activation, view, turn):
    """The network's edges, its nodes lit by their values (far ones first), its off units crossed
    out, and a title with the counts. Returns the artists that `update` changes."""
    ax = fig.add_subplot()
    artists = {"ax": ax,
               "edges": ax.add_collection(LineCollection([], zorder=1)),
               "nodes": network3d.draw_nodes(ax, np.zeros((1, 2)), np.zeros(1), vmax=1.0,
                                             size=NODE_SIZE),
               "off": ax.scatter([], [], s=1.6 * NODE_SIZE, zorder=3, **network3d.OFF_MARK)}
    ax.set_title(" ", fontsize=10)
    ax.set_aspect("equal")
    # a projection of 3D: screen axes mean nothing
    ax.set_axis_off()
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.88)
    update(fig, artists, n_layers, d, activation, view, turn)
    return artists


def update(fig, artists, n_layers, d, activation, view, turn):
    """Project the network for this view, move the edges, nodes and crosses, rewrite the title and
    fit the axes around the picture; return what changed."""
    points, values, off, edges, title = network(n_layers, d, activation, language.current())
    colors, styles, widths = edge_style(n_layers, d, activation)
    elev, azim = VIEWS[view]
    screen, depth = network3d.project(points, elev, azim + turn)   # (n, 2), (n,)
    lines = artists["edges"]
    lines.set_segments(np.concatenate([np.stack([screen[a], screen[b]], axis=1)
                                       for a, b, _ in edges]))
    lines.set(colors=colors, linestyles=styles, linewidths=widths)
    # far nodes first: near ones paint over them
    order = np.argsort(depth)
    nodes = artists["nodes"]
    nodes.set_offsets(screen[order])
    nodes.set_array(values[order])
    vmax = np.abs(values).max()
    nodes.set_clim(-vmax, vmax)
    artists["off"].set_offsets(screen[off].reshape(-1, 2))
    ax = artists["ax"]
    ax.set_title(title, fontsize=10)
    lo, hi = screen.min(axis=0), screen.max(axis=0)
    ax.set(xlim=(lo[0] - 0.8, hi[0] + 0.8), ylim=(lo[1] - 0.8, hi[1] + 0.8))
    # the box fits the picture before it is painted
    ax.apply_aspect()
    return [lines, nodes, artists["off"], ax.title]


def make():
    controls = {
        "n_layers": IntSlider(value=3, min=2, max=7, description="layers", continuous_update=False),
        "d": IntSlider(value=4, min=1, max=6, description=said("d (nodes)"),
                       continuous_update=False),
        "activation": Dropdown(options=["relu", "gelu", "silu"], value="relu",
                               description="activation"),
        "view": Dropdown(options=list(VIEWS), value="angled", description="view"),
        "turn": FloatSlider(value=0.0, min=-180.0, max=180.0, step=15.0,
                            description=said("turn (degrees)"), continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(6.4, 4.6), title=said("A network in 3D"),
                      update=update)
