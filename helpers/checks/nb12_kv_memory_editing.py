"""Checks for the exercises of notebook 12 (key-value memory and editing)."""

import numpy as np
import torch

from helpers.checks.core import (
    MISSING,
    attempt,
    compare_arrays,
    correct,
    not_attempted,
    shape_str,
    to_numpy,
    wrong,
)


def _case(seed=0, d_model=4, d_ff=8):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(d_ff, generator=g, dtype=torch.float64).relu(),
            torch.randn(d_model, d_ff, generator=g, dtype=torch.float64),
            torch.randn(d_model, generator=g, dtype=torch.float64))


def check_contributions(contributions):
    """Exercise 1: h_i * (w_i . u), one number per neuron."""
    name = "Exercise 1 (neuron contributions)"
    hint = "value i is column i of W_down: u @ W_down gives w_i . u for every i at once; then times h."
    h, W_down, u = _case()
    got = attempt(contributions, h, W_down, u)
    if got is MISSING:
        return not_attempted(name, hint)
    arr = to_numpy(got) if not isinstance(got, Exception) else None
    if arr is not None and arr.shape == (W_down.shape[0],):
        return wrong(name, f"your result has shape {shape_str(arr.shape)}, one number per d_model "
                     f"entry; expected ({W_down.shape[1]},), one per neuron: did you compute the "
                     "MLP output (W_down @ h) instead?", hint)
    if arr is not None and arr.shape == (W_down.shape[1],) and np.allclose(arr, to_numpy(u @ W_down)):
        return wrong(name, "your numbers are w_i . u, the same whatever the neuron's activation: "
                     "multiply by h_i (a neuron that does not fire adds nothing).", hint)
    return compare_arrays(name, got, h * (u @ W_down), "contributions(h, W_down, u)", hint)


def check_promoted_words(promoted_words):
    """Exercise 2: the n words with the highest unembed @ w, highest first."""
    name = "Exercise 2 (what a value promotes)"
    hint = "scores = unembed @ w (one per word); argsort(descending=True)[:n] picks the indices."
    g = torch.Generator().manual_seed(1)
    unembed = torch.randn(12, 4, generator=g, dtype=torch.float64)
    w = torch.randn(4, generator=g, dtype=torch.float64)
    words = [f"word{j}" for j in range(12)]
    got = attempt(promoted_words, w, unembed, words, 3)
    if got is MISSING:
        return not_attempted(name, hint)
    if isinstance(got, Exception):
        return wrong(name, f"promoted_words raised {type(got).__name__}: {got}", hint)
    scores = unembed @ w
    expected = [words[j] for j in scores.argsort(descending=True)[:3]]
    got = list(got) if not isinstance(got, str) else [got]
    if got and not all(isinstance(x, str) for x in got):
        return wrong(name, f"you returned {got!r}: numbers, not words; look each index up in words.",
                     hint)
    if got == [words[j] for j in scores.argsort()[:3]]:
        return wrong(name, f"you returned {got}, the words with the lowest scores: the value "
                     "promotes the highest ones (sort in descending order).", hint)
    if got != expected:
        return wrong(name, f"you returned {got}; expected {expected}.", hint)
    return correct(name, f"the top words are {expected}, highest score first.")


def check_rank_one_edit(rank_one_edit):
    """Exercise 3: W' = W + (v - W k)(C^-1 k)^T / (k^T C^-1 k)."""
    name = "Exercise 3 (the rank-one edit)"
    hint = "the residual is v - W @ k; the direction is C^-1 k (torch.linalg.solve(C, k)), "
    hint += "divided by k @ C^-1 k."
    g = torch.Generator().manual_seed(2)
    d_model, d_ff = 4, 6
    W = torch.randn(d_model, d_ff, generator=g, dtype=torch.float64)
    A = torch.randn(d_ff, d_ff, generator=g, dtype=torch.float64)
    C = A @ A.T + 0.5 * torch.eye(d_ff, dtype=torch.float64)    # a key covariance, not diagonal
    k = torch.randn(d_ff, generator=g, dtype=torch.float64)
    v = torch.randn(d_model, generator=g, dtype=torch.float64)
    got = attempt(rank_one_edit, W.clone(), k, v, C)
    if got is MISSING:
        return not_attempted(name, hint)
    if isinstance(got, Exception):
        return wrong(name, f"rank_one_edit raised {type(got).__name__}: {got}", hint)
    W_new = torch.as_tensor(to_numpy(got))
    if W_new.shape != W.shape:
        return wrong(name, f"W' has shape {shape_str(W_new.shape)}; expected {shape_str(W.shape)}.",
                     hint)
    if not torch.allclose(W_new @ k, v, atol=1e-6):
        if torch.allclose(W_new @ k, W @ k + v, atol=1e-6):
            return wrong(name, "W' k = W k + v, not v: add the residual v - W k, not v itself.", hint)
        return wrong(name, "W' k is not v: the edited matrix must map the key k to exactly v.", hint)
    C_inv_k = torch.linalg.solve(C, k)
    x = torch.randn(d_ff, generator=g, dtype=torch.float64)
    x = x - (x @ C_inv_k) / (k @ C_inv_k) * k                   # a key with x^T C^-1 k = 0
    if not torch.allclose(W_new @ x, W @ x, atol=1e-6):
        return wrong(name, "W' k = v, but a key x with x^T C^-1 k = 0 changed too: the update must "
                     "point along C^-1 k (did you use k itself, ignoring the key covariance C?).",
                     hint)
    return compare_arrays(name, W_new, W + torch.outer(v - W @ k, C_inv_k) / (k @ C_inv_k),
                          "W'", hint)
