"""Checks for the exercises of notebook 04 (the network in 3D)."""

import numpy as np

from helpers import activations
from helpers.checks.core import (
    MISSING,
    attempt,
    compare_arrays,
    correct,
    not_attempted,
    to_numpy,
    wrong,
)


def check_count_edges(count_edges):
    """Exercise 1: edges (weights) between consecutive layers of `sizes` nodes."""
    name = "Exercise 1 (count the edges)"
    hint = "every node of layer l connects to every node of layer l + 1: add n_l * n_(l+1) over l."
    for sizes in ([3, 6, 4, 2], [768, 3072, 768], [4]):
        expected = sum(a * b for a, b in zip(sizes[:-1], sizes[1:], strict=True))
        got = attempt(count_edges, list(sizes))
        if got is MISSING:
            if len(sizes) == 1:  # a single layer has no edges: 0 is the answer, None is not
                return wrong(name, "count_edges([4]) returned None; a single layer has 0 edges.",
                             hint)
            return not_attempted(name, hint)
        if isinstance(got, Exception):
            return wrong(name, f"count_edges({sizes}) raised {type(got).__name__}: {got}", hint)
        if got == expected:
            continue
        if got == sum(sizes):
            why = "that is the number of nodes; edges join every node to every node of the next layer."
        elif got == int(np.prod(sizes)):
            why = "you multiplied all the sizes; edges only join neighbouring layers, so add the products."
        elif len(sizes) > 1 and got == sizes[0] * sizes[1]:
            why = "that is only the first weight matrix; add every pair of neighbouring layers."
        else:
            why = f"expected {expected:,}."
        return wrong(name, f"count_edges({sizes}) = {got!r}: {why}", hint)
    return correct(name, "768 -> 3072 -> 768 has 4,718,592 edges: one per weight of GPT-2 "
                   "small's MLP (biases aside).")


def check_strongest(strongest):
    """Exercise 2: the k weights of largest magnitude, as a sorted list of (row, col)."""
    name = "Exercise 2 (keep the strongest edges)"
    hint = ("rank the entries by np.abs(W), keep the top k (np.argsort or np.argpartition), "
            "turn flat indices into (row, col) with np.unravel_index.")
    W = np.array([[0.1, -0.9, 0.3],
                  [0.8, -0.2, -0.05],
                  [-0.6, 0.4, 0.7]])
    got = attempt(strongest, W.copy(), 4)
    if got is MISSING:
        return not_attempted(name, hint)
    if isinstance(got, Exception):
        return wrong(name, f"strongest(W, 4) raised {type(got).__name__}: {got}", hint)
    try:
        pairs = sorted((int(r), int(c)) for r, c in got)
    except (TypeError, ValueError):
        return wrong(name, f"strongest(W, 4) returned {got!r}; return a list of (row, col) pairs.",
                     hint)
    expected = [(0, 1), (1, 0), (2, 0), (2, 2)]
    if pairs == [(0, 2), (1, 0), (2, 1), (2, 2)]:
        return wrong(name, "you kept the 4 largest weights by value: negative weights are "
                     "strong too (blue edges); rank by |w|.", hint)
    if pairs == [(0, 0), (0, 2), (1, 1), (1, 2)]:
        return wrong(name, "you kept the 4 weakest weights; keep the largest |w|.", hint)
    if len(pairs) != 4:
        return wrong(name, f"strongest(W, 4) returned {len(pairs)} pairs; expected 4.", hint)
    if pairs != expected:
        return wrong(name, f"strongest(W, 4) gave {pairs}; expected {expected} "
                     "(|w| = 0.9, 0.8, 0.7, 0.6).", hint)
    return correct(name, "the 4 strongest edges: -0.9, 0.8, 0.7 and -0.6.")


def check_hidden(hidden):
    """Exercise 3: one token's hidden activations act(x @ W1 + b1), shape (d_ff,)."""
    name = "Exercise 3 (light the hidden nodes)"
    hint = "pre-activation h = x @ W1 + b1 with W1 of shape (d_model, d_ff), then the activation."
    rng = np.random.default_rng(4)
    x, W1, b1 = rng.normal(size=6), rng.normal(size=(6, 24)), rng.normal(size=24)
    for act in ("relu", "gelu"):
        got = attempt(hidden, x, W1, b1, act)
        if got is MISSING:
            return not_attempted(name, hint)
        expected = activations.get(act)(x @ W1 + b1)
        arr = to_numpy(got) if not isinstance(got, Exception) else None
        if arr is not None and arr.shape == expected.shape and not np.allclose(arr, expected):
            if np.allclose(arr, activations.get(act)(x @ W1)):
                return wrong(name, f"with activation={act!r} your values miss the bias b1.", hint)
            if np.allclose(arr, x @ W1 + b1):
                return wrong(name, f"with activation={act!r} your values are the pre-activations: "
                             "apply the activation.", hint)
            other = "gelu" if act == "relu" else "relu"
            if np.allclose(arr, activations.get(other)(x @ W1 + b1)):
                return wrong(name, f"asked for {act!r} you applied {other!r}.", hint)
        feedback = compare_arrays(name, got, expected, f"hidden(x, W1, b1, {act!r})", hint)
        if not feedback:
            return feedback
    return correct(name, "one token's 24 hidden values, with ReLU and with GELU.")
