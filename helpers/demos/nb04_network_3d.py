"""Notebook 04's demo: a d -> 4d -> d -> ... network in 3D; pick sizes, activation and view."""

import numpy as np
from ipywidgets import Dropdown, FloatSlider, IntSlider

from helpers import activations, network3d
from helpers.widgets import LiveFigure

SAMPLE = {"n_layers": 5, "d": 8, "activation": "gelu", "elev": 25.0, "azim": -50.0}
MAX_EDGES = 240  # drawn in all; the strongest of each matrix are kept (fast redraw)


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


def draw(fig, n_layers, d, activation, elev, azim):
    sizes = layer_sizes(n_layers, d)
    weights, values, pre = forward(sizes, activation)
    positions = network3d.layer_positions(sizes)
    ax = fig.add_subplot(projection="3d")
    k = max(10, MAX_EDGES // len(weights))
    shown = sum(network3d.draw_edges(ax, positions[i], positions[i + 1], W, k=k)
                for i, W in enumerate(weights))
    vmax = max(np.abs(v).max() for v in values)
    off = hidden = 0
    for pos, v, h in zip(positions, values, pre, strict=True):
        network3d.draw_nodes(ax, pos, v, vmax=vmax, size=18)
        if h is not None:                                 # a hidden layer: cross out its off units
            off += network3d.mark_off(ax, pos, network3d.switched_off(h, v), size=18)
            hidden += len(h)
    total = sum(W.size for W in weights)
    title = (f"{' -> '.join(map(str, sizes))}, {activation}: {off} of {hidden} hidden nodes off (x)\n"
             f"{shown} of {total:,} edges drawn" + (" (the strongest)" if shown < total else ""))
    network3d.frame(ax, positions, title, elev=elev, azim=azim)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.pane.set_visible(False)                      # a lighter image: quicker to encode


def make():
    controls = {
        "n_layers": IntSlider(value=3, min=2, max=7, description="layers", continuous_update=False),
        "d": IntSlider(value=4, min=1, max=12, description="d (nodes)", continuous_update=False),
        "activation": Dropdown(options=["relu", "gelu", "silu"], value="relu",
                               description="activation"),
        "elev": FloatSlider(value=20.0, min=-90.0, max=90.0, step=5.0, description="elevation",
                            continuous_update=False),
        "azim": FloatSlider(value=-60.0, min=-180.0, max=180.0, step=5.0, description="azimuth",
                            continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(7.0, 5.0), title="A network in 3D")
