"""Exercise 1: a prediction, the largest number of pairs the 16x FFN memorises completely;
the usual wrong counts are named."""

import math

from helpers.checks.core import referee
from helpers.checks.prediction import Prediction
from helpers.checks.show import plain, say
from helpers.checks.verdict import wrong

EX1 = "Exercise 1 (predict the capacity)"
_capacity_prediction = Prediction(
    EX1,
    why="Each hidden neuron adds one key (a column of W1) and one value (a row of W2); "
        "with d_ff of them, the least-squares fit reproduces d_ff arbitrary pairs "
        "exactly: 512 for d_ff = 512.",
    choices=(16, 32, 64, 128, 256, 512, 1024, 2048),
    variable="my_capacity_guess",
    fmt="{}",
)
_NAMED_GUESSES = {   # the likeliest wrong choices, and what each one mixes up
    16: "16 is the smallest N of the sweep, which every width holds; the question asks for the "
        "largest N the 16x FFN still holds completely.",
    64: "64 is twice d_model; the pairs a memory holds are counted by its hidden neurons, and "
        "the 16x FFN has 512 of them.",
    256: "256 pairs fit completely, but so do more: with d_ff = 512 hidden neurons, each output "
         "number has 512 unknowns to solve N equations with.",
    32: "32 is d_model, the length of each key and value; what a memory holds is counted "
        "by its hidden neurons, d_ff.",
    128: "128 is what the 4x FFN held (d_ff = 128); the 16x FFN has 512 hidden neurons.",
    1024: "1024 is 2 pairs per neuron: N pairs make N equations for each output number, and only "
          "d_ff unknowns can solve them all.",
    2048: "2048 is 4 pairs per neuron: N pairs make N equations for each output number, and only "
          "d_ff unknowns can solve them all.",
}


def _whole(guess):
    """The guess as a whole number when it is one (7, 7.0, numpy's or torch's 7), else None."""
    value = plain(guess)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value) if value == int(value) else None


@referee(EX1)
def check_capacity_guess(guess, actual):
    """Exercise 1: the largest N the 16x FFN memorises completely; the
    likeliest wrong choices are named."""
    fb = _capacity_prediction(guess, actual)
    named = _NAMED_GUESSES.get(_whole(guess)) if fb.status == "wrong" else None
    return wrong(EX1, say("{said} {named}", said=fb.message, named=say(named))) if named else fb
