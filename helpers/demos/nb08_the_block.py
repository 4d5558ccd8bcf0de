"""Notebook 08's demo and its data-flow picture of the three block layouts.

The demo: a stack of blocks at initialisation, the residual stream's length per
block. Pick the depth, residual on or off, and the layout: pre-LN (GPT-2),
post-LN (the original Transformer) or parallel (GPT-J, PaLM). Every trace is
computed once in `make()` for the deepest stack; a shallower stack is its first
blocks, so a redraw only plots.
"""

import torch
from ipywidgets import Checkbox, Dropdown, IntSlider
from matplotlib.patches import Circle, FancyBboxPatch

from helpers.block import Block, ParallelBlock, PostLNBlock
from helpers.checks.state import seeded
from helpers.language import said, say, translate
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

D_MODEL, N_HEAD, T, MAX_DEPTH = 32, 4, 8, 24
KINDS = {"pre-LN (GPT-2)": Block, "post-LN (original)": PostLNBlock,
         "parallel (GPT-J, PaLM)": ParallelBlock}
KIND_NAMES = {kind: say(kind) for kind in KINDS}   # what the control and the title call each
SAMPLE = {"depth": 24, "residual": False, "kind": "parallel (GPT-J, PaLM)"}


def _norm(t):
    return t.norm(dim=-1).mean().item()   # mean over tokens of each token vector's length


@torch.no_grad()
def trace(blocks, x, residual=True):
    """Norms through a stack: {'stream': L + 1 values, 'attn': L, 'mlp': L} for x (B, T,
    d_model)."""
    out = {"stream": [_norm(x)], "attn": [], "mlp": []}
    for b in blocks:
        if isinstance(b, ParallelBlock):
            h = b.ln(x)
            a, m = b.attn(h), b.mlp(h)          # both read the same input
            x = x + a + m if residual else a + m
        elif isinstance(b, PostLNBlock):
            a = b.attn(x)
            x = b.ln_1(x + a if residual else a)   # the norm sits on the stream, after the add
            m = b.mlp(x)
            x = b.ln_2(x + m if residual else m)
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
        x = torch.randn(1, T, D_MODEL, generator=torch.Generator().manual_seed(seed),
                        dtype=torch.float64)
        table = {}
        for kind, cls in KINDS.items():
            # the blocks' own initialisation; the learner's generator is left alone
            with seeded(seed):
                blocks = [cls(D_MODEL, N_HEAD).double() for _ in range(MAX_DEPTH)]
            for residual in (True, False):
                table[kind, residual] = trace(blocks, x, residual)
    finally:
        torch.set_num_threads(threads)
    return table


def _title(depth, residual, kind, t):
    template = ("{kind}, {depth} blocks with residuals: |x| goes {first:.1f} -> {last:.1f}"
                if residual
                else "{kind}, {depth} blocks without residuals: |x| goes {first:.1f} -> {last:.1f}")
    return said(template, kind=kind, depth=depth, first=t["stream"][0], last=t["stream"][depth])


def draw(fig, depth, residual, kind, table):
    """Stream norm after each block, and the size of each sublayer's update; returns the lines."""
    t = table[kind, residual]
    ax = fig.add_subplot(1, 1, 1)
    layers = range(1, depth + 1)
    (stream,) = ax.plot(range(depth + 1), t["stream"][: depth + 1], "o-", color="black",
                        label=said("residual stream |x|"))
    (attn,) = ax.plot(layers, t["attn"][:depth], "s--", color=COLORS["attention"],
                      label=said("attention update"))
    (mlp,) = ax.plot(layers, t["mlp"][:depth], "^:", color=COLORS["mlp"], label=said("MLP update"))
    ax.set_xlim(-0.5, MAX_DEPTH + 0.5)
    ax.set_ylim(0, 1.1 * max(max(v) for v in table["pre-LN (GPT-2)", True].values()))
    ax.set_xlabel(said("block (0 = the input)"))
    ax.set_ylabel(said("mean length of a token vector"))
    ax.set_title(_title(depth, residual, kind, t))
    ax.legend(loc="upper left")
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.13, top=0.9)
    return {"ax": ax, "stream": stream, "attn": attn, "mlp": mlp}


def update(fig, lines, depth, residual, kind, table):
    """Move the three lines to the new stack and rewrite the title (the axes and legend stay);
    return what changed, so that a move repaints only these."""
    t = table[kind, residual]
    layers = list(range(1, depth + 1))
    lines["stream"].set_data(range(depth + 1), t["stream"][: depth + 1])
    lines["attn"].set_data(layers, t["attn"][:depth])
    lines["mlp"].set_data(layers, t["mlp"][:depth])
    lines["ax"].set_title(_title(depth, residual, kind, t))
    return [lines["stream"], lines["attn"], lines["mlp"], lines["ax"].title]


