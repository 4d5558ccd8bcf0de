"""One table-driven runner for every exercise check.

A check is a table, not code: the cases to try, the reference that gives the
expected answer (a function from helpers, so each formula has one source), and
the typical mistakes, each a wrong answer with the sentence that names it:

    check_ffn_params = Check(
        "Exercise 2 (count the parameters)",
        reference=ffn.param_count,
        cases=[(768, 3072, True), (512, 2048, False)],
        mistakes=[Mistake("you left out the biases.", answer=lambda d, f, bias: 2 * d * f)],
        compare=exact(),
    )
    check_ffn_params(my_ffn_params)   # -> Feedback, printed as one line

The learner's function gets copies of the cases; the reference and the
mistakes get copies of their own, so nothing the learner's code changes in
place can reach the expected answer or the next run. `Prediction` checks a
guess the learner wrote down before running a cell.
"""

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from helpers.checks.compare import arrays, same
from helpers.checks.core import attempt, correct, fresh, judge, not_attempted, outcome, wrong
from helpers.checks.show import call_str, describe, one_line, plain, say, show


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer and the sentence that names it.

    `answer(*case)` gives the answer this mistake produces, or `when(got, *case)`
    recognises it directly (for a wrong shape, say). The message may use {got}
    (the learner's answer, with a format spec such as {got:,}) and {call} (the
    call that produced it).
    """

    message: str
    answer: Callable | None = None
    when: Callable | None = None

    def matches(self, got, case, compare):
        try:
            with warnings.catch_warnings():   # probing an answer of another kind may warn: it is not this mistake
                warnings.simplefilter("ignore")
                if self.when is not None and self.when(got, *case):
                    return True
                return self.answer is not None and compare(got, self.answer(*case)) is None
        except Exception:  # noqa: BLE001 - an answer of another kind altogether is not this mistake
            return False


def compared(compare, got, expected):
    """compare(got, expected), or a phrase when the comparer cannot read got at all."""
    try:
        with warnings.catch_warnings():   # reading an odd answer may warn; the sentence says what it is
            warnings.simplefilter("ignore")
            return compare(got, expected)
    except Exception as err:  # noqa: BLE001 - an answer the comparer cannot read is described, not raised
        return say("returned {got}, which cannot be compared with the expected {expected} ({kind}: {said})",
                   got=describe(got), expected=describe(expected), kind=type(err).__name__,
                   said=one_line(err, 120) or "no message")


@dataclass(frozen=True)
class Check:
    """Try the learner's answer on every case; name the first mistake found.

    exercise: "Exercise 1 (the FFN forward pass)", shown in every line.
    reference: (*case) -> the expected answer.
    cases: argument tuples; a value answer (not a function) is compared as is.
    mistakes: Mistake rows, tried in order when an answer is wrong.
    compare: (got, expected) -> None or how they differ (helpers.checks.compare).
    success: the sentence shown when every case is right.
    name: how the learner's function is called in messages.
    """

    exercise: str
    reference: Callable
    cases: Sequence[tuple] = ((),)
    mistakes: Sequence[Mistake] = ()
    compare: Callable = field(default_factory=arrays)
    success: str = "correct, well done."
    name: str = "your answer"

    def __call__(self, answer):
        return judge(self.exercise, self._judge, answer)

    def _judge(self, answer):
        for i, case in enumerate(self.cases):
            call = call_str(self.name, case) if callable(answer) else self.name
            got = attempt(answer, *case)   # the learner works on copies of the case
            early = outcome(self.exercise, call, got, first=i == 0)
            if early is not None:
                return early
            problem = compared(self.compare, got, self.reference(*fresh(case)))
            if problem is None:
                continue
            theirs = fresh(case)
            for mistake in self.mistakes:
                if mistake.matches(got, theirs, self.compare):
                    return wrong(self.exercise, say(mistake.message, got=got, call=call))
            return wrong(self.exercise, say("{call} {problem}.", call=call, problem=problem))
        return correct(self.exercise, self.success)


def _answer(value):
    """A guess as a plain Python value: numpy and torch scalars as numbers, arrays as lists."""
    value = plain(value)
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and getattr(getattr(value, "device", None), "type", "") != "meta":
        try:
            return tolist()
        except Exception:  # noqa: BLE001 - an array that cannot become a list stays as it is
            return value
    return value


def _choice(guess, choices):
    """The choice the guess names (a tuple for a list, any case and spacing for a string), or None."""
    for choice in choices:
        if same(guess, choice):
            return choice
        if isinstance(guess, (list, tuple)) and isinstance(choice, (list, tuple)) and same(list(guess), list(choice)):
            return choice
        if isinstance(guess, str) and isinstance(choice, str) and guess.strip().casefold() == choice.casefold():
            return choice
    return None


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

    def __call__(self, guess, actual):
        return judge(self.exercise, self._judge, guess, actual)

    def _shown(self, value):
        text = say(self.fmt, value)
        return str(text) if text != self.fmt else show(value)

    def _judge(self, guess, actual):
        if guess is None or guess is Ellipsis:
            return not_attempted(
                self.exercise, message=say("set {variable} in the exercise's cell, then run this check again.",
                                           variable=self.variable))
        guess, actual = _answer(guess), _answer(actual)
        if self.choices is not None:
            choice = _choice(guess, self.choices)
            if choice is None:
                return wrong(self.exercise, say("{variable} = {guess} is not one of {choices}.", variable=self.variable,
                                                guess=show(guess), choices=str(list(self.choices))))
            guess, right = choice, same(choice, actual)
        else:
            if isinstance(guess, bool) or not isinstance(guess, (int, float)):
                return wrong(self.exercise, say("{variable} = {guess}; write a number.", variable=self.variable,
                                                guess=show(guess)))
            if math.isnan(guess):
                return wrong(self.exercise, say("{variable} is NaN; write a number.", variable=self.variable))
            if self.percent and 0 < abs(guess) < 1 < abs(actual):
                return wrong(self.exercise, say("you wrote {guess:g}: as a percent that is {percent:g}%. The "
                                                "question asks for a percent: set {variable} = {percent:g}, "
                                                "then run this check again.", guess=guess, percent=100 * guess,
                                                variable=self.variable))
            right = abs(guess - actual) <= self.rel * abs(actual)
        said = say("you predicted {guess}, {answer} {actual}. {why}", guess=self._shown(guess), answer=self.answer,
                   actual=self._shown(actual), why=self.why)
        return (correct if right else wrong)(self.exercise, said)
