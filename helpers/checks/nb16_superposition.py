"""Checks for notebook 16's exercises (superposition and sparse autoencoders).

1. A prediction: how the number of features the toy model stores changes as they get sparser.
3. (stretch) `variance_explained(x, x_hat)`: the share of the variance an SAE's reconstruction keeps.
2. `SAE`: the learner's sparse autoencoder, an nn.Module with the reference's parameter names
   (W_enc, b_enc, W_dec, b_dec). The reference's weights are loaded into it, then its forward
   (x_hat, f), its loss(x, l1_coeff) and its normalise_decoder_() are compared with
   helpers.sae's, each on its own copy of the input: an input changed in place is named.
"""

import torch

from helpers import sae
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
from helpers.checks.module import ModuleCheck, _parameters
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import describe, say

EX2 = "Exercise 2 (a sparse autoencoder)"
D_IN, N_FEATURES, L1_COEFF = 6, 10, 0.3

check_stored_guess = Prediction(
    "Exercise 1 (predict superposition)",
    why="When features are dense, two of them are often present together, and any overlap between their "
        "directions costs loss on almost every input: the model keeps the m most important at right angles "
        "and drops the rest. When they are sparse, two rarely appear together, so directions that overlap "
        "a little cost little, and the model packs more features than it has dimensions, more the sparser "
        "they are.",
    choices=("A", "B", "C"),
    variable="my_stored_guess",
)


def _reference():
    """helpers.sae's SparseAutoencoder in float64 with every parameter nonzero (biases too), decoder columns unit."""
    g = torch.Generator().manual_seed(16)
    ref = sae.SparseAutoencoder(D_IN, N_FEATURES, generator=g, dtype=torch.float64)
    with torch.no_grad():
        ref.W_enc.copy_(torch.randn(N_FEATURES, D_IN, generator=g, dtype=torch.float64) / D_IN ** 0.5)
        ref.b_enc.copy_(0.3 * torch.randn(N_FEATURES, generator=g, dtype=torch.float64))
        ref.b_dec.copy_(torch.randn(D_IN, generator=g, dtype=torch.float64))
    return ref


def _inputs():
    return torch.randn(12, D_IN, generator=torch.Generator().manual_seed(17), dtype=torch.float64)


def _codes(ref, x, relu=True, centre=True):
    pre = (x - ref.b_dec if centre else x) @ ref.W_enc.T + ref.b_enc
    return torch.relu(pre) if relu else pre


def _loss(ref, x, penalty="codes", mean="batch", l1_coeff=L1_COEFF):
    """The SAE loss and its typical mistakes."""
    x_hat, f = ref(x)
    err = (x - x_hat).pow(2)
    reconstruction = {"batch": err.sum(-1).mean(0), "all": err.mean(), "width": err.mean(-1).sum(0)}[mean]
    on = {"codes": f.abs(), "reconstruction": x_hat.abs(), "squared": f.pow(2)}[penalty]
    l1 = {"batch": on.sum(-1).mean(0), "all": on.mean(), "width": on.mean(-1).sum(0)}[mean]
    return reconstruction + l1_coeff * l1


def _pair_from(codes):
    """(ref, x) -> the (x_hat, f) a forward with these codes gives."""
    def answer(ref, x):
        f = codes(ref, x)
        return ref.decode(f), f
    return answer


