"""Checks for notebook 16's exercises (superposition and sparse autoencoders).

1. A prediction: how the number of features the toy model stores changes as they get sparser.
4. A prediction: which L1 weight lets an SAE recover the toy model's stored directions.
3. (stretch) `variance_explained(x, x_hat)`: the share of the variance an SAE's reconstruction
keeps.
2. `SAE`: the learner's sparse autoencoder, an nn.Module with the reference's parameter names
   (W_enc, b_enc, W_dec, b_dec). The reference's weights are loaded into it, then its forward
   (x_hat, f), its loss(x, l1_coeff) and its normalise_decoder_() are compared with
   helpers.sae's, each on its own copy of the input: an input changed in place is named.
"""

import re
import string
from dataclasses import dataclass

import torch
from torch import nn

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

def _letter(guess):
    """ "b.", " B ", "(b)" -> "b": a letter written as a person writes it; anything else as it
    came."""
    return guess.strip(string.punctuation + string.whitespace) if isinstance(guess, str) else guess


@dataclass(frozen=True)
class _Choice(Prediction):
    """A Prediction among letters that reads a guess with its surrounding punctuation and spaces
    dropped; `named` holds, for (a wrong choice, the answer), the sentence saying what that choice
    assumed."""

    named: tuple = ()

    def _judge(self, guess, actual):
        feedback = super()._judge(_letter(guess), actual)
        said = getattr(feedback.message, "values", {})
        if feedback.status == "correct" or "guess" not in said or not feedback.message.endswith(self.why):
            return feedback                        # right, not attempted, or not one of the choices
        key = (said["guess"].strip("'").upper(), str(actual).strip().upper())
        sentence = dict(self.named).get(key)
        if sentence is None:
            return feedback
        return wrong(self.exercise, say("you predicted {guess}, {answer} {actual}. {mistake} {why}",
                                        **{**said, "mistake": say(sentence)}))


# What each wrong choice assumed: {(the choice, the answer): the sentence}.
_STORED_NAMED = {
    ("A", "B"): "A holds for dense features only: when every feature is often present, overlapping "
                "directions cost loss on almost every input, so 5 dimensions keep 5 features. "
                "Sparse features are rarely present together, and then an overlap costs little.",
    ("C", "B"): "C takes a rare feature for one not worth keeping; but rarity also means two "
                "features seldom appear together, so they can share directions: the sparser they "
                "are, the more of them the model keeps.",
}

check_stored_guess = _Choice(
    "Exercise 1 (predict superposition)",
    why="When features are dense, two of them are often present together, and any overlap between "
        "their directions costs loss on almost every input: the model keeps the m most important "
        "at right angles and drops the rest. When they are sparse, two rarely appear together, so "
        "directions that overlap a little cost little, and the model packs more features than it "
        "has dimensions, more the sparser they are.",
    choices=("A", "B", "C"),
    variable="my_stored_guess",
    named=tuple(_STORED_NAMED.items()),
)

_L1_NAMED = {
    ("A", "C"): "A takes the best reconstruction for the best features: a weak penalty "
                "lets several latents share each input, and their columns point "
                "between the true directions.",
    ("B", "C"): "B balances the two terms, but what finds the features is L0, not a balance: a "
                "latent stands for one feature only once the penalty brings L0 down to about the "
                "number of features present per input.",
}


check_l1_guess = _Choice(
    "Exercise 4 (an SAE where the answer is known)",
    why="A weak L1 penalty lets the SAE rebuild each input from several latents that point "
        "between the true directions: a good reconstruction, a high L0 and few directions "
        "found. As the penalty brings L0 down to the number of features really present per "
        "input, each latent has to stand for one stored feature on its own, and its decoder "
        "column turns to that feature's direction.",
    choices=("A", "B", "C"),
    variable="my_l1_guess",
    named=tuple(_L1_NAMED.items()),
)