def make():
    table = traces()
    controls = {
        "depth": IntSlider(value=12, min=1, max=MAX_DEPTH, description=said("depth (blocks)"),
                           continuous_update=False),
        "residual": Checkbox(value=True, description=said("residual connections")),
        "kind": Dropdown(options=[(translate(name), kind) for kind, name in KIND_NAMES.items()],
                         value="pre-LN (GPT-2)", description=said("block type")),
    }
    return LiveFigure(lambda fig, depth, residual, kind: draw(fig, depth, residual, kind, table),
                      controls, figsize=(8.0, 3.8),
                      title=said("The residual stream through a stack"),
                      update=lambda fig, lines, **values: update(fig, lines, table=table, **values))


# The data-flow picture: three layouts, data flowing up. Each layout lists its boxes
# (x, y, label, part), its add nodes (x, y) and its wires (polylines ending in an arrow).
_LAYOUTS = {
    say("post-LN (the original, 2017):\nadd, then norm the stream"): {
        "boxes": [(3, 1.9, "attn", "attention"), (1, 3.9, "ln_1", "norm"),
                  (3, 5.9, "mlp", "mlp"), (1, 7.9, "ln_2", "norm")],
        "adds": [(1, 2.9), (1, 6.9)],
        "wires": [[(1, 0.3), (1, 2.65)], [(1, 3.15), (1, 3.5)], [(1, 4.3), (1, 6.65)],
                  [(1, 7.15), (1, 7.5)], [(1, 8.3), (1, 9.6)], [(1, 0.9), (3, 0.9), (3, 1.5)],
                  [(3, 2.3), (3, 2.9), (1.25, 2.9)], [(1, 4.9), (3, 4.9), (3, 5.5)],
                  [(3, 6.3), (3, 6.9), (1.25, 6.9)]],
    },
    say("pre-LN (GPT-2):\nnorm inside each branch"): {
        "boxes": [(3, 2.0, "ln_1", "norm"), (3, 3.3, "attn", "attention"),
                  (3, 6.0, "ln_2", "norm"), (3, 7.3, "mlp", "mlp")],
        "adds": [(1, 4.4), (1, 8.4)],
        "wires": [[(1, 0.3), (1, 4.15)], [(1, 4.65), (1, 8.15)], [(1, 8.65), (1, 9.6)],
                  [(1, 1.0), (3, 1.0), (3, 1.6)], [(3, 2.4), (3, 2.9)],
                  [(3, 3.7), (3, 4.4), (1.25, 4.4)], [(1, 5.0), (3, 5.0), (3, 5.6)],
                  [(3, 6.4), (3, 6.9)], [(3, 7.7), (3, 8.4), (1.25, 8.4)]],
    },
    say("parallel (GPT-J, PaLM):\none norm, both sublayers read it"): {
        "boxes": [(3.2, 2.2, "ln", "norm"), (2.3, 4.0, "attn", "attention"),
                  (4.1, 4.0, "mlp", "mlp")],
        "adds": [(1, 5.2), (1, 6.6)],
        "wires": [[(1, 0.3), (1, 4.95)], [(1, 5.45), (1, 6.35)], [(1, 6.85), (1, 9.6)],
                  [(1, 1.2), (3.2, 1.2), (3.2, 1.8)],
                  [(3.2, 2.6), (3.2, 3.0), (2.3, 3.0), (2.3, 3.6)],
                  [(3.2, 3.0), (4.1, 3.0), (4.1, 3.6)], [(2.3, 4.4), (2.3, 5.2), (1.25, 5.2)],
                  [(4.1, 4.4), (4.1, 6.6), (1.25, 6.6)]],
    },
}
_FILL = {"norm": "white", "attention": COLORS["attention"], "mlp": COLORS["mlp"]}


def draw_layouts(fig):
    """Post-LN, pre-LN and parallel blocks side by side: where the norms sit and what reads what."""
    axes = fig.subplots(1, len(_LAYOUTS))
    for ax, (title, layout) in zip(axes, _LAYOUTS.items(), strict=True):
        for wire in layout["wires"]:
            xs, ys = zip(*wire, strict=True)
            ax.plot(xs[:-1], ys[:-1], color="black", lw=1.3)
            ax.annotate("", xy=wire[-1], xytext=wire[-2],
                        arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.3, "shrinkA": 0,
                                    "shrinkB": 0})
        for x, y, label, part in layout["boxes"]:
            ax.add_patch(FancyBboxPatch((x - 0.65, y - 0.4), 1.3, 0.8, boxstyle="round,pad=0.02",
                                        fc=_FILL[part], ec="black", alpha=0.9 if part == "norm"
                                        else 0.55))
            ax.text(x, y, label, ha="center", va="center", fontsize=11, family="monospace")
        for x, y in layout["adds"]:
            ax.add_patch(Circle((x, y), 0.25, fc="white", ec="black", zorder=3))
            ax.text(x, y, "+", ha="center", va="center", fontsize=12, zorder=4)
        ax.text(1, 0.0, said("x in"), ha="center", va="top", fontsize=10)
        ax.text(1, 9.9, said("x out"), ha="center", va="bottom", fontsize=10)
        ax.set_xlim(0.2, 5.0)
        ax.set_ylim(-0.6, 10.6)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(translate(title), fontsize=10)
    fig.suptitle(said("Where the norm sits: on the stream (post-LN) or inside the branches "
                      "(pre-LN, parallel)"))
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.02, top=0.85, wspace=0.05)
