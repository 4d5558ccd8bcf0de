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

import numpy as np
import torch

from helpers.checks.compare import arrays, same
from helpers.checks.core import (
    attempt,
    bad_call,
    correct,
    fresh,
    judge,
    not_attempted,
    outcome,
    wrong,
)
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

    def __call__(self, *args, **kwargs):
        example = self.name if self.name.isidentifier() else "my_answer"
        wrongly = bad_call(self.exercise, self, [(example, say("your function itself, named without (), or "
                                                      "your answer"))], example, args, kwargs)
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


def _one_number(value):
    """A 1-element array or tensor as the number it holds; a float32 (or narrower) one written as it reads
    (a float32 10.6 is 10.6, not 10.600000381469727). Anything else as it is."""
    dtype = str(getattr(value, "dtype", ""))
    number = plain(value)
    if number is not value and isinstance(number, float) and any(k in dtype for k in ("float32", "float16")):
        return float(str(np.float32(number)))
    return number


def _answer(value):
    """A guess as a plain Python value: numpy and torch scalars as numbers, arrays as lists."""
    value = _one_number(value)
    if isinstance(value, (set, frozenset)) and all(_is_real(v) for v in value):
        return sorted(value)   # a set of positions is the list of them, in order
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and getattr(getattr(value, "device", None), "type", "") != "meta":
        try:
            return tolist()
        except Exception:  # noqa: BLE001 - an array that cannot become a list stays as it is
            return value
    return value


# The words a person writes for a choice, besides the choice itself (each compared as `_words` reads it).
SYNONYMS = {
    "falls": ("decreases", "drops", "goes down", "shrinks", "falling", "decreasing", "down", "gets smaller",
              "smaller", "lower", "gets lower", "less", "reduces", "declines", "becomes smaller"),
    "grows": ("rises", "increases", "goes up", "growing", "rising", "increasing", "up", "gets bigger", "bigger",
              "higher", "gets higher", "more", "larger", "gets larger", "becomes larger"),
    "stays about the same": ("stays the same", "about the same", "the same", "stays", "constant", "unchanged",
                             "flat", "same", "stays constant", "remains the same", "roughly the same",
                             "does not change", "doesn't change", "no change"),
    "yes": ("y", "true"),
    "no": ("n", "false"),
    "linear in v only": ("v only", "only v", "linear only in v", "only in v", "linear in v", "linear in v, not in x",
                         "linear in v, not x", "linear in v but not in x", "linear in v but not x"),
    "linear in x only": ("x only", "only x", "linear only in x", "only in x", "linear in x", "linear in x, not in v",
                         "linear in x, not v", "linear in x but not in v", "linear in x but not v"),
    "linear in neither": ("neither", "nonlinear", "non-linear", "not linear", "linear in none", "in neither"),
    "linear in v and in x": ("both", "linear in both", "in both", "linear in v and x", "linear in x and v",
                             "linear in x and in v", "v and x", "x and v"),
}
_EDGES = " \t\n.,;:!?'\"`()[]{}“”‘’。"
# Words a person puts before the answer itself ("option B", "it falls"), dropped when reading it.
_LEAD = ("my answer is ", "the answer is ", "answer ", "option ", "choice ", "it's ", "it ")


def _words(text):
    """A word answer as a person means it: case-folded, surrounding punctuation and spaces dropped, inner
    spacing made single, a leading "option" or "it" dropped ("  Linear in V only. " reads "linear in v only",
    "Option B." reads "b")."""
    said = " ".join(text.casefold().strip(_EDGES).split())
    for lead in _LEAD:
        if said.startswith(lead) and len(said) > len(lead):
            said = said[len(lead):].strip(_EDGES)
    return said


def _word_of(value):
    """One item of a guess as words: a bool as "true" or "false" (a yes or a no), text as it is, else None."""
    if isinstance(value, bool):
        return str(value).casefold()
    return value if isinstance(value, str) else None


def _choice(guess, choices):
    """The choice the guess names (a tuple for a list; for a string any case, spacing and surrounding
    punctuation, or an obvious synonym), or None."""
    for choice in choices:
        if same(guess, choice):
            return choice
        if isinstance(guess, (list, tuple)) and isinstance(choice, (list, tuple)) and same(list(guess), list(choice)):
            return choice
    if isinstance(guess, str):
        said = _words(guess)
        for choice in choices:
            if isinstance(choice, str) and said in (_words(choice), *(_words(w) for w in SYNONYMS.get(_words(choice), ()))):
                return choice
    if isinstance(guess, (list, tuple)) and guess and all(_word_of(g) is not None for g in guess):
        for choice in choices:   # a pair of words, ("No.", "y"): each item read as a word answer
            if (isinstance(choice, (list, tuple)) and len(choice) == len(guess) and all(isinstance(c, str) for c in choice)
                    and all(_choice(_word_of(g), (c,)) == c for g, c in zip(guess, choice, strict=True))):
                return choice
    return None


def _read_number(guess):
    """The number a guess written another way holds: [3] or (3,) is 3, "12.9" is 12.9; else None."""
    if isinstance(guess, (list, tuple)) and len(guess) == 1 and _is_real(plain(guess[0])):
        return plain(guess[0])
    return _parsed(guess)


