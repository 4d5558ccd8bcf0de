"""Notebook 17's checks accept a right answer and name typical mistakes."""

import torch
import torch.nn.functional as F

from helpers.checks import nb17_fusing_the_mlp as checks


def _function(forward, backward, save=lambda ctx, g, u: ctx.save_for_backward(g, u)):
    """A SiluMul-like autograd.Function from a forward (g, u) -> out and a backward (g, u, d) -> grads."""

    class Made(torch.autograd.Function):
        @staticmethod
        def forward(ctx, gate, up):
            save(ctx, gate, up)
            return forward(gate, up)

        @staticmethod
        def backward(ctx, grad_out):
            gate, up = ctx.saved_tensors
            return backward(gate, up, grad_out)

    return Made


def _silu_grad(g):
    s = torch.sigmoid(g)
    return s * (1 + g * (1 - s))


RIGHT = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: (d * u * _silu_grad(g), d * F.silu(g)))


class Stub(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError


def _said(fb):
    return str(fb).lower()


def test_not_attempted():
    for fb in [checks.check_silu_mul(None), checks.check_silu_mul(lambda g, u: None),
               checks.check_silu_mul_function(None), checks.check_silu_mul_function(Stub),
               checks.check_cross_guess(None, 384), checks.check_saved_share_guess(None, 22.9)]:
        assert fb.status == "not attempted" and "Hint" not in str(fb), fb


def test_right_answers():
    assert checks.check_silu_mul(lambda g, u: F.silu(g) * u)
    assert checks.check_silu_mul(lambda g, u: g * torch.sigmoid(g) * u)
    assert checks.check_silu_mul_function(RIGHT)
    assert checks.check_cross_guess(384, 384)
    assert checks.check_cross_guess(380, 384)   # a whole number of tokens: within rounding, not a guess's width
    assert checks.check_cross_guess(400, 384).status == "wrong"
    assert checks.check_saved_share_guess(23, 22.9)
    assert checks.check_saved_share_guess(0.22, 22.9).status == "wrong"   # a fraction for a percent is named


def test_silu_mul_mistakes_are_named():
    assert "sigmoid(gate) * up" in str(checks.check_silu_mul(lambda g, u: torch.sigmoid(g) * u))
    assert "swapped" in _said(checks.check_silu_mul(lambda g, u: F.silu(u) * g))
    assert "no activation" in _said(checks.check_silu_mul(lambda g, u: g * u))
    fb = checks.check_silu_mul(lambda g, u: F.silu(g, inplace=True) * u)
    assert fb.status == "wrong" and "in place" in _said(fb), fb


def test_derivative_mistakes_are_named():
    sigmoid_alone = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: (d * u * torch.sigmoid(g), d * F.silu(g)))
    assert "sigmoid(gate) alone" in str(checks.check_silu_mul_function(sigmoid_alone))
    crossed = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: (d * F.silu(g), d * u * _silu_grad(g)))
    assert "crossed" in _said(checks.check_silu_mul_function(crossed))
    no_grad_out = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: (u * _silu_grad(g), F.silu(g)))
    assert "grad_out" in str(checks.check_silu_mul_function(no_grad_out))
    no_up = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: (d * _silu_grad(g), d * F.silu(g)))
    assert "factor up" in str(checks.check_silu_mul_function(no_up))


