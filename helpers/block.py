"""The Transformer block: norms, the pre-LN block of GPT-2, the post-LN block, the parallel block,
Llama's.

    Block:          x = x + attn(ln_1(x));  x = x + mlp(ln_2(x))
                    (GPT-2: norm inside each branch)
    PostLNBlock:    x = ln_1(x + attn(x));  x = ln_2(x + mlp(x))
                    (the original Transformer: add, then norm)
    ParallelBlock:  x = x + attn(ln(x)) + mlp(ln(x))                 (GPT-J, PaLM)
    LlamaBlock:     x = x + self_attn(input_layernorm(x));  x = x + mlp(post_attention_layernorm(x))
                    (pre-norm too: RMSNorm, RoPE attention, the SwiGLU MLP; Hugging Face's
                    LlamaDecoderLayer)
    LlamaStack:     n_layers LlamaBlocks, then a final RMSNorm (LlamaModel without its embedding)

mlp="gelu_tanh" gives GPT-2's own MLP (its "gelu_new", the tanh approximation): a Block built
so, with GPT-2's weights, computes what Hugging Face's GPT2Block computes.
"""

import torch
from torch import nn

from helpers import validate
from helpers.attention import CausalSelfAttention, LlamaAttention
from helpers.ffn import FFN
from helpers.gated import GatedMLP, llama_d_ff


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension (no mean subtraction, no bias)."""

    def __init__(self, d_model, eps=1e-6):
        super().__init__()
        self.eps = validate.positive_number(eps, "eps")
        self.weight = nn.Parameter(torch.ones(validate.positive_int(d_model, "d_model")))

    def forward(self, x):
        # else weight broadcasts
        validate.model_input(x, self.weight.shape[0], "RMSNorm", self.weight)
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


MLPS = ("gelu", "gelu_tanh", "relu", "swiglu")


def _sizes(d_model, n_head, d_ff, bias):
    """(d_model, n_head, d_ff, bias) checked; d_ff None means 4 * d_model."""
    d_model = validate.positive_int(d_model, "d_model")
    n_head = validate.positive_int(n_head, "n_head")
    d_ff = 4 * d_model if d_ff is None else validate.positive_int(d_ff, "d_ff")
    return d_model, n_head, d_ff, validate.boolean(bias, "bias")


def make_norm(kind, d_model):
    """'layernorm' (GPT-2) or 'rmsnorm' (Llama)."""
    validate.choice(kind, "norm", {"layernorm", "rmsnorm"})
    d_model = validate.positive_int(d_model, "d_model")
    return nn.LayerNorm(d_model) if kind == "layernorm" else RMSNorm(d_model)


def make_mlp(kind, d_model, d_ff, bias):
    """'gelu' (the FFN), 'gelu_tanh' (GPT-2's FFN exactly), 'relu', or 'swiglu' (Llama's gated
    MLP)."""
    validate.choice(kind, "mlp", MLPS)
    if kind == "swiglu":
        return GatedMLP(d_model, d_ff, bias=bias)
    return FFN(d_model, d_ff, activation=kind, bias=bias)


class Block(nn.Module):
    """Pre-LN block with GPT-2's names: ln_1, attn, ln_2, mlp. x: (B, T, d_model)."""

    def __init__(self, d_model, n_head, d_ff=None, norm="layernorm", mlp="gelu", bias=True):
        super().__init__()
        d_model, n_head, d_ff, bias = _sizes(d_model, n_head, d_ff, bias)
        self.d_model = d_model
        self.ln_1 = make_norm(norm, d_model)
        self.attn = CausalSelfAttention(d_model, n_head, bias=bias)
        self.ln_2 = make_norm(norm, d_model)
        self.mlp = make_mlp(mlp, d_model, d_ff, bias)

    def forward(self, x):
        validate.model_input(x, self.d_model, type(self).__name__, self.attn.c_attn.weight, dims=3)
        x = x + self.attn(self.ln_1(x))   # tokens talk to each other
        x = x + self.mlp(self.ln_2(x))    # each token is processed on its own
        return x


class PostLNBlock(Block):
    """The original Transformer's order, Add & Norm after each sublayer; Block's parameters and
    names."""

    def forward(self, x):
        validate.model_input(x, self.d_model, type(self).__name__, self.attn.c_attn.weight, dims=3)
        x = self.ln_1(x + self.attn(x))   # attention, add, then normalise the stream itself
        x = self.ln_2(x + self.mlp(x))    # MLP, add, normalise again
        return x


class ParallelBlock(nn.Module):
    """Attention and MLP read the same normed input; both updates are added at once."""

    def __init__(self, d_model, n_head, d_ff=None, norm="layernorm", mlp="gelu", bias=True):
        super().__init__()
        d_model, n_head, d_ff, bias = _sizes(d_model, n_head, d_ff, bias)
        self.d_model = d_model
        self.ln = make_norm(norm, d_model)
        self.attn = CausalSelfAttention(d_model, n_head, bias=bias)
        self.mlp = make_mlp(mlp, d_model, d_ff, bias)

    def forward(self, x):
        validate.model_input(x, self.d_model, type(self).__name__, self.attn.c_attn.weight, dims=3)
        h = self.ln(x)
        return x + self.attn(h) + self.mlp(h)


class LlamaBlock(nn.Module):
    """Llama's pre-norm block with Hugging Face's names (LlamaDecoderLayer). x: (B, T, d_model).

    d_ff None means Llama's rule, helpers.gated.llama_d_ff(d_model); no biases anywhere.
    """

    def __init__(self, d_model, n_head, d_ff=None, n_kv_head=None, eps=1e-6):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        d_ff = llama_d_ff(d_model) if d_ff is None else validate.positive_int(d_ff, "d_ff")
        self.d_model = d_model
        self.input_layernorm = RMSNorm(d_model, eps)
        self.self_attn = LlamaAttention(d_model, n_head, n_kv_head)
        self.post_attention_layernorm = RMSNorm(d_model, eps)
        self.mlp = GatedMLP(d_model, d_ff)    # gate_proj, up_proj, down_proj (notebook 05)

    def forward(self, x):
        validate.model_input(x, self.d_model, type(self).__name__, self.self_attn.q_proj.weight,
                             dims=3)
        x = x + self.self_attn(self.input_layernorm(x))
        x = x + self.mlp(self.post_attention_layernorm(x))
        return x


class LlamaStack(nn.Module):
    """n_layers LlamaBlocks in `layers`, then the final RMSNorm `norm`. x: (B, T, d_model)."""

    def __init__(self, d_model, n_head, d_ff=None, n_layers=2, n_kv_head=None, eps=1e-6):
        super().__init__()
        n_layers = validate.positive_int(n_layers, "n_layers")
        self.layers = nn.ModuleList(LlamaBlock(d_model, n_head, d_ff, n_kv_head, eps)
                                    for _ in range(n_layers))
        # the stream is never normalised inside: once here
        self.norm = RMSNorm(self.layers[0].d_model, eps)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
