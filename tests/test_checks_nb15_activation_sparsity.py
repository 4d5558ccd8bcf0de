"""Notebook 15's checks accept a right answer and name typical mistakes."""

import pytest
import torch

from helpers import sparsity
from helpers.checks import nb15_activation_sparsity as checks


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
    (checks._swapped, "swapped"), (checks._no_down_bias, "bias is missing"),
    (checks._bias_per_unit, "once per active unit"), (checks._no_activation, "activation is missing"),
    (checks._activation_last, "after the down-projection"), (checks._batch_union, "anywhere in the batch"),
    (checks._first_token, "first token's set"),
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
