"""A check's verdict: Feedback (not attempted yet, correct, or what is wrong, as one sentence in the
checks' language), and the markers for a call that gave no answer (MISSING, RETURNED_NONE)."""

from dataclasses import dataclass

from helpers import language
from helpers.checks.show import Text, one_line, say

NOT_ATTEMPTED = "not attempted"
CORRECT = "correct"
WRONG = "wrong"
MARKS = {CORRECT: "[correct]", WRONG: "[not yet]", NOT_ATTEMPTED: "[not attempted yet]"}


@dataclass(frozen=True)
class Feedback:
    """The outcome of one check, shown as one sentence in the checks' language.

    message is the English sentence (a show.Text, which remembers how it was made, so that
    str(feedback) can say it in Korean in the Korean edition).
    """

    exercise: str
    status: str
    message: str

    def __bool__(self):
        return self.status == CORRECT

    def __str__(self):
        parts = (MARKS[self.status], self.exercise, self.message)
        said = [language.translate(part) for part in parts]
        return one_line("{} {}: {}".format(*said), limit=1400)   # one line, no object addresses

    def __repr__(self):
        return str(self)


NOT_YET = "write your answer in the cell above, then run it again."


def _sentence(message):
    """A message as a Text (a plain constant sentence becomes one, to be looked up as it is)."""
    return message if isinstance(message, Text) else say(one_line(message, limit=1200))


def correct(exercise, message="correct, well done."):
    return Feedback(exercise, CORRECT, _sentence(message))


def wrong(exercise, message):
    return Feedback(exercise, WRONG, _sentence(message))


def not_attempted(exercise, message=NOT_YET):
    return Feedback(exercise, NOT_ATTEMPTED, _sentence(message))


class _Sentinel:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


MISSING = _Sentinel("MISSING")              # the untouched stub: not attempted yet
RETURNED_NONE = _Sentinel("RETURNED_NONE")  # a function that did something, then returned None
