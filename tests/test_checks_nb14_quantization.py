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


def test_dequantize_in_another_dtype_is_named():
    """The spec: dequantize returns the scale's dtype; float32 for float64 scales is refused."""
    fb = checks.check_quantize(quantize, lambda q, s: dequantize(q, s).float())
    wrong_quantize(fb, "float32 where the scale is float64")
    wrong_quantize(checks.check_quantize(quantize, lambda q, s: dequantize(q, s).half()), "float16")


def test_dequantize_dividing_is_named():
    def divided(q, scale):
        return (q.reshape(scale.shape[0], scale.shape[1], -1).to(scale.dtype) / scale[..., None]).reshape(q.shape)
    wrong_quantize(checks.check_quantize(quantize, divided), "divided q by the scale")


def test_a_wide_integer_q_is_named():
    wrong_quantize(checks.check_quantize(with_quantize(lambda W, b, k, q, s: (q.long(), s)), dequantize), "one byte")
    wrong_quantize(checks.check_quantize(with_quantize(lambda W, b, k, q, s: (q.int(), s)), dequantize), "int32")


def scaled_by(divisor):
    def answer(W, bits, k):
        _, scale = quantize(W, bits, k)
        qmax = 2 ** (bits - 1) - 1
        scale = scale * qmax / divisor(bits)
        groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / scale[..., None]
        q = groups.round().clamp(-qmax, qmax).reshape(W.shape)
        return q.to(torch.int8 if bits <= 8 else torch.int16), scale
    return answer


def test_wrong_divisors_are_named():
    wrong_quantize(checks.check_quantize(scaled_by(lambda bits: 2 ** (bits - 1)), dequantize), "one more than the top")
    wrong_quantize(checks.check_quantize(scaled_by(lambda bits: 2 ** bits - 1), dequantize), "unsigned range")


def test_strided_groups_are_named():
    def strided(W, bits, k):
        if not isinstance(k, int):
            return quantize(W, bits, k)
        qmax = 2 ** (bits - 1) - 1
        groups = W.reshape(W.shape[0], k, -1)                     # (rows, k, n_groups): every n_groups-th column
        absmax = groups.abs().amax(dim=1)                         # (rows, n_groups)
        scale = torch.where(absmax > 0, absmax / qmax, torch.ones_like(absmax))
        q = torch.round(groups / scale[:, None, :]).clamp(-qmax, qmax).reshape(W.shape)
        return q.to(torch.int8 if bits <= 8 else torch.int16), scale
    wrong_quantize(checks.check_quantize(strided, dequantize), "neighbouring columns")


def test_an_epsilon_for_zero_groups_is_named():
    def epsilon(W, bits, k):
        q, scale = quantize(W, bits, k)
        return q, torch.where(scale == 1, torch.full_like(scale, 1e-8), scale)
    wrong_quantize(checks.check_quantize(epsilon, dequantize), "epsilon")


def test_the_check_keeps_its_reference_when_the_module_is_rebound(monkeypatch):
    """A learner who writes helpers.quantize.quantize = their function still gets the right verdicts."""
    def cut(W, bits, k):
        _, scale = quantize(W, bits, k)
        groups = W.to(scale.dtype).reshape(scale.shape[0], scale.shape[1], -1) / scale[..., None]
        return groups.reshape(W.shape).to(torch.int8 if bits <= 8 else torch.int16), scale
    monkeypatch.setattr(Q, "quantize", scaled_by(lambda bits: 2 ** (bits - 1)))   # their earlier, wrong try
    monkeypatch.setattr(Q, "dequantize", lambda q, s: q.to(s.dtype))
    wrong_quantize(checks.check_quantize(cut, dequantize), "rounded")
    assert checks.check_quantize(quantize, dequantize)
    wrong_quantize(checks.check_quantize(quantize, lambda q, s: q.to(s.dtype)), "q itself")


SHARE = 4_749_312 / 18_889_728


def test_share_guess_mistakes_are_named_apart():
    named = {25: "percent", 25.1: "percent", 4: "inverse", 3.98: "inverse", 0.3: "overestimates",
             0.26: "overestimates", 0.5: "16-bit", 0.125: "int4", 0.75: "saves", 0.2: "below a quarter",
             1: "same size", 2: "above 1", 0: "0 or less"}
    messages = set()
    for guess, word in named.items():
        fb = checks.check_share_guess(guess, SHARE)
        assert fb.status == "wrong" and word in str(fb), (guess, str(fb))
        messages.add(str(fb).split("0.251. ")[-1][:40])   # a percent is named before the run's answer
    assert len(messages) >= 9, messages


def test_share_answer_is_printed_at_a_stable_rounding():
    fb = checks.check_share_guess(0.25, SHARE)
    assert fb and "the run gives 0.251." in str(fb) and "0.2514" not in str(fb), str(fb)


def test_q_off_by_one_level_everywhere_is_named():
    shifted = with_quantize(lambda W, b, k, q, s: ((q.long() + 1).to(q.dtype), s))
    fb = checks.check_quantize(shifted, dequantize)
    assert fb.status == "wrong" and "set beside the nearest levels" in str(fb), fb
    assert "differs in" not in str(fb), fb
