"""What a wrong array most likely is, said in words.

`arrays()` (helpers.checks.compare) asks `wrong_values(...)` when an
answer has the right shape and the wrong values, and `wrong_shape(...)` when its
shape differs. Each tests the answer against the patterns a learner's mistake
leaves in an array: the transpose, a constant factor or a flipped sign, the
activation missing or one too many, a bias left out or added twice, a
normalisation over the wrong axis, the right values in other places, an index
off by one. Only when no pattern fits does it say where the answer first differs
and by how much. Each pattern is a phrase put after the call, like every
comparer's ("has shape ...").
"""

import math
from itertools import permutations

import numpy as np
import torch

from helpers.checks.show import say, shape_str

# entries: past this, only the cheap tests run (a check's Mistake rows compare often)
_BIG = 200_000


def _gelu(x, approximate="none"):
    return torch.nn.functional.gelu(torch.from_numpy(x), approximate=approximate).numpy()


# The activations whose output a learner forgets or adds, by the name a sentence gives them.
_ACTIVATIONS = (
    ("ReLU", lambda x: np.maximum(x, 0.0)),
    ("GELU", _gelu),
    ("GELU (tanh)", lambda x: _gelu(x, "tanh")),
    ("SiLU", lambda x: x / (1.0 + np.exp(-x))),
    ("sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x))),
    ("tanh", np.tanh),
)


class _Near:
    """Closeness for patterns: the check's tolerance, loosened to a float32 answer's rounding."""

    def __init__(self, exp, atol, rtol):
        scale = float(np.abs(exp).max(initial=0.0))
        self.atol = atol + 1e-5 * max(scale, 1e-12)
        self.rtol = max(rtol, 1e-5)

    def __call__(self, a, b):
        return a.shape == b.shape and bool(np.allclose(a, b, atol=self.atol, rtol=self.rtol))

    def zero(self, a):
        return bool(np.all(np.abs(a) <= self.atol))


def _factor(arr, exp, near):
    """The one number c with arr = c * exp, or None."""
    denominator = float((exp * exp).sum())
    if denominator == 0:
        return None
    c = float((arr * exp).sum()) / denominator
    return c if near(arr, c * exp) else None


def _said_factor(c):
    if abs(c + 1) < 1e-6:
        return say("is minus the expected array: every sign is flipped (a subtraction the wrong "
                   "way round, or a minus sign too many?)")
    n = round(1 / c) if c != 0 and abs(c) < 1 else round(c)
    if abs(n) >= 2 and abs(c) < 1 and abs(c * n - 1) < 1e-6:
        return say("is the expected array divided by {n}: a mean where a sum is asked, or a "
                   "division once too often?", n=n)
    if abs(n) >= 2 and abs(c - n) < 1e-6 * abs(n):
        return say("is the expected array times {n}: off by a constant factor (a sum where a mean "
                   "is asked, or a term counted {n} times?)", n=n)
    return say("is the expected array times {factor:.4g}: off by a constant factor (a scale left "
               "out or applied twice?)", factor=c)


def _activation(arr, exp, near):
    """A phrase when arr is exp before an activation, or exp after one activation more; else
    None."""
    for name, act in _ACTIVATIONS:
        with np.errstate(all="ignore"):
            if near(act(arr), exp):
                return say("looks like the input of {name}, not its output: the activation is "
                           "missing", name=name)
            if near(arr, act(exp)):
                return say("looks like {name} of the expected array: an activation applied where "
                           "none belongs, or applied twice", name=name)
    return None


def _same_along(diff, axis, near, mask=None):
    """True when diff is one value along `axis` for every other index (where mask holds, if
    given)."""
    if mask is None:
        return near(diff, np.broadcast_to(diff.mean(axis=axis, keepdims=True), diff.shape))
    counts = mask.sum(axis=axis, keepdims=True)
    if (counts >= 2).mean() < 0.5:
        return False   # too few entries both sides let through to tell
    mean = np.where(mask, diff, 0.0).sum(axis=axis, keepdims=True) / np.maximum(counts, 1)
    return near(np.where(mask, diff, 0.0), np.where(mask, np.broadcast_to(mean, diff.shape), 0.0))


def _offset(arr, exp, near):
    """A phrase when arr - exp is a constant, a vector repeated in every row, or one value per
    row."""
    diff = arr - exp
    if near(diff, np.full(diff.shape, diff.mean())):
        return say("is the expected array plus {shift:.4g} in every entry: a constant (or a "
                   "one-entry bias) added or left out", shift=float(diff.mean()))
    if diff.ndim < 2 or diff.shape[0] < 2:
        return None
    if _same_along(diff, 0, near):
        return say("differs from the expected by the same vector in every row: a bias left out, "
                   "added twice, or added with the wrong sign?")
    zeros = (exp == 0).mean()
    if 0.05 < zeros < 0.95 and _same_along(diff, 0, near, mask=(arr != 0) & (exp != 0)):
        return say("differs, where the activation lets values through, by the same vector in every "
                   "row: a bias left out before the activation, or added twice?")
    if diff.shape[-1] >= 2 and _same_along(diff, diff.ndim - 1, near):
        return say("differs from the expected by one value per row: a shift taken over the wrong "
                   "axis, or a bias of shape (n, 1) where one of shape (n,) belongs?")
    return None


def _axis_property(arr, near):
    """{axis: 'sums to 1' or 'has mean 0'} for the axes along which arr does."""
    found = {}
    for axis in range(arr.ndim):
        if arr.shape[axis] < 2:
            continue
        if np.all(arr >= 0) and near(arr.sum(axis=axis), np.ones(arr.sum(axis=axis).shape)):
            found[axis] = "sums"
        elif near.zero(arr.mean(axis=axis)):
            found[axis] = "centred"
    return found


def _wrong_axis(arr, exp, near):
    """A phrase when the expected array is normalised along one axis and the answer along
    another."""
    if arr.ndim < 2:
        return None
    mine, theirs = _axis_property(arr, near), _axis_property(exp, near)
    for axis, kind in theirs.items():
        for other, kind_mine in mine.items():
            if kind_mine == kind and other != axis and mine.get(axis) != kind:
                template = ("sums to 1 along axis {mine}, but the expected array sums to 1 along "
                            "axis {theirs}: a softmax (or a division by a sum) over the wrong axis"
                            if kind == "sums" else
                            "has mean 0 along axis {mine}, but the expected array along axis "
                            "{theirs}: a mean subtracted over the wrong axis")
                return say(template, mine=other, theirs=axis)
    return None


def _scaled_per_axis(arr, exp, near):
    """A phrase when each row (or each column) is the expected one times a factor of its own."""
    if arr.ndim != 2 or np.any(exp == 0):
        return None
    with np.errstate(all="ignore"):
        ratio = arr / exp
    for axis in (1, 0):
        per = ratio.mean(axis=axis, keepdims=True)
        if arr.shape[axis] >= 2 and near(arr, per * exp):
            return say("each row is the expected row times a factor of its own: divided or scaled "
                       "by something computed over the wrong axis?" if axis == 1 else
                       "each column is the expected column times a factor of its own: divided or "
                       "scaled by something computed over the wrong axis?")
    return None


def _shifted(arr, exp, near):
    """A phrase when arr is exp moved by k places along one axis (an index off by k)."""
    for axis in range(arr.ndim):
        n = arr.shape[axis]
        for k in (1, -1, 2, -2):
            if n < 2 * abs(k) + 1:
                continue
            mine = np.take(arr, range(max(k, 0), n + min(k, 0)), axis=axis)
            theirs = np.take(exp, range(max(-k, 0), n + min(-k, 0)), axis=axis)
            if near(mine, theirs) and not near(
                    mine, np.take(exp, range(max(k, 0), n + min(k, 0)), axis=axis)):
                template = ("holds the expected values moved by one place along axis {axis}: an "
                            "index off by one?"
                            if abs(k) == 1 else "holds the expected values moved by {k} places "
                                                "along axis {axis}: an index off by {k}?")
                return say(template, k=abs(k), axis=axis)
    return None


def _moved(arr, exp, near):
    """A phrase when arr holds exp's values in other places: reversed, rows or columns reordered,
    shifted."""
    if not near(np.sort(arr, axis=None), np.sort(exp, axis=None)):
        return _shifted(arr, exp, near)
    for axis in range(arr.ndim):
        if near(np.flip(arr, axis=axis), exp):
            return say("is the expected array reversed along axis {axis}", axis=axis)
    if arr.ndim == 2:
        for axis in (0, 1):
            mine, theirs = (arr, exp) if axis == 0 else (arr.T, exp.T)
            if near(np.array(sorted(map(tuple, mine))), np.array(sorted(map(tuple, theirs)))):
                return say("holds the expected rows, in another order" if axis == 0 else
                           "holds the expected columns, in another order")
    return _shifted(arr, exp, near) or say("holds the expected values, but in other places: an "
                                           "index mixed up?")


def _first_and_largest(arr, exp, close):
    """Where the answer first differs and where most, with its value and the expected one."""
    first = tuple(int(i) for i in np.argwhere(~close)[0])
    gap = np.abs(arr - exp)
    largest = tuple(int(i) for i in np.unravel_index(int(np.argmax(gap)), gap.shape))
    return say("first differs at index {index}: got {got:.4g}, expected {expected:.4g}; the "
               "largest difference, {gap:.3g}, is at index {where} ({n} of {size} entries differ)",
               index=first, got=arr[first], expected=exp[first], gap=float(gap[largest]),
               where=largest, n=int((~close).sum()), size=arr.size)


def wrong_values(arr, exp, close, atol, rtol):
    """The likely mistake behind arr (float64, exp's shape) differing from exp where `close` is
    False."""
    if not arr.ndim:
        return say("differs: got {got:.4g}, expected {expected:.4g}", got=float(arr),
                   expected=float(exp))
    near = _Near(exp, atol, rtol)
    if near.zero(arr):
        return say("is all zeros: nothing was written into it (an array made with zeros and never "
                   "filled, or a return before the loop?)")
    c = _factor(arr, exp, near)
    if c is not None:
        return _said_factor(c)
    if arr.ndim == 2 and arr.shape[0] == arr.shape[1] and near(arr, exp.T):
        return say("is the transpose of the expected array: rows and columns swapped (the product "
                   "taken in the other order, or a .T missing or one too many?)")
    for test in ((_activation, _offset, _wrong_axis, _scaled_per_axis)
                 + ((_moved,) if arr.size <= _BIG else ())):
        phrase = test(arr, exp, near)
        if phrase is not None:
            return phrase
    return _first_and_largest(arr, exp, close)


def _without_ones(shape):
    return tuple(s for s in shape if s != 1)


def wrong_shape(mine, theirs, values):
    """The likely mistake behind shape `mine` where `theirs` is expected. values() gives (arr, exp)
    as float64 arrays; it is called only when the two hold as many entries, so a huge answer is
    never converted."""
    said = {"shape": shape_str(mine), "expected": shape_str(theirs)}
    same_size = math.prod(mine) == math.prod(theirs)
    if same_size and _without_ones(mine) == _without_ones(theirs):
        return say("has shape {shape}; expected {expected}: a dimension of size 1 extra or missing "
                   "(a keepdim, a [:, None], or a squeeze?)", **said)
    if same_size and math.prod(mine) <= _BIG:
        arr, exp = values()
        if arr is not None and exp is not None:
            near = _Near(exp, 0.0, 0.0)
            if len(mine) == len(theirs) and sorted(mine) == sorted(theirs):
                order = next((p for p in _permutations(len(mine))
                              if tuple(theirs[i] for i in p) == tuple(mine)
                              and near(np.transpose(exp, p), arr)), None)
                if order is not None:
                    return say("has shape {shape}; expected {expected}: it is the expected array "
                               "with its axes swapped (a transpose too many or missing, or the "
                               "product taken in the other order?)", **said)
            if near(arr.reshape(exp.shape), exp):
                return say("has shape {shape}; expected {expected}: the values are right, in the "
                           "wrong shape", **said)
    if len(mine) == len(theirs) and sorted(mine) == sorted(theirs):
        return say("has shape {shape}; expected {expected}: the same sizes in another order, so "
                   "the axes are swapped (a .T missing or one too many, or a product in the other "
                   "order?)", **said)
    try:
        broadcast = (np.broadcast_shapes(mine, theirs) == tuple(mine)
                     and math.prod(mine) > math.prod(theirs))
    except ValueError:
        broadcast = False
    if broadcast:
        return say("has shape {shape}; expected {expected}: a dimension too many (a sum or mean "
                   "not taken, or arrays of shapes (n,) and (n, 1) broadcast together?)", **said)
    if len(mine) == len(theirs) == 1:
        return say("has shape {shape}; expected {expected}: one entry per what? (a sum or mean "
                   "over the wrong axis, or a range of the wrong length?)", **said)
    return say("has shape {shape}; expected {expected}", **said)


def _permutations(n):
    return [p for p in permutations(range(n)) if p != tuple(range(n))]
