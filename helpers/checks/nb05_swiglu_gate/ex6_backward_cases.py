"""Exercise 6's cases and slips: the gated MLP's gradients by hand with each typical slip
switched on, autograd's gradients, and the cases the check tries."""

import torch
import torch.nn.functional as F

from helpers.checks.nb05_swiglu_gate.shared import _Lazy
from helpers.checks.runner import Mistake

_GRADS = ("dW_gate", "dW_up", "dW_down", "dx")


def _silu_slope(z):
    """SiLU'(z) = sigmoid(z) * (1 + z * (1 - sigmoid(z)))."""
    s = torch.sigmoid(z)
    return s * (1 + z * (1 - s))


def _sigmoid_slope(z):
    """sigmoid'(z) = sigmoid(z) * (1 - sigmoid(z)), a mistake's slope for SiLU."""
    return torch.sigmoid(z) * (1 - torch.sigmoid(z))


def _backward(x, W_gate, W_up, W_down, grad_out, slope=_silu_slope, gate_term=True, up_term=True,
              dx_paths=("gate", "up"), per_token=False):
    """The gated MLP's gradients, or a typical mistake's (the keywords turn one step wrong)."""
    z, u = x @ W_gate, x @ W_up
    g = F.silu(z)
    h = g * u
    dW_down = h.T @ grad_out
    dh = grad_out @ W_down.T
    # the product rule: each factor's gradient is dh times the other
    dg = dh * u if gate_term else dh
    du = dh * g if up_term else dh
    dz = dg * slope(z)
    dW_gate, dW_up = x.T @ dz, x.T @ du
    dx = sum(d @ W.T for path, d, W in (("gate", dz, W_gate), ("up", du, W_up)) if path in dx_paths)
    grads = (dW_gate, dW_up, dW_down, dx)
    if per_token:
        grads = tuple(t / len(x) for t in grads[:3]) + (dx,)
    return grads


def _autograd(x, W_gate, W_up, W_down, grad_out):
    """The reference: autograd through the forward pass, on the check's own copies."""
    leaves = [t.detach().clone().requires_grad_() for t in (x, W_gate, W_up, W_down)]
    xx, wg, wu, wd = leaves
    with torch.enable_grad():
        out = (F.silu(xx @ wg) * (xx @ wu)) @ wd
        grads = torch.autograd.grad(out, leaves, grad_out)
    d_x, d_gate, d_up, d_down = (t.detach() for t in grads)
    return d_gate, d_up, d_down, d_x


def _backward_cases():
    """Two cases (x, W_gate, W_up, W_down, grad_out), drawn from the check's own generator."""
    g = torch.Generator().manual_seed(6)

    def case(T, d_model, d_ff):
        def draw(*shape, scale=1.0):
            return torch.randn(*shape, generator=g, dtype=torch.float64) * scale

        return (draw(T, d_model), draw(d_model, d_ff, scale=d_model ** -0.5),
                draw(d_model, d_ff, scale=d_model ** -0.5), draw(d_ff, d_model, scale=d_ff ** -0.5),
                draw(T, d_model))

    return [case(5, 6, 16), case(3, 8, 24)]


_BACKWARD_CASES = _Lazy(_backward_cases)
_INPUTS = ("x", "W_gate", "W_up", "W_down", "grad_out")


def _swapped_gate_up(*case):
    d_gate, d_up, d_down, d_x = _backward(*case)
    return d_up, d_gate, d_down, d_x


_BACKWARD_MISTAKES = [
    Mistake("SiLU's slope is missing: the gate is g = SiLU(z), so dz = dg * SiLU'(z), with "
            "SiLU'(z) = sigmoid(z) * (1 + z * (1 - sigmoid(z))).",
            answer=lambda *c: _backward(*c, slope=torch.ones_like)),
    Mistake("you took sigmoid(z) as SiLU's slope, as if SiLU(z) were z times a constant: the "
            "product rule on z * sigmoid(z) adds z * sigmoid'(z), so "
            "SiLU'(z) = sigmoid(z) * (1 + z * (1 - sigmoid(z))).",
            answer=lambda *c: _backward(*c, slope=torch.sigmoid)),
    Mistake("you took sigmoid's slope, sigmoid(z) * (1 - sigmoid(z)), for SiLU's: "
            "SiLU(z) = z * sigmoid(z), so its slope is sigmoid(z) * (1 + z * (1 - sigmoid(z))).",
            answer=lambda *c: _backward(*c, slope=_sigmoid_slope)),
    Mistake("you differentiated SiLU at its output g instead of at its input z: SiLU'(z), with "
            "z = x @ W_gate.",
            answer=lambda *c: _backward(*c, slope=lambda z: _silu_slope(F.silu(z)))),
    Mistake("the product rule is missing a term on the gate side: h = g * u, so dg = dh * u (the "
            "up value), not dh alone.", answer=lambda *c: _backward(*c, gate_term=False)),
    Mistake("the product rule is missing a term on the up side: h = g * u, so du = dh * g (the "
            "gate), not dh alone.", answer=lambda *c: _backward(*c, up_term=False)),
    Mistake("dx has only the gate's path: x feeds both branches, so "
            "dx = dz @ W_gate.T + du @ W_up.T.",
            answer=lambda *c: _backward(*c, dx_paths=("gate",))),
    Mistake("dx has only the up branch's path: x feeds both branches, so "
            "dx = dz @ W_gate.T + du @ W_up.T.",
            answer=lambda *c: _backward(*c, dx_paths=("up",))),
    Mistake("dW_gate and dW_up are swapped: SiLU's slope belongs to the gate branch "
            "(z = x @ W_gate); the up branch's gradient is x.T @ (dh * g). Return (dW_gate, dW_up, "
            "dW_down, dx) in that order.",
            answer=_swapped_gate_up),
    Mistake("you divided the weight gradients by the number of tokens: grad_out already holds each "
            "token's gradient, and a weight's gradient is the sum over the tokens, x.T @ dz.",
            answer=lambda *c: _backward(*c, per_token=True)),
    Mistake("you ignored grad_out (as if it were all ones): the backward pass starts from the "
            "upstream gradient, dh = grad_out @ W_down.T and dW_down = h.T @ grad_out.",
            answer=lambda *c: _backward(*c[:4], torch.ones_like(c[4]))),
]
