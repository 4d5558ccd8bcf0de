"""Exercise 1: a prediction, the share of gate values above 1 (the gate enlarges its up value)
for 256 tokens; the usual wrong shares are named."""

from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Mistake

# What a share near 10% means: z of standard deviation 1, of which 10% lie beyond SILU_ONE.
check_gates_above_one = NamedPrediction(
    "Exercise 1 (predict the gates above 1)",
    why="A gate is above 1 exactly where z > 1.278 (section 3: SiLU(1.278) = 1). z = x @ W_gate "
        "sums 64 inputs of rms 1 times weights that nn.Linear draws uniformly in ±1/√64 (a "
        "variance of 1/(3 · 64)), so std(z) = √(64 / 192) ≈ 0.58 and 1.278 lies 2.2 standard "
        "deviations out, where a normal distribution keeps about 1.4%. Few, but each of them "
        "enlarges its up value, which a switch never does.",
    rel=0.6,
    variable="my_above_share",
    fmt="{:.3f}",
    mistakes=[
        Mistake("A share is a number between 0 and 1: a guess of {got:g} reads as a percent "
                "(2% is 0.02).",
                when=lambda guess, actual: 1 < guess <= 100),
        Mistake("None above 1 would be a switch's answer (a sigmoid gate stays inside (0, 1)); "
                "SiLU(z) = z · sigmoid(z) passes 1 for every z > 1.278, as section 3 found.",
                when=lambda guess, actual: guess <= 0.001),
        Mistake("About half of the z are positive, but a positive gate stays between 0 and 1 "
                "unless z > 1.278: half is the share of positive (or of negative) gates, not of "
                "gates above 1.",
                when=lambda guess, actual: 0.3 <= guess <= 0.7),
        Mistake("More than half cannot be: a gate above 1 needs z > 1.278, and only about half of "
                "the z are even positive.", when=lambda guess, actual: 0.7 < guess <= 1),
        Mistake("That many would fit pre-activations z of standard deviation about 1 (then 10% lie "
                "above 1.278). Here z is narrower: 64 inputs of rms 1 times weights of variance "
                "1/(3 · 64) give std(z) ≈ 0.58.", when=lambda guess, actual: 0.05 <= guess < 0.3),
        Mistake("The right idea, the wrong tail: 1.278 / 0.58 ≈ 2.2 standard deviations, and a "
                "normal distribution keeps about 1.4% of its values beyond that.",
                when=lambda guess, actual: 0.001 < guess < 0.05),
    ],
)
