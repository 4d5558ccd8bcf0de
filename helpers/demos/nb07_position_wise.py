"""Notebook 07's demo: pick an output token and see which input tokens it is made from.

Three layers on the same T x d input: causal attention (GPT), attention without
a mask (an encoder such as BERT), and the MLP. Every change is computed once in
`make()`; a redraw only plots.
"""

import math

import torch
from ipywidgets import Dropdown, IntSlider
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap
from matplotlib.patches import Rectangle

from helpers.attention import CausalSelfAttention
from helpers.checks.state import seeded
from helpers.ffn import FFN
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

T, D_MODEL = 8, 16
LAYERS = ("attention (causal)", "attention (no mask)", "MLP")
SAMPLE = {"token": 6, "layer": "attention (no mask)"}
UNUSED = "#eeeeee"   # a light grey: an input the output does not use
MAP_X = 11           # where the map starts, right of the diagram


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


def draw(fig, token, layer, table):
    """Left: lines into output `token` from every input that moves it. Right: the whole map, its row framed.

    Both halves share one axes without ticks: an axes' tick machinery is the slow part of a redraw.
    """
    C = table[layer].numpy()
    colour = COLORS["attention" if "attention" in layer else "mlp"]
    used = C[token - 1] > 1e-9
    inputs = [j + 1 for j in range(T) if used[j]]
    ax = fig.add_subplot(1, 1, 1)
    # the diagram: inputs at height 0, outputs at height 6, token t at x = t
    lines = [[(j + 1, 0), (token, 6)] for j in range(T) if used[j]]
    ax.add_collection(LineCollection(lines, colors=colour, linewidths=1 + 4 * C[token - 1, used] / C[token - 1].max()))
    ax.scatter(list(range(1, T + 1)) + [token], [0] * T + [6], s=300, edgecolors="black", zorder=3,
               c=[colour if u else UNUSED for u in used] + [colour])
    for t in range(1, T + 1):
        ax.text(t, 0, str(t), ha="center", va="center", zorder=4)
    ax.text(token, 6, str(token), ha="center", va="center", zorder=4)
    ax.text(0.4, 0, "input", ha="right", va="center")
    ax.text(0.4, 6, "output", ha="right", va="center")
    # the map: output i's row at height 7.5 - i, input j's column at x = MAP_X + j
    ax.imshow(C > 1e-9, cmap=ListedColormap([UNUSED, colour]), vmin=0, vmax=1,
              extent=(MAP_X + 0.5, MAP_X + T + 0.5, -0.5, T - 0.5))
    ax.add_patch(Rectangle((MAP_X + 0.5, T - 0.5 - token), T, 1, fill=False, edgecolor="black", lw=2))
    for t in range(1, T + 1):
        ax.text(MAP_X + t, -0.9, str(t), ha="center", va="center")
        ax.text(MAP_X + 0.1, T - t, str(t), ha="right", va="center")
    ax.text(MAP_X + (T + 1) / 2, -1.6, "input token j", ha="center", va="center")
    ax.text(MAP_X - 0.7, (T - 1) / 2, "output token i", ha="center", va="center", rotation=90)
    ax.text(MAP_X + (T + 1) / 2, T, "every output (coloured: uses)", ha="center", va="center")
    ax.set_xlim(-1.2, MAP_X + T + 0.7)
    ax.set_ylim(-2.0, T + 0.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"{layer}: output {token} uses inputs {inputs}")
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.9)


def make():
    x = torch.randn(T, D_MODEL, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    table = {name: changes(layer, x) for name, layer in build_layers().items()}
    controls = {
        "token": IntSlider(value=3, min=1, max=T, description="output token", continuous_update=False),
        "layer": Dropdown(options=list(LAYERS), value=LAYERS[0], description="layer"),
    }
    return LiveFigure(lambda fig, token, layer: draw(fig, token, layer, table), controls,
                      figsize=(7.4, 3.5), title="Which input tokens an output uses")
