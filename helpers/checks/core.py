"""The mechanism behind every exercise check.

A learner's stub returns None (or raises NotImplementedError) until it is
filled in; the check then says "not attempted yet" and never raises, so a
notebook runs top to bottom before anyone has done the exercises.
"""

from dataclasses import dataclass

import numpy as np
import torch

NOT_ATTEMPTED = "not attempted"
CORRECT = "correct"
WRONG = "wrong"


@dataclass(frozen=True)
class Feedback:
    """The outcome of one check, shown as a sentence."""

    exercise: str
    status: str
    message: str
    hint: str = ""

    def __bool__(self):
        return self.status == CORRECT

    def __str__(self):
        mark = {CORRECT: "[correct]", WRONG: "[not yet]", NOT_ATTEMPTED: "[not attempted yet]"}
        text = f"{mark[self.status]} {self.exercise}: {self.message}"
        if self.hint:
            text += f"\n  Hint: {self.hint}"
        return text

    def __repr__(self):
        return str(self)


def correct(exercise, message="correct, well done.", hint=""):
    return Feedback(exercise, CORRECT, message, hint)


def wrong(exercise, message, hint=""):
    return Feedback(exercise, WRONG, message, hint)


def not_attempted(exercise, hint=""):
    return Feedback(exercise, NOT_ATTEMPTED, "fill in the cell above and run this check again.", hint)


class _Missing:
    """Marks an answer that is not there yet."""


MISSING = _Missing()


def attempt(fn, *args, **kwargs):
    """Call the learner's function; MISSING when it returns None or is not implemented.

    Any other exception is returned (not raised) so the check can describe it.
    """
    if fn is None:
        return MISSING
    if not callable(fn):
        return fn  # a value, not a function
    try:
        result = fn(*args, **kwargs)
    except NotImplementedError:
        return MISSING
    except Exception as err:  # the check turns this into words
        return err
    return MISSING if result is None else result


def to_numpy(value):
    """A float64 numpy array from an array, tensor, list or number (None if impossible)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().double().numpy()
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def shape_str(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def compare_arrays(exercise, got, expected, what="your result", hint="", atol=1e-6, rtol=1e-6):
    """Feedback comparing an answer with the expected array: kind, shape, then values."""
    if got is MISSING:
        return not_attempted(exercise, hint)
    if isinstance(got, Exception):
        return wrong(exercise, f"{what} raised {type(got).__name__}: {got}", hint)
    arr = to_numpy(got)
    if arr is None:
        return wrong(exercise, f"{what} is a {type(got).__name__}, not an array", hint)
    exp = to_numpy(expected)
    if arr.shape != exp.shape:
        return wrong(
            exercise,
            f"{what} has shape {shape_str(arr.shape)}; expected {shape_str(exp.shape)}.",
            hint,
        )
    if not np.all(np.isfinite(arr)):
        return wrong(exercise, f"{what} holds NaN or infinite values.", hint)
    close = np.isclose(arr, exp, atol=atol, rtol=rtol)
    if not close.all():
        idx = tuple(int(i) for i in np.argwhere(~close)[0])
        where = f" at index {idx}" if arr.ndim else ""
        return wrong(
            exercise,
            f"{what} differs in {int((~close).sum())} of {arr.size} entries; first{where}: "
            f"got {arr[idx]:.4g}, expected {exp[idx]:.4g}.",
            hint,
        )
    return correct(exercise)
