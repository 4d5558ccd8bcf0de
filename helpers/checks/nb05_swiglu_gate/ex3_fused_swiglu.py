"""Exercise 3: `class FusedSwiGLU(nn.Module)`, one gate_up_proj into which
fuse_gate_up(GatedMLP)'s weights are loaded; a missing down-projection, SiLU on the wrong half,
another gate activation or a split along the tokens is named."""

import torch
import torch.nn.functional as F

from helpers.checks.calling import attempt
from helpers.checks.core import referee
from helpers.checks.module import ModuleCheck
from helpers.checks.nb05_swiglu_gate.shared import D_FF, D_MODEL
from helpers.checks.runner import Mistake
from helpers.checks.show import say
from helpers.checks.state import seeded
from helpers.checks.verdict import wrong
from helpers.gated import GatedMLP, fuse_gate_up

_NO_BIAS = "Llama's projections have no bias: pass bias=False to each nn.Linear."
_NO_DOWN = ("your output has d_ff numbers per token: did you forget the down-projection "
            "self.down_proj at the end of forward?")
_STILL_SEPARATE = ("your module still has separate gate_proj and up_proj: the fused version has "
                   "one gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=False) in their place.")


def _fused_reference():
    with seeded(5):
        return fuse_gate_up(GatedMLP(D_MODEL, D_FF).double())


def _tokens():
    g = torch.Generator().manual_seed(5)
    return torch.randn(2, 5, D_MODEL, generator=g, dtype=torch.float64)


def _fused_with(act=F.silu, on="gate", combine=torch.mul, act_after=False, halves="gate first"):
    """The output a typical mistake gives, from the fused reference: (reference, x) -> tensor."""
    def answer(ref, x):
        both = ref.gate_up_proj(x)
        if halves == "interleaved":
            g, u = both[..., 0::2], both[..., 1::2]
        else:
            g, u = both.split(ref.d_ff, dim=-1)
            g, u = (g, u) if halves == "gate first" else (u, g)
        if act_after:
            return ref.down_proj(act(combine(g, u)))
        g, u = (act(g), act(u)) if on == "both" else (act(g), u)
        return ref.down_proj(combine(g, u))
    return answer


EX3 = "Exercise 3 (fuse gate and up)"
_fused_swiglu_check = ModuleCheck(
    EX3,
    reference=_fused_reference,
    build=lambda cls: cls(D_MODEL, D_FF),
    inputs=_tokens,
    mistakes=[
        Mistake(_NO_DOWN, when=lambda got, ref, x: got.shape[-1] == ref.d_ff),
        Mistake("SiLU went on the second half of gate_up_proj's output, which is up: the weights "
                "hold the gate's rows first (as vLLM's and Phi-3's gate_up_proj), then up's. The "
                "first half is the gate.",
                answer=_fused_with(halves="up first")),
        Mistake("you took every other output as the gate (0::2) and the rest as up; the weights "
                "hold the gate's d_ff rows as one block, then up's: split into two halves.",
                answer=_fused_with(halves="interleaved")),
        Mistake("you applied SiLU to both halves; only the gate goes through SiLU: "
                "act_fn(gate) * up.",
                answer=_fused_with(on="both")),
        Mistake("that is GELU on the gate (GEGLU, another of Shazeer's variants); SwiGLU's gate "
                "uses SiLU: nn.SiLU().", answer=_fused_with(act=F.gelu)),
        Mistake("that is ReLU on the gate (ReGLU); SwiGLU's gate uses SiLU: nn.SiLU().",
                answer=_fused_with(act=F.relu)),
        Mistake("that is sigmoid on the gate, the original GLU of Dauphin et al., which stays in "
                "(0, 1); SwiGLU's gate is SiLU(z) = z * sigmoid(z): nn.SiLU().",
                answer=_fused_with(act=torch.sigmoid)),
        Mistake("there is no activation on the gate: apply self.act_fn (nn.SiLU()) to the gate "
                "half.",
                answer=_fused_with(act=lambda t: t)),
        Mistake("you added the two halves; SwiGLU multiplies them entry by entry: "
                "act_fn(gate) * up.",
                answer=_fused_with(combine=torch.add)),
        Mistake("SiLU comes after the product here; it goes on the gate alone, before the product: "
                "act_fn(gate) * up.", answer=_fused_with(act_after=True)),
    ],
    key_hints={"gate_proj.weight": _STILL_SEPARATE, "up_proj.weight": _STILL_SEPARATE,
               "gate_up_proj.bias": _NO_BIAS, "down_proj.bias": _NO_BIAS,
               "down_proj": "your module has no down_proj: the fused version keeps it, "
                            "nn.Linear(d_ff, d_model, bias=False)."},
    success="fuse_gate_up(GatedMLP)'s weights load into your module and give GatedMLP's output: "
            "one GEMM for gate and up, then a split, the same numbers.",
    name="your FusedSwiGLU",
)


def _split_over_tokens(cls):
    """The sentence for a forward that splits gate_up_proj's output along the tokens; else None."""
    module = attempt(lambda: cls(D_MODEL, D_FF), copies=False)
    if not isinstance(module, torch.nn.Module):
        return None
    x = _tokens()
    with torch.no_grad():
        got = attempt(module.to(x.dtype), x)
    shapes = "x" + str(2 * D_FF) + " and " + str(D_FF) + "x"  # torch's "(AxB and CxD)"
    if isinstance(got, RuntimeError) and shapes in str(got):
        return say("your forward split gate_up_proj's output along the tokens (dim 0), so each "
                   "half still holds 2 * d_ff = {n} numbers per token and down_proj cannot take "
                   "them. The gate and up halves lie along the last dimension, the features: split "
                   "there (dim=-1).", n=2 * D_FF)
    return None


@referee(EX3)
def check_fused_swiglu(cls):
    """Exercise 3: FusedSwiGLU(d_model, d_ff), one GEMM then a split, gives GatedMLP's output."""
    said = _split_over_tokens(cls) if isinstance(cls, type) else None
    return wrong(EX3, said) if said else _fused_swiglu_check(cls)
