"""Exercise 1: a prediction, which input tokens (1-based) output token 3 of causal attention
uses; each likely wrong set of tokens is named."""

from helpers.checks.core import explained_calls
from helpers.checks.nb07_position_wise.shared import _named
from helpers.checks.prediction import Prediction


def _tokens(value):
    """A guess of token numbers (a list, tuple, range, array or tensor) as a tuple of ints."""
    value = value.tolist() if hasattr(value, "tolist") else value
    return tuple(int(v) for v in value)


def _words(value):
    return value.strip().casefold()


_TOKEN3 = Prediction(
    "Exercise 1 (predict token 3's inputs)",
    why="Causal attention gives output 3 a weighted average of the V rows of tokens 1, 2 and 3 "
        "(the mask hides 4 and later); the MLP reads token 3 alone. Source post 2 draws exactly "
        "this picture.",
    choices=([3], [1, 2, 3], [3, 4, 5, 6], [1, 2, 3, 4, 5, 6]),
    variable="my_token3_inputs",
    fmt="{}",
)
_TOKEN3_GUESSES = {
    ((1, 2, 3, 4, 5, 6), (1, 2, 3)): "That is attention without a mask (an encoder such as BERT): "
                                     "the causal mask hides tokens 4, 5 and 6 from token 3.",
    ((3,), (1, 2, 3)): "That is the MLP's answer: attention's output 3 mixes the V rows of every "
                       "token it may see, its own and the earlier ones.",
    ((0, 1, 2), (1, 2, 3)): "The tokens are numbered from 1 here, as in the picture: token 3 is "
                            "the third token, and its inputs are numbered from 1 too.",
    ((2, 3), (1, 2, 3)): "Causal attention does not stop at the token just before: output 3 may "
                         "read every earlier token, the first one too, and itself.",
    ((1, 2), (1, 2, 3)): "The causal mask hides the tokens after token 3, not token 3 itself: each "
                         "output reads its own V row too.",
    ((3, 4, 5, 6), (1, 2, 3)): "That is the mask upside down: a causal token reads the past and "
                               "itself (j <= i), never the future.",
}
_check_token3 = _named(_TOKEN3, _tokens, _TOKEN3_GUESSES)


def check_token3_inputs(guess, actual):
    """Exercise 1: the input tokens (1-based) that output token 3 of causal attention uses."""
    guess = list(guess) if isinstance(guess, (tuple, range)) else guess
    if isinstance(guess, (set, frozenset)) or (isinstance(guess, list)
                                               and sorted(guess) in _TOKEN3.choices
                                               and all(isinstance(g, int) for g in guess)):
        guess = sorted(guess)   # the tokens a token reads, in any order
    return _check_token3(guess, list(actual))


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_token3_inputs = explained_calls(_TOKEN3.exercise, check_token3_inputs)
