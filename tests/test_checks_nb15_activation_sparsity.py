"""Notebook 15's checks accept a right answer and name typical mistakes."""

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 - the name learners use

from helpers import sparsity
from helpers.checks import nb15_activation_sparsity as checks
from helpers.checks.nb15_activation_sparsity import ex2_mistakes


def test_not_attempted():
    for fb in [checks.check_sparse_mlp(None), checks.check_relu_guess(None, 56.0)]:
        assert fb.status == "not attempted" and "Hint" not in str(fb)


def written_out(x, mlp, active):
    """The learner's loop version: one token at a time, indices from each token's mask."""
    def one(x_t, a_t):
        idx = a_t.nonzero().flatten() if a_t.dtype == torch.bool else a_t
        h = mlp.act(x_t @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx])
        return h @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias
    if active.ndim == 2:
        return torch.stack([one(x_t, a_t) for x_t, a_t in zip(x, active, strict=False)])
    return one(x, active)


def test_right_answers():
    assert checks.check_sparse_mlp(sparsity.sparse_mlp)
    assert checks.check_sparse_mlp(written_out)
    assert checks.check_relu_guess(56, 56.0)
    assert checks.check_relu_guess(0.56, 56.0).status == "wrong"   # a fraction for a percent is named


@pytest.mark.parametrize("mistake, words", [
    (ex2_mistakes._swapped, "columns of c_fc"), (ex2_mistakes._no_down_bias, "bias is missing"),
    (ex2_mistakes._bias_per_unit, "once per active unit"), (ex2_mistakes._no_activation, "activation is missing"),
    (ex2_mistakes._activation_last, "after the down-projection"), (ex2_mistakes._batch_union, "anywhere in the batch"),
    (ex2_mistakes._first_token, "first token's set"),
])
def test_mistakes_are_named(mistake, words):
    fb = checks.check_sparse_mlp(mistake)
    assert fb.status == "wrong" and words in str(fb), fb


def test_an_in_place_edit_of_the_weights_is_named():
    def zero_the_off_rows(x, mlp, active):
        with torch.no_grad():
            if active.dtype == torch.bool and active.ndim == 1:
                mlp.c_fc.weight[~active] = 0.0
        return sparsity.sparse_mlp(x, mlp, active)
    fb = checks.check_sparse_mlp(zero_the_off_rows)
    assert fb.status == "wrong" and "in place" in str(fb) and "c_fc.weight" in str(fb), fb


def test_the_saving_guess():
    assert checks.check_saving_guess(None, 49.5).status == "not attempted"
    assert checks.check_saving_guess(50, 49.5)
    for wrong in (100, 25, 0.495):
        assert checks.check_saving_guess(wrong, 49.5).status == "wrong"


def test_a_wrong_guess_is_wrong():
    assert checks.check_relu_guess(10, 56.0).status == "wrong"
    assert checks.check_relu_guess(95, 56.0).status == "wrong"


@pytest.mark.parametrize("edit, name", [
    (lambda x, active: x.mul_(0.0), "x"),
    (lambda x, active: active.fill_(True) if active.dtype == torch.bool else active.zero_(), "active"),
])
def test_an_in_place_edit_of_an_input_is_named(edit, name):
    def edits_then_answers(x, mlp, active):
        answer = sparsity.sparse_mlp(x, mlp, active)
        edit(x, active)
        return answer
    fb = checks.check_sparse_mlp(edits_then_answers)
    assert fb.status == "wrong" and f"changed its input {name} in place" in str(fb), fb


def test_a_sparse_forward_that_copies_first_is_right():
    def copies(x, mlp, active):
        x = x.clone().mul_(1.0)
        return sparsity.sparse_mlp(x, mlp, active.clone())
    assert checks.check_sparse_mlp(copies)


@pytest.mark.parametrize("check, guess, actual, words", [
    (checks.check_relu_guess, 2, 56.0, "what GELU gives"),
    (checks.check_relu_guess, 95, 56.0, "almost no unit on"),
    (checks.check_saving_guess, 100, 49.5, "counts c_fc as skipped too"),
    (checks.check_saving_guess, 0, 49.5, "saves (almost) nothing"),
])
def test_a_typical_wrong_guess_is_named(check, guess, actual, words):
    fb = check(guess, actual)
    assert fb.status == "wrong" and words in str(fb), fb


def test_a_wrong_guess_without_a_typical_mistake_gets_the_why_alone():
    fb = checks.check_saving_guess(30, 49.5)
    assert fb.status == "wrong" and "c_fc as skipped" not in str(fb) and "Without a predictor" in str(fb), fb


# ---- a fresh set of learner attempts: each wrong one named in words, none accepted ----------------


def _idx(active):
    return active.nonzero().flatten() if active.dtype == torch.bool else active


per_token = ex2_mistakes._per_token    # one token at a time where active holds a set per token


@per_token
def dense_then_mask(x, mlp, active):
    mask = active if active.dtype == torch.bool else torch.zeros(mlp.d_ff, dtype=torch.bool).index_fill(0, active, True)
    h = mlp.act(mlp.c_fc(x)) * mask
    return mlp.c_proj(h)


@per_token
def dense_then_index(x, mlp, active):
    idx = _idx(active)
    h = mlp.act(mlp.c_fc(x))[..., idx]
    return h @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def masked_weights(x, mlp, active):
    idx = _idx(active)
    mask = torch.zeros(mlp.d_ff, dtype=x.dtype).index_fill(0, idx, 1.0)
    h = mlp.act(x @ (mlp.c_fc.weight * mask[:, None]).T + mlp.c_fc.bias * mask)
    return h @ (mlp.c_proj.weight * mask).T + mlp.c_proj.bias


