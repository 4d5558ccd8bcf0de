"""Notebook 11's demo: pick E experts, top-k, a router temperature and a skew; see each expert's load.

The router logits of 2048 tokens are drawn once; a redraw only re-routes them.
"""

import torch
from ipywidgets import FloatSlider, IntSlider

from helpers.moe import route
from helpers.widgets import LiveFigure

SAMPLE = {"n_experts": 16, "top_k": 4, "temperature": 0.5, "skew": 2.0}
N_TOKENS, MAX_EXPERTS = 2048, 16
LOGITS = torch.randn(N_TOKENS, MAX_EXPERTS, generator=torch.Generator().manual_seed(0))


def draw(fig, n_experts, top_k, temperature, skew):
    """Tokens per expert (bars) and the router weight each expert gets (dots)."""
    top_k = min(top_k, n_experts)
    logits = LOGITS[:, :n_experts].clone()
    logits[:, 0] += skew                                      # a router that favours expert 0
    routing = route(logits / temperature, top_k)
    fair = N_TOKENS * top_k / n_experts
    weight = torch.bincount(routing.experts.flatten(), weights=routing.weights.flatten(),
                            minlength=n_experts)              # (E,) total router weight per expert
    ax = fig.add_subplot(1, 1, 1)
    ax.bar(range(n_experts), routing.counts.tolist(), color="#E69F00", label="tokens routed")
    ax.plot(range(n_experts), (weight * top_k).tolist(), "o", color="#0072B2",
            label="router weight x k")
    ax.axhline(fair, color="black", ls="--", label=f"balanced: {fair:.0f}")
    ax.set_xlabel("expert")
    ax.set_ylabel(f"tokens (of {N_TOKENS:,}, k={top_k} each)")
    busiest = routing.counts.max().item() / fair
    ax.set_title(f"E={n_experts}, top-{top_k}: a token uses {top_k}/{n_experts} of the experts; "
                 f"busiest expert {busiest:.2f}x its fair share")
    ax.set_ylim(0, 1.3 * max(routing.counts.max().item(), (weight * top_k).max().item()))
    ax.legend(loc="upper center", ncol=3, fontsize=9)


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
    return LiveFigure(draw, controls, figsize=(8.0, 4.0), title="Expert load")
