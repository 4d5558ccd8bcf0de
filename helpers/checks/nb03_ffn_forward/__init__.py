"""Checks for notebook 03's exercises (the FFN forward pass).

1. A prediction: the largest number of pairs the 16x FFN memorises completely.
2. `class GPT2MLP(nn.Module)`, GPT-2's MLP stored as its checkpoint stores it: Conv1D layers whose
   weights are (in, out), so that a GPT-2 state_dict loads with no transpose.
3. (stretch) Memorise by gradient descent instead of least squares, close to the least-squares fit.
4. The FFN's backward pass by hand: dW1, db1, dW2, db2 and dx, compared with autograd's.

One submodule per exercise: ex1_capacity.py, ex2_gpt2_mlp.py, ex3_learned_memory.py and
ex4_backward.py, whose cases and typical slips are in ex4_backward_cases.py.
"""

from helpers.checks.nb03_ffn_forward.ex1_capacity import EX1, check_capacity_guess
from helpers.checks.nb03_ffn_forward.ex2_gpt2_mlp import (
    D_FF,
    D_MODEL,
    EX2,
    Conv1DMLP,
    check_gpt2_mlp,
)
from helpers.checks.nb03_ffn_forward.ex3_learned_memory import (
    EX3,
    LEFT_AT_MOST,
    check_learned_memory,
)
from helpers.checks.nb03_ffn_forward.ex4_backward import EX4, check_ffn_backward
from helpers.checks.nb03_ffn_forward.ex4_backward_cases import autograd_backward

__all__ = [
    "Conv1DMLP",
    "D_FF",
    "D_MODEL",
    "EX1",
    "EX2",
    "EX3",
    "EX4",
    "LEFT_AT_MOST",
    "autograd_backward",
    "check_capacity_guess",
    "check_ffn_backward",
    "check_gpt2_mlp",
    "check_learned_memory",
]
