"""A prediction that names a typical wrong guess, not only the right answer.

`Prediction` says what the run gave and why. `NamedPrediction` adds rows for the
wrong guesses learners typically make, each a test on the guess and the sentence
that names the thinking behind it:

    check_share = NamedPrediction(
        "Exercise 1 (predict the share)", why="...", variable="my_share",
        mistakes=[Mistake("0 would be ReLU's answer; SiLU keeps the sign of z.",
                          when=lambda guess, actual: guess == 0)],
    )

A mistake is tried only on a wrong guess that is one real number; its sentence
comes after "you predicted ..., the run gives ..." and before the why.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from helpers.checks.core import WRONG, wrong
from helpers.checks.runner import Mistake, Prediction
from helpers.checks.show import plain, say


def _number(value):
    """value as a finite Python float when it is one real number, else None."""
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


# Prediction's "you predicted {guess}, {answer} {actual}. {why}", with the mistake's sentence before
# the why.
_NAMED = "you predicted {guess}, {answer} {actual}. {mistake} {why}"


@dataclass(frozen=True)
class NamedPrediction(Prediction):
    """A Prediction whose `mistakes` (Mistake rows with when(guess, actual)) name typical wrong
    guesses."""

    mistakes: Sequence[Mistake] = ()

    def _judge(self, guess, actual):
        feedback = super()._judge(guess, actual)
        guess_value, actual_value = _number(guess), _number(actual)
        if feedback.status != WRONG or guess_value is None or actual_value is None:
            return feedback
        # the guess, the answer and the why, as Prediction said them
        said = getattr(feedback.message, "values", {})
        # a message of its own (a percent, ...)
        if not feedback.message.endswith(self.why) or "guess" not in said:
            return feedback
        for mistake in self.mistakes:
            if mistake.matches(guess_value, (actual_value,), compare=None):
                return wrong(self.exercise,
                             say(_NAMED,
                                 **{**said, "mistake": say(mistake.message, got=guess_value)}))
        return feedback
