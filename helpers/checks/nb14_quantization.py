"""Checks for notebook 14's exercises (quantising the MLP).

1. `quantize(W, bits, group_size)` and `dequantize(q, scale)`: symmetric absmax quantisation per
   tensor, per output row or per group of k inputs, compared with helpers.quantize on cases that
   hold an all-zero row, a row with one huge weight, odd group sizes and more than 8 bits.
2. A prediction: which is worse on the trained fact model's MLP weights, int4 per tensor or int3
   per group of 64?
3. (stretch) A prediction: the share of float32's bytes that the int8 copy of an MLP takes.

The learner's functions get copies of each case; a function that changes the W (or q, scale) it
was given is named.
"""

import torch

from helpers import quantize as reference
from helpers.checks.core import explained_calls
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import say

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
        same = all(not isinstance(a, torch.Tensor) or torch.equal(a, k) for a, k in zip(args, kept, strict=True))
        return got if got is None or same else _ChangedInPlace(got)
    guarded.__wrapped__ = fn   # the runner reads the learner's stub through the wrapper
    return guarded


def _cases():
    g = torch.Generator().manual_seed(14)
    W = torch.randn(6, 12, generator=g) * 0.05
    zero_row = W.clone()
    zero_row[2] = 0.0                                                   # no division by zero
    huge = W.clone()
    huge[4, 7] = 3.0                                                    # one weight 60 times the rest
    wide = torch.randn(4, 15, generator=g)                              # 15 = 3 groups of 5
    return [(W, 4, "row"), (W, 4, "tensor"), (W, 3, 4), (zero_row, 8, "row"), (zero_row, 4, 3),
            (huge, 4, "row"), (huge, 4, 6), (wide, 4, 5), (wide, 2, 3), (W.double(), 12, "row")]


def _compare_q(got, expected):
    """(q, scale) pairs: q the same integers in an integer dtype, scale of the same shape and values."""
    if isinstance(got, _ChangedInPlace):
        return say("changed the W it was given")
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return say("returned {kind}; expected a pair (q, scale)", kind=type(got).__name__)
    q, scale = got
    eq, es = expected
    if not isinstance(q, torch.Tensor) or not isinstance(scale, torch.Tensor):
        return say("returned q and scale that are not both torch tensors")
    if tuple(scale.shape) != tuple(es.shape):
        return say("gives scale the shape {shape}; expected {expected} (rows or 1, number of groups)",
                   shape=tuple(scale.shape), expected=tuple(es.shape))
    if not torch.allclose(scale.double(), es.double(), rtol=1e-6, atol=0):
        return say("gives scales that differ from absmax / (2**(bits-1) - 1) of each group")
    if tuple(q.shape) != tuple(eq.shape):
        return say("gives q the shape {shape}; expected {expected}, the shape of W",
                   shape=tuple(q.shape), expected=tuple(eq.shape))
    if q.is_floating_point() or q.is_complex():
        return say("stores q as {dtype}; q holds integers (torch.int8 up to 8 bits, torch.int16 above)",
                   dtype=str(q.dtype).replace("torch.", ""))
    if not torch.equal(q.long(), eq.long()):
        n = int((q.long() != eq.long()).sum())
        return say("gives q that differs from the nearest level in {n} of {size} entries", n=n, size=q.numel())
    return None


def _truncated(W, bits, k):
    """No rounding: the cast to an integer cuts the fraction off (towards zero)."""
    q, scale = reference.quantize(W, bits, k)
    exact = reference.dequantize(q, scale)   # only for the shape of the groups
    groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / scale[..., None]
    return groups.reshape(exact.shape).to(q.dtype), scale


def _asymmetric(W, bits, k):
    """The range -2**(bits-1) .. 2**(bits-1) - 1 with scale = absmax / 2**(bits-1)."""
    q, scale = reference.quantize(W, bits, k)
    qmax = reference.levels(bits)
    wide = scale * qmax / (qmax + 1)
    groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / wide[..., None]
    return groups.round().clamp(-qmax - 1, qmax).reshape(q.shape).to(q.dtype), wide


def _per_column(got, W, bits, k):
    """A scale per input column (over the output rows): the wrong axis for nn.Linear's (d_out, d_in)."""
    scale = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 else None
    return (k == "row" and isinstance(scale, torch.Tensor) and scale.numel() == W.shape[1]
            and W.shape[0] != W.shape[1])


def _wrapped_int8(W, bits, k):
    """More than 8 bits stored in int8: 127 + 1 wraps to -128."""
    q, scale = reference.quantize(W, bits, k)
    return q.to(torch.int8), scale


def _nan_scale(got, *case):
    scale = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 else None
    return isinstance(scale, torch.Tensor) and scale.is_floating_point() and bool(
        (~torch.isfinite(scale)).any() or (scale == 0).any())


_IN_PLACE = Mistake("your function changed the tensor it was given, in place (W /= scale, or q.mul_?). The "
                    "caller still needs W as it was (to measure the error, for one): work on a new tensor.",
                    when=lambda got, *case: isinstance(got, _ChangedInPlace))

