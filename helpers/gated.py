"""The gated MLP (SwiGLU) of Llama-style models.

    g = SiLU(x @ W_gate),  u = x @ W_up,  out = (g * u) @ W_down

Names follow Hugging Face's Llama: gate_proj, up_proj, down_proj; no bias.
`FusedGatedMLP` is the same function with gate and up stacked into one matrix,
gate_up_proj, as serving engines (vLLM) load it: one GEMM instead of two.
"""

import torch
from torch import nn

from helpers import activations, validate


class GatedMLP(nn.Module):
    """SwiGLU: down_proj(act(gate_proj(x)) * up_proj(x)); x: (..., d_model) -> (..., d_model)."""

    def __init__(self, d_model, d_ff, activation="silu", bias=False):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        d_ff = validate.positive_int(d_ff, "d_ff")
        self.activation = validate.choice(activation, "activation", activations.ACTIVATIONS)
        bias = validate.boolean(bias, "bias")
        self.gate_proj = nn.Linear(d_model, d_ff, bias=bias)   # the gate: a scale per feature
        self.up_proj = nn.Linear(d_model, d_ff, bias=bias)     # the values it scales
        self.down_proj = nn.Linear(d_ff, d_model, bias=bias)   # back to d_model
        self.act_fn = activations.module(activation)            # Llama's name; nn.SiLU() by default

    @property
    def d_model(self):
        return self.up_proj.in_features

    @property
    def d_ff(self):
        return self.up_proj.out_features

    def forward(self, x):
        validate.model_input(x, self.d_model, "MLP", self.up_proj.weight)
        g = self.act_fn(self.gate_proj(x))                        # (..., d_ff)
        u = self.up_proj(x)                                       # (..., d_ff)
        return self.down_proj(g * u)                              # (..., d_model)


class FusedGatedMLP(nn.Module):
    """SwiGLU with one gate_up_proj (d_model -> 2*d_ff: gate rows first, then up); same output."""

    def __init__(self, d_model, d_ff, activation="silu", bias=False):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        d_ff = validate.positive_int(d_ff, "d_ff")
        self.activation = validate.choice(activation, "activation", activations.ACTIVATIONS)
        bias = validate.boolean(bias, "bias")
        self.gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=bias)  # [gate | up] in one GEMM
        self.down_proj = nn.Linear(d_ff, d_model, bias=bias)
        self.act_fn = activations.module(activation)

    @property
    def d_model(self):
        return self.gate_up_proj.in_features

    @property
    def d_ff(self):
        return self.down_proj.in_features

    def forward(self, x):
        validate.model_input(x, self.d_model, "MLP", self.gate_up_proj.weight)
        gate, up = self.gate_up_proj(x).split(self.d_ff, dim=-1)  # (..., d_ff) each
        return self.down_proj(self.act_fn(gate) * up)


def fuse_gate_up(mlp):
    """A FusedGatedMLP computing what `mlp` (a GatedMLP) computes, with copies of its weights.

    gate_up_proj.weight (2*d_ff, d_model) = cat([gate_proj.weight, up_proj.weight]).
    """
    validate.instance_of(mlp, "mlp", GatedMLP, "(gate_proj, up_proj, down_proj)")
    bias = mlp.gate_proj.bias is not None
    weight = mlp.down_proj.weight
    fused = FusedGatedMLP(mlp.d_model, mlp.d_ff, mlp.activation, bias=bias)
    fused = fused.to(device=weight.device, dtype=weight.dtype)
    with torch.no_grad():
        fused.gate_up_proj.weight.copy_(torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight]))
        fused.down_proj.weight.copy_(mlp.down_proj.weight)
        if bias:
            fused.gate_up_proj.bias.copy_(torch.cat([mlp.gate_proj.bias, mlp.up_proj.bias]))
            fused.down_proj.bias.copy_(mlp.down_proj.bias)
    return fused


def llama_d_ff(d_model, multiple_of=256, ffn_dim_multiplier=None):
    """Llama's intermediate_size for d_model, the rule of Meta's reference code (model.py).

    2/3 of 4*d_model (rounded down), times ffn_dim_multiplier when the model has one (rounded
    down), then rounded up to a multiple of `multiple_of`: 4096 -> 11008 (Llama-2-7B, 256);
    4096, 1.3, 1024 -> 14336 (Llama-3-8B); 8192, 1.3, 4096 -> 28672 (Llama-2-70B).
    """
    d_model = validate.positive_int(d_model, "d_model")
    multiple_of = validate.positive_int(multiple_of, "multiple_of")
    d_ff = int(2 * (4 * d_model) / 3)
    if ffn_dim_multiplier is not None:
        if not validate.non_negative_number(ffn_dim_multiplier, "ffn_dim_multiplier"):
            raise ValueError("ffn_dim_multiplier must be a number > 0 (Llama-3-8B: 1.3), got 0")
        d_ff = int(ffn_dim_multiplier * d_ff)
    return multiple_of * ((d_ff + multiple_of - 1) // multiple_of)
