"""Every wrong answer a learner typically gives a prediction is rejected and named in words.

For each prediction of notebooks 01-17, the wrong attempts of prediction_attempts.py (the other choices,
near misses, a percent for a fraction, the wrong unit, synonyms of a wrong choice) are run through its
check: none may be judged right, and none may get only the reply every wrong guess gets ("you predicted
X, the run gives Y" and the why): a sentence must say what that guess assumed or how it is written.
"""

import importlib

import pytest
from prediction_attempts import PREDICTIONS
from test_checks_nb08_the_block import LENGTHS

ACTUAL = {"08 ex1": LENGTHS}   # notebook 08 hands its check the run's lengths, so that a wrong model is named
WRONG = [(pid, check, guess, ACTUAL.get(pid, actual), extra) for pid, check, actual, extra, _, wrongs in PREDICTIONS
         for guess in wrongs]


def _whys(check):
    """The explanations of the answer in check's module: the part of a reply every guess gets."""
    module = importlib.import_module(check.__module__)
    return [v.why for v in vars(module).values() if isinstance(getattr(v, "why", None), str)]


def only_the_answer(message, whys):
    """True when message says no more than "you predicted X, ANSWER Y." and the why."""
    return any(message.endswith(why) and message.startswith("you predicted") and len(message) - len(why) < 90
               and message[:len(message) - len(why)].count(". ") == 1 for why in whys)


@pytest.mark.parametrize(("pid", "check", "guess", "actual", "extra"), WRONG,
                         ids=[f"{pid}-{guess!r}" for pid, _, guess, *_ in WRONG])
def test_a_wrong_prediction_is_named(pid, check, guess, actual, extra):
    fb = check(guess, actual, *extra)
    assert fb.status == "wrong", (pid, guess, str(fb))
    assert not only_the_answer(str(fb.message), _whys(check)), f"{pid}: {guess!r} is told only {fb.message}"


def test_every_prediction_has_wrong_attempts():
    assert len({pid for pid, *_ in WRONG}) >= 25 and len(WRONG) >= 200
    assert all(sum(p == pid for p, *_ in WRONG) >= 5 for pid in {p for p, *_ in WRONG})


def test_the_reply_every_guess_gets_is_told_apart():
    why = "Because the weights are shared."
    assert only_the_answer(f"you predicted 3, the run gives 1. {why}", [why])
    assert not only_the_answer(f"you predicted 3, the run gives 1. 3 rows counts the batch. {why}", [why])
    assert not only_the_answer(f"my_guess = 7 is not one of [1, 2]. {why}", [why])
