"""Notebook 05's checks accept right answers written several ways and name the typical mistakes."""

import math
import subprocess
import sys
from collections import OrderedDict

import pytest
import scipy.optimize
import scipy.special
import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks import nb05_swiglu_gate as checks
from helpers.checks.nb05_swiglu_gate import (
    ex2_split_gate_up,
    ex4_multiplier_range,
    ex6_backward_cases,
)
from helpers.gated import GatedMLP, fuse_gate_up, llama_d_ff


def silu(z):
    return z * scipy.special.expit(z)


def test_silu_constants():
    assert math.isclose(checks.SILU_ONE, 1.278465, abs_tol=1e-6)
    assert math.isclose(silu(checks.SILU_ONE), 1.0, abs_tol=1e-12)
    # the minimum, found another way: the root of SiLU's slope, 1 + z * (1 - sigmoid(z)) = 0
    root = scipy.optimize.brentq(lambda z: 1 + z * (1 - scipy.special.expit(z)), -3.0, 0.0, xtol=1e-13)
    assert abs(root - checks.SILU_ARGMIN) < 1e-12
    found = scipy.optimize.minimize_scalar(silu, bounds=(-3, 0), method="bounded", options={"xatol": 1e-9})
    assert abs(found.x - checks.SILU_ARGMIN) < 1e-9 + 2 * math.sqrt(2.2e-16) * 1.3
    assert math.isclose(checks.SILU_MIN, 1 - checks.SILU_ONE, abs_tol=1e-12)   # min = 1 - a
    assert f"{checks.SILU_MIN:.6f}" == "-0.278465" and f"{checks.SILU_ARGMIN:.6f}" == "-1.278465"


