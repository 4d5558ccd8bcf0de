"""Notebook 13's predictions: what neurons' values say (exercise 2, measured on the model running
now), and how exactly the undo restores the model (exercise 4)."""


import torch

from helpers.checks.core import correct, referee, wrong
from helpers.checks.nb12_kv_memory_editing import NamedChoice
from helpers.checks.runner import Mistake
from helpers.checks.show import Text, one_line, say

_VALUE_WHY = ("On trained weights a value tends to promote what follows its key's patterns (Geva "
              "et al. 2021 found this most in the upper layers); random weights store nothing, so "
              "their values agree only by chance.")
_PAIRS = tuple((random, trained) for random in ("yes", "no") for trained in ("yes", "no"))
_VALUE_MISTAKES = [
    Mistake("Both halves are the wrong way round: random weights store nothing, so they agree only "
            "by chance, and trained values learn to promote what follows their keys.",
            when=lambda guess, actual: guess[0] != actual[0] and guess[1] != actual[1]),
    Mistake("Random weights store nothing: a random value vector points at random "
            "tokens, so it promotes the token after its key's trigger only by chance, 10 "
            "in the vocabulary size per neuron.",
            when=lambda guess, actual: guess[0] == "yes" and actual[0] == "no"),
    Mistake("Trained values do promote what follows their keys: training lowers the loss "
            "on the next token, and a value that raises the tokens that usually come after "
            "its key's pattern does just that.",
            when=lambda guess, actual: guess[1] == "no" and actual[1] == "yes"),
]
EX2 = "Exercise 2 (predict what values say)"


def _whole(value):
    """value as an int when it is a whole number (a numpy or torch scalar too), else None."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if hasattr(value, "item") and not isinstance(value, (list, tuple, str)):
        value = value.item()
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def _neuron(value):
    """(block, unit) from a pair, or from text as the table writes it ("neuron 10.5", "10.5", "(10,
    5)")."""
    if isinstance(value, str):
        text = value.strip().casefold().removeprefix("neuron").strip(" ()[]")
        parts = [p for p in text.replace(",", " ").replace(".", " ").split() if p]
        value = [int(p) for p in parts if p.lstrip("-").isdigit()] if len(parts) == 2 else None
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    block, unit = (_whole(v) for v in value)
    return None if block is None or unit is None else (block, unit)


def neuron_picked(my_neuron, n_layer, d_ff, default):
    """Exercise 2's neuron: my_neuron read as (block, unit); None gives the default silently,
    anything else that is not a neuron of this model prints why and gives the default."""
    if my_neuron is None:
        return default
    picked = _neuron(my_neuron)
    if picked is None:
        problem = say("my_neuron = {got} is not a neuron: write it as (block, unit), two whole "
                      "numbers, as the table names it (neuron 10.5 is (10, 5)).",
                      got=one_line(repr(my_neuron), 80))
    elif not 0 <= picked[0] < n_layer:
        problem = say("my_neuron's block is {block}, but this model's blocks are 0 to {last}.",
                      block=picked[0], last=n_layer - 1)
    elif not 0 <= picked[1] < d_ff:
        problem = say("my_neuron's unit is {unit}, but a block's units are 0 to {last}.",
                      unit=picked[1], last=d_ff - 1)
    else:
        return picked
    print(wrong(EX2, say("{problem} The cells below use neuron {block}.{unit} instead.",
                         problem=problem, block=default[0], unit=default[1])))
    return default


_VALUE = NamedChoice(EX2, why=_VALUE_WHY, choices=_PAIRS,
                     variable="my_value_guess", mistakes=_VALUE_MISTAKES)
_MEASURED = "on the model running now the answer is"


@referee(_VALUE.exercise)
def check_value_guess(guess, measured, real=False):
    """Exercise 2: guess = (random weights, trained weights), each "yes" or "no"; the run measures
    one half.

    measured: the answer on the model running now (GPT-2 small if real, else random weights), or the
    whole pair. The half the run cannot measure is known without it: random weights agree by chance
    ("no"), and trained ones promote what follows their keys (Geva et al.'s finding, "yes")."""
    if isinstance(measured, (list, tuple)) and len(measured) == 2:
        answer, measured = tuple(measured), measured[1 if real else 0]
    else:
        answer = ("no", measured) if real else (measured, "yes")
    if isinstance(guess, (list, tuple)) and len(guess) == 2 \
            and all(isinstance(g, str) for g in guess):
        guess = tuple(g.strip().casefold() for g in guess)
    elif isinstance(guess, str) and guess.strip().casefold() in ("yes", "no"):
        return wrong(_VALUE.exercise, say(
            "my_value_guess = {guess} is one answer; the question asks for two, one for each kind "
            "of weights: (random weights, trained weights), each \"yes\" or \"no\".",
            guess=repr(guess)))
    feedback = _VALUE(guess, answer)
    said = getattr(feedback.message, "values", {})
    if "guess" not in said or not isinstance(feedback.message, Text):   # not attempted, or no pair
        return feedback
    message = say(feedback.message.template,
                  **{**said, "answer": say(_MEASURED), "actual": repr(measured)})
    return (correct if feedback else wrong)(_VALUE.exercise, message)


check_value_guess.choices = _PAIRS   # the pairs a guess is one of, as a Prediction's


check_undo_guess = NamedChoice(
    "Exercise 4 (predict the undo)",
    why="The cell copies the saved tensor back, bit for bit, so the model is exactly the "
        "one before the edit. Subtracting the update instead, (W + D) - D, rounds in "
        "float32 and can leave entries a last bit off.",
    choices=("A", "B", "C"),
    variable="my_undo_guess",
    answer="the run gives",
    mistakes=[
        Mistake("B is what undoing by arithmetic gives, W - delta, which rounds; copy_ computes "
                "nothing: it writes the saved bits back.",
                when=lambda guess, actual: guess == "B" and actual == "A"),
        Mistake("C assumes the edit leaves a trace in W; copy_ overwrites every entry with the "
                "saved tensor, so nothing of the update is left.",
                when=lambda guess, actual: guess == "C" and actual == "A"),
    ],
)
