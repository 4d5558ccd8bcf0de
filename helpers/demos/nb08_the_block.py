"""Notebook 08's demo: a stack of blocks at initialisation, the residual stream's norm per layer.

Pick the depth, residual on or off, and the pre-LN block (GPT-2) or the parallel
block (GPT-J, PaLM). Every trace is computed once in `make()` for the deepest
stack; a shallower stack is its first blocks, so a redraw only plots.
"""

import torch
from ipywidgets import Checkbox, Dropdown, IntSlider

from helpers.block import Block, ParallelBlock
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

D_MODEL, N_HEAD, T, MAX_DEPTH = 32, 4, 8, 24
KINDS = {"pre-LN (GPT-2)": Block, "parallel (GPT-J, PaLM)": ParallelBlock}
SAMPLE = {"depth": 24, "residual": False, "kind": "parallel (GPT-J, PaLM)"}


def _norm(t):
    return t.norm(dim=-1).mean().item()   # mean over tokens of each token vector's length


@torch.no_grad()
def trace(blocks, x, residual=True):
    """Norms through a stack: {'stream': L + 1 values, 'attn': L, 'mlp': L} for x (B, T, d_model)."""
    out = {"stream": [_norm(x)], "attn": [], "mlp": []}
    for b in blocks:
        if isinstance(b, ParallelBlock):
            h = b.ln(x)
            a, m = b.attn(h), b.mlp(h)          # both read the same input
            x = x + a + m if residual else a + m
        else:
            a = b.attn(b.ln_1(x))
            x = x + a if residual else a
            m = b.mlp(b.ln_2(x))
            x = x + m if residual else m
        out["attn"].append(_norm(a))
        out["mlp"].append(_norm(m))
        out["stream"].append(_norm(x))
    return out


def traces(seed=0):
    """Every (kind, residual) trace for a stack of MAX_DEPTH blocks."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # tiny tensors: one thread beats waking up several
    try:
        x = torch.randn(1, T, D_MODEL, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
        table = {}
        for kind, cls in KINDS.items():
            torch.manual_seed(seed)
            blocks = [cls(D_MODEL, N_HEAD).double() for _ in range(MAX_DEPTH)]
            for residual in (True, False):
                table[kind, residual] = trace(blocks, x, residual)
    finally:
        torch.set_num_threads(threads)
    return table


def draw(fig, depth, residual, kind, table):
    """Stream norm after each block, and the size of each sublayer's update."""
    t = table[kind, residual]
    ax = fig.add_subplot(1, 1, 1)
    layers = range(1, depth + 1)
    ax.plot(range(depth + 1), t["stream"][: depth + 1], "o-", color="black", label="residual stream |x|")
    ax.plot(layers, t["attn"][:depth], "s--", color=COLORS["attention"], label="attention update")
    ax.plot(layers, t["mlp"][:depth], "^--", color=COLORS["mlp"], label="MLP update")
    ax.set_xlim(-0.5, MAX_DEPTH + 0.5)
    ax.set_ylim(0, 1.1 * max(max(v) for v in table[kind, True].values()))
    ax.set_xlabel("block (0 = the input)")
    ax.set_ylabel("mean length of a token vector")
    mode = "with residuals" if residual else "without residuals"
    ax.set_title(f"{kind}, {depth} blocks {mode}: |x| goes {t['stream'][0]:.1f} -> {t['stream'][depth]:.1f}")
    ax.legend(loc="upper left", fontsize=9)


def make():
    table = traces()
    controls = {
        "depth": IntSlider(value=12, min=1, max=MAX_DEPTH, description="blocks", continuous_update=False),
        "residual": Checkbox(value=True, description="residual connections"),
        "kind": Dropdown(options=list(KINDS), value="pre-LN (GPT-2)", description="block"),
    }
    return LiveFigure(lambda fig, depth, residual, kind: draw(fig, depth, residual, kind, table),
                      controls, figsize=(8.0, 4.0), title="The residual stream through a stack")
