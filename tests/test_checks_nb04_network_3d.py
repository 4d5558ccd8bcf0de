"""Notebook 04's exercise checks: accept the solutions, explain typical mistakes."""

import math

import numpy as np

from helpers.activations import get
from helpers.checks import nb04_network_3d as checks


def test_not_attempted_does_not_raise():
    for fb in [checks.check_count_edges(lambda s: None), checks.check_strongest(lambda W, k: None),
               checks.check_hidden(lambda *a: None), checks.check_count_edges(None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_count_edges():
    assert checks.check_count_edges(lambda s: sum(a * b for a, b in zip(s[:-1], s[1:], strict=True)))
    fb = checks.check_count_edges(sum)
    assert not fb and "number of nodes" in fb.message
    fb = checks.check_count_edges(math.prod)
    assert not fb and "multiplied all the sizes" in fb.message
    fb = checks.check_count_edges(lambda s: s[0] * s[1])
    assert not fb and "only the first weight matrix" in fb.message
    fb = checks.check_count_edges(lambda s: sum(a * b for a, b in zip(s[:-1], s[1:], strict=True)) or None)
    assert not fb and "a single layer has 0 edges" in fb.message


def solution_strongest(W, k):
    flat = np.argsort(np.abs(W).ravel())[-k:]
    return list(zip(*np.unravel_index(flat, W.shape), strict=True))


def test_strongest():
    assert checks.check_strongest(solution_strongest)
    fb = checks.check_strongest(lambda W, k: list(zip(*np.unravel_index(np.argsort(W.ravel())[-k:],
                                                                         W.shape), strict=True)))
    assert not fb and "negative weights are strong too" in fb.message
    fb = checks.check_strongest(lambda W, k: list(zip(*np.unravel_index(
        np.argsort(np.abs(W).ravel())[:k], W.shape), strict=True)))
    assert not fb and "weakest" in fb.message
    fb = checks.check_strongest(lambda W, k: solution_strongest(W, k - 1))
    assert not fb and "3 pairs; expected 4" in fb.message
    fb = checks.check_strongest(lambda W, k: np.abs(W).max())
    assert not fb and "list of (row, col) pairs" in fb.message


def test_hidden():
    assert checks.check_hidden(lambda x, W1, b1, act: get(act)(x @ W1 + b1))
    fb = checks.check_hidden(lambda x, W1, b1, act: get(act)(x @ W1))
    assert not fb and "miss the bias" in fb.message
    fb = checks.check_hidden(lambda x, W1, b1, act: x @ W1 + b1)
    assert not fb and "pre-activations" in fb.message
    fb = checks.check_hidden(lambda x, W1, b1, act: get("relu")(x @ W1 + b1))
    assert not fb and "asked for 'gelu' you applied 'relu'" in fb.message
    fb = checks.check_hidden(lambda x, W1, b1, act: get(act)(W1 @ x + b1))
    assert not fb and "raised ValueError" in fb.message
