"""Notebook 10, exercise 1: the prediction of the bytes one worker hands to the all-reduce, with the
typical wrong counts (a split output, bits, the hidden layer, a ring's traffic) named."""

import math

from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Mistake

# The question's sizes: T = 8 tokens, d_model = 768, d_ff = 3072, float64, N = 2 workers.
T_TOKENS, WIDTH, HIDDEN, N_WORKERS = 8, 768, 3072, 2


def _is(times):
    """A Mistake test: the guess is `times` the right bytes (exactly: the sizes are whole)."""
    return lambda guess, actual: math.isclose(guess, times * actual, rel_tol=1e-9)


def _ring_traffic(guess, actual):
    """A Mistake test: the guess is what a ring all-reduce of it sends, for N = 3, 4 or 8."""
    return any(math.isclose(guess, 2 * (n - 1) / n * actual, rel_tol=1e-9) for n in (3, 4, 8))


_BUFFER_MISTAKES = [
    Mistake("Half of it: either you split the partial output over the 2 workers (each worker's "
            "partial output has the full shape (T, d_model); what is split is the hidden units "
            "that made it), or you counted 4 bytes a number (float64 takes 8).",
            when=_is(1 / N_WORKERS)),
    Mistake("A quarter of it: you divided by 4 workers (this run has 2, and at any N the partial "
            "output keeps its full shape (T, d_model)), or split it over the workers and counted "
            "float32's 4 bytes.",
            when=_is(1 / 4)),
    Mistake("An eighth of it: that counts numbers, not bytes (float64 takes 8 bytes a number), or "
            "the bytes of one token's row alone (there are T = 8 tokens).", when=_is(1 / 8)),
    Mistake("Twice it: that is the hidden activations of one worker, (T, d_ff / N), which never "
            "leave it, or both workers' partial outputs together; each worker hands in its own (T, "
            "d_model).",
            when=_is(HIDDEN / N_WORKERS / WIDTH)),
    Mistake("Four times it: that is the whole hidden layer, (T, d_ff); a worker hands the "
            "all-reduce its partial output after the down-projection, (T, d_model).",
            when=_is(HIDDEN / WIDTH)),
    Mistake("Eight times it: that counts bits, not bytes.", when=_is(8)),
    Mistake("That is the size of weights a worker holds; the all-reduce carries activations, the "
            "(T, d_model) partial output, not weights.",
            when=lambda guess, actual: guess >= WIDTH * HIDDEN / 4),
    Mistake("A ring all-reduce of it would send 2 (N - 1) / N of the buffer per worker; the "
            "question asks the size of the tensor handed in, which does not depend on N.",
            when=_ring_traffic),
    Mistake("Close: a rounded size (48 KB, say). Write the exact number of bytes, T x d_model x 8.",
            when=lambda guess, actual: math.isclose(guess, actual, rel_tol=0.03)),
]

check_buffer_guess = NamedPrediction(
    "Exercise 1 (predict the all-reduce's size)",
    why="Every worker adds up full-size partial outputs of shape (T, d_model): T x d_model x 8 "
        "bytes in float64, whatever N is. What shrinks with N is the weights each worker holds.",
    rel=0.0,
    variable="my_buffer_guess",
    fmt="{:,}",
    mistakes=_BUFFER_MISTAKES,
)
