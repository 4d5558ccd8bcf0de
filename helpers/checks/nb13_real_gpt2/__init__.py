"""Checks for notebook 13's exercises (the course's MLP inside GPT-2).

1. `mlp_from_hf(hf_mlp)`: a course FFN from one block's GPT2MLP, swapped into every block of small
   random GPT-2s (one with a square MLP, where an untransposed weight loads without an error); the
   logits must agree within 1e-4 (float32) and the greedy tokens must be the same.
2. A prediction: do neurons' values promote the token that follows their key's strongest trigger
   more often than chance?
3. `restore(clean, position)`: the restoring hook of causal tracing, checked on a small random GPT-2
   with its subject corrupted, against the reference hook.
4. (stretch) A prediction: how exactly the undo restores the model.

Each check builds its own models from a local torch.Generator and hands the learner copies.

The checks live in one module per exercise:
- models: the small random GPT-2s the checks build, and what a swapped model gives;
- ex1_build, ex1_mlp_from_hf: how the learner built the FFN, and exercise 1's check;
- predictions: exercises 2 and 4;
- ex3_restore: exercise 3.
"""

from helpers.checks.nb13_real_gpt2.ex1_mlp_from_hf import check_mlp_from_hf
from helpers.checks.nb13_real_gpt2.ex3_restore import check_restore_hook, restore
from helpers.checks.nb13_real_gpt2.predictions import (
           check_undo_guess,
           check_value_guess,
           neuron_picked,
)

__all__ = ["check_mlp_from_hf", "check_restore_hook", "check_undo_guess", "check_value_guess",
           "neuron_picked", "restore"]
