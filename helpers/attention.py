"""Causal multi-head self-attention: GPT-2's (as in nanoGPT) and Llama's (as in Hugging Face).

CausalSelfAttention: c_attn projects x to Q, K, V in one matmul (d_model -> 3 * d_model);
each head scores, masks, softmaxes and mixes V; c_proj maps the heads back to d_model.
GPT-2 learns where a token sits from a position embedding added before the first block.

LlamaAttention: q_proj, k_proj, v_proj, o_proj, no biases, and position inside attention:
`rope` rotates each query and key by angles that grow with its position (RoPE), so that
a score depends on how far apart two tokens are. n_kv_head < n_head shares each key and
value head among n_head / n_kv_head query heads (grouped-query attention, Llama-3).

In both, the softmax is a submodule, so a forward hook on `attn.softmax` reads the
attention weights (B, n_head, T, T) without the module keeping any state.
"""

import math

import torch
from torch import nn

from helpers import validate
from helpers.device import check_available


def causal_mask(T, window=None, device=None):
    """(T, T) bool, True where query i may look at key j: j <= i, and j > i - window if a window is
    set."""
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
        # (B, nh, T, hs)
        q, k, v = (t.view(B, T, self.n_head, hs).transpose(1, 2) for t in (q, k, v))
        # (B, nh, T, T)
        scores = q @ k.transpose(-2, -1) / math.sqrt(hs)
        scores = scores.masked_fill(~causal_mask(T, device=x.device), float("-inf"))
        weights = self.softmax(scores)   # each row sums to 1: a weighted average
        # (B, nh, T, hs)
        y = weights @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


def rope(x, base=10000.0):
    """Rotary position embedding of x (..., T, d_head), as Llama (Hugging Face) applies it to q and
    k.

    Position t turns the pair (x[i], x[i + d_head/2]) by the angle t * base**(-2i/d_head).
    """
    validate.tensor(x, "x")
    if x.ndim < 2 or x.shape[-1] % 2:
        raise ValueError("x must have shape (..., T, d_head) with an even d_head, got "
                         f"{tuple(x.shape)}")
    base = validate.positive_number(base, "base")
    T, half = x.shape[-2], x.shape[-1] // 2
    # (half,)
    inv_freq = base ** (-torch.arange(half, dtype=torch.float64, device=x.device) / half)
    # (T, half)
    angles = torch.arange(T, dtype=torch.float64, device=x.device)[:, None] * inv_freq
    cos = angles.cos().repeat(1, 2).to(x.dtype)    # (T, d_head): each angle for both halves
    sin = angles.sin().repeat(1, 2).to(x.dtype)
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)   # (x1, x2) -> (-x2, x1)
    return x * cos + rotated * sin


class LlamaAttention(nn.Module):
    """x: (B, T, d_model) -> (B, T, d_model), with Llama's names and RoPE; token t sees tokens
    0..t."""

    def __init__(self, d_model, n_head, n_kv_head=None):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        n_head = validate.positive_int(n_head, "n_head")
        n_kv_head = n_head if n_kv_head is None else validate.positive_int(n_kv_head, "n_kv_head")
        if d_model % n_head or (d_model // n_head) % 2:
            raise ValueError(f"d_model={d_model} must be n_head={n_head} times an even d_head "
                             "(RoPE turns pairs)")
        if n_head % n_kv_head:
            raise ValueError(f"n_head={n_head} must be a multiple of n_kv_head={n_kv_head}")
        self.n_head, self.n_kv_head, self.d_head = n_head, n_kv_head, d_model // n_head
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_head * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_head * self.d_head, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        validate.model_input(x, self.o_proj.out_features, "attention", self.q_proj.weight, dims=3)
        B, T, C = x.shape
        q = self.q_proj(x).view(B, T, self.n_head, self.d_head).transpose(1, 2)     # (B, nh, T, hs)
        # (B, n_kv, T, hs)
        k, v = (proj(x).view(B, T, self.n_kv_head, self.d_head).transpose(1, 2)
                for proj in (self.k_proj, self.v_proj))
        q, k = rope(q), rope(k)                          # position enters here, in q and k only
        group = self.n_head // self.n_kv_head
        # (B, nh, T, hs)
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        scores = scores.masked_fill(~causal_mask(T, device=x.device), float("-inf"))
        y = self.softmax(scores) @ v
        return self.o_proj(y.transpose(1, 2).reshape(B, T, C))
