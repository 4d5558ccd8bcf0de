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

from helpers.checks.compare import arrays
from helpers.checks.core import explained_calls
from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import say
from helpers.quantize import dequantize as _dequantize
from helpers.quantize import levels as _levels
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
    # one weight 60 times the rest
    huge[4, 7] = 3.0
    wide = torch.randn(4, 15, generator=g)                              # 15 = 3 groups of 5
    return [(W, 4, "row"), (W, 4, "tensor"), (W, 3, 4), (zero_row, 8, "row"), (zero_row, 4, 3),
            (huge, 4, "row"), (huge, 4, 6), (wide, 4, 5), (wide, 2, 3), (W.double(), 12, "row")]


def _compare_q(got, expected):
    """(q, scale) pairs: q the same integers in an integer dtype, scale of the same shape and
    values."""
    if isinstance(got, _ChangedInPlace):
        return say("changed the W it was given")
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return say("returned {kind}; expected a pair (q, scale)", kind=type(got).__name__)
    q, scale = got
    eq, es = expected
    if not isinstance(q, torch.Tensor) or not isinstance(scale, torch.Tensor):
        return say("returned q and scale that are not both torch tensors")
    if tuple(scale.shape) != tuple(es.shape):
        return say("gives scale the shape {shape}; expected {expected} (rows "
                   "or 1, number of groups)",
                   shape=tuple(scale.shape), expected=tuple(es.shape))
    if not torch.allclose(scale.double(), es.double(), rtol=1e-6, atol=0):
        return say("gives scales that differ from absmax / (2**(bits-1) - 1) of each group")
    if tuple(q.shape) != tuple(eq.shape):
        return say("gives q the shape {shape}; expected {expected}, the shape of W",
                   shape=tuple(q.shape), expected=tuple(eq.shape))
    if q.is_floating_point() or q.is_complex():
        return say("stores q as {dtype}; q holds integers (torch.int8 up to 8 "
                   "bits, torch.int16 above)",
                   dtype=str(q.dtype).replace("torch.", ""))
    if q.dtype != eq.dtype and eq.dtype == torch.int8:
        return say("stores q as {dtype}: up to 8 bits a weight fits torch.int8, one byte, "
                   "which is the point of quantising (a wider integer stores as many "
                   "bytes as the float it replaced)",
                   dtype=str(q.dtype).replace("torch.", ""))
    if q.dtype != eq.dtype:
        return say("stores q as {dtype}; above 8 bits q is torch.int16", dtype=str(q.dtype).replace("torch.", ""))
    if not torch.equal(q.long(), eq.long()):
        return say("gives q that, set beside the nearest levels, {problem}", problem=arrays(atol=0, rtol=0)(q, eq))
    return None


def _truncated(W, bits, k):
    """No rounding: the cast to an integer cuts the fraction off (towards zero)."""
    q, scale = _quantize(W, bits, k)
    exact = _dequantize(q, scale)   # only for the shape of the groups
    groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / scale[..., None]
    return groups.reshape(exact.shape).to(q.dtype), scale


def _asymmetric(W, bits, k):
    """The range -2**(bits-1) .. 2**(bits-1) - 1 with scale = absmax / 2**(bits-1)."""
    q, scale = _quantize(W, bits, k)
    qmax = _levels(bits)
    wide = scale * qmax / (qmax + 1)
    groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / wide[..., None]
    return groups.round().clamp(-qmax - 1, qmax).reshape(q.shape).to(q.dtype), wide


def _per_column(got, W, bits, k):
    """A scale per input column (over the output rows): the wrong axis for nn.Linear's (d_out,
    d_in)."""
    scale = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 else None
    return (k == "row" and isinstance(scale, torch.Tensor) and scale.numel() == W.shape[1]
            and W.shape[0] != W.shape[1])


def _wrapped_int8(W, bits, k):
    """More than 8 bits stored in int8: 127 + 1 wraps to -128."""
    q, scale = _quantize(W, bits, k)
    return q.to(torch.int8), scale


