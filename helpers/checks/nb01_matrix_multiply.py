"""Checks for the exercises of notebook 01 (matrix multiply)."""

import numpy as np

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

X_WORKED = np.array([1.0, 2.0, -1.0, 0.0])
Z_WORKED = np.array([-2.0, 1.0, 0.5, -1.0, 3.0, 0.0, -0.5, 2.0])


def check_build_W(W):
    """Exercise 1: any 4 x 8 W with x @ W == the seed's output."""
    name = "Exercise 1 (a W for the worked example)"
    hint = "output j is x @ W[:, j]; choose each column so that its dot product with x hits z[j]."
    if W is None:
        return not_attempted(name, hint)
    W = to_numpy(W)
    if W is None:
        return wrong(name, "W is not an array of numbers.", hint)
    if W.shape == (8, 4):
        return wrong(name, "W has shape (8, 4); expected (4, 8): x (4,) @ W needs d=4 rows.", hint)
    if W.shape != (4, 8):
        return wrong(name, f"W has shape {shape_str(W.shape)}; expected (4, 8).", hint)
    z = X_WORKED @ W
    off = np.flatnonzero(~np.isclose(z, Z_WORKED))
    if off.size:
        j = int(off[0])
        return wrong(
            name,
            f"x @ W gives {np.round(z, 3).tolist()}; entry {j} is {z[j]:.3g}, "
            f"expected {Z_WORKED[j]:.3g} ({off.size} of 8 entries off).",
            hint,
        )
    return correct(name, "x @ W reproduces [-2, 1, 0.5, -1, 3, 0, -0.5, 2] entry by entry.")


def check_matmul_loop(matmul_loop):
    """Exercise 2: a token-by-token loop that equals X @ W."""
    name = "Exercise 2 (one token at a time)"
    hint = "row t of Z is X[t] @ W: loop over t and stack the rows (np.stack)."
    rng = np.random.default_rng(1)
    X, W = rng.normal(size=(5, 3)), rng.normal(size=(3, 7))
    got = attempt(matmul_loop, X, W)
    if got is MISSING:
        return not_attempted(name, hint)
    arr = to_numpy(got) if not isinstance(got, Exception) else None
    if arr is not None and arr.shape == (7, 5):
        return wrong(name, "your output has shape (7, 5); expected (5, 7): one row per token, "
                     "did you stack columns instead of rows?", hint)
    return compare_arrays(name, got, X @ W, "matmul_loop(X, W)", hint)


def check_fold(fold):
    """Exercise 3: one matrix that does what W1 then W2 do."""
    name = "Exercise 3 (fold two linear maps)"
    hint = "(x @ W1) @ W2 = x @ (W1 @ W2): matrix products are associative."
    rng = np.random.default_rng(2)
    W1, W2 = rng.normal(size=(4, 6)), rng.normal(size=(6, 4))
    got = attempt(fold, W1, W2)
    if got is MISSING:
        return not_attempted(name, hint)
    arr = to_numpy(got) if not isinstance(got, Exception) else None
    if arr is not None and arr.shape == (6, 6):
        return wrong(name, "your matrix has shape (6, 6); expected (4, 4): "
                     "did you multiply in the wrong order (W2 @ W1)?", hint)
    return compare_arrays(name, got, W1 @ W2, "fold(W1, W2)", hint)


def check_matmul_flops(matmul_flops):
    """Exercise 4: FLOPs of a (T, d) @ (d, m) product."""
    name = "Exercise 4 (count the FLOPs)"
    hint = "each of the T*m outputs needs d multiplies and d adds: 2 FLOPs per multiply-add."
    cases = [(1, 4, 8), (1024, 768, 3072), (7, 3, 5)]
    for T, d, m in cases:
        got = attempt(matmul_flops, T, d, m)
        if got is MISSING:
            return not_attempted(name, hint)
        if isinstance(got, Exception):
            return wrong(name, f"matmul_flops({T}, {d}, {m}) raised {type(got).__name__}: {got}", hint)
        expected = 2 * T * d * m
        if got == T * d * m:
            return wrong(name, f"matmul_flops({T}, {d}, {m}) = {got}: you counted the "
                         "multiplies only; a multiply-add is 2 FLOPs.", hint)
        if got != expected:
            return wrong(name, f"matmul_flops({T}, {d}, {m}) = {got}; expected {expected}.", hint)
    return correct(name, "2 * T * d * m, e.g. 4,831,838,208 FLOPs for GPT-2's up-projection at T=1024.")
