"""Notebook 14, exercise 1's second half: dequantize(q, scale), and check_quantize, which checks
quantize first and dequantize once quantize is right."""

import torch

from helpers.checks.compare import arrays
from helpers.checks.core import explained_calls
from helpers.checks.nb14_quantization.cases import _IN_PLACE, EX1, _ChangedInPlace, _guarded, _pairs
from helpers.checks.nb14_quantization.ex1_quantize import _QUANTIZE
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.quantize import dequantize as _dequantize


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
    if isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor) \
            and got.dtype != expected.dtype:
        return say("returns {dtype}; expected {expected}, the scale's dtype",
                   dtype=str(got.dtype).replace("torch.", ""),
                   expected=str(expected.dtype).replace("torch.", ""))
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
                when=lambda got, q, scale:
                    isinstance(got, torch.Tensor) and not got.is_floating_point()),
        Mistake("you divided q by the scale: quantize divided W by it, so dequantize multiplies.",
                answer=lambda q, scale: _dequantize(q, 1 / scale)),
        Mistake("{call} returns float32 where the scale is float64: the answer has the scale's "
                "dtype (did you call .float() on q, or on the product?). float32 would throw away "
                "the precision the caller asked for with float64 scales.",
                when=lambda got, q, scale: isinstance(got, torch.Tensor)
                and got.dtype == torch.float32 and scale.dtype == torch.float64),
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
