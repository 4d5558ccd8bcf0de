"""Notebook 07's demo: pick an output token and see which input tokens it is made from.

Three layers on the same T x d input: causal attention (GPT), attention without
a mask (an encoder such as BERT), and the MLP. Every change is computed once in
`make()`; a move only changes the lines, the nodes, the map and the title that
`draw` made, and repaints those.
"""

import math

import numpy as np
import torch
from ipywidgets import Dropdown, IntSlider
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap
from matplotlib.patches import Rectangle

from helpers.attention import CausalSelfAttention
from helpers.checks.state import seeded
from helpers.ffn import FFN
from helpers.language import said, say, translate
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

T, D_MODEL = 8, 16
LAYERS = ("attention (causal)", "attention (no mask)", "MLP")
SAMPLE = {"token": 6, "layer": "attention (no mask)"}
# what the controls and the title call each (MLP: a name)
LAYER_NAMES = {layer: say(layer) for layer in LAYERS[:2]}
UNUSED = "#eeeeee"   # a light grey: an input the output does not use
MAP_X = 11           # where the map starts, right of the diagram
OUTPUT_Y = 6         # the height of the output node in the diagram


def build_layers(seed=0):
    """The three layers as functions (T, d_model) -> (T, d_model), float64."""
    with seeded(seed):   # the layers' own initialisation; the learner's generator is left alone
        attn = CausalSelfAttention(D_MODEL, n_head=1).double()
        mlp = FFN(D_MODEL).double()

    def unmasked(x):
        q, k, v = attn.c_attn(x).split(D_MODEL, dim=-1)
        weights = torch.softmax(q @ k.T / math.sqrt(D_MODEL), dim=-1)  # (T, T), no mask
        return attn.c_proj(weights @ v)

    return {LAYERS[0]: lambda x: attn(x[None])[0], LAYERS[1]: unmasked, LAYERS[2]: mlp}


@torch.no_grad()
def changes(layer, x):
    """C[i, j] = how far output token i moves when input token j is shifted by 1: (T, T)."""
    base = layer(x)
    columns = []
    for j in range(x.shape[0]):
        moved = x.clone()
        moved[j] += 1.0
        columns.append((layer(moved) - base).norm(dim=-1))
    return torch.stack(columns, dim=1)


def _labels(ax):
    """The words and numbers that stay for every setting: the diagram's rows, the map's axes."""
    ax.text(0.4, 0, "input", ha="right", va="center")
    ax.text(0.4, OUTPUT_Y, "output", ha="right", va="center")
    for t in range(1, T + 1):
        ax.text(MAP_X + t, -0.9, str(t), ha="center", va="center")
        ax.text(MAP_X + 0.1, T - t, str(t), ha="right", va="center")
    ax.text(MAP_X + (T + 1) / 2, -1.6, said("input token j"), ha="center", va="center")
    ax.text(MAP_X - 0.7, (T - 1) / 2, said("output token i"), ha="center", va="center", rotation=90)
    ax.text(MAP_X + (T + 1) / 2, T, said("every output (coloured: uses)"), ha="center", va="center")


def draw(fig, token, layer, table):
    """Left: lines into output `token` from every input that moves it. Right: the whole map, its row
    framed.

    Both halves share one axes without ticks: an axes' tick machinery is the slow part of a redraw.
    Returns the artists that `update` changes.
    """
    ax = fig.add_subplot(1, 1, 1)
    # the diagram: inputs at height 0, outputs at height OUTPUT_Y, token t at x = t
    artists = {"ax": ax, "lines": ax.add_collection(LineCollection([])),
               "nodes": ax.scatter(np.zeros(T + 1), np.zeros(T + 1), s=300, edgecolors="black",
                                   zorder=3),
               "numbers": [ax.text(t, 0, str(t), ha="center", va="center", zorder=4)
                           for t in range(1, T + 1)],
               "output": ax.text(token, OUTPUT_Y, str(token), ha="center", va="center", zorder=4),
               # the map: output i's row at height T - i, input j's column at x = MAP_X + j
               "map": ax.pcolormesh(MAP_X + 0.5 + np.arange(T + 1), T - 0.5 - np.arange(T + 1),
                                    np.zeros((T, T)), vmin=0, vmax=1),
               "frame": ax.add_patch(Rectangle((MAP_X + 0.5, 0), T, 1, fill=False,
                                               edgecolor="black", lw=2))}
    _labels(ax)
    ax.set_xlim(-1.2, MAP_X + T + 0.7)
    ax.set_ylim(-2.0, T + 0.4)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.9)
    update(fig, artists, token, layer, table)
    return artists


def update(fig, artists, token, layer, table):
    """Draw output `token`'s lines, its inputs' colours, the map of `layer` and its framed row, and
    the title; return what changed (the input numbers too: they are painted over their nodes)."""
    C = table[layer].numpy()
    colour = COLORS["attention" if "attention" in layer else "mlp"]
    used = C[token - 1] > 1e-9
    inputs = [j + 1 for j in range(T) if used[j]]
    lines = artists["lines"]
    lines.set_segments([[(j + 1, 0), (token, OUTPUT_Y)] for j in range(T) if used[j]])
    lines.set_color(colour)
    lines.set_linewidths(1 + 4 * C[token - 1, used] / C[token - 1].max())
    nodes = artists["nodes"]
    nodes.set_offsets(np.column_stack([list(range(1, T + 1)) + [token], [0] * T + [OUTPUT_Y]]))
    nodes.set_facecolors([colour if u else UNUSED for u in used] + [colour])
    artists["output"].set_position((token, OUTPUT_Y))
    artists["output"].set_text(str(token))
    artists["map"].set_array((C > 1e-9).astype(float))
    artists["map"].set_cmap(ListedColormap([UNUSED, colour]))
    artists["frame"].set_y(T - 0.5 - token)
    ax = artists["ax"]
    ax.set_title(said("{layer}: output {token} uses inputs {inputs}",
                      layer=LAYER_NAMES.get(layer, layer), token=token, inputs=inputs))
    return [lines, nodes, *artists["numbers"], artists["output"], artists["map"], artists["frame"],
            ax.title]


def make():
    x = torch.randn(T, D_MODEL, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    table = {name: changes(layer, x) for name, layer in build_layers().items()}
    controls = {
        "token": IntSlider(value=3, min=1, max=T, description=said("output token"),
                           continuous_update=False),
        "layer": Dropdown(options=[(translate(LAYER_NAMES[layer]) if layer in LAYER_NAMES
                                    else layer, layer) for layer in LAYERS],
                          value=LAYERS[0], description="layer"),
    }
    return LiveFigure(lambda fig, token, layer: draw(fig, token, layer, table), controls,
                      figsize=(7.4, 3.5), title=said("Which input tokens an output uses"),
                      update=lambda fig, artists, token,
                      layer: update(fig, artists, token, layer, table))