def _is_real(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _parsed(text):
    """The number a string spells ("1", " 12.9 ", "49,152", "1e3"), as an int or a float; None if it spells none."""
    if not isinstance(text, str):
        return None
    cleaned = text.strip().replace(",", "").replace("_", "")
    for kind in (int, float):
        try:
            value = kind(cleaned)
        except ValueError:
            continue
        return value if math.isfinite(value) else None
    return None


def _written(value):
    """How a value is written in Python: 12.9, "falls", [1, 2, 3]."""
    return repr(value) if isinstance(value, (str, list, tuple)) else show(value)


def _kind_of(guess):
    """The guess with its type, for a sentence: "the text '1' (a str)", "a list of 3", "True (a bool)"."""
    if isinstance(guess, str):
        return say("the text {text} (a str, in quotes)", text=repr(guess))
    if isinstance(guess, bool):
        return say("{value} (a bool, True or False)", value=str(guess))
    if isinstance(guess, complex):
        return say("the complex number {value}", value=str(guess))
    if _is_real(guess):
        return say("the number {value}", value=show(guess))
    return describe(guess)


def _mistyped(guess, variable, choices=None):
    """A sentence when the guess is not of the kind the question asks for (a number written as text, a list
    for one number, a tensor of many numbers, a number for a choice in words), saying what to write; else None."""
    kinds = {type(c) for c in choices} if choices is not None else None
    numbers = kinds is None or all(issubclass(k, (int, float)) and not issubclass(k, bool) for k in kinds)
    words = kinds is not None and all(issubclass(k, str) for k in kinds)
    lists = kinds is not None and all(issubclass(k, (list, tuple)) for k in kinds)
    values = {"variable": variable, "guess": _kind_of(guess)}
    if numbers:
        if _is_real(guess):
            return None
        number = _parsed(guess)
        if number is not None:
            return say("{variable} is {guess}, not a number: write {variable} = {number}, a number, without the "
                       "quotes.", number=show(number), **values)
        if isinstance(guess, (list, tuple)) and len(guess) == 1 and _is_real(plain(guess[0])):
            return say("{variable} is {guess}, not one number: write {variable} = {number}, without the "
                       "brackets.", number=show(plain(guess[0])), **values)
        if isinstance(guess, (np.ndarray, torch.Tensor)) and getattr(guess, "ndim", 0) > 0:
            return say("{variable} is {guess}, not one number: the question asks for a single value; write "
                       "{variable} = and that number.", **values)
        if isinstance(guess, bool):
            return say("{variable} is {guess}, not a number: write {variable} = and the number you expect.",
                       **values)
        if isinstance(guess, float) or isinstance(guess, complex):
            return None   # NaN, infinity and complex numbers have their own sentences
        return say("{variable} is {guess}, not a number: write {variable} = and the number you expect (digits, "
                   "no quotes).", **values)
    if words:
        if isinstance(guess, str):
            return None
        options = ", ".join(repr(c) for c in choices)
        if _is_real(guess) or isinstance(guess, bool):
            return say("{variable} is {guess}, but the choices are words: write {variable} = and one of {options}, "
                       "in quotes.", options=options, **values)
        return say("{variable} is {guess}; write {variable} = and one of {options}, in quotes.", options=options,
                   **values)
    if lists:
        if isinstance(guess, (list, tuple, set, frozenset, np.ndarray, torch.Tensor)):
            return None
        number = _parsed(guess)
        if number is not None or _is_real(guess):
            number = guess if number is None else number
            return say("{variable} is {guess}, not a list: write {variable} = [{number}], in brackets, or the "
                       "list you expect.", number=show(number), **values)
        return say("{variable} is {guess}, not a list: write {variable} = and a list such as {example}.",
                   example=repr(list(choices[0])), **values)
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

    def __call__(self, *args, **kwargs):
        variable = self.variable if self.variable.isidentifier() else "my_guess"
        wrongly = bad_call(self.exercise, self, [(variable, say("the variable holding your guess")),
                                                 ("actual", say("the value the cell above computed"))],
                           variable + ", actual", args, kwargs)
        return wrongly if wrongly is not None else judge(self.exercise, self._judge, *args)

    def _shown(self, value):
        text = say(self.fmt, value)
        return str(text) if text != self.fmt else show(value)

    def _read_wrong(self, mistyped, number, actual):
        """How the guess is written, then why the number it holds is not the answer either."""
        return say("{mistyped} Read as {number}, it is not right either: you predicted {number}, {answer} {actual}. "
                   "{why}", mistyped=mistyped, number=self._shown(number), answer=self.answer,
                   actual=self._shown(actual), why=self.why)

    def _judge(self, guess, actual):
        if guess is None or guess is Ellipsis:
            return not_attempted(
                self.exercise, message=say("set {variable} in the exercise's cell, then run this check again.",
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
                return wrong(self.exercise, say("{variable} = {guess} is not one of {choices}.", variable=self.variable,
                                                guess=show(guess), choices=str(list(self.choices))))
            guess, right = choice, same(choice, actual)
        else:
            number = _read_number(guess) if mistyped is not None else None
            if number is not None and abs(number - actual) > self.rel * abs(actual):
                return wrong(self.exercise, self._read_wrong(mistyped, number, actual))
            if mistyped is not None:
                return wrong(self.exercise, mistyped)
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
            if not right and 0 < abs(actual) <= 1 < abs(guess) <= 100 and abs(guess / 100 - actual) <= self.rel * abs(actual):
                return wrong(self.exercise, say("you wrote {guess:g}, a percent; the question asks for a fraction, "
                                                "{fraction:g} as you meant it: set {variable} = {fraction:g}, then run "
                                                "this check again.", guess=guess, fraction=guess / 100,
                                                variable=self.variable))
        said = say("you predicted {guess}, {answer} {actual}. {why}", guess=self._shown(guess), answer=self.answer,
                   actual=self._shown(actual), why=self.why)
        return (correct if right else wrong)(self.exercise, said)
