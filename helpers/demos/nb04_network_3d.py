"""Notebook 04's demo: a d -> 4d -> d -> ... network in 3D; pick sizes, activation and view.

About 60 edges in all (the strongest of each matrix), nodes large enough to read on a
projector, off units crossed out on top of their nodes, and preset views: "side" shows
each layer edge-on, so the hidden layers stand twice as tall (4x the nodes); "turn"
rotates the network about its vertical axis. The 3D positions are projected onto the
screen by `network3d.project` (an orthographic view) and drawn on plain 2D axes, far
nodes first: a redraw then costs a fraction of a matplotlib 3D axes.
"""

import numpy as np
from ipywidgets import Dropdown, FloatSlider, IntSlider

from helpers import activations, network3d
from helpers.widgets import LiveFigure

SAMPLE = {"n_layers": 5, "d": 6, "activation": "gelu", "view": "side", "turn": 30.0}
EDGES = 60        # drawn in all: the strongest of each matrix, split evenly
NODE_SIZE = 70    # points^2: a node about 8 points across
VIEWS = {"angled": (22.0, -58.0), "side": (6.0, -80.0)}   # (elev, azim): 3D depth, or the layer sizes


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


def draw(fig, n_layers, d, activation, view, turn):
    sizes = layer_sizes(n_layers, d)
    weights, values, pre = forward(sizes, activation)
    elev, azim = VIEWS[view]
    widest = np.ceil(np.sqrt(max(sizes))) - 1                 # the largest grid's side, in node steps
    positions = network3d.layer_positions(sizes, spacing=max(3.0, 1.5 * widest))   # grids never overlap
    screen, depth = network3d.project(np.concatenate(positions), elev, azim + turn)   # (n, 2), (n,)
    starts = np.cumsum([0] + sizes)
    flat = [screen[a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]       # per layer, on screen
    ax = fig.add_subplot()
    k = max(4, EDGES // len(weights))
    shown = sum(network3d.draw_edges(ax, flat[i], flat[i + 1], W, k=k, linewidth=1.3)
                for i, W in enumerate(weights))
    order = np.argsort(depth)                             # far nodes first: near ones paint over them
    every_value = np.concatenate(values)
    network3d.draw_nodes(ax, screen[order], every_value[order], vmax=np.abs(every_value).max(),
                         size=NODE_SIZE)
    off = hidden = 0
    for pos, v, h in zip(flat, values, pre, strict=True):
        if h is not None:                                 # a hidden layer: cross out its off units
            off += network3d.mark_off(ax, pos, network3d.switched_off(h, v), size=NODE_SIZE)
            hidden += len(h)
    total = sum(W.size for W in weights)
    ax.set_title(f"{' -> '.join(map(str, sizes))} with {activation}: {off} of {hidden} hidden nodes off (x)\n"
                 f"{shown} strongest of {total:,} edges: solid w > 0, dashed w < 0; colour: node value",
                 fontsize=10)
    lo, hi = screen.min(axis=0), screen.max(axis=0)
    ax.set(xlim=(lo[0] - 0.8, hi[0] + 0.8), ylim=(lo[1] - 0.8, hi[1] + 0.8), aspect="equal")
    ax.set_axis_off()                                     # a projection of 3D: screen axes mean nothing
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.88)


def make():
    controls = {
        "n_layers": IntSlider(value=3, min=2, max=7, description="layers", continuous_update=False),
        "d": IntSlider(value=4, min=1, max=6, description="d (nodes)", continuous_update=False),
        "activation": Dropdown(options=["relu", "gelu", "silu"], value="relu", description="activation"),
        "view": Dropdown(options=list(VIEWS), value="angled", description="view"),
        "turn": FloatSlider(value=0.0, min=-180.0, max=180.0, step=15.0, description="turn (degrees)",
                            continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(6.4, 4.6), title="A network in 3D")
