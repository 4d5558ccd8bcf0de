"""Checks for notebook 07's exercises (position-wise: attention vs MLP).

1. A prediction: which input tokens output token 3 of causal attention uses.
2. A prediction: is attention linear in V (weights fixed), in X, in both?
3. `class SelfAttention(nn.Module)`: helpers.attention.CausalSelfAttention's weights load into it.
4. (stretch) A sliding-window mask, against helpers.attention.causal_mask.

One submodule per exercise: ex1_token3.py, ex2_linearity.py, ex3_attention.py and
ex4_window_mask.py; shared.py holds the named prediction both predictions use.
"""

from helpers.checks.nb07_position_wise.ex1_token3 import check_token3_inputs
from helpers.checks.nb07_position_wise.ex2_linearity import check_linearity_guess
from helpers.checks.nb07_position_wise.ex3_attention import D_MODEL, N_HEAD, check_attention
from helpers.checks.nb07_position_wise.ex4_window_mask import check_window_mask

__all__ = [
    "D_MODEL",
    "N_HEAD",
    "check_attention",
    "check_linearity_guess",
    "check_token3_inputs",
    "check_window_mask",
]