_QUANTIZE = Check(
    EX1,
    reference=reference.quantize,
    cases=_cases(),
    compare=_compare_q,
    mistakes=[
        _IN_PLACE,
        Mistake("an all-zero group got scale 0 (or NaN): absmax / qmax is 0 there, and 0 / 0 is NaN. "
                "Give an all-zero group scale 1: any scale stores it as q = 0, and 1 dequantises to exact 0.",
                when=_nan_scale),
        Mistake("q is W / scale cut towards zero, not rounded: call torch.round before you store "
                "integers (a cast to int drops the fraction, which doubles the largest error).",
                answer=_truncated),
        Mistake("q is W / scale without rounding: store the nearest level, torch.round(W / scale), "
                "as integers.",
                when=lambda got, W, bits, k: isinstance(got, (tuple, list)) and len(got) == 2
                and isinstance(got[0], torch.Tensor) and got[0].is_floating_point()
                and not torch.equal(got[0], got[0].round())),
        Mistake("you used the asymmetric range -2**(bits-1) .. 2**(bits-1) - 1 (-128..127 at 8 bits) with "
                "scale absmax / 2**(bits-1): the largest weight of each group then rounds to 128 and is "
                "clamped, and -q of a stored -128 does not exist. Use the symmetric levels "
                "+-(2**(bits-1) - 1): scale = absmax / 127 at 8 bits.",
                answer=_asymmetric),
        Mistake("your scale has one entry per input column: you took the absmax over the output rows "
                "(dim 0). nn.Linear stores W as (d_out, d_in); one scale per output row is the absmax over "
                "dim 1, that row's d_in weights.", when=_per_column),
        Mistake("at more than 8 bits, q does not fit in int8: 2**(bits-1) - 1 is 2047 at 12 bits and wraps "
                "around (127 + 1 = -128). Store int16 for 9 to 16 bits.",
                answer=_wrapped_int8),
    ],
    success="the same q and scales as helpers.quantize per tensor, per row and per group, an all-zero row "
            "and a row holding one huge weight included.",
    name="quantize",
)


def _pairs():
    return [reference.quantize(W, bits, k) for W, bits, k in _cases()]


def _forgot_scale(q, scale):
    return q.to(scale.dtype)


def _tiled(q, scale):
    """scale.repeat tiles the groups (0, 1, 2, 0, 1, 2, ...) where each covers k neighbours."""
    k = q.shape[1] // scale.shape[1]
    full = scale.repeat(1, k) if scale.shape[0] == q.shape[0] else scale.repeat(q.shape[0], k)
    return q.to(scale.dtype) * full


_DEQUANTIZE = Check(
    EX1,
    reference=reference.dequantize,
    cases=_pairs(),
    mistakes=[
        _IN_PLACE,
        Mistake("you returned q itself as floats: dequantizing multiplies each integer by its group's "
                "scale. A matmul on q without it gives outputs 1 / scale times too large (about 100 "
                "times here).", answer=_forgot_scale),
        Mistake("each scale was repeated as a tile (scale.repeat: groups 0, 1, 2, 0, 1, 2, ...), but group "
                "g covers the k neighbouring columns g*k .. g*k + k - 1: use repeat_interleave, or reshape q "
                "to (rows, n_groups, k) and multiply by scale[..., None].", answer=_tiled),
        Mistake("your answer holds integers: q * scale is a float tensor, in the scale's dtype.",
                when=lambda got, q, scale: isinstance(got, torch.Tensor) and not got.is_floating_point()),
    ],
    success="q times its group's scale, for every grouping tried.",
    name="dequantize",
)


def check_quantize(quantize, dequantize):
    """Exercise 1: the learner's quantize, then their dequantize (each against helpers.quantize)."""
    first = _QUANTIZE(_guarded(quantize))
    if first.status != "correct":
        return first
    return _DEQUANTIZE(_guarded(dequantize))


check_quantize = explained_calls(_QUANTIZE.exercise, check_quantize)   # called wrongly: how to call it


check_worse_guess = Prediction(
    "Exercise 2 (int4 per tensor or int3 per group of 64?)",
    why="A bit fewer halves the number of levels and doubles the step: per group, the step follows each "
        "group's own absmax, which helps, but not by a factor of 2 on these weights, which hold no large "
        "outliers. So int3 per group of 64 errs more than int4 per tensor here. With outliers (one huge "
        "weight per row) the small groups win, and that is why releases use int4 with groups of 128.",
    choices=("A", "B"),
    variable="my_guess",
)


check_share_guess = Prediction(
    "Exercise 3 (int8's share of the bytes)",
    why="A weight takes 1 byte instead of 4, so the weights shrink to a quarter; the biases stay float32 "
        "and each output row adds one float32 scale, 3,840 of each against 4.7 million weights: a little "
        "over 0.25.",
    rel=0.02,
    variable="my_share_guess",
)
