"""`Prediction`: a guess the learner wrote down before the cell that reveals the answer, read as
they mean it (helpers.checks.reading), then compared with the answer and explained."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from helpers.checks.compare import same
from helpers.checks.core import (
    bad_call,
    correct,
    judge,
    not_attempted,
    wrong,
)
from helpers.checks.reading import _answer, _choice, _mistyped, _one_number, _read_number
from helpers.checks.show import say, show


@dataclass(frozen=True)
class Prediction:
    """A guess written down before the cell that reveals the answer, then compared.

    With `choices`, the guess must be one of them and equal the answer; otherwise
    it is a number, right when within `rel` of the answer. `why` explains the
    answer and is shown either way, after the guess. percent: the answer is a
    percentage, and a guess between 0 and 1 is read back as the fraction it
    likely is ("you wrote 0.64: as a percent that is 64%").
    """

    exercise: str
    why: str
    rel: float = 0.25
    choices: Sequence | None = None
    variable: str = "your prediction"
    fmt: str = "{!r}"
    answer: str = "the run gives"   # where the answer comes from
    percent: bool = False

    def __call__(self, *args, **kwargs):
        variable = self.variable if self.variable.isidentifier() else "my_guess"
        wrongly = bad_call(self.exercise, self, [(variable, say("the variable holding your guess")),
                                                 ("actual",
                                                  say("the value the cell above computed"))],
                           variable + ", actual", args, kwargs)
        return wrongly if wrongly is not None else judge(self.exercise, self._judge, *args)

    def _shown(self, value):
        text = say(self.fmt, value)
        return str(text) if text != self.fmt else show(value)

    def _read_wrong(self, mistyped, number, actual):
        """How the guess is written, then why the number it holds is not the answer either."""
        return say("{mistyped} Read as {number}, it is not right either: you predicted {number}, "
                   "{answer} {actual}. {why}",
                   mistyped=mistyped, number=self._shown(number), answer=self.answer,
                   actual=self._shown(actual), why=self.why)

    def _judge(self, guess, actual):
        if guess is None or guess is Ellipsis:
            return not_attempted(
                self.exercise, message=say("set {variable} in the exercise's cell, then run this "
                                           "check again.",
                                           variable=self.variable))
        mistyped = _mistyped(_one_number(guess), self.variable, self.choices)
        guess, actual = _answer(guess), _answer(actual)
        if self.choices is not None:
            choice = _choice(guess, self.choices)
            if choice is None and mistyped is not None:
                number = _read_number(guess)
                read = _choice(number, self.choices) if number is not None else None
                if read is not None and not same(read, actual):
                    return wrong(self.exercise, self._read_wrong(mistyped, read, actual))
                return wrong(self.exercise, mistyped)
            if choice is None:
                return wrong(self.exercise,
                             say("{variable} = {guess} is not one of {choices}.",
                                 variable=self.variable,
                                                guess=show(guess), choices=str(list(self.choices))))
            guess, right = choice, same(choice, actual)
        else:
            number = _read_number(guess) if mistyped is not None else None
            if number is not None and abs(number - actual) > self.rel * abs(actual):
                return wrong(self.exercise, self._read_wrong(mistyped, number, actual))
            if mistyped is not None:
                return wrong(self.exercise, mistyped)
            if isinstance(guess, bool) or not isinstance(guess, (int, float)):
                return wrong(self.exercise,
                             say("{variable} = {guess}; write a number.", variable=self.variable,
                                                guess=show(guess)))
            if math.isnan(guess):
                return wrong(self.exercise,
                             say("{variable} is NaN; write a number.", variable=self.variable))
            if self.percent and 0 < abs(guess) < 1 < abs(actual):
                return wrong(self.exercise, say("you wrote {guess:g}: as a percent that is "
                                                "{percent:g}%. The question asks for a percent: "
                                                "set {variable} = {percent:g}, then run this check "
                                                "again.", guess=guess, percent=100 * guess,
                                                variable=self.variable))
            right = abs(guess - actual) <= self.rel * abs(actual)
            if (not right and 0 < abs(actual) <= 1 < abs(guess) <= 100
                    and abs(guess / 100 - actual) <= self.rel * abs(actual)):
                return wrong(self.exercise, say("you wrote {guess:g}, a percent; the question asks "
                                                "for a fraction, {fraction:g} as you meant it: set "
                                                "{variable} = {fraction:g}, then run this check "
                                                "again.", guess=guess, fraction=guess / 100,
                                                variable=self.variable))
        said = say("you predicted {guess}, {answer} {actual}. {why}", guess=self._shown(guess),
                   answer=self.answer, actual=self._shown(actual), why=self.why)
        return (correct if right else wrong)(self.exercise, said)
