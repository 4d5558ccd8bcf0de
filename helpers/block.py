"""The Transformer block: norms, the pre-LN block of GPT-2, the post-LN block, and the parallel block.

    Block:          x = x + attn(ln_1(x));  x = x + mlp(ln_2(x))     (GPT-2: norm inside each branch)
    PostLNBlock:    x = ln_1(x + attn(x));  x = ln_2(x + mlp(x))     (the original Transformer: add, then norm)
    ParallelBlock:  x = x + attn(ln(x)) + mlp(ln(x))                 (GPT-J, PaLM)
"""

import torch
from torch import nn

from helpers import validate
from helpers.attention import CausalSelfAttention
from helpers.ffn import FFN
from helpers.gated import GatedMLP


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension (no mean subtraction, no bias)."""

    def __init__(self, d_model, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(validate.positive_int(d_model, "d_model")))

    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


def make_norm(kind, d_model):
    """'layernorm' (GPT-2) or 'rmsnorm' (Llama)."""
    validate.choice(kind, "norm", {"layernorm", "rmsnorm"})
    return nn.LayerNorm(d_model) if kind == "layernorm" else RMSNorm(d_model)


def make_mlp(kind, d_model, d_ff, bias):
    """'gelu' (GPT-2's FFN) or 'swiglu' (Llama's gated MLP)."""
    validate.choice(kind, "mlp", {"gelu", "relu", "swiglu"})
    if kind == "swiglu":
        return GatedMLP(d_model, d_ff, bias=bias)
    return FFN(d_model, d_ff, activation=kind, bias=bias)


class Block(nn.Module):
    """Pre-LN block with GPT-2's names: ln_1, attn, ln_2, mlp. x: (B, T, d_model)."""

    def __init__(self, d_model, n_head, d_ff=None, norm="layernorm", mlp="gelu", bias=True):
        super().__init__()
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.ln_1 = make_norm(norm, d_model)
        self.attn = CausalSelfAttention(d_model, n_head, bias=bias)
        self.ln_2 = make_norm(norm, d_model)
        self.mlp = make_mlp(mlp, d_model, d_ff, bias)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))   # tokens talk to each other
        x = x + self.mlp(self.ln_2(x))    # each token is processed on its own
        return x


class PostLNBlock(Block):
    """The original Transformer's order, Add & Norm after each sublayer; Block's parameters and names."""

    def forward(self, x):
        x = self.ln_1(x + self.attn(x))   # attention, add, then normalise the stream itself
        x = self.ln_2(x + self.mlp(x))    # MLP, add, normalise again
        return x


class ParallelBlock(nn.Module):
    """Attention and MLP read the same normed input; both updates are added at once."""

    def __init__(self, d_model, n_head, d_ff=None, norm="layernorm", mlp="gelu", bias=True):
        super().__init__()
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.ln = make_norm(norm, d_model)
        self.attn = CausalSelfAttention(d_model, n_head, bias=bias)
        self.mlp = make_mlp(mlp, d_model, d_ff, bias)

    def forward(self, x):
        h = self.ln(x)
        return x + self.attn(h) + self.mlp(h)
