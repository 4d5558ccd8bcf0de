"""What both predictions use: a Prediction whose likeliest wrong choices each get a sentence
first, saying what that guess assumed."""

from helpers.checks.core import referee
from helpers.checks.show import say
from helpers.checks.verdict import WRONG, wrong


def _named(prediction, key, sentences):
    """A Prediction whose likeliest wrong choices each get a sentence first: what that guess
    assumed."""
    @referee(prediction.exercise)
    def check(guess, actual):
        feedback = prediction(guess, actual)
        try:
            said = sentences.get((key(guess), key(actual)))
        # a guess of another kind altogether: the Prediction said what it is
        except Exception:  # noqa: BLE001
            said = None
        if feedback.status != WRONG or said is None:
            return feedback
        return wrong(prediction.exercise,
                     say("{said} {message}", said=said, message=feedback.message))
    check.choices = prediction.choices   # what a guess may be, as on the Prediction itself
    return check