def _nan_scale(got, *case):
    scale = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 else None
    return isinstance(scale, torch.Tensor) and scale.is_floating_point() and bool(
        (~torch.isfinite(scale)).any() or (scale == 0).any())


def _zero_group_not_one(got, W, bits, k):
    """An all-zero group got a tiny scale (absmax clamped to an epsilon), not 1."""
    _, expected = _quantize(W, bits, k)
    scale = got[1] if isinstance(got, (tuple, list)) and len(got) == 2 else None
    if not isinstance(scale, torch.Tensor) or scale.shape != expected.shape:
        return False
    ones = expected == 1
    zero_groups = ones & (_quantize(W, bits, k)[0].reshape(*expected.shape, -1) == 0).all(dim=-1)
    return bool(zero_groups.any()) and not torch.allclose(scale.double()[zero_groups], expected.double()[zero_groups])


def _divided_by(divisor):
    """scale = absmax / divisor(bits), the levels still clamped to +-(2**(bits-1) - 1)."""
    def answer(W, bits, k):
        q, scale = _quantize(W, bits, k)
        qmax = _levels(bits)
        wrong_scale = scale * qmax / divisor(bits)
        groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / wrong_scale[..., None]
        return groups.round().clamp(-qmax, qmax).reshape(q.shape).to(q.dtype), wrong_scale
    return answer


def _strided_groups(W, bits, k):
    """Groups of every n_groups-th column (reshape to (rows, k, n_groups)), not k neighbours."""
    q, scale = _quantize(W, bits, k)
    if not isinstance(k, int) or k == W.shape[1]:
        raise ValueError("not a grouping")
    qmax = _levels(bits)
    # (rows, n_groups, k), strided
    strided = W.reshape(W.shape[0], k, -1).transpose(1, 2)
    absmax = strided.abs().amax(dim=-1)
    wrong_scale = torch.where(absmax == 0, torch.ones_like(absmax), absmax / qmax)
    wrong_q = torch.round(strided / wrong_scale[..., None]).clamp(-qmax, qmax).transpose(1, 2)
    return wrong_q.reshape(W.shape).to(q.dtype), wrong_scale


_IN_PLACE = Mistake("your function changed the tensor it was given, in place (W /= scale, "
                    "or q.mul_?). The caller still needs W as it was (to measure the error, "
                    "for one): work on a new tensor.",
                    when=lambda got, *case: isinstance(got, _ChangedInPlace))