def _pair(got, expected):
    """Compare a forward's (x_hat, f) with the reference's: the codes first, then the reconstruction."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return say("is {got}; it should be two tensors, (x_hat, f): the reconstruction and the codes",
                   got=describe(got))
    problem = arrays(atol=1e-9, rtol=1e-9)(got[1], expected[1])
    if problem is not None:
        return say("has codes f that differ ({problem})", problem=problem)
    problem = arrays(atol=1e-9, rtol=1e-9)(got[0], expected[0])
    if problem is not None:
        return say("has the right codes but a reconstruction x_hat that differs ({problem}): x_hat = W_dec f + "
                   "b_dec, a sum of decoder columns", problem=problem)
    return None


_FORWARD_MISTAKES = [
    Mistake("your codes are negative in places: the encoder ends with a ReLU, f = ReLU(W_enc (x - b_dec) + "
            "b_enc), so that a feature is either off (0) or on by some amount.",
            answer=_pair_from(lambda ref, x: _codes(ref, x, relu=False))),
    Mistake("the decoder bias was not subtracted before encoding: f = ReLU(W_enc (x - b_dec) + b_enc). b_dec "
            "is the SAE's guess of the typical input; the features encode what differs from it.",
            answer=_pair_from(lambda ref, x: _codes(ref, x, centre=False))),
    Mistake("no ReLU and no b_dec subtracted: f = ReLU(W_enc (x - b_dec) + b_enc).",
            answer=_pair_from(lambda ref, x: _codes(ref, x, relu=False, centre=False))),
    Mistake("your codes are right, but b_dec was not added back: x_hat = W_dec f + b_dec.",
            answer=lambda ref, x: (ref.decode(_codes(ref, x)) - ref.b_dec, _codes(ref, x))),
]

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

_LOSS_MISTAKES = [
    Mistake("the L1 penalty is on the reconstruction x_hat; it belongs on the codes f, so that few features "
            "are active: l1_coeff * |f| summed over the features.", answer=lambda ref, x: _loss(ref, x, "reconstruction")),
    Mistake("that penalises f squared; the sparsity penalty is the L1 norm, |f| summed over the features (a "
            "square barely punishes small codes, so they do not go to zero).",
            answer=lambda ref, x: _loss(ref, x, "squared")),
    Mistake("you averaged over every entry (.mean() of the whole matrix): sum over the input's width (and over "
            "the features for L1), then average over the batch, axis 0, so that l1_coeff means the same whatever "
            "d_in and n_features are.", answer=lambda ref, x: _loss(ref, x, mean="all")),
    Mistake("the mean is over the wrong axis: you averaged over the width and summed over the batch. Sum over "
            "the last axis (d_in, or the features), then take the mean over the batch, axis 0.",
            answer=lambda ref, x: _loss(ref, x, mean="width")),
    Mistake("l1_coeff is missing: the loss is the reconstruction plus l1_coeff times the L1 term.",
            answer=lambda ref, x: _loss(ref, x, l1_coeff=1.0)),
    Mistake("that is the reconstruction alone: add l1_coeff times |f| summed over the features, averaged "
            "over the batch.", answer=lambda ref, x: _loss(ref, x, l1_coeff=0.0)),
]


def _stretched(ref):
    """W_dec with columns of lengths 0.5 .. 2.5, as they are after an optimiser step."""
    lengths = torch.linspace(0.5, 2.5, N_FEATURES, dtype=torch.float64)
    return ref.W_dec.detach() * lengths


_NORMALISE_MISTAKES = [
    Mistake("W_dec is as it was: normalise_decoder_ must change self.W_dec itself, in place (under "
            "torch.no_grad(), self.W_dec /= ... or self.W_dec.data = ...), not return a new tensor.",
            answer=lambda W: W),
    Mistake("you normalised the rows of W_dec; each feature is a column, W_dec[:, i], so divide by "
            "W_dec.norm(dim=0).", answer=lambda W: W / W.norm(dim=1, keepdim=True)),
    Mistake("you divided the whole matrix by one norm; each column (one per feature) gets its own: "
            "W_dec.norm(dim=0).", answer=lambda W: W / W.norm()),
]


def _changed(before, after):
    return not torch.equal(before, after)


def _in_place(what):
    return wrong(EX2, say("{what} changed its input x in place: the caller's activations are now different. "
                          "Compute new tensors (x - self.b_dec, not x -= self.b_dec).", what=what))


def _first_match(mistakes, got, case, compare):
    for mistake in mistakes:
        if mistake.matches(got, case, compare):
            return mistake.message
    return None


def _check_sae(cls):
    """Exercise 2: SAE(d_in, n_features) with forward(x) -> (x_hat, f), loss(x, l1_coeff), normalise_decoder_()."""
    if cls is None:
        return not_attempted(exercise=EX2)
    forward = _FORWARD(cls)   # builds it, loads the reference's weights, compares (x_hat, f)
    if forward.status != "correct":
        return forward
    reference = _reference().eval()
    module = cls(D_IN, N_FEATURES).to(torch.float64)
    module.load_state_dict({name: p.detach() for name, p in _parameters(reference).items()}, strict=False)
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
        return wrong(EX2, say("your forward is right; now write the method loss(self, x, l1_coeff)."))
    got = attempt(loss_fn, given, L1_COEFF, copies=False)
    early = outcome(EX2, say("your SAE's loss"), got)
    if early is not None:
        return early if got is not MISSING else wrong(EX2, say("your forward is right; now write loss(self, x, "
                                                               "l1_coeff), the method under it."))
    if _changed(x, given):
        return _in_place(say("your loss"))
    with torch.no_grad():
        want = _loss(reference, x)
    loss_compare = number(rel=1e-9, abs=1e-12)
    if compared_bad := _compare(loss_compare, _plain(got), want.item()):
        with torch.no_grad():
            message = _first_match(_LOSS_MISTAKES, _plain(got), (reference, x),
                                   lambda a, b: loss_compare(a, _plain(b)))
        return wrong(EX2, message or say("your forward is right; your loss {problem}.", problem=compared_bad))

    # the decoder's columns at unit norm
    normalise = getattr(module, "normalise_decoder_", None)
    if not callable(normalise):
        return wrong(EX2, say("forward and loss are right; now write normalise_decoder_(self), which rescales "
                              "every column of W_dec to length 1, in place."))
    stretched = _stretched(reference)
    with torch.no_grad():
        module.W_dec.copy_(stretched)
    result = attempt(normalise, copies=False)
    if result is MISSING:
        return wrong(EX2, say("forward and loss are right; now write normalise_decoder_(self), the last method."))
    if isinstance(result, BaseException):
        return outcome(EX2, say("your normalise_decoder_()"), result)
    now = module.W_dec.detach()
    if compared_bad := _compare(compare, now, stretched / stretched.norm(dim=0)):
        message = _first_match(_NORMALISE_MISTAKES, now, (stretched,), compare)
        return wrong(EX2, message or say("after normalise_decoder_(), W_dec {problem}; every column should have "
                                         "length 1 and keep its direction.", problem=compared_bad))
    return correct(EX2, say("with the reference's weights your SAE gives the same codes, reconstruction and loss, "
                            "and normalise_decoder_ puts every decoder column at length 1: helpers.sae's "
                            "SparseAutoencoder, written by you."))


def _plain(value):
    return value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value


def _compare(compare, got, expected):
    try:
        return compare(got, expected)
    except Exception as err:  # noqa: BLE001 - an answer of another kind is described, not raised
        return say("cannot be compared with the expected {expected} ({kind})", expected=describe(expected),
                   kind=type(err).__name__)


def check_sae(cls):
    """Exercise 2: the learner's SAE class, loaded with the reference's weights."""
    return judge(EX2, _check_sae, cls)


check_sae = explained_calls(EX2, check_sae)   # called with the wrong number of arguments: how to call it


# ---- Exercise 3: variance explained -----------------------------------------------------------

EX3 = "Exercise 3 (variance explained)"


def _reconstruction_case(seed, n=40, d=7, offset=3.0):
    """Activations with a mean far from 0 (as a GELU's are), and a rebuild of them with some error."""
    g = torch.Generator().manual_seed(seed)
    x = offset + torch.randn(n, d, generator=g, dtype=torch.float64) * torch.linspace(0.5, 2.0, d, dtype=torch.float64)
    return x, x + 0.4 * torch.randn(n, d, generator=g, dtype=torch.float64)


def _centred_rows(x, x_hat):
    return 1 - (x - x_hat).pow(2).sum() / (x - x.mean(1, keepdim=True)).pow(2).sum()


_VARIANCE = Check(
    EX3,
    reference=sae.variance_explained,
    cases=[_reconstruction_case(0), _reconstruction_case(1, n=25, d=4, offset=-2.0)],
    mistakes=[
        Mistake("the denominator is not centred: it should be the variance of x, sum ||x - mean(x)||^2 with the "
                "mean over the rows (x.mean(0)), not sum ||x||^2. Activations have a large mean, and dividing by "
                "their raw size flatters the SAE.",
                answer=lambda x, x_hat: 1 - (x - x_hat).pow(2).sum() / x.pow(2).sum()),
        Mistake("that is the share left unexplained, sum ||x - x_hat||^2 / sum ||x - mean(x)||^2; the variance "
                "explained is 1 minus it.",
                answer=lambda x, x_hat: (x - x_hat).pow(2).sum() / (x - x.mean(0)).pow(2).sum()),
        Mistake("the mean is over the wrong axis: x.mean(1) averages each row's entries; the mean input is "
                "x.mean(0), over the rows (inputs).", answer=_centred_rows),
        Mistake("you averaged one ratio per column (per neuron); the variance explained divides the two sums over "
                "every entry, so that neurons with a large variance count for more.",
                answer=lambda x, x_hat: (1 - (x - x_hat).pow(2).sum(0) / (x - x.mean(0)).pow(2).sum(0)).mean()),
    ],
    compare=number(rel=1e-9, abs=1e-12),
    success="1 - sum ||x - x_hat||^2 / sum ||x - mean(x)||^2, over every entry, as sae.variance_explained.",
    name="variance_explained",
)


def _check_variance(fn):
    """Exercise 3: variance_explained(x, x_hat) -> one number; the inputs are left as they were."""
    if fn is None or not callable(fn):
        return _VARIANCE(fn)
    x, x_hat = _reconstruction_case(0)
    given = x.clone(), x_hat.clone()
    got = attempt(fn, *given, copies=False)
    if got is MISSING:
        return not_attempted(exercise=EX3)
    if not isinstance(got, BaseException) and (_changed(x, given[0]) or _changed(x_hat, given[1])):
        return wrong(EX3, say("variance_explained changed x or x_hat in place: the caller's tensors are now "
                              "different. Compute new tensors (x - x_hat, not x -= x_hat)."))
    return _VARIANCE(fn)


def check_variance(fn):
    """Exercise 3 (stretch): the learner's variance_explained(x, x_hat)."""
    return judge(EX3, _check_variance, fn)


check_variance = explained_calls(EX3, check_variance)
