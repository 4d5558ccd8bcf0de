"""Checks for notebook 12's exercises (key-value memory and editing).

1. `ablate(neurons)`: a forward hook for the activation submodule, checked on the shipped model
   against the same ablation done on the weights (a neuron that outputs 0 writes nothing, so its
   value column might as well be deleted).
2. A prediction: what zeroing france's top 30 neurons does to paris and to the other facts.
3. (stretch) Edit several facts at once: the rank-r form of the rank-one edit.
"""

import copy
from functools import lru_cache

import torch

from helpers import facts, kv_memory
from helpers.checks.compare import arrays
from helpers.checks.core import referee
from helpers.checks.runner import Check, Mistake, Prediction

LAYER = 1

check_ablation_guess = Prediction(
    "Exercise 2 (predict the ablation)",
    why="The top 30 neurons are the ones whose keys fire for france and whose values push paris up, "
        "so removing them takes most of paris away; the other facts lean on other neurons, and 30 "
        "random neurons rarely matter to paris. That is the key-value reading at work.",
    choices=("A", "B", "C"),
    variable="my_ablation_guess",
)


@lru_cache(maxsize=1)
def _case():
    """The shipped model and a few prompts (two phrasings of every sixth fact)."""
    model, vocab = kv_memory.load()
    prompts = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:2], range(0, len(facts.FACTS), 6))
    return model, prompts


def _answer_logits(model):
    _, prompts = _case()
    return model(prompts.idx)[torch.arange(len(prompts.last)), prompts.last]    # (N, vocab)


def _without(neurons):
    """The ablation without a hook: delete the neurons' value columns of c_proj."""
    model, _ = _case()
    edited = copy.deepcopy(model)
    with torch.no_grad():
        edited.blocks[LAYER].mlp.c_proj.weight[:, neurons] = 0.0
        return _answer_logits(edited)


def _through_the_model(ablate):
    """neurons -> answer logits with the learner's hook on the activation submodule."""
    def run(neurons):
        hook = ablate(neurons)
        if hook is None:
            return None
        if not callable(hook):
            raise TypeError(f"ablate returned a {type(hook).__name__}, not a hook function "
                            "hook(module, inputs, output)")
        model, _ = _case()
        try:
            with torch.no_grad(), kv_memory.hooks({model.blocks[LAYER].mlp.act: hook}):
                return _answer_logits(model)
        except IndexError as err:
            raise IndexError(f"{err}. The neurons are the last dimension of output (B, T, d_ff): "
                             "index it as output[..., neurons]") from None
    run.__wrapped__ = ablate   # a check reads the learner's stub through the wrapper
    return run


def _every_neuron():
    return list(range(_case()[0].config.d_ff))


def _all_but(neurons):
    chosen = set(torch.as_tensor(neurons).tolist())
    return [i for i in _every_neuron() if i not in chosen]


_ABLATION = Check(
    "Exercise 1 (an ablation hook)",
    reference=_without,
    cases=[([3, 70, 101, 200],), (torch.tensor([0, 5, 66, 184, 250]),)],
    mistakes=[
        Mistake("your hook changed nothing: a forward hook must return the new tensor (or change "
                "`output` in place) for the model to use it.", answer=lambda n: _without([])),
        Mistake("every neuron was zeroed; only the chosen `neurons` should be.",
                answer=lambda n: _without(_every_neuron())),
        Mistake("the chosen neurons were kept and all the others zeroed: it is the other way round.",
                answer=lambda n: _without(_all_but(n))),
    ],
    compare=arrays(atol=1e-4, rtol=1e-4),
    success="your hook on mlp.act gives what deleting those neurons' value columns from c_proj gives: "
            "a neuron that outputs 0 writes nothing.",
    name="the model with your hook",
)


@referee(_ABLATION.exercise)
def check_ablation_hook(ablate):
    """Exercise 1: ablate(neurons) -> a forward hook for the activation submodule that zeros them."""
    return _ABLATION(None if ablate is None else _through_the_model(ablate))


def edit_many(W, K, V, C):
    """W + R (K^T C^-1 K)^-1 (C^-1 K)^T with R = V - W K: W' K = V; keys with x^T C^-1 K = 0 stay."""
    C_inv_K = torch.linalg.solve(C, K)                                  # (d_ff, r)
    return W + (V - W @ K) @ torch.linalg.solve(K.T @ C_inv_K, C_inv_K.T)


def _one_after_another(W, K, V, C):
    for i in range(K.shape[1]):
        W = edit_many(W, K[:, i:i + 1], V[:, i:i + 1], C)
    return W


def _without_C(W, K, V, C):
    return edit_many(W, K, V, torch.eye(len(C), dtype=C.dtype))


def _adds_V(W, K, V, C):
    return edit_many(W, K, V + W @ K, C)


def _edit_case(seed, r, d_model=5, d_ff=8):
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(d_model, d_ff, generator=g, dtype=torch.float64)
    A = torch.randn(d_ff, d_ff, generator=g, dtype=torch.float64)
    C = A @ A.T + 0.5 * torch.eye(d_ff, dtype=torch.float64)          # a key covariance, not diagonal
    K = torch.randn(d_ff, r, generator=g, dtype=torch.float64)
    V = torch.randn(d_model, r, generator=g, dtype=torch.float64)
    return W, K, V, C


_EDIT_MANY = Check(
    "Exercise 3 (edit several facts at once)",
    reference=edit_many,
    cases=[_edit_case(0, 3), _edit_case(1, 1)],
    mistakes=[
        Mistake("one rank-one edit after another: each later edit moves the facts set before it "
                "(their keys are not C^-1-orthogonal). Solve for all r at once with the r x r matrix "
                "K^T C^-1 K.", answer=_one_after_another),
        Mistake("W' K = V, but keys x with x^T C^-1 K = 0 moved too: the update must point along "
                "C^-1 K (did you use K itself, leaving out the key covariance C?).", answer=_without_C),
        Mistake("W' K = W K + V, not V: add the residual V - W K, not V itself.", answer=_adds_V),
    ],
    compare=arrays(atol=1e-8, rtol=1e-8),
    success="W' K = V for every edited fact, and keys with x^T C^-1 K = 0 are untouched; with r = 1 it "
            "is the rank-one edit of section 8.",
    name="edit_many",
)


@referee(_EDIT_MANY.exercise)
def check_edit_many(fn):
    """Exercise 3: edit_many(W, K, V, C) -> W' (d_model, d_ff); the learner's function gets copies."""
    return _EDIT_MANY(fn)
