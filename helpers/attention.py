"""Causal multi-head self-attention with GPT-2's names (as in nanoGPT).

c_attn projects x to Q, K, V in one matmul (d_model -> 3 * d_model); each head
scores, masks, softmaxes and mixes V; c_proj maps the heads back to d_model.
"""

import math

import torch
from torch import nn

from helpers import validate


class CausalSelfAttention(nn.Module):
    """x: (B, T, d_model) -> (B, T, d_model); token t sees tokens 0..t only."""

    def __init__(self, d_model, n_head, bias=True):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        n_head = validate.positive_int(n_head, "n_head")
        if d_model % n_head:
            raise ValueError(f"d_model={d_model} must be divisible by n_head={n_head}")
        self.n_head = n_head
        self.c_attn = nn.Linear(d_model, 3 * d_model, bias=bias)  # Q, K, V fused
        self.c_proj = nn.Linear(d_model, d_model, bias=bias)      # W^O
        self.last_weights = None  # (B, n_head, T, T) from the last forward, for plots

    def forward(self, x):
        if not isinstance(x, torch.Tensor) or x.ndim != 3:
            shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"x must be a (B, T, d_model) tensor, got {shape}")
        B, T, C = x.shape
        if C != self.c_proj.in_features:
            raise ValueError(f"x has last dimension {C} but attention expects d_model={self.c_proj.in_features}")
        q, k, v = self.c_attn(x).split(C, dim=2)
        hs = C // self.n_head
        q, k, v = (t.view(B, T, self.n_head, hs).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        scores = q @ k.transpose(-2, -1) / math.sqrt(hs)                              # (B, nh, T, T)
        mask = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)   # each row sums to 1: a weighted average
        self.last_weights = weights.detach()
        y = weights @ v                                                                # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)
