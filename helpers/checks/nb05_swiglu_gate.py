"""Checks for notebook 05's exercises (the SwiGLU gate).

1. A prediction: the share of gate values below 0 for 256 tokens.
2. `class SwiGLU(nn.Module)`: helpers.gated.GatedMLP's weights are loaded into it.
3. `class FusedSwiGLU(nn.Module)`: one gate_up_proj; fuse_gate_up(GatedMLP)'s weights are loaded into it.
4. `llama_intermediate_size(d_model, multiple_of, ffn_dim_multiplier)`: helpers.gated.llama_d_ff.
5. (stretch) `gate_preactivation(g)`: the z on SiLU's rising branch with SiLU(z) = g.
"""

import functools
import math

import scipy.optimize
import torch
import torch.nn.functional as F

from helpers import activations
from helpers.checks.compare import exact, number
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.state import seeded
from helpers.gated import GatedMLP, fuse_gate_up, llama_d_ff

D_MODEL, D_FF = 8, 24
# SiLU's minimum sits at -a where a * sigmoid(a) = 1, i.e. where SiLU(a) = 1.
SILU_ONE = scipy.optimize.brentq(lambda z: float(activations.silu(z)) - 1.0, 0.0, 5.0)   # about 1.2785
SILU_ARGMIN = -SILU_ONE
SILU_MIN = float(activations.silu(SILU_ARGMIN))                                          # about -0.2785
_NO_BIAS = "Llama's projections have no bias: pass bias=False to each nn.Linear."
_NO_DOWN = ("your output has d_ff numbers per token: did you forget the down-projection "
            "self.down_proj at the end of forward?")
_STILL_SEPARATE = ("your module still has separate gate_proj and up_proj: the fused version has one "
                   "gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=False) in their place.")

check_negative_gates = Prediction(
    "Exercise 1 (predict the negative gates)",
    why="x @ W_gate is centred on 0 for a freshly initialised layer, so about half of the gate "
        "pre-activations are negative, and SiLU maps every negative z to a negative gate (between "
        "-0.278 and 0): those gates flip the sign of their up value and shrink it.",
    rel=0.25,
    variable="my_negative_share",
    fmt="{:.2f}",
)


def _reference():
    with seeded(5):
        return GatedMLP(D_MODEL, D_FF).double()


def _fused_reference():
    return fuse_gate_up(_reference())


def _tokens():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(5), dtype=torch.float64)


def _swiglu_with(act=F.silu, on="gate", combine=torch.mul, act_after=False):
    """The output a typical mistake gives: (reference, x) -> tensor."""
    def answer(ref, x):
        g, u = ref.gate_proj(x), ref.up_proj(x)
        if act_after:
            return ref.down_proj(act(combine(g, u)))
        g, u = (act(g), u) if on == "gate" else (g, act(u))
        return ref.down_proj(combine(g, u))
    return answer


# Both modules are built as cls(8, 24) and run on the same 10 tokens.
_module_check = functools.partial(ModuleCheck, build=lambda cls: cls(D_MODEL, D_FF), inputs=_tokens)

check_swiglu = _module_check(
    "Exercise 2 (your own SwiGLU)",
    reference=_reference,
    key_hints={"gate_proj.bias": _NO_BIAS, "up_proj.bias": _NO_BIAS, "down_proj.bias": _NO_BIAS,
               "down_proj": "your module has no down_proj: did you forget the down-projection "
                            "nn.Linear(d_ff, d_model) that brings g * u back to d_model?"},
    mistakes=[
        Mistake(_NO_DOWN, when=lambda got, ref, x: got.shape[-1] == ref.d_ff),
        Mistake("you applied SiLU to up_proj's output: the activation goes on the gate branch, "
                "act_fn(gate_proj(x)) * up_proj(x). Gate and up are swapped.", answer=_swiglu_with(on="up")),
        Mistake("that is GELU on the gate (GEGLU, another of Shazeer's variants); SwiGLU's gate uses "
                "SiLU: nn.SiLU().", answer=_swiglu_with(act=F.gelu)),
        Mistake("that is ReLU on the gate (ReGLU); SwiGLU's gate uses SiLU: nn.SiLU().",
                answer=_swiglu_with(act=F.relu)),
        Mistake("that is sigmoid on the gate, the original GLU of Dauphin et al., which stays in (0, 1); "
                "SwiGLU's gate is SiLU(z) = z * sigmoid(z): nn.SiLU().", answer=_swiglu_with(act=torch.sigmoid)),
        Mistake("there is no activation on the gate: apply self.act_fn (nn.SiLU()) to gate_proj's output.",
                answer=_swiglu_with(act=lambda t: t)),
        Mistake("you added the two branches; SwiGLU multiplies them entry by entry: g * u.",
                answer=_swiglu_with(combine=torch.add)),
        Mistake("SiLU comes after the product here; it goes on the gate alone, before the product: "
                "act_fn(gate_proj(x)) * up_proj(x).", answer=_swiglu_with(act_after=True)),
    ],
    success="helpers.gated.GatedMLP's weights load into your SwiGLU and give the same output: "
            "down_proj(SiLU(gate_proj(x)) * up_proj(x)), with Llama's names.",
    name="your SwiGLU",
)


def _fused_with(gate_first=True):
    def answer(ref, x):
        first, second = ref.gate_up_proj(x).split(ref.d_ff, dim=-1)
        gate, up = (first, second) if gate_first else (second, first)
        return ref.down_proj(F.silu(gate) * up)
    return answer


