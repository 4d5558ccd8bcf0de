"""Checks for notebook 02's exercises (activations).

1. A prediction: where GELU reaches its minimum.
2. The exact derivative of GELU(x) = x * Phi(x).
3. A dead-unit counter: hidden units that get no gradient through ReLU from a batch.
4. (stretch) The bottom of a valley, by bisection on the slope.

One submodule per exercise: ex1_valley_guess.py, ex2_gelu_grad.py, ex3_dead_units.py and
ex4_valley_finder.py.
"""

from helpers.checks.nb02_activations.ex1_valley_guess import EX1, check_valley_guess
from helpers.checks.nb02_activations.ex2_gelu_grad import check_gelu_grad
from helpers.checks.nb02_activations.ex3_dead_units import check_dead_units, dead_units
from helpers.checks.nb02_activations.ex4_valley_finder import EX4, check_valley_finder

__all__ = [
    "EX1",
    "EX4",
    "check_dead_units",
    "check_gelu_grad",
    "check_valley_finder",
    "check_valley_guess",
    "dead_units",
]
