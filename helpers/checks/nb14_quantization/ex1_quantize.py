"""Notebook 14, exercise 1's first half: quantize(W, bits, group_size) against helpers.quantize,
with the typical wrong (q, scale) each named."""

import torch

from helpers.checks.compare import arrays
from helpers.checks.nb14_quantization.cases import _IN_PLACE, EX1, _cases, _ChangedInPlace
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.quantize import dequantize as _dequantize
from helpers.quantize import levels as _levels
from helpers.quantize import quantize as _quantize


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
        return say("stores q as {dtype}; above 8 bits q is torch.int16",
                   dtype=str(q.dtype).replace("torch.", ""))
    if not torch.equal(q.long(), eq.long()):
        return say("gives q that, set beside the nearest levels, {problem}",
                   problem=arrays(atol=0, rtol=0)(q, eq))
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
    return bool(zero_groups.any()) and not torch.allclose(scale.double()[zero_groups],
                                                          expected.double()[zero_groups])


def _divided_by(divisor):
    """scale = absmax / divisor(bits), the levels still clamped to +-(2**(bits-1) - 1)."""
    def answer(W, bits, k):
        q, scale = _quantize(W, bits, k)
        qmax = _levels(bits)
        wrong_scale = scale * qmax / divisor(bits)
        groups = (W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1)
                  / wrong_scale[..., None])
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
