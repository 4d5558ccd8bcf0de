"""Notebook 15's predictions: the share of a ReLU MLP's hidden units that are 0 (exercise 1) and
the most a decode step saves without a predictor (exercise 3)."""

from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Mistake

check_relu_guess = NamedPrediction(
    "Exercise 1 (predict a ReLU MLP's off share)",
    why="ReLU outputs exactly 0 for every negative input, and a trained MLP's pre-activations are "
        "negative for about half of its units or more on any one token; which half changes from "
        "token to token. That is the sparsity a server could skip.",
    rel=0.2,
    variable="my_guess",
    fmt="{:.0f}%",
    percent=True,
    mistakes=[
        Mistake("{got:g}% is what GELU gives (it is exactly 0 almost nowhere); ReLU is "
                "exactly 0 for every negative pre-activation, and a trained MLP has "
                "many of those for each word.",
                when=lambda guess, actual: guess < 15),
        Mistake("{got:g}% would leave almost no unit on for a word; the "
                "pre-activations are not nearly all negative, and each word needs some "
                "units on to be told apart from the others.",
                when=lambda guess, actual: guess > 85),
        Mistake("{got:g}% is about GELU's share of units under a tenth of the token's "
                "largest (the table's threshold 0.1): small, not zero. ReLU's exact zeros "
                "are the negative pre-activations only.",
                when=lambda guess, actual: 68 <= guess <= 76),
    ],
)


check_saving_guess = NamedPrediction(
    "Exercise 3 (predict the most a step saves without a predictor)",
    why="Without a predictor c_fc is read whole to learn which units are on; only c_proj's "
        "columns can be skipped, and c_fc's biases and c_proj's bias are read anyway. With "
        "every unit off that is d_ff x d_model of the dense d_ff x (2 d_model + 1) + "
        "d_model numbers: a little under half.",
    rel=0.1,
    variable="my_saving_guess",
    fmt="{:.1f}%",
    percent=True,
    mistakes=[
        Mistake("{got:g}% counts c_fc as skipped too; but the step learns that every unit is off "
                "only by computing c_fc x, so c_fc is read whole. Skipping it as well needs the "
                "set before the step: a predictor.",
                when=lambda guess, actual: guess > 75),
        Mistake("{got:g}% saves (almost) nothing; but once c_fc x shows every unit off, none of "
                "c_proj's columns needs to be read.",
                when=lambda guess, actual: guess < 10),
        Mistake("{got:g}% is about a third: the share of one matrix in a gated MLP (gate, up, "
                "down). GPT-2's MLP has two matrices of the same size, c_fc and c_proj.",
                when=lambda guess, actual: 30 <= guess <= 36),
    ],
)
