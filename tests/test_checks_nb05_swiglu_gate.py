"""Notebook 05's checks accept a right answer and name typical mistakes."""

import math

import pytest
import scipy.optimize
import scipy.special
import torch
from torch import nn

from helpers.checks import nb05_swiglu_gate as checks


def silu(z):
    return z * scipy.special.expit(z)


def test_silu_constants():
    assert math.isclose(checks.SILU_ONE, 1.2785, abs_tol=1e-4)
    assert math.isclose(silu(checks.SILU_ONE), 1.0, abs_tol=1e-12)
    found = scipy.optimize.minimize_scalar(silu, bounds=(-3, 0), method="bounded", options={"xatol": 1e-9})
    assert math.isclose(found.x, checks.SILU_ARGMIN, abs_tol=1e-5)
    assert math.isclose(checks.SILU_MIN, 1 - checks.SILU_ONE, abs_tol=1e-12)   # min = 1 - a


def make_swiglu(act=None, bias=False, swap=False, on="gate", combine=torch.mul, skip_down=False,
                no_down=False, act_after=False):
    class SwiGLU(nn.Module):
        def __init__(self, d_model, d_ff):
            super().__init__()
            shape = (d_ff, d_model) if swap else (d_model, d_ff)
            self.gate_proj = nn.Linear(*shape, bias=bias)
            self.up_proj = nn.Linear(d_model, d_ff, bias=bias)
            if not no_down:
                self.down_proj = nn.Linear(d_ff, d_model, bias=bias)
            self.act_fn = act or nn.SiLU()

        def forward(self, x):
            g, u = self.gate_proj(x), self.up_proj(x)
            if act_after:
                return self.down_proj(self.act_fn(g * u))
            g, u = (self.act_fn(g), u) if on == "gate" else (g, self.act_fn(u))
            h = combine(g, u)
            return h if skip_down or no_down else self.down_proj(h)

    return SwiGLU


class Stub(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_stubs_are_not_attempted():
    for fb in [checks.check_swiglu(Stub), checks.check_swiglu(None), checks.check_fused_swiglu(Stub),
               checks.check_llama_width(lambda d, m=256, f=None: None),
               checks.check_gate_preactivation(lambda g: None), checks.check_negative_gates(None, 0.5)]:
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise"), fb
        assert "Hint" not in str(fb)


def test_a_llama_swiglu_is_correct():
    fb = checks.check_swiglu(make_swiglu())
    assert fb and str(fb).startswith("[correct] Exercise 2")


@pytest.mark.parametrize("cls, words", [
    (make_swiglu(bias=True), "have no bias"),
    (make_swiglu(swap=True), "did you swap the two sizes"),
    (make_swiglu(on="up"), "Gate and up are swapped"),
    (make_swiglu(act=nn.GELU()), "GEGLU"),
    (make_swiglu(act=nn.ReLU()), "ReGLU"),
    (make_swiglu(act=nn.Sigmoid()), "original GLU"),
    (make_swiglu(act=nn.Identity()), "no activation on the gate"),
    (make_swiglu(combine=torch.add), "you added the two branches"),
    (make_swiglu(act_after=True), "SiLU comes after the product"),
    (make_swiglu(skip_down=True), "did you forget the down-projection self.down_proj"),
    (make_swiglu(no_down=True), "your module has no down_proj"),
])
def test_swiglu_mistakes_are_named(cls, words):
    fb = checks.check_swiglu(cls)
    assert not fb and fb.status == "wrong"
    assert words in fb.message, fb.message


def make_fused(gate_first=True, separate=False, bias=False):
    class FusedSwiGLU(nn.Module):
        def __init__(self, d_model, d_ff):
            super().__init__()
            self.d_ff = d_ff
            if separate:
                self.gate_proj = nn.Linear(d_model, d_ff, bias=False)
                self.up_proj = nn.Linear(d_model, d_ff, bias=False)
            else:
                self.gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=bias)
            self.down_proj = nn.Linear(d_ff, d_model, bias=False)
            self.act_fn = nn.SiLU()

        def forward(self, x):
            first, second = self.gate_up_proj(x).chunk(2, dim=-1)
            gate, up = (first, second) if gate_first else (second, first)
            return self.down_proj(self.act_fn(gate) * up)

    return FusedSwiGLU


def test_fused_swiglu():
    assert checks.check_fused_swiglu(make_fused())
    fb = checks.check_fused_swiglu(make_fused(gate_first=False))
    assert not fb and "second half" in fb.message
    fb = checks.check_fused_swiglu(make_fused(separate=True))
    assert not fb and "still has separate gate_proj and up_proj" in fb.message
    fb = checks.check_fused_swiglu(make_fused(bias=True))
    assert not fb and "have no bias" in fb.message
    fb = checks.check_fused_swiglu(make_swiglu())
    assert not fb and "still has separate" in fb.message


def llama_width(d_model, multiple_of=256, ffn_dim_multiplier=None):
    d_ff = int(2 * (4 * d_model) / 3)
    if ffn_dim_multiplier is not None:
        d_ff = int(ffn_dim_multiplier * d_ff)
    return multiple_of * math.ceil(d_ff / multiple_of)


@pytest.mark.parametrize("mistake, words", [
    (lambda d, m=256, f=None: int(2 * 4 * d / 3 * (f or 1)) // m * m, "rounded down"),
    (lambda d, m=256, f=None: int(2 * 4 * d / 3), "not a multiple"),
    (lambda d, m=256, f=None: 4 * d, "plain FFN"),
    (lambda d, m=256, f=None: llama_width(d, m), "left out ffn_dim_multiplier"),
    (lambda d, m=256, f=None: llama_width(d, m) if f is None else m * math.ceil(int(f * llama_width(d, m)) / m),
     "after rounding"),
    (lambda d, m=256, f=None: llama_width(d, m) if f is None else m * math.ceil(int(f * 4 * d) / m), "2/3 * 4d width"),
    (lambda d, m=256, f=None: (int(int(2 * 4 * d / 3) * (f or 1)) // m + 1) * m, "always add one more"),
])
def test_llama_width(mistake, words):
    assert checks.check_llama_width(llama_width)
    fb = checks.check_llama_width(mistake)
    assert not fb and words in fb.message, fb.message


def _inverse_silu(g):
    return scipy.optimize.brentq(lambda z: silu(z) - g, checks.SILU_ARGMIN, g + 1.0)


def test_gate_preactivation():
    fb = checks.check_gate_preactivation(_inverse_silu)
    assert fb and all(f"{_inverse_silu(g):.3f}" in fb.message for g in [0.1, 1.5, 2.0])
    fb = checks.check_gate_preactivation(lambda g: g)
    assert not fb and "returned the gate itself" in fb.message
    fb = checks.check_gate_preactivation(lambda g: math.log(g / (1 - g)) if 0 < g < 1 else float("nan"))
    assert not fb and "inverts sigmoid" in fb.message
    left = lambda g: scipy.optimize.brentq(lambda z: silu(z) - g, -20, checks.SILU_ARGMIN)  # noqa: E731
    fb = checks.check_gate_preactivation(lambda g: _inverse_silu(g) if g >= 0 else left(g))
    assert not fb and "left of SiLU's minimum" in fb.message
    fb = checks.check_gate_preactivation(lambda g: "z")
    assert not fb and "expected one number" in fb.message


def test_negative_gates_prediction():
    fb = checks.check_negative_gates(0.5, 0.497)
    assert fb and "you predicted 0.50, the run gives 0.50" in fb.message
    fb = checks.check_negative_gates(0.0, 0.497)
    assert not fb and "flip the sign" in fb.message
