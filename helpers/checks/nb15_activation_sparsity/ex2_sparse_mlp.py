"""Notebook 15, exercise 2: check_sparse_mlp, which looks for inputs or weights changed in place,
weights read whole (helpers.checks.weight_reads) and answers of the wrong kind, then compares the
values with helpers.sparsity.sparse_mlp, each typical mistake named."""

import numpy as np
import torch

from helpers import sparsity
from helpers.checks.compare import arrays
from helpers.checks.core import MISSING, attempt, explained_calls, judge, not_attempted, wrong
from helpers.checks.nb15_activation_sparsity.ex2_cases import _cases, _mlp
from helpers.checks.nb15_activation_sparsity.ex2_mistakes import (
    _activation_last,
    _batch_union,
    _bias_per_unit,
    _down_not_transposed,
    _down_rows,
    _first_token,
    _flattened_per_token,
    _gelu_for_act,
    _hidden_returned,
    _no_activation,
    _no_down_bias,
    _no_up_bias,
    _only,
    _relu_for_act,
    _swapped,
    _up_bias_after,
)
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.checks.weight_reads import sparse_forward_reads

EX2 = "Exercise 2 (the sparse forward)"


_table = Check(
    EX2,
    reference=sparsity.sparse_mlp,
    cases=_cases(),
    mistakes=[
        Mistake("rows and columns are swapped: unit i owns ROW i of c_fc.weight (d_ff, "
                "d_model), c_fc.weight[idx], and COLUMN i of c_proj.weight (d_model, "
                "d_ff), c_proj.weight[:, idx].",
                answer=_swapped),
        Mistake("c_proj's rows were taken: unit i owns COLUMN i of c_proj.weight (d_model, d_ff), "
                "c_proj.weight[:, idx], the d_model numbers it writes into the output.",
                answer=_down_rows),
        Mistake("the active columns of c_proj, c_proj.weight[:, idx], form a (d_model, k) "
                "matrix: h (k numbers per token) meets it transposed, so that each unit's "
                "activation weighs its own column.",
                answer=_down_not_transposed),
        Mistake("c_proj's bias is missing: the dense MLP adds it once to every "
                "output, whichever units are on.",
                answer=_no_down_bias),
        Mistake("c_fc's bias is missing: each active unit has its own bias, c_fc.bias[idx], added "
                "to its pre-activation before mlp.act, as the dense MLP does.",
                answer=_no_up_bias),
        Mistake("c_fc's bias is added after the activation; it belongs to the pre-activation, "
                "inside mlp.act (the dense MLP computes act(c_fc(x)), bias included).",
                answer=_up_bias_after),
        Mistake("torch.relu (or F.relu) stands where the MLP's own activation belongs: call "
                "mlp.act, which is GELU in one of the check's MLPs and ReLU in the others.",
                when=_only(_relu_for_act, _no_activation)),
        Mistake("GELU stands where the MLP's own activation belongs: call mlp.act, which is "
                "ReLU in some of the check's MLPs.",
                answer=_gelu_for_act),
        Mistake("c_proj's bias is added once per active unit; it belongs to the "
                "output, not to a unit: add it once.",
                answer=_bias_per_unit),
        Mistake("the activation is missing: the active units' pre-activations go through mlp.act "
                "before the columns of c_proj weigh them.",
                when=_only(_no_activation, _relu_for_act)),
        Mistake("the activation is applied after the down-projection; it belongs between the rows "
                "of c_fc and the columns of c_proj.",
                answer=_activation_last),
        Mistake("each token used the units active anywhere in the batch (their union): with a set "
                "per token (active of shape (T, d_ff)), token t reads active[t]'s units only.",
                answer=_batch_union),
        Mistake("every token used the first token's set: token t reads active[t]'s units.",
                answer=_first_token),
        Mistake("a mask per token (T, d_ff) was turned into indices as one set: its nonzero() "
                "lists (token, unit) pairs, and flattened they mix token numbers with unit "
                "numbers. Take each token's row of the mask on its own.",
                answer=_flattened_per_token),
        Mistake("this is the hidden layer h, one number per active unit and token; the "
                "output is h weighed by the active columns of c_proj, plus c_proj's "
                "bias: d_model numbers per token.",
                when=_hidden_returned),
    ],
    compare=arrays(atol=1e-10, rtol=1e-10),
    success="the active units' rows of c_fc and columns of c_proj give the MLP's output: equal to "
            "the dense ReLU MLP, and to the reference for a set per token.",
    name="sparse_mlp",
)


