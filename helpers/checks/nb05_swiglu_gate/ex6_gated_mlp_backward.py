"""Exercise 6 (stretch): `gated_mlp_backward(x, W_gate, W_up, W_down, grad_out)`, the gated
MLP's backward pass by hand (the gradients of its three weights and of x), compared with
autograd; a wrong answer is put down to its slip, its order or its shape."""

import itertools

import torch

from helpers.checks.autograd_watch import AutogradWatch
from helpers.checks.calling import attempt, outcome
from helpers.checks.core import referee
from helpers.checks.nb05_swiglu_gate.ex6_backward_cases import (
    _BACKWARD_CASES,
    _BACKWARD_MISTAKES,
    _GRADS,
    _INPUTS,
    _autograd,
)
from helpers.checks.show import call_str, describe, one_line, say, shape_str
from helpers.checks.verdict import correct, wrong

EX6 = "Exercise 6 (the gated MLP's backward pass)"


def _close(got, expected):
    """True when got is a tensor of expected's shape within float64 rounding of it."""
    return (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(expected.shape)
            and torch.allclose(got.detach().double(), expected, rtol=1e-9, atol=1e-10))


def _same_all(got, expected):
    return all(_close(g, e) for g, e in zip(got, expected, strict=True))


def _order_problem(got, expected):
    """A sentence when the four gradients are right but returned in another order, else None."""
    for order in itertools.permutations(range(4)):
        if order != (0, 1, 2, 3) and all(_close(got[i], expected[j]) for i, j in enumerate(order)):
            return say("your four gradients are right, but in another order: you returned ({got}); "
                       "return them as (dW_gate, dW_up, dW_down, dx)",
                       got=", ".join(_GRADS[j] for j in order))
    return None


def _shape_problem(got, expected, case):
    """A sentence when one of the four has the wrong shape (naming a missing transpose), or None."""
    sizes = {"T": case[0].shape[0], "d_model": case[0].shape[1], "d_ff": case[1].shape[1]}
    for name, g, e in zip(_GRADS, got, expected, strict=True):
        if not isinstance(g, torch.Tensor):
            return say("{name} is {got}; expected a tensor of shape {shape}",
                       name=name, got=describe(g), shape=shape_str(e.shape))
        if tuple(g.shape) != tuple(e.shape):
            if tuple(g.shape) == tuple(e.shape)[::-1]:
                return say("{name} has shape {shape}, the transpose of the expected {expected}: a "
                           "missing transpose. For y = a @ W the weight's gradient is a.T @ dy, "
                           "shaped like W (here (in, out), as in the formulas of section 1), and "
                           "the input's is dy @ W.T",
                           name=name, shape=shape_str(g.shape), expected=shape_str(e.shape))
            return say("{name} has shape {shape}; expected {expected} (T={T}, d_model={d_model}, "
                       "d_ff={d_ff})",
                       name=name, shape=shape_str(g.shape), expected=shape_str(e.shape), **sizes)
    return None


def _raised(call, err):
    """A sentence for an error in the learner's code; a matmul's shape error names a transpose."""
    said = str(err)
    if isinstance(err, RuntimeError) and "cannot be multiplied" in said:
        return say("{call} raised RuntimeError ({said}): a matrix product of mismatched shapes, "
                   "the sign of a missing transpose. In the backward pass each weight appears "
                   "transposed: dh = grad_out @ W_down.T, dx = dz @ W_gate.T + du @ W_up.T, and "
                   "dW = (its input).T @ (its output's gradient).",
                   call=call, said=one_line(err, 120))
    return None


@referee(EX6)
def check_gated_mlp_backward(fn):
    """Exercise 6: the four gradients against autograd's; autograd and in-place edits refused."""
    for i, case in enumerate(_BACKWARD_CASES):
        call = call_str("gated_mlp_backward", case)
        given = tuple(t.clone() for t in case)
        recorder = AutogradWatch()
        with recorder:
            got = attempt(fn, *given, copies=False)
        if isinstance(got, BaseException) and _raised(call, got) is not None:
            return wrong(EX6, _raised(call, got))
        early = outcome(EX6, call, got, first=i == 0)
        if early is not None:
            return early
        used = recorder.used()
        if used or any(isinstance(t, torch.Tensor) and (t.requires_grad or t.grad_fn is not None)
                       for t in (got if isinstance(got, (tuple, list)) else ())):
            return wrong(EX6, say("{call} used autograd ({what}): the exercise is the backward "
                                  "pass by hand, from the chain rule alone. Autograd is what the "
                                  "check compares you with.",
                                  call=call, what=", ".join(used) or "requires_grad"))
        edited = [name for name, mine, theirs in zip(_INPUTS, given, case, strict=True)
                  if not torch.equal(mine, theirs)]
        if edited:
            return wrong(EX6, say("{call} changed {names} in place (an operation such as `+=`, "
                                  "`*=` or a method ending in _ on the input): the caller's "
                                  "tensors must stay as they were, and in a real backward pass the "
                                  "forward's values are still needed. Compute into new tensors.",
                                  call=call, names=", ".join(edited)))
        if not isinstance(got, (tuple, list)) or len(got) != 4:
            return wrong(EX6, say("{call} returned {got}; return the four gradients as a tuple "
                                  "(dW_gate, dW_up, dW_down, dx).", call=call, got=describe(got)))
        expected = _autograd(*case)
        if _same_all(got, expected):
            continue
        for mistake in _BACKWARD_MISTAKES:
            if _same_all(got, mistake.answer(*case)):
                return wrong(EX6, say("{call}: {mistake}", call=call, mistake=say(mistake.message)))
        problem = _order_problem(got, expected) or _shape_problem(got, expected, case)
        if problem is not None:
            return wrong(EX6, say("{call}: {problem}.", call=call, problem=problem))
        right = [name for name, g, e in zip(_GRADS, got, expected, strict=True) if _close(g, e)]
        differ = [name for name in _GRADS if name not in right]
        return wrong(EX6, say("{call}: {differ} differ from autograd's, {right} agree. Follow the "
                              "forward pass backwards one line at a time and compare each "
                              "intermediate gradient's shape with its value's.",
                              call=call, differ=", ".join(differ),
                              right=", ".join(right) or "none"))
    return correct(EX6, "your four gradients equal autograd's for two sizes: the chain rule "
                        "through down_proj, the product g * u (one term for each factor), SiLU's "
                        "slope and the two paths back to x.")
