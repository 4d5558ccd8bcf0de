"""Ways to compare an answer with the expected one.

Each comparer is a function (got, expected) -> None when they agree, else a
phrase saying how they differ ("has shape (4, 2048); expected (4, 512)"),
which a check puts after the call it made.
"""

import math

import numpy as np
import torch

from helpers.checks.core import shape_str, to_numpy


def arrays(atol=1e-6, rtol=1e-6):
    """Arrays or tensors: kind, then shape, then finite values, then values within tolerance."""

    def compare(got, expected):
        arr, exp = to_numpy(got), to_numpy(expected)
        if arr is None or (arr.ndim == 0 and exp.ndim > 0):
            return f"returned a {type(got).__name__}; expected an array of shape {shape_str(exp.shape)}"
        if arr.shape != exp.shape:
            return f"has shape {shape_str(arr.shape)}; expected {shape_str(exp.shape)}"
        if not np.all(np.isfinite(arr)):
            return "holds NaN or infinite values"
        close = np.isclose(arr, exp, atol=atol, rtol=rtol)
        if close.all():
            return None
        idx = tuple(int(i) for i in np.argwhere(~close)[0])
        where = f" at index {idx}" if arr.ndim else ""
        return (f"differs in {int((~close).sum())} of {arr.size} entries; first{where}: "
                f"got {arr[idx]:.4g}, expected {exp[idx]:.4g}")

    return compare


def exact():
    """Whole numbers (counts of parameters, bytes, FLOPs): equal, not nearly equal."""

    def compare(got, expected):
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer, float)):
            return f"returned {got!r}; expected the number {expected:,}"
        if isinstance(got, float) and not got.is_integer():
            return f"returned {got!r}; expected the whole number {expected:,}"
        return None if int(got) == expected else f"= {int(got):,}; expected {expected:,}"

    return compare


def number(rel=1e-6, abs=1e-12):  # noqa: A002 - the name math.isclose uses
    """One real number within a relative (or absolute) tolerance."""

    def compare(got, expected):
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        if isinstance(got, np.ndarray) and got.size == 1:
            got = got.item()
        if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
            return f"returned {got!r}; expected one number"
        if not math.isfinite(got):
            return f"= {got}; expected a finite number"
        if math.isclose(got, expected, rel_tol=rel, abs_tol=abs):
            return None
        return f"= {got:.6g}; expected {expected:.6g}"

    return compare


def equal():
    """Any value compared with ==: a choice, a tuple of shapes, a string."""

    def compare(got, expected):
        return None if got == expected else f"= {got!r}; expected {expected!r}"

    return compare
