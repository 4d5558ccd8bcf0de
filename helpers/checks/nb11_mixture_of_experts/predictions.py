"""Notebook 11's predictions: Mixtral's active parameters (exercise 1) and the experts one decode
step of 16 tokens reads (exercise 2), a guess given as a count read as such."""

import math

from helpers.checks.core import referee, wrong
from helpers.checks.guesses import NamedPrediction
from helpers.checks.nb11_mixture_of_experts.ex3_reference import N_EXPERTS
from helpers.checks.runner import Mistake
from helpers.checks.show import plain, say

_active_guess = NamedPrediction(
    "Exercise 1 (predict the active parameters)",
    why="A token runs through 2 of the 8 experts in every layer, but also through everything "
        "that is not an expert (attention, embeddings, norms, the router), which every token "
        "uses: more than 2/8 of 46.7B = 11.7B.",
    choices=(5.8, 11.7, 12.9, 23.4, 46.7),
    variable="my_active_guess",
    fmt="{}B",
    mistakes=[
        Mistake("11.7B is 2/8 of the whole model, as if every parameter sat in an expert; "
                "attention, the embeddings, the norms and the router are not copied 8 times, "
                "and every token uses all of them.",
                when=lambda guess, actual: guess == 11.7),
        Mistake("5.8B is 1/8 of the model: one expert's share. Mixtral sends each "
                "token to 2 experts per layer (num_experts_per_tok = 2), and "
                "through the shared parts besides.",
                when=lambda guess, actual: guess == 5.8),
        Mistake("23.4B is half of 46.7B: 2 of 8 experts is a quarter of the expert weights, not a "
                "half; what a token uses is that quarter plus the shared parts.",
                when=lambda guess, actual: guess == 23.4),
        Mistake("46.7B is every parameter the model holds. They all sit in memory "
                "(section 5), but a token runs only its 2 chosen experts in each layer: "
                "the other 6 do no work for it.",
                when=lambda guess, actual: guess == 46.7),
    ],
)

_experts_guess = NamedPrediction(
    "Exercise 2 (predict the experts a batch reads)",
    why="Each token leaves a given expert out with probability 6/8; all 16 leave "
        "it out with probability (6/8)^16 = 1%, so on average 8 x (1 - 0.75^16) = "
        "7.9 experts are read: almost all.",
    choices=tuple(range(1, N_EXPERTS + 1)),
    variable="my_experts_guess",
    fmt="{}",
    mistakes=[
        Mistake("2 is what one token reads (B = 1). In a batch each of the 16 tokens picks its own "
                "2 experts, and the step must read every expert any of them picked.",
                when=lambda guess, actual: guess == 2),
        Mistake("1 would mean all 16 tokens share a single expert; each token picks 2 different "
                "experts, so a step reads at least 2, and with 16 tokens nearly every one.",
                when=lambda guess, actual: guess == 1),
        Mistake("4 is 16 x 2 / 8, the tokens each expert gets on average (its load), "
                "not the number of experts read.",
                when=lambda guess, actual: guess == 4),
        Mistake("7 leaves one expert unread in every step; for that, all 16 tokens would have to "
                "pass it by, which happens with probability (6/8)^16, about 1%: 7.9 rounds to 8.",
                when=lambda guess, actual: guess == 7),
        Mistake("{got:g} assumes the tokens' picks overlap a lot; with 16 tokens each "
                "picking 2 of 8, an expert stays unread only when all 16 pass it by, "
                "probability (6/8)^16, about 1%.",
                when=lambda guess, actual: guess in (3, 5, 6)),
    ],
)



def _value(guess):
    """The guess as a float when it is one real number that is not one of the choices' kind, else
    None."""
    value = plain(guess)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


@referee(_active_guess.exercise)
def check_active_guess(guess, actual):
    """Exercise 1: Mixtral's active parameters in billions; a count of parameters is read as
    such."""
    fb, value = _active_guess(guess, actual), _value(guess)
    if fb.status != "wrong" or value is None or value < 1e8:
        return fb
    return wrong(_active_guess.exercise, say(
        "you wrote {value:.3g}, a number of parameters; the choices are in billions: {value:.3g} "
        "is {billions:.3g} billion, so write my_active_guess = {billions:.3g}.",
        value=value, billions=value / 1e9))


@referee(_experts_guess.exercise)
def check_experts_guess(guess, actual):
    """Exercise 2: the experts a step of 16 sequences reads; more than the layer holds is named."""
    fb, value = _experts_guess(guess, actual), _value(guess)
    if fb.status != "wrong" or value is None or value <= N_EXPERTS:
        return fb
    return wrong(_experts_guess.exercise, say(
        "you wrote {value:g}, but a layer holds 8 experts, so a step reads at most 8: "
        "{value:g} counts a read per token or per pick, while tokens that pick the "
        "same expert share one read of it.",
        value=value))


# what a guess may be, as on the Prediction itself
check_active_guess.choices = _active_guess.choices
check_experts_guess.choices = _experts_guess.choices
