"""Ways to compare an answer with the expected one.

Each comparer is a function (got, expected) -> None when they agree, else a
phrase saying how they differ ("has shape (4, 2048); expected (4, 512)"),
which a check puts after the call it made. A comparer never raises on the
learner's answer, whatever its type: an answer it cannot read is described.
"""

import math

import numpy as np
import torch

from helpers.checks.diagnose import wrong_shape, wrong_values
from helpers.checks.show import describe, plain, say, shape_str, show, to_numpy

# The relative precision of each floating type: a float32 answer agrees with a float64 reference to
# about this.
_EPS = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 1.2e-7}


def _dtype_name(value):
    dtype = getattr(value, "dtype", None)
    return str(dtype).removeprefix("torch.") if dtype is not None else None


def _lower_precision(got, expected, arr, exp):
    """A phrase when got is a lower-precision float than expected and agrees to its own
    precision."""
    mine, theirs = _dtype_name(got), _dtype_name(expected)
    if mine not in _EPS or theirs not in ("float64", None) or mine == theirs:
        return None
    tol = 64 * _EPS[mine]
    if not np.allclose(arr, exp, rtol=tol,
                       atol=tol * max(1.0, float(np.abs(exp).max(initial=0.0)))):
        return None
    return say("is {dtype}, and agrees with the float64 reference only to {dtype}'s precision: "
               "keep float64 (did you call .float() or .half(), or make a tensor without "
               "dtype=torch.float64?)", dtype=mine)


def _shape(value):
    """The shape of an array or tensor, read without converting it; None for anything else."""
    shape = getattr(value, "shape", None) if isinstance(value, (np.ndarray, torch.Tensor)) else None
    return None if shape is None else tuple(shape)


def arrays(atol=1e-6, rtol=1e-6):
    """Arrays or tensors: kind, then shape, then finite values, then values within tolerance; a
    wrong shape or wrong values are said as the likely mistake (helpers.checks.diagnose)."""

    def compare(got, expected):
        mine, theirs = _shape(got), _shape(expected)
        if mine is not None and theirs is not None and mine != theirs and len(mine) > 0:
            # before any copy: a (10^4, 10^4) answer to a (3, 4) question is told at once
            return wrong_shape(mine, theirs, lambda: (to_numpy(got), to_numpy(expected)))
        arr, exp = to_numpy(got), to_numpy(expected)
        if arr is None or (arr.ndim == 0 and exp.ndim > 0):
            return say("returned {got}; expected an array of shape {shape}", got=describe(got),
                       shape=shape_str(exp.shape))
        if arr.shape != exp.shape:
            return wrong_shape(arr.shape, exp.shape, lambda: (arr, exp))
        if not np.all(np.isfinite(arr)):
            return say("holds NaN or infinite values")
        close = np.isclose(arr, exp, atol=atol, rtol=rtol)
        if close.all():
            return None
        return _lower_precision(got, expected, arr, exp) or wrong_values(arr, exp, close, atol,
                                                                         rtol)

    return compare


def _real(value):
    """value as a Python int or float when it is one real number (a 1-element tensor too), else
    None."""
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def exact():
    """Whole numbers (counts of parameters, bytes, FLOPs): equal, not nearly equal."""

    def compare(got, expected):
        number = _real(got)
        if number is None:
            return say("returned {got}; expected the number {expected:,}", got=describe(got),
                       expected=expected)
        if isinstance(number, float) and not number.is_integer():
            return say("returned {got}; expected the whole number {expected:,}", got=number,
                       expected=expected)
        if int(number) == expected:
            return None
        return say("= {got:,}; expected {expected:,}", got=int(number), expected=expected)

    return compare


def number(rel=1e-6, abs=1e-12):  # noqa: A002 - the name math.isclose uses
    """One real number within a relative (or absolute) tolerance."""

    def compare(got, expected):
        value = _real(got)
        if value is None:
            return say("returned {got}; expected one number", got=describe(got))
        if not math.isfinite(value):
            return say("= {got}; expected a finite number", got=str(value))
        if math.isclose(value, expected, rel_tol=rel, abs_tol=abs):
            return None
        return say("= {got:.6g}; expected {expected:.6g}", got=value, expected=expected)

    return compare


def same(got, expected):
    """got == expected as one True or False, whatever got is (False when == gives no single
    answer)."""
    try:
        result = got == expected
        if isinstance(result, (bool, np.bool_)):
            return bool(result)
        if isinstance(result, torch.Tensor) and result.numel() == 1:
            return bool(result)
    except Exception:  # noqa: BLE001 - a value that cannot be compared is not equal
        pass
    return False


def equal():
    """Any value compared with ==: a choice, a tuple of shapes, a string."""

    def compare(got, expected):
        return None if same(got, expected) else say("= {got}; expected {expected}", got=show(got),
                                                    expected=show(expected))

    return compare