def _edited(fn):
    """Run fn on each case with copies the check keeps: (inputs it changed, weights it changed), or
    MISSING."""
    for x, mlp, active in _cases():
        before = {k: v.clone() for k, v in mlp.state_dict().items()}
        given = {"x": x.clone(), "active": active.clone()}
        got = attempt(fn, given["x"], mlp, given["active"], copies=False)
        if got is MISSING:
            return MISSING
        inputs = [name for name, kept in (("x", x), ("active", active))
                  if not torch.equal(given[name], kept)]
        weights = [k for k, v in mlp.state_dict().items() if not torch.equal(v, before[k])]
        if inputs or weights:
            return inputs, weights
    return [], []


def _reads(fn):
    """A sentence for a function that reads a whole weight or indexes one wrongly, else None."""
    # d_model != d_ff: each axis tells which it is
    mlp = _mlp(8, 32, "relu", 5)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(8, generator=g, dtype=torch.float64)
    active = torch.zeros(32, dtype=torch.bool)
    active[torch.randperm(32, generator=g)[:9]] = True
    return sparse_forward_reads(fn, x, mlp, active)


def _kind(fn):
    """A sentence for an answer that is not one torch tensor (numpy, a list), or a function that
    serves one token but not tokens (T, d_model) sharing one set; else None."""
    cases = _cases()
    one_token = [attempt(fn, *case) for case in cases[:2]]
    shared = attempt(fn, *cases[2])
    if isinstance(shared, Exception) and not any(isinstance(got, Exception) for got in one_token):
        return say("your function works for one token (d_model,) but raised {kind} for tokens (T, "
                   "d_model) sharing one set: multiply x by the active rows' transpose (x on the "
                   "left), which serves one token and T tokens alike.",
                   kind=type(shared).__name__)
    for x, mlp, active in cases[1:]:
        got = attempt(fn, x, mlp, active)
        if isinstance(got, np.ndarray):
            return say("your function returns a numpy array; return a torch tensor, as the MLP "
                       "does (no .numpy()): the rest of the model goes on in torch.")
        if isinstance(got, (list, tuple)):
            return say("your function returns a {kind} for tokens (T, d_model); return one tensor "
                       "of shape (T, d_model), the tokens' outputs stacked.",
                       kind=type(got).__name__)
    return None


def _judge(fn):
    changed = _edited(fn)
    if changed is MISSING:
        return not_attempted(EX2)
    inputs, weights = changed
    if inputs:
        return wrong(EX2, say("your function changed its input {names} in place (an in-place "
                              "operation such as x.mul_(...), x[...] = ... or active &= ...). The "
                              "caller uses them again: the next layer reads x, and a set is shared "
                              "by every token. Work on new tensors.",
                              names=", ".join(inputs)))
    if weights:
        return wrong(EX2, say("your function changed the MLP's weights ({names}) in place. Read "
                              "the active rows and columns (indexing makes a new tensor) and leave "
                              "the MLP as it was: a server runs the same weights for every token.",
                              names=", ".join(weights)))
    problem = _reads(fn) or _kind(fn)
    if problem is not None:
        return wrong(EX2, problem)
    return _table._judge(fn)


def check_sparse_mlp(fn):
    return judge(EX2, _judge, fn)


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_sparse_mlp = explained_calls(EX2, check_sparse_mlp)
