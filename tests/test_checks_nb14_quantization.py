"""Notebook 14's checks accept a right answer and name typical mistakes."""

import torch

from helpers import quantize as Q
from helpers.checks import nb14_quantization as checks


def quantize(W, bits, group_size):
    """A learner's right answer, written out (not the reference's code)."""
    qmax = 2 ** (bits - 1) - 1
    rows, d_in = W.shape
    if group_size == "tensor":
        groups = W.reshape(1, 1, -1)
    elif group_size == "row":
        groups = W.reshape(rows, 1, d_in)
    else:
        groups = W.reshape(rows, d_in // group_size, group_size)
    absmax = groups.abs().amax(dim=-1)
    scale = torch.where(absmax > 0, absmax / qmax, torch.ones_like(absmax))
    q = torch.round(groups / scale[..., None]).clamp(-qmax, qmax)
    return q.to(torch.int8 if bits <= 8 else torch.int16).reshape(W.shape), scale


def dequantize(q, scale):
    k = q.shape[1] // scale.shape[1]
    full = scale.repeat_interleave(k, dim=1) if scale.shape[0] == q.shape[0] else None
    if full is None:
        return (q.reshape(1, 1, -1).to(scale.dtype) * scale[..., None]).reshape(q.shape)
    return q.to(scale.dtype) * full


def with_quantize(change):
    """quantize with one line changed: change(W, bits, k, q, scale) -> (q, scale)."""
    def answer(W, bits, k):
        q, scale = quantize(W, bits, k)
        return change(W, bits, k, q, scale)
    return answer


def wrong_quantize(fb, word):
    assert fb.status == "wrong" and word in str(fb), fb


def test_not_attempted():
    def stub_q(W, bits, group_size):
        return None

    def stub_d(q, scale):
        return None
    for fb in [checks.check_quantize(None, None), checks.check_quantize(stub_q, stub_d),
               checks.check_worse_guess(None, "B")]:
        assert fb.status == "not attempted" and "Hint" not in str(fb)
    assert checks.check_quantize(quantize, stub_d).status == "not attempted"


def test_right_answers():
    assert checks.check_quantize(quantize, dequantize)
    assert checks.check_quantize(Q.quantize, Q.dequantize)
    assert checks.check_worse_guess("B", "B")
    assert checks.check_worse_guess("b", "B")


def test_no_rounding_is_named():
    def truncated(W, bits, k):
        q, scale = quantize(W, bits, k)
        return q, scale  # replaced below
    def cut(W, bits, k):
        _, scale = quantize(W, bits, k)
        rows = scale.shape[0]
        groups = W.to(scale.dtype).reshape(rows, scale.shape[1], -1) / scale[..., None]
        return groups.reshape(W.shape).to(torch.int8 if bits <= 8 else torch.int16), scale
    wrong_quantize(checks.check_quantize(cut, dequantize), "rounded")

    def floats(W, bits, k):
        _, scale = quantize(W, bits, k)
        groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / scale[..., None]
        return groups.reshape(W.shape), scale
    wrong_quantize(checks.check_quantize(floats, dequantize), "without rounding")


def test_asymmetric_range_is_named():
    def asymmetric(W, bits, k):
        q, scale = quantize(W, bits, k)
        scale = scale * (2 ** (bits - 1) - 1) / 2 ** (bits - 1)
        groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / scale[..., None]
        q = groups.round().clamp(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1).reshape(W.shape)
        return q.to(torch.int8 if bits <= 8 else torch.int16), scale
    wrong_quantize(checks.check_quantize(asymmetric, dequantize), "asymmetric")


def test_wrong_axis_is_named():
    def per_column(W, bits, k):
        if k != "row":
            return quantize(W, bits, k)
        q, scale = quantize(W.T.contiguous(), bits, "row")
        return q.T, scale.T
    wrong_quantize(checks.check_quantize(per_column, dequantize), "dim 0")


def test_overflow_and_zero_rows_are_named():
    wrong_quantize(checks.check_quantize(with_quantize(lambda W, b, k, q, s: (q.to(torch.int8), s)), dequantize),
                   "wraps")

    def no_guard(W, bits, k):
        q, scale = quantize(W, bits, k)
        groups = W.reshape(scale.shape[0], scale.shape[1], -1)
        return q, groups.abs().amax(dim=-1) / (2 ** (bits - 1) - 1)
    wrong_quantize(checks.check_quantize(no_guard, dequantize), "all-zero")


def test_in_place_edits_are_named():
    def in_place(W, bits, k):
        q, scale = quantize(W, bits, k)
        W.zero_()
        return q, scale
    wrong_quantize(checks.check_quantize(in_place, dequantize), "in place")


def test_dequantize_mistakes_are_named():
    wrong_quantize(checks.check_quantize(quantize, lambda q, s: q.to(s.dtype)), "q itself")

    def tiled(q, scale):
        if scale.shape[0] == 1:
            return dequantize(q, scale)
        return q.to(scale.dtype) * scale.repeat(1, q.shape[1] // scale.shape[1])
    wrong_quantize(checks.check_quantize(quantize, tiled), "repeat_interleave")
    wrong_quantize(checks.check_quantize(quantize, lambda q, s: dequantize(q, s).round().long()), "integers")


def test_wrong_guess():
    fb = checks.check_worse_guess("A", "B")
    assert fb.status == "wrong", fb


def test_share_guess():
    assert checks.check_share_guess(None, 0.2514).status == "not attempted"
    assert checks.check_share_guess(0.25, 0.2514)
    assert checks.check_share_guess(0.5, 0.2514).status == "wrong"
