"""A mixture-of-experts MLP layer (Mixtral-style): a router picks top-k SwiGLU experts per token.

    logits = x @ W_router                       (T, n_experts)
    top-k of the logits per token -> softmax over those k -> weights (T, k)
    out[t] = sum over the k chosen experts e of weight[t, e] * expert_e(x[t])

Each token runs through k experts only: the layer holds n_experts MLPs' parameters,
a token uses k of them.
"""

from dataclasses import dataclass

import torch
from torch import nn

from helpers import validate
from helpers.gated import GatedMLP


@dataclass
class Routing:
    """Where each token went. T tokens, k experts per token, E experts."""

    logits: torch.Tensor    # (T, E) router scores
    experts: torch.Tensor   # (T, k) chosen expert ids, best first
    weights: torch.Tensor   # (T, k) softmax over the chosen logits; each row sums to 1
    counts: torch.Tensor    # (E,) how many tokens each expert received

    def gates(self):
        """(T, E) weight of every expert for every token: the top-k weights, zeros elsewhere."""
        dense = torch.zeros_like(self.logits)
        return dense.scatter(1, self.experts, self.weights.to(dense.dtype))


def route(logits, top_k):
    """Top-k routing of router logits (T, E) -> Routing (softmax over the k chosen only)."""
    if not isinstance(logits, torch.Tensor):
        raise TypeError("logits must be a torch tensor (T, n_experts), got "
                        f"{type(logits).__name__} (a numpy array converts with torch.from_numpy)")
    validate.ndim(logits, "logits", 2)
    if not logits.is_floating_point():
        raise TypeError(f"logits must be floating point (router scores), got dtype {logits.dtype}")
    validate.finite(logits, "logits")
    n_experts = logits.shape[1]
    top_k = validate.positive_int(top_k, "top_k")
    if top_k > n_experts:
        raise ValueError(f"top_k={top_k} is more than the {n_experts} experts there are")
    top_logits, experts = logits.topk(top_k, dim=-1)        # (T, k) each, sorted best first
    weights = torch.softmax(top_logits, dim=-1)             # renormalised over the k chosen
    counts = torch.bincount(experts.flatten(), minlength=n_experts)
    return Routing(logits=logits, experts=experts, weights=weights, counts=counts)


class MoE(nn.Module):
    """Router + n_experts GatedMLP experts; forward(x) -> (out, Routing). x: (T, d_model)."""

    def __init__(self, d_model, d_ff, n_experts, top_k=2):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        self.n_experts = validate.positive_int(n_experts, "n_experts")
        self.top_k = validate.positive_int(top_k, "top_k")
        if top_k > n_experts:
            raise ValueError(f"top_k={top_k} is more than n_experts={n_experts}")
        self.router = nn.Linear(d_model, n_experts, bias=False)   # Mixtral's "gate"
        self.experts = nn.ModuleList(GatedMLP(d_model, d_ff) for _ in range(n_experts))

    @property
    def d_model(self):
        return self.router.in_features

    def forward(self, x):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"x must be a torch tensor, got {type(x).__name__}")
        if x.ndim != 2 or x.shape[1] != self.d_model:
            raise ValueError(f"x must have shape (T, {self.d_model}), got {tuple(x.shape)}")
        validate.model_input(x, self.d_model, "MoE", self.router.weight)
        routing = route(self.router(x), self.top_k)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            token, slot = torch.where(routing.experts == e)      # the tokens that chose e
            if token.numel():
                weight = routing.weights[token, slot].unsqueeze(-1)   # (n_e, 1)
                out.index_add_(0, token, weight * expert(x[token]))   # only those tokens run
        return out, routing

    def active_params(self):
        """Parameters one token uses: the router and top_k experts."""
        per_expert = sum(p.numel() for p in self.experts[0].parameters())
        return self.router.weight.numel() + self.top_k * per_expert
