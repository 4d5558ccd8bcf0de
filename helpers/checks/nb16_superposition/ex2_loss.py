"""Notebook 16, exercise 2's loss(x, l1_coeff) and normalise_decoder_(): their typical mistakes, and
the sentences for a W_dec replaced or changed where autograd tracks it."""

import torch

from helpers.checks.nb16_superposition.ex2_reference import N_FEATURES, _loss
from helpers.checks.runner import Mistake

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
            when=lambda got, ref, x:
                isinstance(got, torch.Tensor) and tuple(got.shape) == (len(x),)),
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
