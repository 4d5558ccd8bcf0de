"""Notebook 07's exercise checks: accept the solutions, explain typical mistakes."""

import torch

from helpers.checks import nb07_position_wise as checks


def future(T):
    return torch.ones(T, T, dtype=torch.bool).triu(1)


def solution_softmax(scores):
    return torch.softmax(scores.masked_fill(future(scores.shape[-1]), float("-inf")), dim=-1)


def solution_window(T, window):
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return (j <= i) & (j > i - window)


def test_not_attempted_does_not_raise():
    for fb in [checks.check_causal_softmax(lambda s: None), checks.check_window_mask(lambda T, w: None),
               checks.check_fold_value(lambda *w: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_causal_softmax():
    assert checks.check_causal_softmax(solution_softmax)
    fb = checks.check_causal_softmax(lambda s: torch.softmax(s, dim=-1))
    assert not fb and "forget the mask" in fb.message
    fb = checks.check_causal_softmax(lambda s: torch.softmax(s.masked_fill(future(len(s)), 0.0), dim=-1))
    assert not fb and "masked with 0" in fb.message
    fb = checks.check_causal_softmax(lambda s: torch.softmax(s.masked_fill(future(len(s)), float("-inf")), dim=0))
    assert not fb and "columns sum to 1" in fb.message
    fb = checks.check_causal_softmax(lambda s: torch.softmax(s.masked_fill(future(len(s)).T, float("-inf")), dim=-1))
    assert not fb and "right way round" in fb.message
    fb = checks.check_causal_softmax(lambda s: solution_softmax(s / 2))
    assert not fb and "differs" in fb.message


def test_window_mask():
    assert checks.check_window_mask(solution_window)
    fb = checks.check_window_mask(lambda T, w: solution_window(T, w).T)
    assert not fb and "transposed" in fb.message
    fb = checks.check_window_mask(lambda T, w: solution_window(T, w + 1))
    assert not fb and "off-by-one" in fb.message and "sees 4 tokens; expected 3" in fb.message
    fb = checks.check_window_mask(
        lambda T, w: (torch.arange(T)[:, None] - torch.arange(T)[None, :]).abs() < w)
    assert not fb and "later token" in fb.message
    fb = checks.check_window_mask(lambda T, w: torch.ones(T - 1, T, dtype=torch.bool))
    assert not fb and "shape (6, 7)" in fb.message


def test_fold_value():
    assert checks.check_fold_value(lambda W_v, W_o, W_1, W_2: W_v @ W_o @ W_1 @ W_2)
    fb = checks.check_fold_value(lambda W_v, W_o, W_1, W_2: W_v @ W_1 @ W_2)
    assert not fb and "skips W_o" in fb.message
    fb = checks.check_fold_value(lambda W_v, W_o, W_1, W_2: W_o @ W_1 @ W_2)
    assert not fb and "leaves out W_v" in fb.message
    fb = checks.check_fold_value(lambda W_v, W_o, W_1, W_2: W_2 @ W_1)
    assert not fb and "W_2 before W_1" in fb.message
    fb = checks.check_fold_value(lambda W_v, W_o, W_1, W_2: W_o @ W_v @ W_1 @ W_2)
    assert not fb and "differs" in fb.message
