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
place can reach the expected answer or the next run. `Prediction` (prediction.py)
checks a guess the learner wrote down before running a cell; reading.py reads
that guess as the learner means it.
"""

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from helpers.checks.compare import arrays
from helpers.checks.core import (
    attempt,
    bad_call,
    correct,
    fresh,
    judge,
    outcome,
    wrong,
)

# Prediction and the reading of a guess moved to prediction.py and reading.py; imported back
# (F401) so that `from helpers.checks.runner import Prediction, _choice, ...` keeps working.
from helpers.checks.prediction import Prediction  # noqa: F401
from helpers.checks.reading import SYNONYMS, _answer, _choice, _words  # noqa: F401
from helpers.checks.show import call_str, describe, one_line, say


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
            # probing an answer of another kind may warn: it is not this mistake
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if self.when is not None and self.when(got, *case):
                    return True
                return self.answer is not None and compare(got, self.answer(*case)) is None
        except Exception:  # noqa: BLE001 - an answer of another kind altogether is not this mistake
            return False


def compared(compare, got, expected):
    """compare(got, expected), or a phrase when the comparer cannot read got at all."""
    try:
        # reading an odd answer may warn; the sentence says what it is
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compare(got, expected)
    # an answer the comparer cannot read is described, not raised
    except Exception as err:  # noqa: BLE001
        return say("returned {got}, which cannot be compared with the expected {expected} "
                   "({kind}: {said})",
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

    def __call__(self, *args, **kwargs):
        example = self.name if self.name.isidentifier() else "my_answer"
        meant = say("your function itself, named without (), or your answer")
        wrongly = bad_call(self.exercise, self, [(example, meant)], example, args, kwargs)
        return wrongly if wrongly is not None else judge(self.exercise, self._judge, *args)

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
