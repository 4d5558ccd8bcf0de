"""Notebook 07's demo: perturb one input token and see which output tokens move.

Three layers on the same T x d input: causal attention (GPT), attention without
a mask (an encoder such as BERT), and the MLP. Every change is computed once in
`make()`; a redraw only plots.
"""

import math

import torch
from ipywidgets import Dropdown, IntSlider
from matplotlib.collections import LineCollection
from matplotlib.patches import Rectangle

from helpers.attention import CausalSelfAttention
from helpers.ffn import FFN
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

T, D_MODEL = 8, 16
LAYERS = ("attention (causal)", "attention (no mask)", "MLP")
SAMPLE = {"token": 6, "layer": "attention (no mask)"}


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
    """Left: lines from the perturbed input to the outputs that moved. Right: the full map."""
    C = table[layer].numpy()
    j = token - 1
    ax, ax_map = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.4, 1]})
    moved = C[:, j] > 1e-9
    lines = [[(j + 1, 0), (i + 1, 1)] for i in range(T) if moved[i]]
    ax.add_collection(LineCollection(lines, colors=COLORS["attention" if "attention" in layer else "mlp"],
                                     linewidths=1 + 3 * C[moved, j] / C[:, j].max()))
    ax.scatter(range(1, T + 1), [0] * T, s=200, c=["#D55E00" if t == j else "#cccccc" for t in range(T)],
               edgecolors="black", zorder=3)
    ax.scatter(range(1, T + 1), [1] * T, s=200, c=["#009E73" if m else "white" for m in moved],
               edgecolors="black", zorder=3)
    ax.set_yticks([0, 1], ["input", "output"])
    ax.set_xticks(range(1, T + 1))
    ax.set_ylim(-0.3, 1.3)
    ax.set_xlabel("token position")
    ax.set_ylabel("layer side")
    ax.set_title(f"{layer}: token {token} moves outputs {[i + 1 for i in range(T) if moved[i]]}",
                 fontsize=9)
    ax_map.imshow(C > 1e-9, cmap="Greens", vmin=0, vmax=1.3)
    ax_map.add_patch(Rectangle((j - 0.5, -0.5), 1, T, fill=False, edgecolor="#D55E00", lw=2))
    ticks = range(T)
    ax_map.set_xticks(ticks, [t + 1 for t in ticks])
    ax_map.set_yticks(ticks, [t + 1 for t in ticks])
    ax_map.set_xlabel("perturbed input token j")
    ax_map.set_ylabel("output token i")
    ax_map.set_title("dependency map (green: moves)", fontsize=9)
    ax_map.grid(False)
    fig.subplots_adjust(bottom=0.17, wspace=0.3)


def make():
    torch.manual_seed(1)
    x = torch.randn(T, D_MODEL, dtype=torch.float64)
    table = {name: changes(layer, x) for name, layer in build_layers().items()}
    controls = {
        "token": IntSlider(value=3, min=1, max=T, description="perturb token", continuous_update=False),
        "layer": Dropdown(options=list(LAYERS), value=LAYERS[0], description="layer"),
    }
    return LiveFigure(lambda fig, token, layer: draw(fig, token, layer, table), controls,
                      figsize=(9.0, 3.6), title="Which output tokens move")
