"""Exercise 4: the FFN's backward pass by hand (dW1, db1, dW2, db2 and dx), compared with
autograd's; a wrong gradient is put down to the slip that gives it, or to its shape."""

from dataclasses import dataclass

import torch

from helpers.checks.calling import attempt, outcome
from helpers.checks.compare import arrays
from helpers.checks.nb03_ffn_forward.ex4_backward_cases import (
    _BACKWARD_CASES,
    _BACKWARD_SAID,
    _BACKWARD_SHAPES,
    _BACKWARD_SLIPS,
    _GRAD_NAMES,
    _INPUT_NAMES,
    _backward_case,
    _by_hand,
    autograd_backward,
)
from helpers.checks.runner import Check
from helpers.checks.show import describe, say, shape_str
from helpers.checks.verdict import correct, wrong

EX4 = "Exercise 4 (the backward pass by hand)"


class _Calls(torch.overrides.TorchFunctionMode):
    """Records the torch functions and tensor methods that run inside it."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__qualname__", None)
                          or getattr(func, "__name__", repr(func)))
        return func(*args, **(kwargs or {}))


_AUTOGRAD = ("backward", "grad", "requires_grad_", "vjp", "jacobian")


def _autograd_used(names, got):
    """The autograd calls among names (or a returned tensor that requires
    grad), as a phrase; else None."""
    used = sorted({n for n in names if n.rsplit(".", 1)[-1] in _AUTOGRAD})
    if used:
        return ", ".join(used)
    if (isinstance(got, (tuple, list))
            and any(isinstance(t, torch.Tensor) and t.requires_grad for t in got)):
        return say("what it returns requires grad")
    return None


def _as_tensor(value):
    try:
        return torch.as_tensor(value, dtype=torch.float64)
    except Exception:  # noqa: BLE001 - not an array: the caller says so
        return None


def _close(got, want):
    return (got is not None and got.shape == want.shape
            and torch.allclose(got, want, rtol=1e-9, atol=1e-10))


def _shape_mistake(name, got, want, case):
    """A sentence for a gradient of the wrong shape, naming what the shape says;
    None when the shape is right."""
    if got.shape == want.shape:
        return None
    T, d_ff = case[0].shape[0], case[1].shape[1]
    param = {"dW1": "W1", "db1": "b1", "dW2": "W2", "db2": "b2", "dx": "x"}[name]
    if got.dim() == 2 and tuple(got.shape) == tuple(want.shape)[::-1]:
        key = "transposed"
    elif name in ("db1", "db2") and tuple(got.shape) == (T, *want.shape):
        key = "bias per token"
    elif name == "dx" and tuple(got.shape) == (T, d_ff):
        key = "dx at h"
    else:
        key = "other"
    return say(_BACKWARD_SHAPES[key], name=name, shape=shape_str(got.shape),
               want=shape_str(want.shape), param=param)


def _diagnose(grads, want, case, call):
    """The sentence for five gradients that are not all right."""
    if all(any(_close(g, w) for w in want) for g in grads):
        return say(_BACKWARD_SAID["order"])
    if _close(grads[4], case[5] @ case[3].T) and not _close(grads[4], want[4]):
        return say(_BACKWARD_SAID["dx is da"])
    for name, mine, right in zip(_GRAD_NAMES, grads, want, strict=True):
        said = _shape_mistake(name, mine, right, case)
        if said is not None:
            return said
    wrong_ones = [i for i in range(5) if not _close(grads[i], want[i])]
    T = case[0].shape[0]
    if all(_close(grads[i], want[i] / T) for i in wrong_ones) and set(wrong_ones) != {1, 3}:
        return say(_BACKWARD_SAID["per token"])
    for i in wrong_ones:
        if _close(grads[i], -want[i]):
            return say(_BACKWARD_SAID["sign"], name=_GRAD_NAMES[i])
    if 4 in wrong_ones and _close(grads[4], case[5]):
        return say(_BACKWARD_SAID["dx is grad_out"])
    for variant, sentence in _BACKWARD_SLIPS:
        try:
            slipped = _by_hand(*case, **variant)
        # a transpose left out of a wide layer cannot run: not this case's mistake
        except RuntimeError:
            continue
        if any(not _close(slipped[i], want[i]) for i in wrong_ones) and all(
                _close(grads[i], slipped[i]) for i in wrong_ones):
            return say(sentence)
    first = wrong_ones[0]
    others = (say("agree with autograd's") if len(wrong_ones) == 1
              else say("{names} differ too",
                       names=", ".join(_GRAD_NAMES[i] for i in wrong_ones[1:])))
    return say(_BACKWARD_SAID["wrong"], call=call, name=_GRAD_NAMES[first], others=others,
               problem=arrays(atol=1e-10, rtol=1e-9)(grads[first], want[first]))


def _five_agree(got, want):
    """None when five gradients agree with autograd's, else a phrase (the check's
    _diagnose names the mistake)."""
    if not (isinstance(got, (tuple, list)) and len(got) == 5):
        return say("returned {got}; return five tensors", got=describe(got))
    grads = [_as_tensor(g) for g in got]
    if all(_close(g, w) for g, w in zip(grads, want, strict=True)):
        return None
    return say("gives gradients that differ from autograd's")


@dataclass(frozen=True)
class _BackwardCheck(Check):
    """Exercise 4's check: five gradients by hand, equal to autograd's, with no
    autograd and no input changed."""

    def _judge(self, ffn_backward):
        call = self.name
        for i, case in enumerate(self.cases):
            given = tuple(t.clone() for t in case)
            recorder = _Calls()
            with recorder:
                got = attempt(ffn_backward, *given, copies=False)
            early = outcome(self.exercise, call, got, first=i == 0)
            if early is not None:
                if isinstance(got, RuntimeError) and "cannot be multiplied" in str(got):
                    return wrong(self.exercise, say(_BACKWARD_SAID["shape error"], call=call))
                return early
            # first: it spoils the rest
            for name, before, after in zip(_INPUT_NAMES, case, given, strict=True):
                if not torch.equal(before, after):
                    return wrong(self.exercise, say(_BACKWARD_SAID["in place"], name=name))
            used = _autograd_used(recorder.names, got)
            if used is not None:
                return wrong(self.exercise, say(_BACKWARD_SAID["autograd"], what=used))
            grads = (tuple(_as_tensor(g) for g in got)
                     if isinstance(got, (tuple, list)) and len(got) == 5 else None)
            if grads is None or any(g is None for g in grads):
                return wrong(self.exercise,
                             say(_BACKWARD_SAID["five"], call=call, got=describe(got)))
            want = self.reference(*case)
            if self.compare(grads, want) is not None:
                return wrong(self.exercise, _diagnose(grads, want, case, call))
        return correct(self.exercise, self.success)


check_ffn_backward = _BackwardCheck(
    EX4,
    reference=autograd_backward,
    cases=[_backward_case(*sizes) for sizes in _BACKWARD_CASES],
    compare=_five_agree,
    success="dW1, db1, dW2, db2 and dx agree with autograd on a wide and a square layer: "
            "dW2 = a.T @ grad_out, db2 = grad_out.sum(0), dh = (grad_out @ W2.T) * gelu'(h), "
            "dW1 = x.T @ dh, db1 = dh.sum(0), dx = dh @ W1.T. autograd puts dW1.T in "
            "up_proj.weight.grad, since nn.Linear stores (out, in).",
    name="ffn_backward",
)
