"""Notebook 16, exercise 2: check_sae, which loads the reference's weights into the learner's SAE,
then checks its forward, its loss and its normalise_decoder_ in turn."""

import torch
from torch import nn

from helpers.checks.compare import arrays, number
from helpers.checks.core import (
    MISSING,
    attempt,
    correct,
    explained_calls,
    judge,
    not_attempted,
    outcome,
    wrong,
)
from helpers.checks.module import _parameters
from helpers.checks.nb16_superposition.ex2_forward import _FORWARD, _shape_error
from helpers.checks.nb16_superposition.ex2_loss import (
    _LOSS_MISTAKES,
    _NORMALISE_MISTAKES,
    _REPLACED,
    _TRACKED,
    _stretched,
)
from helpers.checks.nb16_superposition.ex2_reference import (
    D_IN,
    EX2,
    L1_COEFF,
    N_FEATURES,
    _inputs,
    _loss,
    _reference,
)
from helpers.checks.show import describe, say


def _changed(before, after):
    return not torch.equal(before, after)


def _in_place(what):
    return wrong(EX2, say("{what} changed its input x in place: the caller's activations are now "
                          "different. Compute new tensors (x - self.b_dec, not x -= self.b_dec).",
                          what=what))


def _first_match(mistakes, got, case, compare):
    for mistake in mistakes:
        if mistake.matches(got, case, compare):
            return mistake.message
    return None


def _check_sae(cls):
    """Exercise 2: SAE(d_in, n_features) with forward(x) -> (x_hat, f), loss(x, l1_coeff),
    normalise_decoder_()."""
    if cls is None:
        return not_attempted(exercise=EX2)
    if isinstance(cls, nn.Module):
        return wrong(EX2, say("that is a module built from your class ({name}(...)); hand the "
                              "check the class itself, check_sae({name}), so that it builds its "
                              "own at the sizes it tests.",
                              name=type(cls).__name__))
    forward = _FORWARD(cls)   # builds it, loads the reference's weights, compares (x_hat, f)
    if forward.status != "correct":
        refused = forward.status == "wrong" and "RuntimeError" in str(forward)
        shape = _shape_error(cls) if refused else None
        return wrong(EX2, shape) if shape else forward
    reference = _reference().eval()
    module = cls(D_IN, N_FEATURES).to(torch.float64)
    module.load_state_dict({name: p.detach() for name, p in _parameters(reference).items()},
                           strict=False)
    compare = arrays(atol=1e-9, rtol=1e-9)
    x = _inputs()
    given = x.clone()
    with torch.no_grad():
        attempt(module, given, copies=False)
    if _changed(x, given):
        return _in_place(say("your forward"))

    # loss
    given = x.clone()
    loss_fn = getattr(module, "loss", None)
    if not callable(loss_fn):
        return wrong(EX2, say("your forward is right; now write the method "
                              "loss(self, x, l1_coeff)."))
    got = attempt(loss_fn, given, L1_COEFF, copies=False)
    early = outcome(EX2, say("your SAE's loss"), got)
    if early is not None:
        if got is MISSING:
            return wrong(EX2, say("your forward is right; now write loss(self, x, l1_coeff), the "
                                  "method under it."))
        return early
    if _changed(x, given):
        return _in_place(say("your loss"))
    with torch.no_grad():
        want = _loss(reference, x)
    loss_compare = number(rel=1e-9, abs=1e-12)
    if compared_bad := _compare(loss_compare, _plain(got), want.item()):
        with torch.no_grad():
            message = _first_match(_LOSS_MISTAKES, _plain(got), (reference, x),
                                   lambda a, b: loss_compare(a, _plain(b)))
        return wrong(EX2, message or say("your forward is right; your loss {problem}.",
                                         problem=compared_bad))

    # the decoder's columns at unit norm
    normalise = getattr(module, "normalise_decoder_", None)
    if not callable(normalise):
        return wrong(EX2, say("forward and loss are right; now write normalise_decoder_(self), "
                              "which rescales every column of W_dec to length 1, in place."))
    stretched = _stretched(reference)
    with torch.no_grad():
        module.W_dec.copy_(stretched)
    before = module.W_dec
    result = attempt(normalise, copies=False)
    if result is MISSING:
        return wrong(EX2, say("forward and loss are right; now write "
                              "normalise_decoder_(self), the last method."))
    if isinstance(result, RuntimeError) and "in-place operation" in str(result):
        return wrong(EX2, say(_TRACKED))
    if isinstance(result, BaseException):
        return outcome(EX2, say("your normalise_decoder_()"), result)
    now = module.W_dec.detach()
    if compared_bad := _compare(compare, now, stretched / stretched.norm(dim=0)):
        message = _first_match(_NORMALISE_MISTAKES, now, (stretched,), compare)
        return wrong(EX2, message or say("after normalise_decoder_(), W_dec {problem}; every "
                                         "column should have length 1 and keep its direction.",
                                         problem=compared_bad))
    if module.W_dec is not before:
        return wrong(EX2, say(_REPLACED))
    return correct(EX2, say("with the reference's weights your SAE gives the same codes, "
                            "reconstruction and loss, and normalise_decoder_ puts every decoder "
                            "column at length 1: helpers.sae's SparseAutoencoder, written by you."))


def _plain(value):
    return value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value


def _compare(compare, got, expected):
    try:
        return compare(got, expected)
    except Exception as err:  # noqa: BLE001 - an answer of another kind is described, not raised
        return say("cannot be compared with the expected {expected} ({kind})",
                   expected=describe(expected), kind=type(err).__name__)


def check_sae(cls):
    """Exercise 2: the learner's SAE class, loaded with the reference's weights."""
    return judge(EX2, _check_sae, cls)


# called with the wrong number of arguments: how to call it
check_sae = explained_calls(EX2, check_sae)
