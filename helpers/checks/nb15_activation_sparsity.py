"""Checks for notebook 15's exercises (activation sparsity in serving).

1. A prediction: the share of a ReLU MLP's hidden units that are exactly 0 for one token.
2. `sparse_mlp(x, mlp, active)`: the MLP's output reading only the active units' rows of c_fc and
   columns of c_proj; compared with helpers.sparsity.sparse_mlp, which for ReLU and the set of
   nonzero units equals the dense MLP.
3. (stretch) A prediction: the most a decode step can save without a predictor.

The learner's function first runs on copies of each case that the check looks at afterwards: an
input (x, active) or a weight changed in place is named. Then it runs under a torch function mode
(helpers.checks.weight_reads) that sees which weights it reads whole: a dense forward followed by
`h * mask` gives the right numbers but reads every weight, and is named; so are indices of the wrong
shape or axis. A wrong guess far from the answer is named too (GELU's share for ReLU's; c_fc counted
as skipped).
"""

import numpy as np
import torch

from helpers import sparsity
from helpers.checks.compare import arrays
from helpers.checks.core import MISSING, attempt, explained_calls, judge, not_attempted, wrong
from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.checks.weight_reads import sparse_forward_reads
from helpers.ffn import FFN

EX2 = "Exercise 2 (the sparse forward)"

check_relu_guess = NamedPrediction(
    "Exercise 1 (predict a ReLU MLP's off share)",
    why="ReLU outputs exactly 0 for every negative input, and a trained MLP's pre-activations are "
        "negative for about half of its units or more on any one token; which half changes from "
        "token to token. That is the sparsity a server could skip.",
    rel=0.2,
    variable="my_guess",
    fmt="{:.0f}%",
    percent=True,
    mistakes=[
        Mistake("{got:g}% is what GELU gives (it is exactly 0 almost nowhere); ReLU is "
                "exactly 0 for every negative pre-activation, and a trained MLP has "
                "many of those for each word.",
                when=lambda guess, actual: guess < 15),
        Mistake("{got:g}% would leave almost no unit on for a word; the "
                "pre-activations are not nearly all negative, and each word needs some "
                "units on to be told apart from the others.",
                when=lambda guess, actual: guess > 85),
        Mistake("{got:g}% is about GELU's share of units under a tenth of the token's "
                "largest (the table's threshold 0.1): small, not zero. ReLU's exact zeros "
                "are the negative pre-activations only.",
                when=lambda guess, actual: 68 <= guess <= 76),
    ],
)


def _mlp(d_model, d_ff, activation, seed):
    g = torch.Generator().manual_seed(seed)
    # nn.Linear's default init draws from the global generator:
    with torch.random.fork_rng(devices=[]):
        mlp = FFN(d_model, d_ff, activation=activation).double()   # leave the learner's untouched
    with torch.no_grad():
        for p in mlp.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.5)
    return mlp.eval().requires_grad_(False)


def _cases():
    g = torch.Generator().manual_seed(15)
    cases = []
    # d_model = d_ff: a swap gives an answer, not an error
    square = _mlp(16, 16, "relu", 1)
    x = torch.randn(16, generator=g, dtype=torch.float64)
    cases.append((x, square, sparsity.active_units(sparsity.hidden(x, square))))
    relu = _mlp(8, 32, "relu", 2)
    x = torch.randn(8, generator=g, dtype=torch.float64)
    cases.append((x, relu, sparsity.active_units(sparsity.hidden(x, relu)).nonzero().flatten()))
    gelu = _mlp(8, 32, "gelu", 3)
    xs = torch.randn(4, 8, generator=g, dtype=torch.float64)
    # negative pre-activations among the active units
    every = _mlp(8, 32, "gelu", 4)
    shared = torch.randn(3, 8, generator=g, dtype=torch.float64)
    # a set per token
    cases.append((xs, gelu, sparsity.active_units(sparsity.hidden(xs, gelu), 0.2)))
    # T tokens, one set
    cases.insert(2, (shared, every, torch.ones(32, dtype=torch.bool)))
    return cases


def _parts(x, mlp, active):
    """(rows of c_fc, their bias, columns of c_proj) for one set of active units."""
    idx = active.nonzero().flatten() if active.dtype == torch.bool else active
    return mlp.c_fc.weight[idx], mlp.c_fc.bias[idx], mlp.c_proj.weight[:, idx], idx


def _per_token(one):
    """Apply one(x_t, mlp, active_t) to each token when active is a set per token."""
    def answer(x, mlp, active):
        if active.ndim == 2:
            return torch.stack([one(x_t, mlp, a_t) for x_t, a_t in zip(x, active, strict=True)])
        return one(x, mlp, active)
    return answer


