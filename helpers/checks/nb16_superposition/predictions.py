"""Notebook 16's predictions, letters among choices: how many features the toy model stores as they
get sparser (exercise 1), and which L1 weight lets an SAE recover its directions (exercise 4)."""

import string
from dataclasses import dataclass

from helpers.checks.core import wrong
from helpers.checks.runner import Prediction
from helpers.checks.show import say


def _letter(guess):
    """ "b.", " B ", "(b)" -> "b": a letter written as a person writes it; anything else as it
    came."""
    return guess.strip(string.punctuation + string.whitespace) if isinstance(guess, str) else guess


@dataclass(frozen=True)
class _Choice(Prediction):
    """A Prediction among letters that reads a guess with its surrounding punctuation and spaces
    dropped; `named` holds, for (a wrong choice, the answer), the sentence saying what that choice
    assumed."""

    named: tuple = ()

    def _judge(self, guess, actual):
        feedback = super()._judge(_letter(guess), actual)
        said = getattr(feedback.message, "values", {})
        if feedback.status == "correct" or "guess" not in said \
                or not feedback.message.endswith(self.why):
            return feedback                        # right, not attempted, or not one of the choices
        key = (said["guess"].strip("'").upper(), str(actual).strip().upper())
        sentence = dict(self.named).get(key)
        if sentence is None:
            return feedback
        return wrong(self.exercise, say("you predicted {guess}, {answer} {actual}. {mistake} {why}",
                                        **{**said, "mistake": say(sentence)}))


# What each wrong choice assumed: {(the choice, the answer): the sentence}.
_STORED_NAMED = {
    ("A", "B"): "A holds for dense features only: when every feature is often present, overlapping "
                "directions cost loss on almost every input, so 5 dimensions keep 5 features. "
                "Sparse features are rarely present together, and then an overlap costs little.",
    ("C", "B"): "C takes a rare feature for one not worth keeping; but rarity also means two "
                "features seldom appear together, so they can share directions: the sparser they "
                "are, the more of them the model keeps.",
}

check_stored_guess = _Choice(
    "Exercise 1 (predict superposition)",
    why="When features are dense, two of them are often present together, and any overlap between "
        "their directions costs loss on almost every input: the model keeps the m most important "
        "at right angles and drops the rest. When they are sparse, two rarely appear together, so "
        "directions that overlap a little cost little, and the model packs more features than it "
        "has dimensions, more the sparser they are.",
    choices=("A", "B", "C"),
    variable="my_stored_guess",
    named=tuple(_STORED_NAMED.items()),
)

_L1_NAMED = {
    ("A", "C"): "A takes the best reconstruction for the best features: a weak penalty "
                "lets several latents share each input, and their columns point "
                "between the true directions.",
    ("B", "C"): "B balances the two terms, but what finds the features is L0, not a balance: a "
                "latent stands for one feature only once the penalty brings L0 down to about the "
                "number of features present per input.",
}


check_l1_guess = _Choice(
    "Exercise 4 (an SAE where the answer is known)",
    why="A weak L1 penalty lets the SAE rebuild each input from several latents that point "
        "between the true directions: a good reconstruction, a high L0 and few directions "
        "found. As the penalty brings L0 down to the number of features really present per "
        "input, each latent has to stand for one stored feature on its own, and its decoder "
        "column turns to that feature's direction.",
    choices=("A", "B", "C"),
    variable="my_l1_guess",
    named=tuple(_L1_NAMED.items()),
)
