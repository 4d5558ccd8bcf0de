"""Exercise 4 (stretch): two layers with biases and nothing in between, folded into one."""

import numpy as np

from helpers.checks.compare import arrays
from helpers.checks.nb01_matrix_multiply.shared import _pair, _part
from helpers.checks.runner import Check, Mistake


def _fold_reference(W1, b1, W2, b2):
    return W1 @ W2, b1 @ W2 + b2


def _bias_is(make):
    return lambda got, W1, b1, W2, b2: _part(got, 1, make(W1, b1, W2, b2), arrays())


_rng = np.random.default_rng(2)
_SQUARE_LAYERS = (_rng.normal(size=(4, 4)), _rng.normal(size=4), _rng.normal(size=(4, 4)),
                  _rng.normal(size=4))
_LAYERS = (_rng.normal(size=(4, 6)), _rng.normal(size=6), _rng.normal(size=(6, 4)),
           _rng.normal(size=4))
_NARROW = (_rng.normal(size=(3, 5)), _rng.normal(size=5), _rng.normal(size=(5, 2)),
           _rng.normal(size=2))

check_fold_layers = Check(
    "Exercise 4 (fold two layers with biases)",
    reference=_fold_reference,
    cases=[_SQUARE_LAYERS, _LAYERS, _NARROW],
    compare=_pair("W", "b", arrays(), arrays()),
    mistakes=[
        Mistake("your W is W2 @ W1, the product in the wrong order: x meets W1 first, so "
                "W = W1 @ W2.",
                when=lambda got, W1, b1, W2, b2: _part(got, 0, W2 @ W1, arrays())),
        Mistake("b1 is added before W2, so it passes through W2 too: the folded bias is not "
                "b1 + b2.", when=_bias_is(lambda W1, b1, W2, b2: b1 + b2)),
        Mistake("you returned (b, W): return the matrix first, `return W, b`.",
                when=lambda got, W1, b1, W2, b2: _part(got, 1, W1 @ W2, arrays())),
        Mistake("W2 @ b1 treats b1 as a column; b1 is a row like x, so it meets W2 on the left: "
                "b1 @ W2.",
                when=_bias_is(lambda W1, b1, W2, b2: W2 @ b1 + b2)),
        Mistake("your bias leaves out b1, but b1 reaches the output through W2.",
                when=_bias_is(lambda W1, b1, W2, b2: b2)),
        Mistake("your bias leaves out b2, which is added at the very end.",
                when=_bias_is(lambda W1, b1, W2, b2: b1 @ W2)),
    ],
    success="x @ W + b == (x @ W1 + b1) @ W2 + b2: with nothing in between, two layers with "
            "biases are one layer, W = W1 @ W2 and b = b1 @ W2 + b2.",
    name="fold_layers",
)
