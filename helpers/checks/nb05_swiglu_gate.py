"""Checks for the exercises of notebook 05 (the SwiGLU gate)."""

import numpy as np
import scipy.optimize
import scipy.special

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


def _silu(z):
    return z * scipy.special.expit(z)


# SiLU's minimum sits at -a where a * sigmoid(a) = 1, i.e. where SiLU(a) = 1.
SILU_ONE = scipy.optimize.brentq(lambda a: _silu(a) - 1.0, 0.0, 5.0)   # about 1.2785
SILU_ARGMIN = -SILU_ONE
SILU_MIN = float(_silu(SILU_ARGMIN))                                   # about -0.2785


def _array_answer(fn, *args):
    """(what fn returned, that as a numpy array or None when it is not one)."""
    got = attempt(fn, *args)
    return got, None if got is MISSING or isinstance(got, Exception) else to_numpy(got)


def check_swiglu_hidden(swiglu_hidden):
    """Exercise 1: SiLU(x @ W_gate) * (x @ W_up), the vector that goes into down_proj."""
    name = "Exercise 1 (the gated hidden vector)"
    hint = "g = SiLU(x @ W_gate) with SiLU(z) = z * sigmoid(z); u = x @ W_up; return g * u."
    rng = np.random.default_rng(5)
    x, W_gate, W_up = rng.normal(size=(3, 4)), rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    got, arr = _array_answer(swiglu_hidden, x, W_gate, W_up)
    if got is MISSING:
        return not_attempted(name, hint)
    zg, zu = x @ W_gate, x @ W_up
    if arr is not None and arr.shape == (3, 6):
        mistakes = [
            (_silu(zu) * zg, "you put SiLU on the up branch; the gate is the branch that goes "
                             "through SiLU (x @ W_gate), the up branch stays linear."),
            (zg * zu, "there is no activation: SiLU goes on the gate, x @ W_gate."),
            (scipy.special.expit(zg) * zu, "you gated with sigmoid(z), which stays in (0, 1) "
                                           "(the original GLU); SwiGLU's gate is SiLU(z) = z * sigmoid(z)."),
        ]
        for value, message in mistakes:
            if np.allclose(arr, value):
                return wrong(name, message, hint)
    return compare_arrays(name, got, _silu(zg) * zu, "swiglu_hidden(x, W_gate, W_up)", hint)


def check_gate_preactivation(gate_preactivation):
    """Exercise 2: the pre-activation z >= SILU_ARGMIN with SiLU(z) == g."""
    name = "Exercise 2 (which pre-activation gives this gate?)"
    hint = ("SiLU rises for z > -1.278: bisect on [-1.278, g + 1] (or scipy.optimize.brentq) "
            "for the z where z * sigmoid(z) - g changes sign.")
    for g in [0.1, 1.5, 0.0, 2.0, -0.2]:
        got = attempt(gate_preactivation, g)
        if got is MISSING:
            return not_attempted(name, hint)
        if isinstance(got, Exception):
            return wrong(name, f"gate_preactivation({g}) raised {type(got).__name__}: {got}", hint)
        try:
            z = float(got)
        except (TypeError, ValueError):
            return wrong(name, f"gate_preactivation({g}) returned a {type(got).__name__}, not a number", hint)
        if not np.isfinite(z):
            return wrong(name, f"gate_preactivation({g}) = {z}: not a finite number. Did you invert "
                         "sigmoid (log(g / (1 - g))) instead of SiLU?", hint)
        if abs(_silu(z) - g) > 1e-6 and g != 0 and z == g:
            return wrong(name, f"gate_preactivation({g}) returned {g} itself, but SiLU({g}) = "
                         f"{_silu(z):.4f}: the gate value is what comes out of SiLU, not what goes in.", hint)
        if abs(_silu(z) - g) > 1e-6:
            return wrong(name, f"gate_preactivation({g}) = {z:.4f}, but SiLU({z:.4f}) = {_silu(z):.4f}, "
                         f"not {g}.", hint)
        if z < SILU_ARGMIN - 1e-6:
            return wrong(name, f"gate_preactivation({g}) = {z:.4f} is left of SiLU's minimum at "
                         f"{SILU_ARGMIN:.4f}: it hits {g} too, but take the solution on the rising branch.", hint)
    return correct(name, "the seed's gates 0.1, 1.5, 0 and 2 come from pre-activations "
                   "of about 0.183, 1.758, 0 and 2.218.")


def check_fuse_weights(fuse_weights):
    """Exercise 3: [W_gate | W_up] side by side, shape (d_model, 2 * d_ff), gate first."""
    name = "Exercise 3 (fuse gate and up)"
    hint = "put the columns side by side, gate first: np.concatenate([W_gate, W_up], axis=1)."
    rng = np.random.default_rng(6)
    W_gate, W_up = rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    got, arr = _array_answer(fuse_weights, W_gate, W_up)
    if got is MISSING:
        return not_attempted(name, hint)
    if arr is not None and arr.shape == (8, 6):
        return wrong(name, "your matrix has shape (8, 6); expected (4, 12): you stacked the rows. "
                     "Each output feature is a column, so the two matrices go side by side (axis=1).", hint)
    if arr is not None and arr.shape == (4, 6):
        return wrong(name, f"your matrix has shape {shape_str(arr.shape)}; expected (4, 12): did you add "
                     "the matrices? Fusing keeps both sets of columns, it does not mix them.", hint)
    if arr is not None and arr.shape == (4, 12) and np.allclose(arr, np.concatenate([W_up, W_gate], 1)):
        return wrong(name, "the columns are in the order [up | gate]; the split that follows takes "
                     "the first d_ff columns as the gate, so put W_gate first.", hint)
    return compare_arrays(name, got, np.concatenate([W_gate, W_up], axis=1), "fuse_weights(W_gate, W_up)", hint)


def check_llama_width(llama_width):
    """Exercise 4: 2/3 of 4 * d_model, rounded up to a multiple of multiple_of."""
    name = "Exercise 4 (Llama's hidden width)"
    hint = "start from 2 * (4 * d_model) / 3, then round UP to the next multiple: -(-n // m) * m."
    for d_model, multiple_of, expected in [(4096, 256, 11008), (5120, 256, 13824),
                                           (768, 256, 2048), (1000, 64, 2688)]:
        got = attempt(llama_width, d_model, multiple_of)
        if got is MISSING:
            return not_attempted(name, hint)
        call = f"llama_width({d_model}, {multiple_of})"
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        if not isinstance(got, (int, float, np.integer, np.floating)):
            return wrong(name, f"{call} returned a {type(got).__name__}, not a number", hint)
        exact = 2 * 4 * d_model / 3
        if got == expected:
            continue
        if got == 4 * d_model:
            message = f"{call} = {got} is 4 * d_model, the plain FFN's width; the gated MLP takes 2/3 of it."
        elif got % multiple_of == 0 and got < exact:
            message = f"{call} = {got} is below 2/3 * 4d = {exact:.2f}: you rounded down; round up."
        elif got % multiple_of != 0:
            message = f"{call} = {got} is not a multiple of {multiple_of} (2/3 * 4d = {exact:.2f} before rounding)."
        elif got == expected + multiple_of and exact % multiple_of == 0:
            message = (f"{call} = {got}; expected {expected}: {exact:.2f} is already a multiple of "
                       f"{multiple_of}, so rounding up keeps it. Did you always add one more multiple?")
        else:
            message = f"{call} = {got}; expected {expected}."
        return wrong(name, message, hint)
    return correct(name, "4096 -> 11008 (Llama-2-7B), 5120 -> 13824 (Llama-2-13B), 768 -> 2048.")
