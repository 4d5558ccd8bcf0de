"""Notebook 14, exercise 1's cases: the W's tried, the guard that sees a tensor changed in place,
and the mistake that names it."""

import torch

from helpers.checks.runner import Mistake
from helpers.quantize import quantize as _quantize

# The reference functions, bound when this module loads: a learner who rebinds
# helpers.quantize.quantize to their own function changes neither the reference nor the answers the
# mistake rows compute.

EX1 = "Exercise 1 (absmax quantisation)"


class _ChangedInPlace:
    """What the learner's function returned, when it also changed a tensor it was given."""

    def __init__(self, got):
        self.got = got


def _guarded(fn):
    """fn, called so that an edit of its tensor arguments in place is seen."""
    if fn is None:
        return None

    def guarded(*args):
        kept = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        got = fn(*args)
        same = all(not isinstance(a, torch.Tensor) or torch.equal(a, k)
                   for a, k in zip(args, kept, strict=True))
        return got if got is None or same else _ChangedInPlace(got)
    guarded.__wrapped__ = fn   # the runner reads the learner's stub through the wrapper
    return guarded


def _cases():
    g = torch.Generator().manual_seed(14)
    W = torch.randn(6, 12, generator=g) * 0.05
    zero_row = W.clone()
    zero_row[2] = 0.0                                                   # no division by zero
    huge = W.clone()
    # one weight 60 times the rest
    huge[4, 7] = 3.0
    wide = torch.randn(4, 15, generator=g)                              # 15 = 3 groups of 5
    return [(W, 4, "row"), (W, 4, "tensor"), (W, 3, 4), (zero_row, 8, "row"), (zero_row, 4, 3),
            (huge, 4, "row"), (huge, 4, 6), (wide, 4, 5), (wide, 2, 3), (W.double(), 12, "row")]


_IN_PLACE = Mistake("your function changed the tensor it was given, in place (W /= scale, "
                    "or q.mul_?). The caller still needs W as it was (to measure the error, "
                    "for one): work on a new tensor.",
                    when=lambda got, *case: isinstance(got, _ChangedInPlace))


def _pairs():
    return [_quantize(W, bits, k) for W, bits, k in _cases()]