class Stub(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_stubs_are_not_attempted():
    for fb in [checks.check_fused_swiglu(Stub), checks.check_fused_swiglu(None),
               checks.check_split_gate_up(lambda state_dict: None),
               checks.check_multiplier_range(lambda d, m, n: None),
               checks.check_gate_preactivation(lambda g: None), checks.check_gates_above_one(None, 0.013),
               checks.check_gated_mlp_backward(lambda x, W_gate, W_up, W_down, grad_out: None)]:
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise"), fb
        assert "Hint" not in str(fb)


# ---- Exercise 1 ----------------------------------------------------------------------------


ABOVE = 644 / 49152   # the notebook's run: 644 of 256 x 192 gates above 1


def test_gates_above_one_prediction():
    fb = checks.check_gates_above_one(0.013, ABOVE)
    assert fb and "you predicted 0.013, the run gives 0.013" in fb.message
    assert checks.check_gates_above_one(0.01, ABOVE) and checks.check_gates_above_one(0.02, ABOVE)


def test_the_tolerance_separates_the_right_model_from_the_likely_wrong_ones():
    """std(z) = sqrt(64 / (3 * 64)) gives the run's share; z of std 1, half the gates, or none are rejected."""
    z_std = math.sqrt(64 / (3 * 64))
    right = scipy.special.ndtr(-checks.SILU_ONE / z_std)
    assert abs(right - ABOVE) < 0.1 * ABOVE, "the normal model gives the run's share"
    assert checks.check_gates_above_one(right, ABOVE)
    for wrong_model in (scipy.special.ndtr(-checks.SILU_ONE), 0.5, 0.0, scipy.special.ndtr(-1.0)):
        assert not checks.check_gates_above_one(wrong_model, ABOVE), wrong_model


@pytest.mark.parametrize(("guess", "words"), [
    (0.0, "a switch's answer"),
    (0.5, "half is the share of positive (or of negative) gates"),
    (0.501, "half is the share of positive"),                       # 05's old answer, the negative gates
    (0.9, "More than half cannot be"),
    (0.1, "standard deviation about 1"),
    (0.16, "standard deviation about 1"),
    (0.005, "the wrong tail"),
    (0.04, "the wrong tail"),
    (1.3, "a percent; the question asks for a fraction"),
])
def test_gates_above_one_mistakes_are_named(guess, words):
    fb = checks.check_gates_above_one(guess, ABOVE)
    assert not fb and words in fb.message, fb.message
    if guess > 1:   # a percent is named before the run's answer is given
        return
    assert fb.message.startswith(f"you predicted {guess:.3f}, the run gives 0.013. "), fb.message
    assert fb.message.endswith(checks.check_gates_above_one.why), "the why still follows the mistake"


def test_a_guess_that_is_not_a_number_is_told_so():
    fb = checks.check_gates_above_one("few", ABOVE)
    assert not fb and "not a number" in fb.message


def test_importing_and_calling_the_checks_leaves_torch_generator_alone():
    code = ("import torch, helpers, importlib; s = torch.get_rng_state(); "
            "m = importlib.import_module('helpers.checks.nb05_swiglu_gate'); "
            "assert torch.equal(s, torch.get_rng_state()), 'import'; "
            "m.check_split_gate_up(lambda d: None); list(m.ex2_split_gate_up._SPLIT_CASES); m.check_gated_mlp_backward(lambda *a: 1); "
            "assert torch.equal(s, torch.get_rng_state()), 'call'; print('ok')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300)
    assert run.stdout.strip() == "ok", run.stderr[-2000:]


# ---- Exercise 2 ----------------------------------------------------------------------------


def split_by_chunk(state_dict):
    gate, up = state_dict["gate_up_proj.weight"].chunk(2, dim=0)
    return {"gate_proj.weight": gate, "up_proj.weight": up, "down_proj.weight": state_dict["down_proj.weight"]}


def split_by_down_shape(state_dict):
    d_ff = state_dict["down_proj.weight"].shape[1]
    fused = state_dict["gate_up_proj.weight"]
    return OrderedDict([("gate_proj.weight", fused[:d_ff].clone()), ("up_proj.weight", fused[d_ff:].clone()),
                        ("down_proj.weight", state_dict["down_proj.weight"].clone())])


@pytest.mark.parametrize("split", [split_by_chunk, split_by_down_shape])
def test_split_gate_up_accepts_right_answers(split):
    fb = checks.check_split_gate_up(split)
    assert fb and str(fb).startswith("[correct] Exercise 2"), fb
    assert checks.check_split_gate_up(split_by_chunk), "the cases are intact after each answer"


def test_the_split_checkpoint_loads_and_computes_what_the_fused_mlp_computes():
    for (state,) in ex2_split_gate_up._SPLIT_CASES:
        d_ff, d_model = state["down_proj.weight"].shape[1], state["down_proj.weight"].shape[0]
        mlp = GatedMLP(d_model, d_ff).double()
        mlp.load_state_dict(ex2_split_gate_up._split(state))        # strict: exactly GatedMLP's keys and shapes
        fused = fuse_gate_up(mlp)
        fused.load_state_dict(state)
        x = torch.randn(3, d_model, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        with torch.no_grad():
            torch.testing.assert_close(mlp(x), fused(x), rtol=0, atol=1e-12)


def test_the_split_agrees_with_transformers_phi3_and_llama():
    """Phi-3 stores gate_up_proj fused; the split loads into transformers' Llama MLP with the same output."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaMLP
    from transformers.models.phi3.modeling_phi3 import Phi3MLP

    small = {"hidden_act": "silu", "num_attention_heads": 2, "num_key_value_heads": 2}
    phi3 = Phi3MLP(transformers.Phi3Config(hidden_size=8, intermediate_size=24, **small)).double()
    llama = LlamaMLP(transformers.LlamaConfig(hidden_size=8, intermediate_size=24, **small)).double()
    llama.load_state_dict(ex2_split_gate_up._split(phi3.state_dict()))
    x = torch.randn(2, 5, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(llama(x), phi3(x), rtol=0, atol=1e-12)


def _down(s):
    return s["down_proj.weight"]


@pytest.mark.parametrize(("answer", "words"), [
    (lambda s: {**split_by_chunk(s), "gate_up_proj.weight": s["gate_up_proj.weight"]}, "keeps gate_up_proj.weight"),
    (lambda s: {k.removesuffix(".weight"): v for k, v in split_by_chunk(s).items()}, "names the layers"),
    (lambda s: {k: v for k, v in split_by_chunk(s).items() if k != "down_proj.weight"}, "has no 'down_proj.weight'"),
    (lambda s: {"gate_proj.weight": s["gate_up_proj.weight"].chunk(2)[1],
                "up_proj.weight": s["gate_up_proj.weight"].chunk(2)[0], "down_proj.weight": _down(s)},
     "second half of gate_up_proj's rows"),
    (lambda s: {"gate_proj.weight": s["gate_up_proj.weight"].chunk(2, dim=1)[0],
                "up_proj.weight": s["gate_up_proj.weight"].chunk(2, dim=1)[1], "down_proj.weight": _down(s)},
     "along its columns (dim=1)"),
    (lambda s: {k: v.T for k, v in split_by_chunk(s).items()}, "transposes a weight"),
    (lambda s: {**split_by_chunk(s), "down_proj.weight": _down(s).T}, "transposes a weight"),
    (lambda s: {k: v.float() for k, v in split_by_chunk(s).items()}, "the dtype float32"),
    (lambda s: {k: v * 2 for k, v in split_by_chunk(s).items()}, "other numbers than the checkpoint holds"),
    (lambda s: [split_by_chunk(s)["gate_proj.weight"]], "expected a dict with the keys"),
])
def test_split_gate_up_mistakes_are_named(answer, words):
    fb = checks.check_split_gate_up(answer)
    assert not fb and fb.status == "wrong" and words in fb.message, fb.message
    assert "<fused state_dict, d_model=8, d_ff=24>" in fb.message, "the case by what it holds, not tensor by tensor"


def test_split_gate_up_is_tried_on_a_second_size():
    def hard_coded(s):                     # d_ff = 24 written in: right for the first case only
        w = s["gate_up_proj.weight"]
        return {"gate_proj.weight": w[:24], "up_proj.weight": w[24:], "down_proj.weight": _down(s)}

    fb = checks.check_split_gate_up(hard_coded)
    assert not fb and "d_model=6, d_ff=16" in fb.message, fb.message


# ---- Exercise 3 ----------------------------------------------------------------------------


def make_fused(halves="chunk", act=None, separate=False, bias=False, on="gate", combine=torch.mul,
               act_after=False, no_down=False, skip_down=False):
    class FusedSwiGLU(nn.Module):
        def __init__(self, d_model, d_ff):
            super().__init__()
            self.d_ff = d_ff
            if separate:
                self.gate_proj = nn.Linear(d_model, d_ff, bias=False)
                self.up_proj = nn.Linear(d_model, d_ff, bias=False)
            else:
                self.gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=bias)
            if not no_down:
                self.down_proj = nn.Linear(d_ff, d_model, bias=False)
            self.act_fn = act or nn.SiLU()

        def forward(self, x):
            both = self.gate_up_proj(x)
            if halves == "chunk":
                gate, up = both.chunk(2, dim=-1)
            elif halves == "split":
                gate, up = both.split(self.d_ff, dim=-1)
            elif halves == "slices":
                gate, up = both[..., : self.d_ff], both[..., self.d_ff:]
            elif halves == "up first":
                up, gate = both.chunk(2, dim=-1)
            else:
                gate, up = both[..., 0::2], both[..., 1::2]
            if act_after:
                h = self.act_fn(combine(gate, up))
            elif on == "both":
                h = combine(self.act_fn(gate), self.act_fn(up))
            elif on == "up":
                h = combine(gate, self.act_fn(up))
            else:
                h = combine(self.act_fn(gate), up)
            return h if no_down or skip_down else self.down_proj(h)

    return FusedSwiGLU


class FunctionalSwiGLU(nn.Module):
    """Right too: F.silu in forward instead of an act_fn submodule, and an explicit split."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=False)
        self.down_proj = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        d_ff = self.down_proj.in_features
        both = self.gate_up_proj(x)
        return self.down_proj(torch.nn.functional.silu(both[..., :d_ff]) * both[..., d_ff:])


@pytest.mark.parametrize("cls", [make_fused("chunk"), make_fused("split"), make_fused("slices"), FunctionalSwiGLU])
def test_fused_swiglu_accepts_right_answers(cls):
    fb = checks.check_fused_swiglu(cls)
    assert fb and str(fb).startswith("[correct] Exercise 3"), fb


class TwoSeparate(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.gate_proj = nn.Linear(d_model, d_ff, bias=False)
        self.up_proj = nn.Linear(d_model, d_ff, bias=False)
        self.down_proj = nn.Linear(d_ff, d_model, bias=False)


@pytest.mark.parametrize(("cls", "words"), [
    (make_fused("up first"), "The first half is the gate"),
    (make_fused("interleaved"), "every other output"),
    (make_fused(on="both"), "SiLU to both halves"),
    (make_fused(on="up"), "The first half is the gate"),   # the same output as up first
    (make_fused(act=nn.GELU()), "GEGLU"),
    (make_fused(act=nn.ReLU()), "ReGLU"),
    (make_fused(act=nn.Sigmoid()), "original GLU"),
    (make_fused(act=nn.Identity()), "no activation on the gate"),
    (make_fused(combine=torch.add), "you added the two halves"),
    (make_fused(act_after=True), "SiLU comes after the product"),
    (make_fused(skip_down=True), "did you forget the down-projection"),
    (make_fused(no_down=True), "your module has no down_proj"),
    (make_fused(separate=True), "still has separate gate_proj and up_proj"),
    (TwoSeparate, "still has separate gate_proj and up_proj"),
    (make_fused(bias=True), "have no bias"),
])
def test_fused_swiglu_mistakes_are_named(cls, words):
    fb = checks.check_fused_swiglu(cls)
    assert not fb and fb.status == "wrong" and words in fb.message, fb.message


# ---- Exercise 4 ----------------------------------------------------------------------------


def multiplier_range(d_model, multiple_of, intermediate_size):
    w = int(2 * (4 * d_model) / 3)
    return (intermediate_size - multiple_of + 1) / w, (intermediate_size + 1) / w


def multiplier_range_by_steps(d_model, multiple_of, intermediate_size):
    """Right too, written in the rule's order, with exact fractions."""
    from fractions import Fraction

    width = 2 * (4 * d_model) // 3                       # step 1, rounded down
    smallest, largest = intermediate_size - multiple_of + 1, intermediate_size   # step 3, backwards
    return float(Fraction(smallest, width)), float(Fraction(largest + 1, width))   # step 2, backwards


@pytest.mark.parametrize("answer", [multiplier_range, multiplier_range_by_steps,
                                    lambda d, m, n: list(multiplier_range(d, m, n))])
def test_multiplier_range_accepts_right_answers(answer):
    fb = checks.check_multiplier_range(answer)
    assert fb and "[1.2189, 1.3127)" in fb.message, fb


@pytest.mark.parametrize(("d_model", "multiple_of", "published", "multiplier"), [
    (4096, 1024, 14336, 1.3),     # Llama-3-8B
    (8192, 4096, 28672, 1.3),     # Llama-2-70B and Llama-3-70B
    (16384, 4096, 53248, 1.2),    # Llama-3.1-405B
    (4096, 256, 11008, 1.0),      # Llama-2-7B: no multiplier is a multiplier of 1
])
def test_the_reference_range_is_exactly_the_multipliers_that_give_the_width(d_model, multiple_of, published,
                                                                            multiplier):
    low, high = ex4_multiplier_range._multiplier_range(d_model, multiple_of, published)
    assert low <= multiplier < high
    for m in (low + 1e-9, (low + high) / 2, high - 1e-9, multiplier):
        assert llama_d_ff(d_model, multiple_of, m) == published, m
    assert llama_d_ff(d_model, multiple_of, low - 1e-9) == published - multiple_of
    assert llama_d_ff(d_model, multiple_of, high + 1e-9) == published + multiple_of


def _with(w=None, lo=lambda n, m: n - m + 1, hi=lambda n, m: n + 1):
    def answer(d, m, n):
        width = int(8 * d / 3) if w is None else w(d)
        return lo(n, m) / width, hi(n, m) / width
    return answer


@pytest.mark.parametrize(("answer", "words"), [
    (lambda d, m, n: multiplier_range(d, m, n)[::-1], "returned (high, low)"),
    (lambda d, m, n: (n - m + 1, n + 1), "returned widths, not multipliers"),
    (_with(lo=lambda n, m: n, hi=lambda n, m: n + m), "step 3 rounds UP"),
    (_with(lo=lambda n, m: n + 1, hi=lambda n, m: n + m + 1), "step 3 rounds UP"),
    (_with(lo=lambda n, m: n - m, hi=lambda n, m: n), "both bounds are one off"),
    (_with(lo=lambda n, m: n - m + 1, hi=lambda n, m: n), "your high bound is one short. Step 2 rounds m * w down"),
    (_with(lo=lambda n, m: n - m, hi=lambda n, m: n + 1), "your low bound lets in the width intermediate_size - "
                                                          "multiple_of, which is a multiple itself: step 3"),
    (_with(w=lambda d: round(8 * d / 3)), "step 1 rounds 8 * d_model / 3 DOWN"),
    (lambda d, m, n: tuple(x * (1 + 3e-6) for x in multiplier_range(d, m, n)), "a search stops near a bound"),
    (_with(w=lambda d: 8 * d / 3), "divided by 8 * d_model / 3 itself"),
    (_with(w=lambda d: 4 * d), "divided by 4 * d_model"),
    (lambda d, m, n: 1.3, "expected a pair (low, high)"),
])
def test_multiplier_range_mistakes_are_named(answer, words):
    fb = checks.check_multiplier_range(answer)
    assert not fb and fb.status == "wrong" and words in fb.message, fb.message


# ---- Exercise 5 ----------------------------------------------------------------------------


def _inverse_silu(g):
    return scipy.optimize.brentq(lambda z: silu(z) - g, checks.SILU_ARGMIN, g + 1.0)


def bisection(g, steps=60):
    lo, hi = -1.278465, max(g, 0.0) + 1.0
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if silu(mid) < g else (lo, mid)
    return (lo + hi) / 2


def newton(g):
    z = max(g, 0.0) + 1.0                       # right of the answer: SiLU is convex there, Newton goes left
    for _ in range(60):
        s = scipy.special.expit(z)
        z -= (z * s - g) / (s * (1 + z * (1 - s)))
    return z


@pytest.mark.parametrize("answer", [_inverse_silu, bisection, newton])
def test_gate_preactivation_accepts_right_answers(answer):
    fb = checks.check_gate_preactivation(answer)
    assert fb and all(f"{_inverse_silu(g):.3f}" in fb.message for g in [0.1, 1.5, 2.0]), fb


@pytest.mark.parametrize(("answer", "words"), [
    (lambda g: g, "returned the gate itself"),
    (lambda g: silu(g), "that is SiLU(g)"),
    (lambda g: math.log(g / (1 - g)) if 0 < g < 1 else float("nan"), "inverts sigmoid"),
    (lambda g: _inverse_silu(g) if g >= 0 else
     scipy.optimize.brentq(lambda z: silu(z) - g, -20, checks.SILU_ARGMIN), "left of SiLU's minimum"),
    (lambda g: bisection(g, steps=12), "halve it more times"),
    (lambda g: "z", "expected one number"),
])
def test_gate_preactivation_mistakes_are_named(answer, words):
    fb = checks.check_gate_preactivation(answer)
    assert not fb and words in fb.message, fb.message


# ---- Exercise 6 ----------------------------------------------------------------------------


def backward(x, W_gate, W_up, W_down, grad_out, slope="right", gate_term=True, up_term=True, dx="both",
             swap=False, transpose=None, mean=False, ones=False):
    """The gated MLP's backward by hand, with one slip switched on at a time (the defaults are right)."""
    grad_out = torch.ones_like(grad_out) if ones else grad_out
    z, u = x @ W_gate, x @ W_up
    s = torch.sigmoid(z)
    g = z * s
    h = g * u
    dW_down = grad_out.T @ h if transpose == "dW_down" else h.T @ grad_out
    dh = grad_out @ W_down.T
    dg = dh * u if gate_term else dh
    du = dh * g if up_term else dh
    slopes = {"right": s * (1 + z * (1 - s)), "none": 1.0, "sigmoid": s, "sigmoid'": s * (1 - s),
              "at g": torch.sigmoid(g) * (1 + g * (1 - torch.sigmoid(g)))}
    dz = dg * slopes[slope]
    dW_gate = dz.T @ x if transpose == "dW_gate" else x.T @ dz
    dW_up = x.T @ du
    dx_terms = {"both": dz @ W_gate.T + du @ W_up.T, "gate": dz @ W_gate.T, "up": du @ W_up.T}
    d_x = dx_terms[dx]
    if mean:
        dW_gate, dW_up, dW_down = dW_gate / len(x), dW_up / len(x), dW_down / len(x)
    return (dW_up, dW_gate, dW_down, d_x) if swap else (dW_gate, dW_up, dW_down, d_x)


def backward_with_functional(x, W_gate, W_up, W_down, grad_out):
    """Right too: F.silu for the gate, SiLU's slope as sigmoid + SiLU * (1 - sigmoid), one tuple."""
    z = x @ W_gate
    g, u = F.silu(z), x @ W_up
    dh = grad_out @ W_down.T
    dz = dh * u * (torch.sigmoid(z) + g * (1 - torch.sigmoid(z)))
    du = dh * g
    return x.T @ dz, x.T @ du, (g * u).T @ grad_out, dz @ W_gate.T + du @ W_up.T


def backward_in_float32(x, W_gate, W_up, W_down, grad_out):
    return tuple(t.double() for t in backward(*(a.float() for a in (x, W_gate, W_up, W_down, grad_out))))


@pytest.mark.parametrize("answer", [backward, backward_with_functional,
                                    lambda *a: list(backward(*a))])
def test_backward_accepts_right_answers(answer):
    fb = checks.check_gated_mlp_backward(answer)
    assert fb and str(fb).startswith("[correct] Exercise 6"), fb


def test_the_reference_is_autograd_and_agrees_with_the_hand_derivation():
    for case in ex6_backward_cases._BACKWARD_CASES:
        for mine, theirs in zip(backward(*case), ex6_backward_cases._autograd(*case), strict=True):
            torch.testing.assert_close(mine, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("slip", "words"), [
    (dict(slope="none"), "SiLU's slope is missing"),
    (dict(slope="sigmoid"), "you took sigmoid(z) as SiLU's slope"),
    (dict(slope="sigmoid'"), "you took sigmoid's slope"),
    (dict(slope="at g"), "at its output g instead of at its input z"),
    (dict(gate_term=False), "missing a term on the gate side"),
    (dict(up_term=False), "missing a term on the up side"),
    (dict(dx="gate"), "dx has only the gate's path"),
    (dict(dx="up"), "dx has only the up branch's path"),
    (dict(swap=True), "dW_gate and dW_up are swapped"),
    (dict(mean=True), "divided the weight gradients by the number of tokens"),
    (dict(ones=True), "you ignored grad_out"),
    (dict(transpose="dW_down"), "dW_down has shape (6, 16), the transpose of the expected (16, 6): a missing transpose"),
    (dict(transpose="dW_gate"), "dW_gate has shape (16, 6), the transpose"),
])
def test_backward_mistakes_are_named(slip, words):
    fb = checks.check_gated_mlp_backward(lambda *a: backward(*a, **slip))
    assert not fb and words in fb.message, (slip, fb.message)
    assert fb.message.startswith("gated_mlp_backward((5, 6) array, (6, 16) array, (6, 16) array, (16, 6) array, "
                                 "(5, 6) array)"), fb.message


def test_a_product_of_mismatched_shapes_points_at_the_transpose():
    def no_transpose(x, W_gate, W_up, W_down, grad_out):
        return grad_out @ W_down                       # (5, 6) @ (16, 6): torch refuses
    fb = checks.check_gated_mlp_backward(no_transpose)
    assert not fb and "the sign of a missing transpose" in fb.message, fb.message


def by_autograd(x, W_gate, W_up, W_down, grad_out):
    leaves = [t.clone().requires_grad_() for t in (W_gate, W_up, W_down, x)]
    wg, wu, wd, xx = leaves
    ((F.silu(xx @ wg) * (xx @ wu)) @ wd).backward(grad_out)
    return tuple(t.grad for t in leaves)


def by_autograd_grad(x, W_gate, W_up, W_down, grad_out):
    leaves = [t.clone().requires_grad_() for t in (W_gate, W_up, W_down, x)]
    wg, wu, wd, xx = leaves
    return torch.autograd.grad((F.silu(xx @ wg) * (xx @ wu)) @ wd, leaves, grad_out)


def by_factory_flag(x, W_gate, W_up, W_down, grad_out):
    wd = torch.tensor(W_down.tolist(), dtype=torch.float64, requires_grad=True)
    return backward(x, W_gate, W_up, wd.detach(), grad_out)


@pytest.mark.parametrize("cheat", [by_autograd, by_autograd_grad, by_factory_flag])
def test_autograd_is_refused(cheat):
    fb = checks.check_gated_mlp_backward(cheat)
    assert not fb and "used autograd" in fb.message, fb.message


@pytest.mark.parametrize("edit", ["x", "W_gate", "grad_out"])
def test_inputs_edited_in_place_are_refused(edit):
    def in_place(x, W_gate, W_up, W_down, grad_out):
        grads = backward(x, W_gate, W_up, W_down, grad_out)
        {"x": x, "W_gate": W_gate, "grad_out": grad_out}[edit].mul_(2)   # right gradients, then an edit
        return grads

    fb = checks.check_gated_mlp_backward(in_place)
    assert not fb and f"changed {edit} in place" in fb.message, fb.message
    assert checks.check_gated_mlp_backward(backward), "the check's own cases are intact"


def test_backward_other_answers():
    fb = checks.check_gated_mlp_backward(lambda *a: backward(*a)[:3])
    assert not fb and "return the four gradients as a tuple" in fb.message
    fb = checks.check_gated_mlp_backward(lambda *a: backward(*a, slope="none", dx="gate"))   # two slips at once
    assert not fb and "dW_gate, dx differ from autograd's, dW_up, dW_down agree" in fb.message, fb.message
    fb = checks.check_gated_mlp_backward(backward_in_float32)
    assert not fb and "differ from autograd's" in fb.message


def test_a_split_that_empties_the_callers_checkpoint_is_named():
    def popping(state):
        gate, up = state.pop("gate_up_proj.weight").chunk(2)
        state["gate_proj.weight"], state["up_proj.weight"] = gate, up
        return state

    fb = checks.check_split_gate_up(popping)
    assert fb.status == "wrong" and "changed the checkpoint" in str(fb) and "'gate_proj.weight'" in str(fb), str(fb)


@pytest.mark.parametrize("order", [(0, 1, 3, 2), (3, 0, 1, 2), (2, 1, 0, 3)])
def test_gradients_in_another_order_are_named(order):
    def shuffled(*case):
        grads = backward(*case)
        return tuple(grads[i] for i in order)

    fb = checks.check_gated_mlp_backward(shuffled)
    assert not fb and "in another order" in str(fb) and "transpose" not in str(fb), str(fb)


def test_a_split_over_the_tokens_is_named():
    class SplitOverTokens(nn.Module):
        def __init__(self, d_model, d_ff):
            super().__init__()
            self.gate_up_proj = nn.Linear(d_model, 2 * d_ff, bias=False)
            self.down_proj = nn.Linear(d_ff, d_model, bias=False)
            self.act_fn = nn.SiLU()

        def forward(self, x):
            gate, up = self.gate_up_proj(x).chunk(2, dim=0)
            return self.down_proj(self.act_fn(gate) * up)

    fb = checks.check_fused_swiglu(SplitOverTokens)
    assert not fb and "split gate_up_proj's output along the tokens (dim 0)" in fb.message, fb.message
    assert "cannot be multiplied" not in fb.message
