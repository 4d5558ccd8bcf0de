"""Notebook 17's checks accept a right answer and name typical mistakes."""

import torch

from helpers.checks import nb17_fusing_the_mlp as checks


def test_not_attempted():
    for fb in [checks.check_scale(None), checks.check_scale(lambda x, f: None), checks.check_guess(None, 15)]:
        assert fb.status == "not attempted" and "Hint" not in str(fb)


def test_right_answers():
    assert checks.check_scale(lambda x, f: x * f)
    assert checks.check_scale(lambda x, f: torch.mul(x, f))
    assert checks.check_guess(15, 15)


def test_mistakes_are_named():
    fb = checks.check_scale(lambda x, f: x + f)
    assert fb.status == "wrong" and "added" in str(fb), fb
    assert checks.check_scale(lambda x, f: x).status == "wrong"
    assert checks.check_guess(12, 15).status == "wrong"
