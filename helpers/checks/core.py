"""What a check says: not attempted yet, correct, or what is wrong, in words.

A learner's stub returns None (or raises NotImplementedError) until it is
filled in; the check then says "not attempted yet" and nothing else, and never
raises, so a notebook runs top to bottom before anyone has done the exercises.
Hints live in the notebook, collapsed under the exercise; a check only names
the mistake it sees.
"""

from dataclasses import dataclass

import numpy as np
import torch

NOT_ATTEMPTED = "not attempted"
CORRECT = "correct"
WRONG = "wrong"
MARKS = {CORRECT: "[correct]", WRONG: "[not yet]", NOT_ATTEMPTED: "[not attempted yet]"}


@dataclass(frozen=True)
class Feedback:
    """The outcome of one check, shown as one sentence."""

    exercise: str
    status: str
    message: str

    def __bool__(self):
        return self.status == CORRECT

    def __str__(self):
        return f"{MARKS[self.status]} {self.exercise}: {self.message}"

    def __repr__(self):
        return str(self)


NOT_YET = "write your answer in the cell above, then run it again."


def correct(exercise, message="correct, well done."):
    return Feedback(exercise, CORRECT, message)


def wrong(exercise, message):
    return Feedback(exercise, WRONG, message)


def not_attempted(exercise, message=NOT_YET):
    return Feedback(exercise, NOT_ATTEMPTED, message)


class _Missing:
    """Marks an answer that is not there yet."""

    def __repr__(self):
        return "MISSING"


MISSING = _Missing()


def attempt(fn, *args, **kwargs):
    """Call the learner's function; MISSING when it returns None or is not implemented.

    A value that is not callable is the answer itself. Any other exception is
    returned (not raised) so that the check can describe it.
    """
    if fn is None:
        return MISSING
    if not callable(fn):
        return fn
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
    """(4, 512) written the way Python prints a shape; (3,) for one dimension."""
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def call_str(name, args):
    """'name(x (4, 512), 768, bias=True)': arrays shown by their shape, other values as typed."""
    parts = []
    for arg in args:
        if isinstance(arg, (np.ndarray, torch.Tensor)):
            parts.append(f"{shape_str(arg.shape)} array" if arg.ndim else repr(arg.item()))
        elif isinstance(arg, torch.nn.Module):
            parts.append(type(arg).__name__)
        else:
            parts.append(repr(arg))
    return f"{name}({', '.join(parts)})"

