"""Checks for notebook 12's exercises (key-value memory and editing).

1. `ablated_logits(model, idx, neurons)`: the learner registers a forward hook on MLP 1's activation
   submodule, runs the model and removes the hook; compared with the same ablation done on the
   weights (a neuron that outputs 0 writes nothing, so its value column might as well be deleted).
2. A prediction: what zeroing france's top 30 neurons does to paris and to the other facts.
3. `trace_mlp(model, prompts, noise, layer, position)`: causal tracing of one site (corrupt the
   subject, restore one MLP output, measure p(answer)).
4. (stretch) `memit_update(W, K, V, C, lam)`: MEMIT's one-layer least-squares edit of r facts.

Every run of the learner's code gets its own copy of the shipped model, and the check looks at the
copy afterwards: a hook left registered, or a weight changed, is named.

The checks live in one module per exercise:
- shipped: the shipped model, a fresh copy for each run, and what a run left behind;
- ex1_ablation: exercise 1;
- predictions: exercise 2;
- ex3_tracing: exercise 3;
- ex4_updates, ex4_memit: exercise 4's reference and wrong updates, and its check.
"""

from helpers.checks.nb12_kv_memory_editing.ex1_ablation import check_ablation
from helpers.checks.nb12_kv_memory_editing.ex3_tracing import check_tracing, trace_mlp
from helpers.checks.nb12_kv_memory_editing.ex4_memit import check_memit
from helpers.checks.nb12_kv_memory_editing.ex4_updates import memit_update
from helpers.checks.nb12_kv_memory_editing.predictions import NamedChoice, check_ablation_guess

__all__ = ["NamedChoice", "check_ablation", "check_ablation_guess", "check_memit", "check_tracing",
           "memit_update", "trace_mlp"]
