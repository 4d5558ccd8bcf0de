"""Notebook 11's demo: pick E experts, top-k, a router temperature and a skew; see each expert's load.

The router logits of 2048 tokens are drawn once; a redraw only re-routes them and draws
one axes (bars, dots and two lines), so that it stays well within a projector's patience.
"""

import torch
from ipywidgets import FloatSlider, IntSlider

from helpers.moe import route
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

SAMPLE = {"n_experts": 16, "top_k": 4, "temperature": 0.5, "skew": 2.0}
N_TOKENS, MAX_EXPERTS, CAPACITY_FACTOR = 2048, 16, 1.25
LOGITS = torch.randn(N_TOKENS, MAX_EXPERTS, generator=torch.Generator().manual_seed(0))


def draw(fig, n_experts, top_k, temperature, skew):
    """Tokens per expert (bars), the router weight each expert gets (dots), fair share and capacity."""
    top_k = min(top_k, n_experts)
    logits = LOGITS[:, :n_experts].clone()
    logits[:, 0] += skew                                      # a router that favours expert 0
    routing = route(logits / temperature, top_k)
    fair = N_TOKENS * top_k / n_experts
    capacity = int(CAPACITY_FACTOR * fair)
    counts = routing.counts
    weight = torch.bincount(routing.experts.flatten(), weights=routing.weights.flatten(),
                            minlength=n_experts)              # (E,) total router weight per expert
    dropped = int((counts - capacity).clamp(min=0).sum())
    ax = fig.add_subplot(1, 1, 1)
    ax.grid(False)
    ax.bar(range(n_experts), counts.tolist(), color=COLORS["mlp"], label="tokens routed")
    ax.plot(range(n_experts), (weight * top_k).tolist(), "o", color=COLORS["kv"], label="router weight x k")
    ax.axhline(fair, color="black", ls="--", label=f"fair share {fair:.0f}")
    ax.axhline(capacity, color=COLORS["attention"], ls=":", label=f"capacity {capacity} (x{CAPACITY_FACTOR})")
    ax.set_xticks(range(n_experts))
    ax.set_xlabel("expert")
    ax.set_ylabel(f"tokens (of {N_TOKENS:,}, k={top_k} each)")
    ax.set_title(f"top-{top_k} of {n_experts}: busiest expert {counts.max().item() / fair:.2f}x fair; "
                 f"{dropped:,} of {N_TOKENS * top_k:,} assignments past capacity")
    ax.set_ylim(0, 1.35 * max(counts.max().item(), (weight * top_k).max().item(), capacity))
    ax.legend(loc="upper center", ncol=4, fontsize=9, columnspacing=1.0, handletextpad=0.4)
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.14, top=0.9)


def make():
    controls = {
        "n_experts": IntSlider(value=8, min=2, max=MAX_EXPERTS, description="E experts",
                               continuous_update=False),
        "top_k": IntSlider(value=2, min=1, max=4, description="top k", continuous_update=False),
        "temperature": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25,
                                   description="temperature", continuous_update=False),
        "skew": FloatSlider(value=0.0, min=0.0, max=3.0, step=0.25, description="skew to 0",
                            continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(7.5, 3.4), title="Expert load")
