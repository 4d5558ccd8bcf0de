"""Exercise 3: a prediction, how the time per token changes as the number of tokens T grows;
each wrong choice gets what it leaves out."""

from helpers.checks.core import referee
from helpers.checks.prediction import Prediction
from helpers.checks.reading import _choice
from helpers.checks.show import say
from helpers.checks.verdict import wrong

_time_prediction = Prediction(
    "Exercise 3 (time per token)",
    why="X @ W reads all of W once, however many tokens X holds, while each token's arithmetic "
        "stays 2 FLOPs per weight. With one token the processor mostly waits for W's 2.4 million "
        "weights to arrive (from the cache in this timing, from main memory in a large model); "
        "with many tokens each weight, once there, serves every token, so the time per token falls "
        "until the arithmetic units are busy. Notebook 09 comes back to this: generating text one "
        "token at a time is limited by reading the weights.",
    choices=("falls", "stays about the same", "grows"),
    variable="my_time_guess",
    answer="the answer is",
)

EX3 = "Exercise 3 (time per token)"
_TIME_GUESSES = {
    "stays about the same": "The arithmetic per token is indeed the same at every T (2 * d * m "
                            "FLOPs), but it is not all the time takes: bringing W's weights in is "
                            "paid once per product and shared by its T tokens, so each token's "
                            "share of it shrinks as T grows.",
    "grows": "No token's arithmetic gets harder as T grows (each still needs 2 * d * m FLOPs), and "
             "W is brought in once for all T tokens, not once per token: nothing per token grows.",
}


@referee(EX3)
def check_time_guess(guess, actual):
    """Exercise 3: how the time per token changes with T; each wrong choice gets what it leaves
    out."""
    fb = _time_prediction(guess, actual)
    # "rises" is "grows"
    key = _choice(guess, _time_prediction.choices) if isinstance(guess, str) else None
    if fb.status != "wrong" or key not in _TIME_GUESSES or key == actual:
        return fb
    return wrong(EX3, say("{said} {named}", said=fb.message, named=say(_TIME_GUESSES[key])))


# the choices, as the Prediction it wraps has them
check_time_guess.choices = _time_prediction.choices