def whole_mlp(x, mlp, active):
    return mlp(x)


@per_token
def no_up_bias(x, mlp, active):
    idx = _idx(active)
    return mlp.act(x @ mlp.c_fc.weight[idx].T) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def up_bias_after_act(x, mlp, active):
    idx = _idx(active)
    return (mlp.act(x @ mlp.c_fc.weight[idx].T) + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def torch_relu(x, mlp, active):
    idx = _idx(active)
    return torch.relu(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def f_gelu(x, mlp, active):
    idx = _idx(active)
    return F.gelu(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


def _reversed_dims(t):
    """What t.T gives a 3-D tensor (the learner's .T), without torch's warning that it will stop."""
    return t.permute(*range(t.ndim - 1, -1, -1))


@per_token
def nonzero_no_flatten(x, mlp, active):
    idx = active.nonzero() if active.dtype == torch.bool else active
    h = mlp.act(x @ _reversed_dims(mlp.c_fc.weight[idx]) + mlp.c_fc.bias[idx])
    return h @ _reversed_dims(mlp.c_proj.weight[:, idx]) + mlp.c_proj.bias


@per_token
def mask_as_long(x, mlp, active):
    idx = active.long()
    return mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


def no_per_token(x, mlp, active):
    idx = active.nonzero().flatten() if active.dtype == torch.bool else active
    return mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def returns_hidden(x, mlp, active):
    idx = _idx(active)
    return mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx])


@per_token
def down_rows(x, mlp, active):
    idx = _idx(active)
    return mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[idx] + mlp.c_proj.bias


@per_token
def down_cols_no_T(x, mlp, active):
    idx = _idx(active)
    return mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx] + mlp.c_proj.bias


@per_token
def up_cols(x, mlp, active):
    idx = _idx(active)
    return mlp.act(x @ mlp.c_fc.weight[:, idx] + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def whole_up_bias(x, mlp, active):
    idx = _idx(active)
    return mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def returns_numpy(x, mlp, active):
    return sparsity.sparse_mlp(x, mlp, active).numpy()


@per_token
def float32_out(x, mlp, active):
    return sparsity.sparse_mlp(x, mlp, active).float()


def list_out(x, mlp, active):
    if active.ndim == 2:
        return [sparsity.sparse_mlp(x_t, mlp, a_t) for x_t, a_t in zip(x, active, strict=True)]
    return sparsity.sparse_mlp(x, mlp, active)


@per_token
def relu_then_mask_pre(x, mlp, active):
    # masks the pre-activation, not the activation: GELU(0) = 0 so same; just reads all of c_fc
    idx = _idx(active)
    pre = mlp.c_fc(x)
    mask = torch.zeros_like(pre)
    mask[..., idx] = 1
    return mlp.c_proj(mlp.act(pre * mask))


@per_token
def rows_times_x(x, mlp, active):
    idx = _idx(active)
    return mlp.act(mlp.c_fc.weight[idx] @ x + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T + mlp.c_proj.bias


@per_token
def detached_inplace_bias(x, mlp, active):
    idx = _idx(active)
    out = mlp.act(x @ mlp.c_fc.weight[idx].T + mlp.c_fc.bias[idx]) @ mlp.c_proj.weight[:, idx].T
    out += mlp.c_proj.bias
    return out


def union_for_batch(x, mlp, active):
    return sparsity.sparse_mlp(x, mlp, active.any(0) if active.ndim == 2 else active)



WRONG = [
    (dense_then_mask, "reads all of c_fc.weight"), (dense_then_index, "reads all of c_fc.weight"),
    (masked_weights, "reads all of c_fc.weight"), (whole_mlp, "reads all of c_fc.weight"),
    (relu_then_mask_pre, "reads all of c_fc.weight"), (no_up_bias, "c_fc's bias is missing"),
    (up_bias_after_act, "added after the activation"), (torch_relu, "torch.relu (or F.relu)"),
    (f_gelu, "GELU stands where"), (nonzero_no_flatten, "index of shape (9, 1)"),
    (mask_as_long, "mask turned into numbers"), (no_per_token, "(token, unit) pairs"),
    (returns_hidden, "this is the hidden layer h"), (down_rows, "rows of c_proj.weight"),
    (down_cols_no_T, "meets it transposed"), (up_cols, "columns of c_fc.weight"),
    (whole_up_bias, "the whole of c_fc.bias"), (returns_numpy, "returns a numpy array"),
    (float32_out, "keep float64"), (list_out, "returns a list"), (union_for_batch, "anywhere in the batch"),
    (rows_times_x, "works for one token"),
]


@pytest.mark.parametrize("attempt, words", WRONG, ids=[a.__name__ for a, _ in WRONG])
def test_each_wrong_attempt_is_named(attempt, words):
    fb = checks.check_sparse_mlp(attempt)
    assert fb.status == "wrong" and words in str(fb), fb


def test_a_right_attempt_written_otherwise_is_right():
    assert checks.check_sparse_mlp(detached_inplace_bias)


@pytest.mark.parametrize("check, guess, actual, words", [
    (checks.check_relu_guess, 72, 57.0, "GELU's share of units under a tenth"),
    (checks.check_saving_guess, 33, 49.5, "a gated MLP"),
])
def test_more_wrong_guesses_are_named(check, guess, actual, words):
    fb = check(guess, actual)
    assert fb.status == "wrong" and words in str(fb), fb
