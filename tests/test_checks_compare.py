"""helpers.checks.compare: a wrong shape is told before any value is read, however big the answer."""

import numpy as np
import torch

from helpers.checks import compare
from helpers.checks.runner import Check, Mistake


def test_a_huge_answer_of_the_wrong_shape_is_never_converted(monkeypatch):
    converted = []
    real = compare.to_numpy

    def counting(value):
        converted.append(getattr(value, "shape", None))
        return real(value)

    monkeypatch.setattr(compare, "to_numpy", counting)
    huge = torch.zeros(10**4, 10**4)          # 400 MB: a float64 copy of it took 3 s per comparison
    assert compare.arrays()(huge, np.zeros((3, 4))) == "has shape (10000, 10000); expected (3, 4)"
    assert compare.arrays()(np.zeros((2, 5)), torch.zeros(3, 4)) == "has shape (2, 5); expected (3, 4)"
    assert converted == []


def test_the_shape_first_rule_keeps_the_other_messages():
    assert compare.arrays()(torch.tensor(1.0), np.zeros((3, 4))).startswith("returned ")
    assert compare.arrays()([[1.0, 2.0]], np.zeros((3, 4))) == "has shape (1, 2); expected (3, 4)"
    assert compare.arrays()(np.ones((3, 4)), np.ones((3, 4))) is None
    assert "(1 of 12 entries differ)" in compare.arrays()(np.eye(3, 4), np.eye(3, 4) + np.eye(3, 4) * (
        np.arange(4) == 0))


def test_a_check_with_mistakes_judges_a_huge_wrong_answer_by_its_shape(monkeypatch):
    converted = []
    real = compare.to_numpy
    monkeypatch.setattr(compare, "to_numpy", lambda v: converted.append(1) or real(v))
    check = Check("Exercise 1 (core): a (3, 4) product", cases=[(np.ones((3, 2)), np.ones((2, 4)))],
                  reference=lambda a, b: a @ b,
                  mistakes=[Mistake("you multiplied elementwise.", answer=lambda a, b: a * b[:, :2].T[:3])])
    said = str(check(lambda a, b: torch.zeros(10**4, 10**4)))
    assert "has shape (10000, 10000); expected (3, 4)" in said, said
    assert converted == []