def _reference():
    """helpers.sae's SparseAutoencoder in float64 with every parameter nonzero (biases too), decoder
    columns unit."""
    g = torch.Generator().manual_seed(16)
    ref = sae.SparseAutoencoder(D_IN, N_FEATURES, generator=g, dtype=torch.float64)
    with torch.no_grad():
        ref.W_enc.copy_(torch.randn(N_FEATURES, D_IN, generator=g, dtype=torch.float64) / D_IN ** 0.5)
        ref.b_enc.copy_(0.3 * torch.randn(N_FEATURES, generator=g, dtype=torch.float64))
        ref.b_dec.copy_(torch.randn(D_IN, generator=g, dtype=torch.float64))
    return ref


def _inputs():
    return torch.randn(12, D_IN, generator=torch.Generator().manual_seed(17), dtype=torch.float64)


def _codes(ref, x, relu=True, centre=True, act=torch.relu, sign=-1, bias_inside=True):
    """The encoder and its typical mistakes: no ReLU, b_dec not subtracted (or added), b_enc after
    the ReLU."""
    shifted = x + sign * ref.b_dec if centre else x
    pre = shifted @ ref.W_enc.T + (ref.b_enc if bias_inside else 0)
    f = act(pre) if relu else pre
    return f if bias_inside else f + ref.b_enc


_RECONSTRUCTION = {   # how the squared error (or the codes' size) is reduced to one number
    "batch": lambda e: e.sum(-1).mean(0), "all": lambda e: e.mean(), "width": lambda e: e.mean(-1).sum(0),
    "total": lambda e: e.sum()}


def _loss(ref, x, penalty="codes", mean="batch", l1_coeff=L1_COEFF, l1_mean=None, error="squared", swap=False):
    """The SAE loss and its typical mistakes: each argument plants one."""
    x_hat, f = ref(x)
    diff = x - x_hat
    if error == "length":                        # ||x - x_hat|| per row, not squared
        reconstruction = diff.norm(dim=-1).mean(0)
    # torch.norm(x - x_hat): one length for the whole batch
    elif error == "frobenius":
        reconstruction = diff.norm()
    else:
        reconstruction = _RECONSTRUCTION[mean](diff.pow(2))
    on = {"codes": f.abs(), "reconstruction": x_hat.abs(), "squared": f.pow(2)}
    l1 = f.norm(dim=-1).mean(0) if penalty == "l2" else _RECONSTRUCTION[l1_mean or mean](on[penalty])
    return l1_coeff * reconstruction + l1 if swap else reconstruction + l1_coeff * l1


def _pair_from(codes):
    """(ref, x) -> the (x_hat, f) a forward with these codes gives."""
    def answer(ref, x):
        f = codes(ref, x)
        return ref.decode(f), f
    return answer


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
    return (isinstance(got, (tuple, list)) and len(got) == 2 and all(isinstance(t, torch.Tensor) for t in got)
            and tuple(got[0].shape) == (len(x), N_FEATURES) and tuple(got[1].shape) == (len(x), D_IN))


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
    Mistake(_NOT_RELU, answer=_pair_from(lambda ref, x: _codes(ref, x, act=torch.nn.functional.gelu))),
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
        module.load_state_dict({k: p.detach() for k, p in _parameters(_reference()).items()}, strict=False)
    # noqa: BLE001 - parameters that do not load are the module check's to describe
    except Exception:
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
    if re.search(r"size of tensor a \((6|10)\) must match the size of tensor b \((6|10)\)", str(err)):
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

