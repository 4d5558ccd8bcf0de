"""Notebook 14's predictions: int4 per tensor against int3 per group (exercise 2) and the int8
copy's share of float32's bytes (exercise 3)."""

from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Mistake, Prediction

check_worse_guess = Prediction(
    "Exercise 2 (int4 per tensor or int3 per group of 64?)",
    why="A bit fewer halves the number of levels and doubles the step: per group, the step "
        "follows each group's own absmax, which helps, but not by a factor of 2 on these weights, "
        "which hold no large outliers. So int3 per group of 64 errs more than int4 per tensor "
        "here. With outliers (one huge weight per row) the small groups win, and that is why "
        "releases use int4 with groups of 128.",
    choices=("A", "B"),
    variable="my_guess",
)


def _near(target, rel=0.1):
    """when(guess, actual): the guess lies within rel of target(actual)."""
    return lambda guess, actual: abs(guess - target(actual)) <= rel * abs(target(actual))


check_share_guess = NamedPrediction(
    "Exercise 3 (int8's share of the bytes)",
    why="A weight takes 1 byte instead of 4, so the weights shrink to a quarter; the biases "
        "stay float32 and each output row adds one float32 scale, 3,840 of each against 4.7 "
        "million weights: a little over 0.25.",
    rel=0.02,
    variable="my_share_guess",
    fmt="{:.3g}",
    mistakes=[
        Mistake("That is a percent: the question asks for a share as a fraction, 0.5 for a half.",
                when=_near(lambda actual: 100 * actual)),
        Mistake("That is float32's bytes over int8's, the inverse: the question asks what share of "
                "float32's bytes the int8 copy takes, a number below 1.",
                when=_near(lambda actual: 1 / actual)),
        Mistake("0.5 is int8 against 16-bit floats (2 bytes a weight); this MLP is "
                "float32, 4 bytes a weight.",
                when=_near(lambda actual: 0.5, rel=0.05)),
        Mistake("0.125 is int4's share of float32 (half a byte against 4); the copy "
                "stores int8, 1 byte a weight.",
                when=_near(lambda actual: 0.125, rel=0.1)),
        Mistake("0.75 is what int8 saves, not what it keeps: the question "
                "asks for the share it takes.",
                when=_near(lambda actual: 0.75, rel=0.05)),
        Mistake("That overestimates the biases and scales: they are 3,840 float32 numbers each, "
                "against 4.7 million weights, and add about a thousandth to the quarter.",
                when=lambda guess, actual: 1.02 * actual < guess < 0.45),
        Mistake("No share can be below a quarter here: each weight still takes 1 of float32's 4 "
                "bytes, and the biases and scales add a little on top.",
                when=lambda guess, actual:
                    0 < guess < 0.98 * actual and abs(guess - 0.125) > 0.0125),
        Mistake("int8 stores the weights in 1 byte instead of 4: the copy is much smaller than the "
                "float32 MLP, not about the same size.",
                when=lambda guess, actual: 0.8 <= guess <= 1.2),
        Mistake("A share above 1 would make the int8 copy larger than the float32 MLP; it stores "
                "each weight in 1 byte of float32's 4.",
                when=lambda guess, actual: guess > 1.2),
        Mistake("A share of 0 or less cannot be: the int8 copy still stores "
                "every weight, in 1 byte.",
                when=lambda guess, actual: guess <= 0),
    ],
)
