"""Notebook 12, exercise 2: the prediction of what zeroing france's top 30 neurons does, each wrong
choice answered with what it assumed."""

from collections.abc import Sequence
from dataclasses import dataclass

from helpers.checks.core import WRONG, wrong
from helpers.checks.runner import Mistake, Prediction, _answer, _choice
from helpers.checks.show import say

# Prediction's "you predicted {guess}, {answer} {actual}. {why}", with the mistake's sentence
# before the why.
_NAMED = "you predicted {guess}, {answer} {actual}. {mistake} {why}"


@dataclass(frozen=True)
class NamedChoice(Prediction):
    """A Prediction among `choices` whose `mistakes` name a wrong choice.

    The mistakes are Mistake rows, when(choice, actual).
    """

    mistakes: Sequence[Mistake] = ()

    def _judge(self, guess, actual):
        feedback = super()._judge(guess, actual)
        said = getattr(feedback.message, "values", {})
        if (feedback.status != WRONG or "guess" not in said
                or not feedback.message.endswith(self.why)):
            return feedback  # right, not attempted, or not one of the choices
        choice, actual = _choice(_answer(guess), self.choices), _answer(actual)
        for mistake in self.mistakes:
            if mistake.when(choice, actual):
                return wrong(self.exercise,
                             say(_NAMED, **{**said, "mistake": say(mistake.message)}))
        return feedback


check_ablation_guess = NamedChoice(
    "Exercise 2 (predict the ablation)",
    why="The top 30 neurons are the ones whose keys fire for france and whose values push paris "
        "up, so removing them takes most of paris away; the other facts lean on other neurons, and "
        "30 random neurons rarely matter to paris. That is the key-value reading at work.",
    choices=("A", "B", "C"),
    variable="my_ablation_guess",
    mistakes=[
        Mistake("A assumes the 30 neurons that carry paris carry the other facts too. Each neuron "
                "serves a handful of facts (section 6), so the 30 chosen for paris are a small "
                "part of any other fact's support.",
                when=lambda guess, actual: guess == "A" and actual == "B"),
        Mistake("C assumes a fact is spread thinly over all 256 neurons. Section 5 found it "
                "concentrated: a few neurons hold most of what MLP 1 adds to paris's logit, and "
                "the top 30 include them.",
                when=lambda guess, actual: guess == "C" and actual == "B"),
    ],
)
