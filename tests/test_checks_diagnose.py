"""helpers.checks.diagnose: a wrong array is told as the mistake it most likely is, in words.

Each test hands a check the right answer (accepted) and one typical mistake (rejected, and named);
only an answer that fits no pattern is told where and by how much it differs.
"""

import numpy as np
import pytest
import torch

from helpers.checks.compare import arrays
from helpers.checks.runner import Check

_rng = np.random.default_rng(7)
X, W, B = _rng.normal(size=(5, 4)), _rng.normal(size=(4, 6)), _rng.normal(size=6)
S = _rng.normal(size=(4, 4))


def _relu(z):
    return np.maximum(z, 0.0)


def _softmax(z, axis):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _gelu(z):
    return torch.nn.functional.gelu(torch.from_numpy(z)).numpy()


def _layer(x, w, b):
    return _relu(x @ w + b)


def _judged(reference, answer, case=(X, W, B)):
    return Check("Exercise 1 (a layer)", reference=reference, cases=[case], name="layer")(answer)


# (the reference, a wrong answer, the words that must name its mistake)
MISTAKES = {
    "transposed square": (lambda x, w, b: x @ w, lambda x, w, b: (x @ w).T, "is the transpose",
                          (S, S.T @ S, None)),
    "transposed shape": (lambda x, w, b: x @ w + b, lambda x, w, b: (x @ w + b).T, "its axes swapped", None),
    "axes swapped, values not": (lambda x, w, b: x @ w + b, lambda x, w, b: np.ones((6, 5)),
                                 "the same sizes in another order", None),
    "sign flipped": (lambda x, w, b: x @ w + b, lambda x, w, b: -(x @ w + b), "every sign is flipped", None),
    "constant factor": (lambda x, w, b: x @ w + b, lambda x, w, b: 3 * (x @ w + b), "times 3: off by a constant factor",
                        None),
    "mean for a sum": (lambda x, w, b: (x @ w).sum(axis=1), lambda x, w, b: (x @ w).mean(axis=1),
                       "divided by 6: a mean where a sum is asked", None),
    "a scale": (lambda x, w, b: x @ w, lambda x, w, b: 0.7 * (x @ w), "times 0.7: off by a constant", None),
    "bias left out": (lambda x, w, b: x @ w + b, lambda x, w, b: x @ w, "a bias left out", None),
    "bias added twice": (lambda x, w, b: x @ w + b, lambda x, w, b: x @ w + 2 * b, "added twice", None),
    "bias left out before the activation": (_layer, lambda x, w, b: _relu(x @ w),
                                            "a bias left out before the activation", None),
    "activation missing": (_layer, lambda x, w, b: x @ w + b, "the input of ReLU, not its output", None),
    "GELU missing": (lambda x, w, b: _gelu(x @ w + b), lambda x, w, b: x @ w + b, "the input of GELU", None),
    "activation too many": (lambda x, w, b: x @ w + b, _layer, "ReLU of the expected array", None),
    "a constant added": (lambda x, w, b: x @ w, lambda x, w, b: x @ w + 0.5, "plus 0.5 in every entry", None),
    "softmax over the wrong axis": (lambda x, w, b: _softmax(x @ w, 1), lambda x, w, b: _softmax(x @ w, 0),
                                    "a softmax (or a division by a sum) over the wrong axis", None),
    "mean over the wrong axis": (lambda x, w, b: x - x.mean(axis=1, keepdims=True), lambda x, w, b: x - x.mean(0),
                                 "a mean subtracted over the wrong axis", None),
    "a shift per row": (lambda x, w, b: x @ w, lambda x, w, b: x @ w + x[:, :1], "one value per row", None),
    "each row scaled": (lambda x, w, b: x @ w, lambda x, w, b: (x @ w) * np.arange(1.0, 6.0)[:, None],
                        "each row is the expected row times a factor", None),
    "never filled": (lambda x, w, b: x @ w, lambda x, w, b: np.zeros((5, 6)), "is all zeros", None),
    "rows in another order": (lambda x, w, b: x @ w, lambda x, w, b: (x @ w)[[1, 0, 2, 4, 3]],
                              "the expected rows, in another order", None),
    "reversed": (lambda x, w, b: x @ w, lambda x, w, b: (x @ w)[::-1], "reversed along axis 0", None),
    "index off by one": (lambda x, w, b: x @ w, lambda x, w, b: np.vstack([(x @ w)[1:], np.zeros((1, 6))]),
                         "moved by one place along axis 0: an index off by one", None),
    "wrong shape, right values": (lambda x, w, b: x @ w, lambda x, w, b: (x @ w).reshape(6, 5),
                                  "the values are right, in the wrong shape", None),
    "keepdim": (lambda x, w, b: (x @ w).sum(axis=1), lambda x, w, b: (x @ w).sum(axis=1, keepdims=True),
                "a dimension of size 1 extra or missing", None),
    "broadcast": (lambda x, w, b: (x @ w).sum(axis=1), lambda x, w, b: (x @ w).sum(1)[:, None] + b[:5],
                  "a dimension too many", None),
    "reduced over the wrong axis": (lambda x, w, b: (x @ w).sum(axis=1), lambda x, w, b: (x @ w).sum(axis=0),
                                    "a sum or mean over the wrong axis", None),
}


@pytest.mark.parametrize("name", MISTAKES)
def test_each_mistake_is_named_and_the_solution_accepted(name):
    reference, mistake, words, case = MISTAKES[name]
    case = case or (X, W, B)
    assert _judged(reference, reference, case), name
    fb = _judged(reference, mistake, case)
    assert not fb and fb.status == "wrong", name
    assert words in fb.message, (name, fb.message)


def test_an_answer_that_fits_no_pattern_is_told_where_and_by_how_much():
    rng = np.random.default_rng(0)
    said = arrays()(rng.normal(size=(5, 6)), X @ W)
    assert said.startswith("first differs at index (0, 0): got ") and "the largest difference" in said
    assert "(30 of 30 entries differ)" in said
    one = X @ W
    one[2, 3] += 1.0
    said = arrays()(one, X @ W)
    assert "index (2, 3)" in said and "(1 of 30 entries differ)" in said


def test_a_float32_answer_and_a_scalar_keep_their_sentences():
    assert arrays()(torch.tensor(X @ W).float(), X @ W) is None or "float32" in arrays(atol=0, rtol=0)(
        torch.tensor(X @ W).float(), X @ W)
    assert arrays()(np.float64(3.0), np.float64(2.0)) == "differs: got 3, expected 2"


def test_a_huge_wrong_answer_is_told_without_the_costly_patterns():
    big = np.ones((600, 600))
    said = arrays()(big * 2, big)
    assert "times 2" in said
    noise = np.random.default_rng(1).normal(size=(600, 600))
    assert arrays()(noise, big).startswith("first differs at index (0, 0)")
