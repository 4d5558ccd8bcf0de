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

`Prediction` checks a guess the learner wrote down before running a cell.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from helpers.checks.compare import arrays
from helpers.checks.core import (
    MISSING,
    attempt,
    call_str,
    correct,
    not_attempted,
    wrong,
)


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer and the sentence that names it.

    `answer(*case)` gives the answer this mistake produces, or `when(got, *case)`
    recognises it directly (for a wrong shape, say). The message may use {got}
    (the learner's answer) and {call} (the call that produced it).
    """

    message: str
    answer: Callable | None = None
    when: Callable | None = None

    def matches(self, got, case, compare):
        try:
            if self.when is not None and self.when(got, *case):
                return True
            return self.answer is not None and compare(got, self.answer(*case)) is None
        except Exception:  # an answer of another kind altogether is not this mistake
            return False


def _say(message, got, call):
    return message.format(got=got, call=call) if "{" in message else message


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
        for i, case in enumerate(self.cases):
            call = call_str(self.name, case) if callable(answer) else self.name
            got = attempt(answer, *case)
            if got is MISSING:
                if i == 0:
                    return not_attempted(self.exercise)
                return wrong(self.exercise, f"{call} returned nothing (None).")
            if isinstance(got, Exception):
                return wrong(self.exercise, f"{call} raised {type(got).__name__}: {got}")
            problem = self.compare(got, self.reference(*case))
            if problem is None:
                continue
            for mistake in self.mistakes:
                if mistake.matches(got, case, self.compare):
                    return wrong(self.exercise, _say(mistake.message, got, call))
            return wrong(self.exercise, f"{call} {problem}.")
        return correct(self.exercise, self.success)


@dataclass(frozen=True)
class Prediction:
    """A guess written down before the cell that reveals the answer, then compared.

    With `choices`, the guess must be one of them and equal the answer; otherwise
    it is a number, right when within `rel` of the answer. `why` explains the
    answer and is shown either way, after the guess.
    """

    exercise: str
    why: str
    rel: float = 0.25
    choices: Sequence | None = None
    variable: str = "your prediction"
    fmt: str = "{!r}"
    answer: str = "the run gives"   # where the answer comes from

    def __call__(self, guess, actual):
        if guess is None or guess is Ellipsis:
            return not_attempted(
                self.exercise, message=f"set {self.variable} in the exercise's cell, then run this check again.")
        if self.choices is not None:
            if guess not in self.choices:
                return wrong(self.exercise, f"{self.variable} = {guess!r} is not one of {list(self.choices)}.")
            right = guess == actual
        else:
            if isinstance(guess, bool) or not isinstance(guess, (int, float)):
                return wrong(self.exercise, f"{self.variable} = {guess!r}; write a number.")
            right = abs(guess - actual) <= self.rel * abs(actual)
        said = f"you predicted {self.fmt.format(guess)}, {self.answer} {self.fmt.format(actual)}"
        if right:
            return correct(self.exercise, f"{said}. {self.why}")
        return wrong(self.exercise, f"{said}. {self.why}")
