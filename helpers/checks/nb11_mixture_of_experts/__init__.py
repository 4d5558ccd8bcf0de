"""Checks for notebook 11's exercises (mixture of experts).

1. A prediction: how many of Mixtral 8x7B's parameters one token uses.
2. A prediction: how many of a layer's 8 experts one decode step of 16 tokens reads.
3. `class MoELayer(nn.Module)` with a sorted dispatch: helpers.moe.MoE's weights are loaded into it,
   the outputs are compared, and then the dispatch itself is watched (a hook on each expert counts
   its calls and rows; a TorchFunctionMode sees whether anything was sorted).
4. (stretch) Which assignments fit within each expert's capacity.

The checks live in one module per exercise:
- predictions: exercises 1 and 2;
- ex3_reference: exercise 3's reference layer, its tokens and the typical wrong layers' outputs;
- ex3_moe_layer: exercise 3's check, which also watches the dispatch;
- ex4_capacity: exercise 4.
"""

from helpers.checks.nb11_mixture_of_experts.ex3_moe_layer import check_moe_layer
from helpers.checks.nb11_mixture_of_experts.ex4_capacity import check_capacity, within_capacity
from helpers.checks.nb11_mixture_of_experts.predictions import (
    check_active_guess,
    check_experts_guess,
)

__all__ = ["check_active_guess", "check_capacity", "check_experts_guess", "check_moe_layer",
           "within_capacity"]