def test_saved_and_in_place_mistakes_are_named():
    def saves_silu(ctx, g, u):
        ctx.save_for_backward(g, u, F.silu(g))

    class SavesSilu(torch.autograd.Function):
        @staticmethod
        def forward(ctx, gate, up):
            saves_silu(ctx, gate, up)
            return F.silu(gate) * up

        @staticmethod
        def backward(ctx, grad_out):
            gate, up, s = ctx.saved_tensors
            return grad_out * up * _silu_grad(gate), grad_out * s

    fb = checks.check_silu_mul_function(SavesSilu)
    assert fb.status == "wrong" and "save_for_backward" in str(fb) and "recompute" in str(fb), fb

    def keeps_on_ctx(ctx, g, u):
        ctx.save_for_backward(g, u)
        ctx.sig = torch.sigmoid(g)

    on_ctx = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: (d * u * _silu_grad(g), d * F.silu(g)),
                       save=keeps_on_ctx)
    assert "kept on ctx" in str(checks.check_silu_mul_function(on_ctx))

    def keeps_in_a_tuple(ctx, g, u):   # a cache inside a container, not a tensor attribute itself
        ctx.save_for_backward(g, u)
        ctx.cache = (torch.sigmoid(g), {"silu": F.silu(g)})

    in_tuple = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: (d * u * _silu_grad(g), d * F.silu(g)),
                         save=keeps_in_a_tuple)
    fb = checks.check_silu_mul_function(in_tuple)
    assert fb.status == "wrong" and "keeps 2 tensor(s)" in str(fb), fb

    class OnTheClass(torch.autograd.Function):
        store = {"scale": torch.ones(1)}   # the class's own tensor, there before forward: not counted

        @staticmethod
        def forward(ctx, gate, up):
            ctx.save_for_backward(gate, up)
            OnTheClass.store["s"] = torch.sigmoid(gate)
            return F.silu(gate) * up

        @staticmethod
        def backward(ctx, grad_out):
            gate, up = ctx.saved_tensors
            return grad_out * up * _silu_grad(gate), grad_out * F.silu(gate)

    fb = checks.check_silu_mul_function(OnTheClass)
    assert fb.status == "wrong" and "keeps 1 tensor(s)" in str(fb) and "on the class" in str(fb), fb
    assert not checks.works(OnTheClass)

    def overwrite(g, u, d):   # Liger's trick, on the caller's tensors
        grad_gate, grad_up = d * u * _silu_grad(g), d * F.silu(g)
        g.data.copy_(grad_gate)
        u.data.copy_(grad_up)
        return g, u

    fb = checks.check_silu_mul_function(_function(lambda g, u: F.silu(g) * u, overwrite))
    assert fb.status == "wrong" and "backward wrote into" in str(fb), fb

    def forward_in_place(g, u):
        return F.silu(g.data.mul_(1.0), inplace=False) * u.data.mul_(2.0)

    fb = checks.check_silu_mul_function(_function(forward_in_place, lambda g, u, d: (d, d)))
    assert fb.status == "wrong" and "in place" in str(fb), fb


def test_other_failures_are_sentences():
    one_grad = _function(lambda g, u: F.silu(g) * u, lambda g, u, d: d * u * _silu_grad(g))
    fb = checks.check_silu_mul_function(one_grad)
    assert fb.status == "wrong" and "two tensors" in str(fb), fb
    assert "torch.autograd.Function" in str(checks.check_silu_mul_function(lambda g, u: F.silu(g) * u))
    wrong_value = _function(lambda g, u: torch.sigmoid(g) * u, lambda g, u, d: (d, d))
    assert "differ" in str(checks.check_silu_mul_function(wrong_value))


def test_prediction_mistakes_are_named():
    assert "four passes" in str(checks.check_cross_guess(1536, 384))
    assert "fused" in str(checks.check_cross_guess(768, 384))
    assert "decode" in str(checks.check_cross_guess(1, 384))
    assert "g and u" in str(checks.check_saved_share_guess(80, 22.9))
    assert "five passes" in str(checks.check_cross_guess(307, 384))
    assert "three passes" in str(checks.check_cross_guess(512, 384))
    share = 100 * 11008 / (4096 + 4 * 11008)
    assert "leaves x out" in str(checks.check_saved_share_guess(25, share))
    assert "counts x twice" in str(checks.check_saved_share_guess(21.1, share))
    assert "not the same size" in str(checks.check_saved_share_guess(20, share))
    for near in (22, 23.5):   # within rounding
        assert checks.check_saved_share_guess(near, share).status == "correct", near
    assert checks.check_cross_guess(380, 384).status == "correct"
