"""Exercise 2: a prediction, is attention linear in V (weights fixed), in X, in both? Each
wrong choice is named."""

from helpers.checks.nb07_position_wise.shared import _named
from helpers.checks.prediction import Prediction
from helpers.checks.reading import _choice
from helpers.checks.reading import _words as _read_words
from helpers.checks.show import say

_LINEARITY = Prediction(
    "Exercise 2 (predict where attention is linear)",
    why="With the weights A fixed, V -> A @ V @ W_O is a product of matrices: linear. The weights "
        "themselves are a softmax of X's scores, so doubling X changes the ratios, not just the "
        "scale: as a function of X the layer is not linear.",
    choices=("linear in V and in X", "linear in V only", "linear in X only", "linear in neither"),
    variable="my_linearity_guess",
    fmt="{!r}",
)
_NOT_IN_X = "The softmax acts on X's scores, so X sets the ratios: attention is not linear in X."
_IN_V = ("The softmax never touches V: with the ratios fixed, V -> A @ V @ W_O is a product of "
         "matrices.")
_LINEARITY_GUESSES = {
    ("linear in v and in x", "linear in v only"): _NOT_IN_X,
    ("linear in neither", "linear in v only"): _IN_V,
    ("linear in x only", "linear in v only"): say("{} {}", _IN_V, _NOT_IN_X),
}
def _chosen(guess):
    """The choice a guess names, as words ("V only" reads "linear in v only"); the guess's own words
    if none."""
    choice = _choice(guess, _LINEARITY.choices)
    return _read_words(guess if choice is None else choice)


check_linearity_guess = _named(_LINEARITY, _chosen, _LINEARITY_GUESSES)
