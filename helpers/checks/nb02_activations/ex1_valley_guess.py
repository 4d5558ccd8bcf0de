"""Exercise 1: a prediction, where GELU reaches its minimum; the likeliest wrong guesses (its
lowest value, SiLU's valley, a point too far left or right) are named."""

import math

from helpers.checks.core import referee
from helpers.checks.prediction import Prediction
from helpers.checks.show import plain, say
from helpers.checks.verdict import wrong

check_valley_guess = Prediction(
    "Exercise 1 (where is GELU's valley?)",
    why="GELU(x) = x * Phi(x) is lowest where its slope crosses 0. Left of that point the gate "
        "Phi(x) shrinks faster than |x| grows, so GELU climbs back towards 0 and its slope is "
        "negative; right of it GELU rises to 0 at x = 0. SiLU's valley is deeper and further left: "
        "the figures below show both.",
    rel=0.2,
    variable="my_valley_x",
    fmt="{:.2f}",
    answer="brentq finds",
)
_valley_prediction = check_valley_guess
EX1 = "Exercise 1 (where is GELU's valley?)"
_VALLEY_GUESSES = {   # what a wrong guess most likely mixed up, tried in order: (test, sentence)
    "value": "-0.17 is how low GELU goes, its minimum value; the question asks where, the "
             "x at which it gets there.",
    "silu": "about -1.28 is where SiLU bottoms out; GELU's gate Phi(x) closes faster than SiLU's "
            "sigmoid, so its valley lies nearer to 0.",
    "zero or right": "GELU(x) = x * Phi(x) is 0 at x = 0 and positive for x > 0; its valley, where "
                     "it dips below 0, lies left of 0.",
    "far left": "far to the left Phi(x) is almost 0 and GELU is almost 0 again: the valley's "
                "bottom lies between there and 0. Compare gelu(-1) with gelu(-0.5).",
    "minus one": "GELU(-1) = -0.159 is low, but GELU(-0.75) = -0.170 is lower: the "
                 "bottom lies right of -1.",
    "minus half": "GELU(-0.5) = -0.154 is low, but GELU(-0.75) = -0.170 is lower: the "
                  "bottom lies left of -0.5.",
}


def _valley_mixup(guess):
    """The key of _VALLEY_GUESSES the guess most likely comes from, else None."""
    if isinstance(guess, bool) or not isinstance(guess, (int, float)) or not math.isfinite(guess):
        return None
    for key, test in (("value", lambda g: abs(g + 0.17) < 0.006),
                      ("silu", lambda g: abs(g + 1.278) < 0.06),
                      ("zero or right", lambda g: g >= 0), ("far left", lambda g: g < -1.5),
                      ("minus one", lambda g: g <= -0.9), ("minus half", lambda g: g >= -0.6)):
        if test(guess):
            return key
    return None


@referee(EX1)
def check_valley_guess(guess, actual):
    """Exercise 1: where GELU is lowest; the likeliest wrong guesses are named."""
    fb = _valley_prediction(guess, actual)
    key = _valley_mixup(plain(guess)) if fb.status == "wrong" else None
    return (wrong(EX1, say("{said} {named}", said=fb.message, named=say(_VALLEY_GUESSES[key])))
            if key else fb)