@_per_token
def _no_down_bias(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ v.T


@_per_token
def _bias_per_unit(x, mlp, active):
    w, b, v, idx = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ v.T + len(idx) * mlp.c_proj.bias


@_per_token
def _swapped(x, mlp, active):
    _, b, _, idx = _parts(x, mlp, active)
    return mlp.act(x @ mlp.c_fc.weight[:, idx] + b) @ mlp.c_proj.weight[idx] + mlp.c_proj.bias


@_per_token
def _no_activation(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return (x @ w.T + b) @ v.T + mlp.c_proj.bias


@_per_token
def _activation_last(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return mlp.act((x @ w.T + b) @ v.T + mlp.c_proj.bias)


@_per_token
def _no_up_bias(x, mlp, active):
    w, _, v, _ = _parts(x, mlp, active)
    return mlp.act(x @ w.T) @ v.T + mlp.c_proj.bias


@_per_token
def _up_bias_after(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return (mlp.act(x @ w.T) + b) @ v.T + mlp.c_proj.bias


@_per_token
def _relu_for_act(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return torch.relu(x @ w.T + b) @ v.T + mlp.c_proj.bias


@_per_token
def _gelu_for_act(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return torch.nn.functional.gelu(x @ w.T + b) @ v.T + mlp.c_proj.bias


@_per_token
def _down_not_transposed(x, mlp, active):
    w, b, v, _ = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ v + mlp.c_proj.bias


@_per_token
def _down_rows(x, mlp, active):
    w, b, _, idx = _parts(x, mlp, active)
    return mlp.act(x @ w.T + b) @ mlp.c_proj.weight[idx] + mlp.c_proj.bias


def _flattened_per_token(x, mlp, active):
    """A mask per token (T, d_ff) turned into indices as if it were one set: (token, unit) pairs,
    flattened."""
    idx = active.nonzero().flatten()
    return mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


def _only(answer, unlike):
    """A Mistake's `when`: got is answer(*case), where that differs from unlike(*case) (on ReLU's
    own active units torch.relu changes nothing, so there it cannot be told from a missing
    activation)."""
    same = arrays(atol=1e-10, rtol=1e-10)

    def when(got, *case):
        return same(got, answer(*case)) is None and same(answer(*case), unlike(*case)) is not None
    return when


def _hidden_returned(got, x, mlp, active):
    """An answer of k numbers per token, k the active units: the hidden units, not the output."""
    k = int(active.sum(-1).max()) if active.dtype == torch.bool else len(active)
    return getattr(got, "shape", None) is not None and len(got.shape) > 0 and got.shape[-1] == k != mlp.d_model


def _batch_union(x, mlp, active):
    return sparsity.sparse_mlp(x, mlp, active.any(0) if active.ndim == 2 else active)


def _first_token(x, mlp, active):
    return sparsity.sparse_mlp(x, mlp, active[0] if active.ndim == 2 else active)


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
        Mistake("every token used the first token's set: token t reads active[t]'s units.", answer=_first_token),
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
        inputs = [name for name, kept in (("x", x), ("active", active)) if not torch.equal(given[name], kept)]
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


check_saving_guess = NamedPrediction(
    "Exercise 3 (predict the most a step saves without a predictor)",
    why="Without a predictor c_fc is read whole to learn which units are on; only c_proj's "
        "columns can be skipped, and c_fc's biases and c_proj's bias are read anyway. With "
        "every unit off that is d_ff x d_model of the dense d_ff x (2 d_model + 1) + "
        "d_model numbers: a little under half.",
    rel=0.1,
    variable="my_saving_guess",
    fmt="{:.1f}%",
    percent=True,
    mistakes=[
        Mistake("{got:g}% counts c_fc as skipped too; but the step learns that every unit is off "
                "only by computing c_fc x, so c_fc is read whole. Skipping it as well needs the "
                "set before the step: a predictor.",
                when=lambda guess, actual: guess > 75),
        Mistake("{got:g}% saves (almost) nothing; but once c_fc x shows every unit off, none of "
                "c_proj's columns needs to be read.",
                when=lambda guess, actual: guess < 10),
        Mistake("{got:g}% is about a third: the share of one matrix in a gated MLP (gate, up, "
                "down). GPT-2's MLP has two matrices of the same size, c_fc and c_proj.",
                when=lambda guess, actual: 30 <= guess <= 36),
    ],
)


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_sparse_mlp = explained_calls(EX2, check_sparse_mlp)