_LOSS_MISTAKES = [
    Mistake("the L1 penalty is on the reconstruction x_hat; it belongs on the codes f, so that few "
            "features are active: l1_coeff * |f| summed over the features.",
            answer=lambda ref, x: _loss(ref, x, "reconstruction")),
    Mistake("that penalises f squared; the sparsity penalty is the L1 norm, |f| summed over the "
            "features (a square barely punishes small codes, so they do not go to zero).",
            answer=lambda ref, x: _loss(ref, x, "squared")),
    Mistake("you averaged over every entry (.mean() of the whole matrix): sum over the input's "
            "width (and over the features for L1), then average over the batch, axis 0, so that "
            "l1_coeff means the same whatever d_in and n_features are.",
            answer=lambda ref, x: _loss(ref, x, mean="all")),
    Mistake("the mean is over the wrong axis: you averaged over the width and summed "
            "over the batch. Sum over the last axis (d_in, or the features), then take "
            "the mean over the batch, axis 0.",
            answer=lambda ref, x: _loss(ref, x, mean="width")),
    Mistake("l1_coeff is missing: the loss is the reconstruction plus l1_coeff times the L1 term.",
            answer=lambda ref, x: _loss(ref, x, l1_coeff=1.0)),
    Mistake("that is the reconstruction alone: add l1_coeff times |f| summed over the "
            "features, averaged over the batch.",
            answer=lambda ref, x: _loss(ref, x, l1_coeff=0.0)),
    Mistake("your L1 term adds |f| over the whole batch (torch.norm(f, 1), or f.abs().sum(), is "
            "one sum over every row): average it over the batch, as the reconstruction is, so that "
            "the loss does not grow with the batch size.",
            answer=lambda ref, x: _loss(ref, x, l1_mean="total")),
    Mistake("both terms are summed over the whole batch: sum each over its row's "
            "axis, then average over the batch (axis 0), so that the loss and "
            "l1_coeff mean the same for any batch size.",
            answer=lambda ref, x: _loss(ref, x, mean="total")),
    Mistake("the reconstruction is averaged over every entry (F.mse_loss, or .mean() of "
            "the whole matrix): sum the squared error over the input's width, then average "
            "over the batch, as the L1 term is.",
            answer=lambda ref, x: _loss(ref, x, mean="all", l1_mean="batch")),
    Mistake("the L1 term is averaged over every entry (f.abs().mean()): sum |f| over the features, "
            "then average over the batch, as the reconstruction is.",
            answer=lambda ref, x: _loss(ref, x, l1_mean="all")),
    Mistake("the reconstruction is summed over the whole batch (F.mse_loss with reduction='sum'): "
            "sum the squared error over each row, then average over the batch.",
            answer=lambda ref, x: _loss(ref, x, mean="total", l1_mean="batch")),
    Mistake("the reconstruction error is not squared: ||x - x_hat|| is a length; the loss takes "
            "its square, summed over the width, then averaged over the batch.",
            answer=lambda ref, x: _loss(ref, x, error="length")),
    Mistake("torch.norm(x - x_hat) is one length for the whole batch, not squared: take each row's "
            "squared error, summed over the width, then average over the batch.",
            answer=lambda ref, x: _loss(ref, x, error="frobenius")),
    Mistake("l1_coeff multiplies the reconstruction; it weighs the L1 term: "
            "reconstruction + l1_coeff * L1.",
            answer=lambda ref, x: _loss(ref, x, swap=True)),
    Mistake("that is the L2 length of f (f.norm(dim=-1)); the sparsity penalty is the L1 norm, |f| "
            "summed over the features, which pushes small codes all the way to 0.",
            answer=lambda ref, x: _loss(ref, x, "l2")),
    Mistake("your loss has one value per input: average it over the batch (axis 0), so that it is "
            "one number for the optimiser to minimise.",
            when=lambda got, ref, x: isinstance(got, torch.Tensor) and tuple(got.shape) == (len(x),)),
]


def _stretched(ref):
    """W_dec with columns of lengths 0.5 .. 2.5, as they are after an optimiser step."""
    lengths = torch.linspace(0.5, 2.5, N_FEATURES, dtype=torch.float64)
    return ref.W_dec.detach() * lengths


