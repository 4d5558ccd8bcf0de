"""Checks for the exercises of notebook 07 (position-wise: attention vs MLP)."""

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


def _scores(T=5, seed=0):
    return torch.randn(T, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _softmax_rows(scores, future_value):
    future = torch.ones(scores.shape, dtype=torch.bool).triu(1)
    return torch.softmax(scores.masked_fill(future, future_value), dim=-1).numpy()


def check_causal_softmax(causal_softmax):
    """Exercise 1: mask the future with -inf, then softmax each row."""
    name = "Exercise 1 (mask and softmax)"
    hint = "scores.masked_fill(future, float('-inf')) with future = j > i, then torch.softmax(..., dim=-1)."
    scores = _scores()
    got = attempt(causal_softmax, scores.clone())
    if got is MISSING:
        return not_attempted(name, hint)
    expected = _softmax_rows(scores, float("-inf"))
    arr = None if isinstance(got, Exception) else to_numpy(got)
    if arr is not None and arr.shape == expected.shape and np.all(np.isfinite(arr)):
        if np.abs(np.triu(arr, 1)).max() > 1e-9:
            if np.allclose(arr, _softmax_rows(scores, 0.0)):
                why = "you masked with 0, but exp(0) = 1 still gives the future a weight: mask with -inf."
            elif np.allclose(arr, torch.softmax(scores, dim=-1).numpy()):
                why = "did you forget the mask?"
            else:
                why = "is the mask the right way round (True where j > i)?"
            return wrong(name, f"future tokens get weight (entries above the diagonal are not 0): {why}", hint)
        if not np.allclose(arr.sum(axis=-1), 1.0) and np.allclose(arr.sum(axis=0), 1.0):
            return wrong(name, "your columns sum to 1, not your rows: take the softmax over the last "
                         "dimension (dim=-1), so each token's weights add up to 1.", hint)
    return compare_arrays(name, got, expected, "causal_softmax(scores)", hint, atol=1e-9)


def _window_reference(T, window):
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return ((j <= i) & (j > i - window)).numpy()


def check_window_mask(window_mask):
    """Exercise 2: token i sees tokens i - window + 1 .. i."""
    name = "Exercise 2 (a sliding window)"
    hint = "True where j <= i (no future) and j > i - window (no more than `window` tokens back)."
    for T, window in [(7, 3), (6, 1), (5, 9)]:
        got = attempt(window_mask, T, window)
        if got is MISSING:
            return not_attempted(name, hint)
        call = f"window_mask({T}, {window})"
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        arr = to_numpy(got)
        if arr is None or arr.shape != (T, T):
            shape = "not an array" if arr is None else f"shape {shape_str(arr.shape)}"
            return wrong(name, f"{call} has {shape}; expected a ({T}, {T}) boolean matrix.", hint)
        mask = arr != 0
        expected = _window_reference(T, window)
        if np.array_equal(mask, expected):
            continue
        if np.array_equal(mask, expected.T):
            return wrong(name, f"{call} is transposed: rows are the tokens that look (i), columns the "
                         "tokens they look at (j), so the allowed entries sit on and below the diagonal.", hint)
        if np.triu(mask, 1).any():
            return wrong(name, f"{call} lets a token see a later token (True above the diagonal): "
                         "a causal window never looks ahead.", hint)
        seen = mask.sum(axis=1)
        row = int(np.argmax(seen != expected.sum(axis=1)))
        return wrong(name, f"in {call} token {row} sees {int(seen[row])} tokens; expected "
                     f"{int(expected[row].sum())} (itself and up to {window - 1} before it): "
                     "check the window's edge for an off-by-one.", hint)
    return correct(name, "each token sees itself and the window - 1 tokens before it; "
                   "with window >= T it is the causal mask.")


def check_fold_value(fold_value):
    """Exercise 3: W_v @ W_o @ W_1 @ W_2."""
    name = "Exercise 3 (attention + a linear MLP)"
    hint = "follow one value row through the chain: X @ W_v, then @ W_o, then @ W_1, then @ W_2."
    g = torch.Generator().manual_seed(3)
    d, d_ff = 4, 16
    W_v, W_o = torch.randn(d, d, generator=g, dtype=torch.float64), torch.randn(d, d, generator=g, dtype=torch.float64)
    W_1 = torch.randn(d, d_ff, generator=g, dtype=torch.float64)
    W_2 = torch.randn(d_ff, d, generator=g, dtype=torch.float64)
    got = attempt(fold_value, W_v, W_o, W_1, W_2)
    if got is MISSING:
        return not_attempted(name, hint)
    arr = None if isinstance(got, Exception) else to_numpy(got)
    if arr is not None and arr.shape == (d, d):
        if np.allclose(arr, (W_v @ W_1 @ W_2).numpy()):
            return wrong(name, "your matrix skips W_o: attention's output projection sits between "
                         "the weighted sum and the MLP.", hint)
        if np.allclose(arr, (W_1 @ W_2).numpy()) or np.allclose(arr, (W_o @ W_1 @ W_2).numpy()):
            return wrong(name, "your matrix leaves out W_v: the value projection is part of the chain.", hint)
    if arr is not None and arr.shape == (d_ff, d_ff):
        return wrong(name, f"your matrix has shape ({d_ff}, {d_ff}); expected ({d}, {d}): "
                     "did you multiply W_2 before W_1?", hint)
    return compare_arrays(name, got, W_v @ W_o @ W_1 @ W_2, "fold_value(W_v, W_o, W_1, W_2)", hint, atol=1e-9)
