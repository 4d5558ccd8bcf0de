"""Notebook 16, exercise 2's forward: the SAE's (x_hat, f) compared with the reference's, each
typical mistake named, and torch's shape error read back as the weight not turned round."""

import re

import torch
from torch import nn

from helpers.checks.compare import arrays
from helpers.checks.core import attempt
from helpers.checks.module import ModuleCheck, _parameters
from helpers.checks.nb16_superposition.ex2_reference import (
    D_IN,
    EX2,
    N_FEATURES,
    _codes,
    _inputs,
    _pair_from,
    _reference,
)
from helpers.checks.runner import Mistake
from helpers.checks.show import describe, say


def _pair(got, expected):
    """Compare a forward's (x_hat, f) with the reference's: the codes first, then the
    reconstruction."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return say("is {got}; it should be two tensors, (x_hat, f): the "
                   "reconstruction and the codes",
                   got=describe(got))
    problem = arrays(atol=1e-9, rtol=1e-9)(got[1], expected[1])
    if problem is not None:
        return say("has codes f that differ ({problem})", problem=problem)
    problem = arrays(atol=1e-9, rtol=1e-9)(got[0], expected[0])
    if problem is not None:
        return say("has the right codes but a reconstruction x_hat that differs ({problem}): x_hat "
                   "= W_dec f + b_dec, a sum of decoder columns",
                   problem=problem)
    return None


def _swapped(got, ref, x):
    """(f, x_hat) handed back for (x_hat, f)."""
    return (isinstance(got, (tuple, list)) and len(got) == 2
            and all(isinstance(t, torch.Tensor) for t in got)
            and tuple(got[0].shape) == (len(x), N_FEATURES)
            and tuple(got[1].shape) == (len(x), D_IN))


_NOT_RELU = ("the codes are not a ReLU's: f = ReLU(W_enc (x - b_dec) + b_enc). A GELU or "
             "a sigmoid is never exactly 0, so no feature would be off and the L1 term "
             "could not make the codes sparse.")

_FORWARD_MISTAKES = [
    Mistake("you returned (f, x_hat); the forward returns (x_hat, f): the "
            "reconstruction first, then the codes.",
            when=_swapped),
    Mistake("your codes are negative in places: the encoder ends with a ReLU, f = ReLU(W_enc (x - "
            "b_dec) + b_enc), so that a feature is either off (0) or on by some amount.",
            answer=_pair_from(lambda ref, x: _codes(ref, x, relu=False))),
    Mistake("the decoder bias was not subtracted before encoding: f = ReLU(W_enc (x - "
            "b_dec) + b_enc). b_dec is the SAE's guess of the typical input; the "
            "features encode what differs from it.",
            answer=_pair_from(lambda ref, x: _codes(ref, x, centre=False))),
    Mistake("you added b_dec to x before encoding; it is subtracted: f = ReLU(W_enc (x - b_dec) + "
            "b_enc), the input's difference from the typical input.",
            answer=_pair_from(lambda ref, x: _codes(ref, x, sign=1))),
    Mistake("no ReLU and no b_dec subtracted: f = ReLU(W_enc (x - b_dec) + b_enc).",
            answer=_pair_from(lambda ref, x: _codes(ref, x, relu=False, centre=False))),
    Mistake("b_enc is added after the ReLU; it belongs inside it, f = ReLU(W_enc (x - b_dec) + "
            "b_enc): it sets how strongly a feature's direction must be present before the "
            "feature turns on, and codes stay >= 0.",
            answer=_pair_from(lambda ref, x: _codes(ref, x, bias_inside=False))),
    Mistake(_NOT_RELU,
            answer=_pair_from(lambda ref, x: _codes(ref, x, act=torch.nn.functional.gelu))),
    Mistake(_NOT_RELU, answer=_pair_from(lambda ref, x: _codes(ref, x, act=torch.sigmoid))),
    Mistake("your codes are right, but b_dec was not added back: x_hat = W_dec f + b_dec.",
            answer=lambda ref, x: (ref.decode(_codes(ref, x)) - ref.b_dec, _codes(ref, x))),
    Mistake("your codes are right, but the decoder subtracts b_dec; it adds it "
            "back: x_hat = W_dec f + b_dec.",
            answer=lambda ref, x: (ref.decode(_codes(ref, x)) - 2 * ref.b_dec, _codes(ref, x))),
    Mistake("your codes are right, but the decoder uses W_enc: the SAE's decoder has "
            "weights of its own, W_dec, x_hat = W_dec f + b_dec (they start equal "
            "here and part ways as they train).",
            answer=lambda ref, x: (_codes(ref, x) @ ref.W_enc + ref.b_dec, _codes(ref, x))),
]

_MATMULS = {   # (rows x cols and rows x cols) in torch's message -> the product the learner wrote
    ("N", N_FEATURES, D_IN, N_FEATURES): "you multiplied the codes f (N, n_features) by W_dec as "
                                         "it is stored, (d_in, n_features), one column per "
                                         "feature: the decoder multiplies f by W_dec's transpose, "
                                         "so that x_hat has d_in columns.",
    ("N", D_IN, N_FEATURES, D_IN): "you multiplied x (N, d_in) by W_enc as it is stored, "
                                   "(n_features, d_in), as nn.Linear stores a weight: the "
                                   "encoder multiplies by its transpose, so that f has "
                                   "one column per feature.",
}


def _shape_error(cls):
    """The sentence for a forward that torch refused because a weight was not turned round, else
    None.

    Run only after the module check saw a RuntimeError; `attempt` keeps its time limit and its
    guards."""
    module = attempt(lambda: cls(D_IN, N_FEATURES).to(torch.float64), copies=False)
    if not isinstance(module, nn.Module):
        return None
    try:
        module.load_state_dict({k: p.detach() for k, p in _parameters(_reference()).items()},
                               strict=False)
    except Exception:  # noqa: BLE001 - parameters that do not load: the module check's to describe
        return None
    with torch.no_grad():
        err = attempt(module, _inputs(), copies=False)
    if not isinstance(err, RuntimeError):
        return None
    found = re.search(r"\((\d+)x(\d+) and (\d+)x(\d+)\)", str(err))
    if found:
        rows, *rest = (int(n) for n in found.groups())
        sentence = _MATMULS.get(("N" if rows == len(_inputs()) else rows, *rest))
        return say(sentence) if sentence else None
    if re.search(r"size of tensor a \((6|10)\) must match the size of tensor b \((6|10)\)",
                 str(err)):
        return say("a bias of the wrong width: b_enc has one entry per feature (added to W_enc's "
                   "product), b_dec one per input column (subtracted from x, added to x_hat).")
    return None


_FORWARD = ModuleCheck(
    EX2,
    reference=_reference,
    build=lambda cls: cls(D_IN, N_FEATURES),
    inputs=_inputs,
    mistakes=_FORWARD_MISTAKES,
    compare=_pair,
    success="your forward gives the reference's codes and reconstruction.",
    name="your SAE",
)