check_fused_swiglu = _module_check(
    "Exercise 3 (fuse gate and up)",
    mistakes=[
        Mistake(_NO_DOWN, when=lambda got, ref, x: got.shape[-1] == ref.d_ff),
        Mistake("you took the second half of gate_up_proj's output as the gate; the weights hold the "
                "gate's rows first (as vLLM's gate_up_proj), then up's.", answer=_fused_with(gate_first=False)),
    ],
    reference=_fused_reference,
    key_hints={"gate_proj.weight": _STILL_SEPARATE, "up_proj.weight": _STILL_SEPARATE,
               "gate_up_proj.bias": _NO_BIAS, "down_proj.bias": _NO_BIAS,
               "down_proj": "your module has no down_proj: the fused version keeps it, "
                            "nn.Linear(d_ff, d_model, bias=False)."},
    success="fuse_gate_up(GatedMLP)'s weights load into your module and give GatedMLP's output: "
            "one GEMM for gate and up, then a split, the same numbers.",
    name="your FusedSwiGLU",
)


def _width(d_model, multiple_of, multiplier, when="before"):
    """Typical wrong widths: the multiplier after rounding, or applied to 4d."""
    d_ff = int(2 * (4 * d_model) / 3)
    if multiplier is not None and when == "on 4d":
        d_ff = int(multiplier * 4 * d_model)
    elif multiplier is not None and when == "after":
        d_ff = int(multiplier * llama_d_ff(d_model, multiple_of))
    return multiple_of * math.ceil(d_ff / multiple_of)


def _plain(d_model, multiple_of, multiplier):
    return int(2 * (4 * d_model) / 3) * (multiplier or 1)


check_llama_width = Check(
    "Exercise 4 (Llama's intermediate_size)",
    reference=llama_d_ff,
    cases=[(4096, 256, None), (5120, 256, None), (4096, 1024, 1.3), (8192, 4096, 1.3), (768, 256, None)],
    compare=exact(),
    mistakes=[
        Mistake("{call} = {got} is 4 * d_model, the plain FFN's width; the gated MLP starts from 2/3 of it.",
                answer=lambda d, m, mult: 4 * d),
        Mistake("{call} = {got}: you rounded down; round up to the next multiple of multiple_of.",
                answer=lambda d, m, mult: int(_plain(d, m, mult)) // m * m),
        Mistake("{call} = {got} is not a multiple of multiple_of: round up to one.",
                when=lambda got, d, m, mult: isinstance(got, (int, float)) and got % m != 0),
        Mistake("{call} = {got}: you left out ffn_dim_multiplier. Llama-3-8B's 1.3 widens 2/3 * 4d before "
                "the rounding.", answer=lambda d, m, mult: llama_d_ff(d, m)),
        Mistake("{call} = {got}: you applied ffn_dim_multiplier after rounding. Meta's code multiplies "
                "first, then rounds up once.", answer=lambda d, m, mult: _width(d, m, mult, when="after")),
        Mistake("{call} = {got}: you multiplied 4 * d_model by ffn_dim_multiplier; it multiplies the "
                "2/3 * 4d width.", answer=lambda d, m, mult: _width(d, m, mult, when="on 4d")),
        Mistake("{call} = {got}: 2/3 * 4d is already a multiple of multiple_of here, so rounding up keeps "
                "it. Did you always add one more multiple?",
                answer=lambda d, m, mult: (int(_plain(d, m, mult)) // m + 1) * m),
    ],
    success="4096 -> 11008 (Llama-2-7B), 5120 -> 13824 (Llama-2-13B), 4096 with 1.3 and 1024 -> 14336 "
            "(Llama-3-8B), 8192 with 1.3 and 4096 -> 28672 (Llama-2-70B).",
    name="llama_intermediate_size",
)


def _inverse_silu(g):
    """The z >= SILU_ARGMIN with SiLU(z) = g (SiLU rises there)."""
    return scipy.optimize.brentq(lambda z: float(activations.silu(z)) - g, SILU_ARGMIN, max(g, 0.0) + 1.0,
                                 xtol=1e-14)


def _left_branch(g):
    return scipy.optimize.brentq(lambda z: float(activations.silu(z)) - g, -40.0, SILU_ARGMIN)


check_gate_preactivation = Check(
    "Exercise 5 (which pre-activation gives this gate?)",
    reference=_inverse_silu,
    cases=[(0.1,), (1.5,), (0.0,), (2.0,), (-0.2,)],
    compare=number(rel=1e-6, abs=1e-6),
    mistakes=[
        Mistake("{call} returned the gate itself: the gate value is what comes OUT of SiLU; find the "
                "z that goes in.", answer=lambda g: g),
        Mistake("{call} = {got}: that inverts sigmoid, log(g / (1 - g)); the gate is SiLU(z) = "
                "z * sigmoid(z).", answer=lambda g: math.log(g / (1 - g))),
        Mistake("{call} = {got} is left of SiLU's minimum at -1.2785: it gives the same gate, but take "
                "the solution on the rising branch (z >= -1.2785).", answer=_left_branch),
    ],
    success="the gates 0.1, 1.5, 0 and 2 of source post 2 come from pre-activations of about "
            "0.183, 1.758, 0 and 2.218.",
    name="gate_preactivation",
)
