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
from helpers.ffn import FFN
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

T, D_MODEL = 8, 16
LAYERS = ("attention (causal)", "attention (no mask)", "MLP")
SAMPLE = {"token": 6, "layer": "attention (no mask)"}
UNUSED = "#eeeeee"   # a light grey: an input the output does not use


def build_layers(seed=0):
    """The three layers as functions (T, d_model) -> (T, d_model), float64."""
    torch.manual_seed(seed)
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
    """Left: lines from every input that moves output `token`. Right: the whole map, its row framed."""
    C = table[layer].numpy()
    i = token - 1
    colour = COLORS["attention" if "attention" in layer else "mlp"]
    ax, ax_map = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.4, 1]})
    used = C[i] > 1e-9
    inputs = [j + 1 for j in range(T) if used[j]]
    lines = [[(j + 1, 0), (token, 1)] for j in range(T) if used[j]]
    ax.add_collection(LineCollection(lines, colors=colour, linewidths=1 + 4 * C[i, used] / C[i].max()))
    ax.scatter(range(1, T + 1), [0] * T, s=180, c=[colour if u else UNUSED for u in used],
               edgecolors="black", zorder=3)
    ax.scatter([token], [1], s=180, c=colour, edgecolors="black", zorder=3)
    ax.set_yticks([0, 1], ["input", "output"])
    ax.set_xticks(range(1, T + 1))
    ax.set_xlim(0.5, T + 0.5)
    ax.set_ylim(-0.3, 1.3)
    ax.grid(False)
    ax.set_xlabel("token position")
    ax.set_ylabel("layer side")
    ax.set_title(f"{layer}: output {token} uses inputs {inputs}")
    # extent puts token t at coordinate t, so the ticks need no labels of their own
    ax_map.imshow(C > 1e-9, cmap=ListedColormap([UNUSED, colour]), vmin=0, vmax=1,
                  extent=(0.5, T + 0.5, T + 0.5, 0.5))
    ax_map.add_patch(Rectangle((0.5, token - 0.5), T, 1, fill=False, edgecolor="black", lw=2))
    ax_map.set_xticks(range(1, T + 1))
    ax_map.set_yticks(range(1, T + 1))
    ax_map.set_xlabel("input token j")
    ax_map.set_ylabel("output token i")
    ax_map.set_title("all outputs (coloured: uses)")
    ax_map.grid(False)
    fig.subplots_adjust(left=0.11, right=0.98, bottom=0.16, top=0.88, wspace=0.3)


def make():
    torch.manual_seed(1)
    x = torch.randn(T, D_MODEL, dtype=torch.float64)
    table = {name: changes(layer, x) for name, layer in build_layers().items()}
    controls = {
        "token": IntSlider(value=3, min=1, max=T, description="output token", continuous_update=False),
        "layer": Dropdown(options=list(LAYERS), value=LAYERS[0], description="layer"),
    }
    return LiveFigure(lambda fig, token, layer: draw(fig, token, layer, table), controls,
                      figsize=(8.4, 3.4), title="Which input tokens an output uses")