_NORMALISE_MISTAKES = [
    Mistake("W_dec is as it was: normalise_decoder_ must change self.W_dec itself, in "
            "place (under torch.no_grad(), self.W_dec /= ... or self.W_dec.data = "
            "...), not return a new tensor.",
            answer=lambda W: W),
    Mistake("you normalised the rows of W_dec; each feature is a column, W_dec[:, i], so divide by "
            "W_dec.norm(dim=0).", answer=lambda W: W / W.norm(dim=1, keepdim=True)),
    Mistake("you divided the whole matrix by one norm; each column (one per feature) gets its own: "
            "W_dec.norm(dim=0).", answer=lambda W: W / W.norm()),
    Mistake("you divided each column by its squared length; divide by the length itself, "
            "W_dec.norm(dim=0), so that every column ends at length 1.",
            answer=lambda W: W / W.norm(dim=0).pow(2)),
    Mistake("you divided each column by its largest entry; divide by its length, "
            "W_dec.norm(dim=0), so that every column ends at length 1.",
            answer=lambda W: W / W.abs().max(0).values),
]

_REPLACED = ("the values are right, but normalise_decoder_ put a new Parameter in place of W_dec: "
             "the optimiser still holds the old one and would go on training it. Change the "
             "existing tensor, in place, under torch.no_grad().")
_TRACKED = ("autograd refused an in-place change of W_dec, a parameter that requires grad: make "
            "the change under torch.no_grad() (a `with` block, or the decorator on the method).")


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
        shape = _shape_error(cls) if forward.status == "wrong" and "RuntimeError" in str(forward) else None
        return wrong(EX2, shape) if shape else forward
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
        return wrong(EX2, message or say("your forward is right; your loss {problem}.", problem=compared_bad))

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
        return say("cannot be compared with the expected {expected} ({kind})", expected=describe(expected),
                   kind=type(err).__name__)


def check_sae(cls):
    """Exercise 2: the learner's SAE class, loaded with the reference's weights."""
    return judge(EX2, _check_sae, cls)


# called with the wrong number of arguments: how to call it
check_sae = explained_calls(EX2, check_sae)


# ---- Exercise 3: variance explained -----------------------------------------------------------

EX3 = "Exercise 3 (variance explained)"


def _reconstruction_case(seed, n=40, d=7, offset=3.0, shift=0.0):
    """Activations with a mean far from 0 (as a GELU's are), and a rebuild of them with some error
    (shift: a constant error in every entry, which a variance of the error would not see)."""
    g = torch.Generator().manual_seed(seed)
    x = offset + torch.randn(n, d, generator=g, dtype=torch.float64) * torch.linspace(0.5, 2.0, d, dtype=torch.float64)
    return x, x + shift + 0.4 * torch.randn(n, d, generator=g, dtype=torch.float64)


def _centred_rows(x, x_hat):
    return 1 - (x - x_hat).pow(2).sum() / (x - x.mean(1, keepdim=True)).pow(2).sum()


def _sse(x, x_hat):
    return (x - x_hat).pow(2).sum()


_VARIANCE_RATIO = ("you divided variances: torch.var subtracts the error's own mean, so a "
                   "reconstruction that is off by the same amount everywhere would look "
                   "perfect. The numerator is the squared error itself, sum ||x - "
                   "x_hat||^2, over every entry.")

