"""Exercise 1: a prediction, how many rows of Z = X @ W move when row 3 of X changes; each
wrong count gets what it mixed up."""

from helpers.checks.core import referee
from helpers.checks.prediction import Prediction
from helpers.checks.show import plain, say
from helpers.checks.verdict import wrong

_rows_prediction = Prediction(
    "Exercise 1 (which rows move?)",
    why="Z[t, j] is the dot product of row t of X with column j of W: row t of Z reads row t of "
        "X and the shared W, nothing else. Changing token 3 moves output row 3 alone; batching "
        "tokens into one matrix mixes nothing between them.",
    choices=(0, 1, 2, 3, 4, 5),
    variable="my_rows_guess",
    fmt="{}",
)

EX1 = "Exercise 1 (which rows move?)"
_ROWS_GUESSES = {
    0: "0 rows would mean nothing moves, but row 3 of X changed, and every entry Z[3, j] "
       "multiplies that row with a column of W: output row 3 must move.",
    5: "5 rows would mean every output row reads token 3. Z[t, j] multiplies row t of X with "
       "column j of W: the other rows of X never enter it, so only output row 3 can move.",
    "some": "{guess} rows: besides row 3, which other output row would read a number of row 3 of "
            "X? Z[t, j] reads row t of X alone (and the shared W), so no other row can move.",
}


def _whole(guess):
    value = (plain(guess[0]) if isinstance(guess, (list, tuple)) and len(guess) == 1
             else plain(guess))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        return None
    return int(value)


@referee(EX1)
def check_rows_moved(guess, actual):
    """Exercise 1: how many rows of Z move; each wrong count gets what it mixed up."""
    fb = _rows_prediction(guess, actual)
    n = _whole(guess) if fb.status == "wrong" else None
    if n not in (0, 2, 3, 4, 5):
        return fb
    named = say(_ROWS_GUESSES[n]) if n in _ROWS_GUESSES else say(_ROWS_GUESSES["some"], guess=n)
    return wrong(EX1, say("{said} {named}", said=fb.message, named=named))


check_rows_moved.choices = _rows_prediction.choices
