"""Causal multi-head self-attention with GPT-2's names (as in nanoGPT).

c_attn projects x to Q, K, V in one matmul (d_model -> 3 * d_model); each head
scores, masks, softmaxes and mixes V; c_proj maps the heads back to d_model.
The softmax is a submodule, so a forward hook on `attn.softmax` reads the
attention weights (B, n_head, T, T) without the module keeping any state.
"""

import math

import torch
from torch import nn

from helpers import validate
from helpers.device import check_available


def causal_mask(T, window=None, device=None):
    """(T, T) bool, True where query i may look at key j: j <= i, and j > i - window if a window is set."""
    T = validate.positive_int(T, "T")
    if device is not None and not isinstance(device, torch.device):
        device = check_available(device)
    i = torch.arange(T, device=device)[:, None]   # query positions, down the rows
    j = torch.arange(T, device=device)[None, :]   # key positions, along the columns
    allowed = j <= i
    if window is not None:
        allowed &= j > i - validate.positive_int(window, "window")
    return allowed


class CausalSelfAttention(nn.Module):
    """x: (B, T, d_model) -> (B, T, d_model); token t sees tokens 0..t only."""

    def __init__(self, d_model, n_head, bias=True):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        n_head = validate.positive_int(n_head, "n_head")
        bias = validate.boolean(bias, "bias")
        if d_model % n_head:
            raise ValueError(f"d_model={d_model} must be divisible by n_head={n_head}")
        self.n_head = n_head
        self.c_attn = nn.Linear(d_model, 3 * d_model, bias=bias)  # Q, K, V fused
        self.c_proj = nn.Linear(d_model, d_model, bias=bias)      # W^O
        self.softmax = nn.Softmax(dim=-1)  # no parameters; a hook here sees the weights

    def forward(self, x):
        validate.model_input(x, self.c_proj.in_features, "attention", self.c_attn.weight, dims=3)
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        hs = C // self.n_head
        q, k, v = (t.view(B, T, self.n_head, hs).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        scores = q @ k.transpose(-2, -1) / math.sqrt(hs)                              # (B, nh, T, T)
        scores = scores.masked_fill(~causal_mask(T, device=x.device), float("-inf"))
        weights = self.softmax(scores)   # each row sums to 1: a weighted average
        y = weights @ v                                                                # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)
