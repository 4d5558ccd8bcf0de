"""Notebook 04's demo: a d -> 4d -> d -> ... network in 3D; pick sizes, activation and view."""

import numpy as np
from ipywidgets import Dropdown, FloatSlider, IntSlider

from helpers import activations, network3d
from helpers.widgets import LiveFigure

SAMPLE = {"n_layers": 5, "d": 8, "activation": "gelu", "elev": 25.0, "azim": -50.0}
MAX_EDGES = 300  # drawn in all; the strongest of each matrix are kept (fast redraw)


def layer_sizes(n_layers, d):
    """d, 4d, d, 4d, ...: FFN blocks one after another, n_layers layers of nodes."""
    return [d if layer % 2 == 0 else 4 * d for layer in range(n_layers)]


def forward(sizes, activation, seed=0):
    """Random weights (one (n_in, n_out) matrix per layer pair) and every layer's values."""
    rng = np.random.default_rng(seed)
    weights = [rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out))
               for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True)]
    act = activations.get(activation)
    values = [rng.normal(size=sizes[0])]          # one input token
    for i, W in enumerate(weights):
        h = values[-1] @ W
        values.append(act(h) if i < len(weights) - 1 else h)  # no activation after the last
    return weights, values


def draw(fig, n_layers, d, activation, elev, azim):
    sizes = layer_sizes(n_layers, d)
    weights, values = forward(sizes, activation)
    positions = network3d.layer_positions(sizes)
    ax = fig.add_subplot(projection="3d")
    k = max(10, MAX_EDGES // len(weights))
    shown = sum(network3d.draw_edges(ax, positions[i], positions[i + 1], W, k=k)
                for i, W in enumerate(weights))
    vmax = max(np.abs(v).max() for v in values)
    for pos, v in zip(positions, values, strict=True):
        network3d.draw_nodes(ax, pos, v, vmax=vmax, size=18)
    total = sum(W.size for W in weights)
    hidden = np.concatenate(values[1:-1]) if n_layers > 2 else np.zeros(0)
    off = int((hidden == 0).sum()) if activation == "relu" else int((hidden < 0).sum())
    state = "exactly 0" if activation == "relu" else "negative"
    title = (f"{' -> '.join(map(str, sizes))}, {activation}: {off} of {hidden.size} hidden nodes "
             f"{state}\n{shown} of {total:,} edges drawn" + (" (the strongest)" if shown < total else ""))
    network3d.frame(ax, positions, title, elev=elev, azim=azim)


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
    return LiveFigure(draw, controls, figsize=(7.5, 5.5), title="A network in 3D")