_QUANTIZE = Check(
    EX1,
    reference=_quantize,
    cases=_cases(),
    compare=_compare_q,
    mistakes=[
        _IN_PLACE,
        Mistake("an all-zero group got scale 0 (or NaN): absmax / qmax is 0 there, and 0 "
                "/ 0 is NaN. Give an all-zero group scale 1: any scale stores it as q = "
                "0, and 1 dequantises to exact 0.",
                when=_nan_scale),
        Mistake("q is W / scale cut towards zero, not rounded: call torch.round before you store "
                "integers (a cast to int drops the fraction, which doubles the largest error).",
                answer=_truncated),
        Mistake("q is W / scale without rounding: store the nearest level, torch.round(W / scale), "
                "as integers.",
                when=lambda got, W, bits, k: isinstance(got, (tuple, list)) and len(got) == 2
                and isinstance(got[0], torch.Tensor) and got[0].is_floating_point()
                and not torch.equal(got[0], got[0].round())),
        Mistake("an all-zero group got a tiny scale (an epsilon), not 1: it stores q = 0 "
                "either way, but the exercise asks for scale 1, which dequantises to exact 0 "
                "and keeps every scale a sane number.",
                when=_zero_group_not_one),
        Mistake("you used the range -2**(bits-1) .. 2**(bits-1) - 1 (-128..127 at 8 bits) "
                "with scale absmax / 2**(bits-1): the largest weight of each group then "
                "rounds to 128 and is clamped, and -q of a stored -128 does not exist. An "
                "asymmetric range is a format of its own, with a zero point stored per group "
                "(section 3); this exercise asks for absmax's symmetric levels +-(2**(bits-1) "
                "- 1): scale = absmax / 127 at 8 bits.",
                answer=_asymmetric),
        Mistake("your scale is absmax / 2**(bits-1) (128 at 8 bits, 8 at 4 bits), one "
                "more than the top level: the largest weight then lands on 2**(bits-1) - "
                "1 only after rounding, and every step is a little too small. Divide by "
                "the top level, 2**(bits-1) - 1.",
                answer=_divided_by(lambda bits: 2 ** (bits - 1))),
        Mistake("your scale is absmax / (2**bits - 1), as if every one of the 2**bits codes lay "
                "between 0 and absmax: that is the count of an unsigned range, the zero-point "
                "format's. Absmax's levels run from -(2**(bits-1) - 1) to 2**(bits-1) - 1, so "
                "the top level is 2**(bits-1) - 1.",
                answer=_divided_by(lambda bits: 2 ** bits - 1)),
        Mistake("your groups are not k neighbouring columns: reshaping a row to (k, n_groups) puts "
                "every n_groups-th column into one group. Reshape to (rows, n_groups, k), so that "
                "group g holds columns g*k .. g*k + k - 1.",
                answer=_strided_groups),
        Mistake("your scale has one entry per input column: you took the absmax over the output "
                "rows (dim 0). nn.Linear stores W as (d_out, d_in); one scale per output row is "
                "the absmax over dim 1, that row's d_in weights.",
                when=_per_column),
        Mistake("at more than 8 bits, q does not fit in int8: 2**(bits-1) - 1 is 2047 at 12 bits "
                "and wraps around (127 + 1 = -128). Store int16 for 9 to 16 bits.",
                answer=_wrapped_int8),
    ],
    success="the same q and scales as helpers.quantize per tensor, per row and per group, an "
            "all-zero row and a row holding one huge weight included.",
    name="quantize",
)


def _pairs():
    return [_quantize(W, bits, k) for W, bits, k in _cases()]


def _forgot_scale(q, scale):
    return q.to(scale.dtype)


def _tiled(q, scale):
    """scale.repeat tiles the groups (0, 1, 2, 0, 1, 2, ...) where each covers k neighbours."""
    k = q.shape[1] // scale.shape[1]
    full = scale.repeat(1, k) if scale.shape[0] == q.shape[0] else scale.repeat(q.shape[0], k)
    return q.to(scale.dtype) * full


_VALUES = arrays()


def _compare_dequantized(got, expected):
    """Values as arrays() compares them, and the dtype the spec names: the scale's."""
    if isinstance(got, _ChangedInPlace):
        return say("changed the q or scale it was given")
    if isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor) and got.dtype != expected.dtype:
        return say("returns {dtype}; expected {expected}, the scale's dtype",
                   dtype=str(got.dtype).replace("torch.", ""), expected=str(expected.dtype).replace("torch.", ""))
    return _VALUES(got, expected)