_VARIANCE = Check(
    EX3,
    reference=sae.variance_explained,
    cases=[_reconstruction_case(0), _reconstruction_case(1, n=25, d=4, offset=-2.0),
           _reconstruction_case(2, n=30, d=5, shift=0.5)],
    mistakes=[
        Mistake("the denominator is not centred: it should be the variance of x, sum ||x - "
                "mean(x)||^2 with the mean over the rows (x.mean(0)), not sum ||x||^2. Activations "
                "have a large mean, and dividing by their raw size flatters the SAE.",
                answer=lambda x, x_hat: 1 - (x - x_hat).pow(2).sum() / x.pow(2).sum()),
        Mistake("that is the share left unexplained, sum ||x - x_hat||^2 / sum ||x - mean(x)||^2; "
                "the variance explained is 1 minus it.",
                answer=lambda x, x_hat: (x - x_hat).pow(2).sum() / (x - x.mean(0)).pow(2).sum()),
        Mistake("the mean is over the wrong axis: x.mean(1) averages each row's entries; the mean "
                "input is x.mean(0), over the rows (inputs).",
                answer=_centred_rows),
        Mistake("you averaged one ratio per column (per neuron); the variance "
                "explained divides the two sums over every entry, so that neurons with "
                "a large variance count for more.",
                answer=lambda x, x_hat: (1 - (x - x_hat).pow(2).sum(0) / (x - x.mean(0)).pow(2).sum(0)).mean()),
        Mistake("you centred x on one global mean (x.mean(), every entry); the mean input is one "
                "value per column, the mean over the rows (inputs), so that each neuron's own "
                "offset is not counted as variance.",
                answer=lambda x, x_hat: 1 - _sse(x, x_hat) / (x - x.mean()).pow(2).sum()),
        Mistake("the denominator divides by N - 1 (torch.var's default) and the "
                "numerator by N: the two sums must count the same entries. Use the sums "
                "themselves, or the same N in both.",
                answer=lambda x, x_hat: 1 - _sse(x, x_hat) / len(x) / x.var(0).sum()),
        Mistake("x.var() of the whole matrix is the spread around one global mean (and divides by "
                "N·d - 1): the variance to explain is around the mean input, one mean per column, "
                "with the same count as the error's.",
                answer=lambda x, x_hat: 1 - (x - x_hat).pow(2).mean() / x.var()),
        Mistake(_VARIANCE_RATIO, answer=lambda x, x_hat: 1 - (x - x_hat).var(0).sum() / x.var(0).sum()),
        Mistake(_VARIANCE_RATIO, answer=lambda x, x_hat: 1 - (x - x_hat).var() / x.var()),
        Mistake("that is the variance of x_hat over the variance of x: a reconstruction can have "
                "x's spread and still be wrong everywhere. Measure the error, 1 - sum ||x - "
                "x_hat||^2 / sum ||x - mean(x)||^2.",
                answer=lambda x, x_hat: (x_hat - x_hat.mean(0)).pow(2).sum() / (x - x.mean(0)).pow(2).sum()),
        Mistake("the errors are not squared: the variance explained compares sums of squares, "
                "sum ||x - x_hat||^2 against sum ||x - mean(x)||^2.",
                answer=lambda x, x_hat: 1 - (x - x_hat).abs().sum() / (x - x.mean(0)).abs().sum()),
        Mistake("that compares lengths, not squared lengths: ||x - x_hat|| / ||x - "
                "mean(x)|| is the square root of the unexplained share. Square both, or "
                "leave out the norms and sum the squares.",
                answer=lambda x, x_hat: 1 - (x - x_hat).norm() / (x - x.mean(0)).norm()),
        Mistake("one sum is a mean and the other a sum: both run over every entry, so that their "
                "ratio is the share of the variance left unexplained.",
                answer=lambda x, x_hat: 1 - (x - x_hat).pow(2).mean() / (x - x.mean(0)).pow(2).sum()),
        Mistake("that is a percent ({got:.4g}); return the share as a fraction, between 0 and 1.",
                answer=lambda x, x_hat: 100 * (1 - _sse(x, x_hat) / (x - x.mean(0)).pow(2).sum())),
    ],
    compare=number(rel=1e-9, abs=1e-12),
    success="1 - sum ||x - x_hat||^2 / sum ||x - mean(x)||^2, over every "
            "entry, as sae.variance_explained.",
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
        return wrong(EX3, say("variance_explained changed x or x_hat in place: the "
                              "caller's tensors are now different. Compute new tensors (x "
                              "- x_hat, not x -= x_hat)."))
    return _VARIANCE(fn)


def check_variance(fn):
    """Exercise 3 (stretch): the learner's variance_explained(x, x_hat)."""
    return judge(EX3, _check_variance, fn)


check_variance = explained_calls(EX3, check_variance)
