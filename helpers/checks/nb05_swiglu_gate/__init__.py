"""Checks for notebook 05's exercises (the SwiGLU gate).

1. A prediction: the share of gate values above 1 (the gate enlarges its up value) for 256 tokens.
2. `split_gate_up(state_dict)`: a fused checkpoint (gate_up_proj, as Phi-3 stores it) split into
   the state_dict of helpers.gated.GatedMLP.
3. `class FusedSwiGLU(nn.Module)`: one gate_up_proj; fuse_gate_up(GatedMLP)'s weights are loaded
   into it.
4. `multiplier_range(d_model, multiple_of, intermediate_size)`: Llama's width rule run backwards,
   checked against helpers.gated.llama_d_ff.
5. (stretch) `gate_preactivation(g)`: the z on SiLU's rising branch with SiLU(z) = g.
6. (stretch) `gated_mlp_backward(x, W_gate, W_up, W_down, grad_out)`: the gated MLP's backward
   pass by hand, the gradients of its three weights and of x, compared with autograd.

One submodule per exercise, ex1_gates_above_one.py to ex6_gated_mlp_backward.py (whose cases and
slips are in ex6_backward_cases.py); shared.py holds what several of them use.
"""

from helpers.checks.nb05_swiglu_gate.ex1_gates_above_one import check_gates_above_one
from helpers.checks.nb05_swiglu_gate.ex2_split_gate_up import check_split_gate_up
from helpers.checks.nb05_swiglu_gate.ex3_fused_swiglu import EX3, check_fused_swiglu
from helpers.checks.nb05_swiglu_gate.ex4_multiplier_range import check_multiplier_range
from helpers.checks.nb05_swiglu_gate.ex5_gate_preactivation import check_gate_preactivation
from helpers.checks.nb05_swiglu_gate.ex6_gated_mlp_backward import EX6, check_gated_mlp_backward
from helpers.checks.nb05_swiglu_gate.shared import D_FF, D_MODEL, SILU_ARGMIN, SILU_MIN, SILU_ONE

__all__ = [
    "D_FF",
    "D_MODEL",
    "EX3",
    "EX6",
    "SILU_ARGMIN",
    "SILU_MIN",
    "SILU_ONE",
    "check_fused_swiglu",
    "check_gate_preactivation",
    "check_gated_mlp_backward",
    "check_gates_above_one",
    "check_multiplier_range",
    "check_split_gate_up",
]