_DEQUANTIZE = Check(
    EX1,
    reference=_dequantize,
    cases=_pairs(),
    compare=_compare_dequantized,
    mistakes=[
        _IN_PLACE,
        Mistake("you returned q itself as floats: dequantizing multiplies each integer by "
                "its group's scale. A matmul on q without it gives outputs 1 / scale times "
                "too large (about 100 times here).",
                answer=_forgot_scale),
        Mistake("each scale was repeated as a tile (scale.repeat: groups 0, 1, 2, 0, 1, "
                "2, ...), but group g covers the k neighbouring columns g*k .. g*k + k - "
                "1: use repeat_interleave, or reshape q to (rows, n_groups, k) and "
                "multiply by scale[..., None].",
                answer=_tiled),
        Mistake("your answer holds integers: q * scale is a float tensor, in the scale's dtype.",
                when=lambda got, q, scale: isinstance(got, torch.Tensor) and not got.is_floating_point()),
        Mistake("you divided q by the scale: quantize divided W by it, so dequantize multiplies.",
                answer=lambda q, scale: _dequantize(q, 1 / scale)),
        Mistake("{call} returns float32 where the scale is float64: the answer has the scale's "
                "dtype (did you call .float() on q, or on the product?). float32 would throw away "
                "the precision the caller asked for with float64 scales.",
                when=lambda got, q, scale: isinstance(got, torch.Tensor) and got.dtype == torch.float32
                and scale.dtype == torch.float64),
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


# called wrongly: how to call it
check_quantize = explained_calls(_QUANTIZE.exercise, check_quantize)


check_worse_guess = Prediction(
    "Exercise 2 (int4 per tensor or int3 per group of 64?)",
    why="A bit fewer halves the number of levels and doubles the step: per group, the step "
        "follows each group's own absmax, which helps, but not by a factor of 2 on these weights, "
        "which hold no large outliers. So int3 per group of 64 errs more than int4 per tensor "
        "here. With outliers (one huge weight per row) the small groups win, and that is why "
        "releases use int4 with groups of 128.",
    choices=("A", "B"),
    variable="my_guess",
)


def _near(target, rel=0.1):
    """when(guess, actual): the guess lies within rel of target(actual)."""
    return lambda guess, actual: abs(guess - target(actual)) <= rel * abs(target(actual))


check_share_guess = NamedPrediction(
    "Exercise 3 (int8's share of the bytes)",
    why="A weight takes 1 byte instead of 4, so the weights shrink to a quarter; the biases "
        "stay float32 and each output row adds one float32 scale, 3,840 of each against 4.7 "
        "million weights: a little over 0.25.",
    rel=0.02,
    variable="my_share_guess",
    fmt="{:.3g}",
    mistakes=[
        Mistake("That is a percent: the question asks for a share as a fraction, 0.5 for a half.",
                when=_near(lambda actual: 100 * actual)),
        Mistake("That is float32's bytes over int8's, the inverse: the question asks what share of "
                "float32's bytes the int8 copy takes, a number below 1.",
                when=_near(lambda actual: 1 / actual)),
        Mistake("0.5 is int8 against 16-bit floats (2 bytes a weight); this MLP is "
                "float32, 4 bytes a weight.",
                when=_near(lambda actual: 0.5, rel=0.05)),
        Mistake("0.125 is int4's share of float32 (half a byte against 4); the copy "
                "stores int8, 1 byte a weight.",
                when=_near(lambda actual: 0.125, rel=0.1)),
        Mistake("0.75 is what int8 saves, not what it keeps: the question "
                "asks for the share it takes.",
                when=_near(lambda actual: 0.75, rel=0.05)),
        Mistake("That overestimates the biases and scales: they are 3,840 float32 numbers each, "
                "against 4.7 million weights, and add about a thousandth to the quarter.",
                when=lambda guess, actual: 1.02 * actual < guess < 0.45),
        Mistake("No share can be below a quarter here: each weight still takes 1 of float32's 4 "
                "bytes, and the biases and scales add a little on top.",
                when=lambda guess, actual: 0 < guess < 0.98 * actual and abs(guess - 0.125) > 0.0125),
        Mistake("int8 stores the weights in 1 byte instead of 4: the copy is much smaller than the "
                "float32 MLP, not about the same size.",
                when=lambda guess, actual: 0.8 <= guess <= 1.2),
        Mistake("A share above 1 would make the int8 copy larger than the float32 MLP; it stores "
                "each weight in 1 byte of float32's 4.",
                when=lambda guess, actual: guess > 1.2),
        Mistake("A share of 0 or less cannot be: the int8 copy still stores "
                "every weight, in 1 byte.",
                when=lambda guess, actual: guess <= 0),
    ],
)
