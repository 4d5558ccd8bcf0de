"""Notebook 16, exercise 3: variance_explained(x, x_hat), against activations whose mean is far
from 0, with the typical wrong ratios named."""

import torch

from helpers import sae
from helpers.checks.compare import number
from helpers.checks.core import MISSING, attempt, explained_calls, judge, not_attempted, wrong
from helpers.checks.nb16_superposition.ex2_sae import _changed
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say

EX3 = "Exercise 3 (variance explained)"


def _reconstruction_case(seed, n=40, d=7, offset=3.0, shift=0.0):
    """Activations with a mean far from 0 (as a GELU's are), and a rebuild of them with some error
    (shift: a constant error in every entry, which a variance of the error would not see)."""
    g = torch.Generator().manual_seed(seed)
    spread = torch.linspace(0.5, 2.0, d, dtype=torch.float64)
    x = offset + torch.randn(n, d, generator=g, dtype=torch.float64) * spread
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
                answer=lambda x, x_hat:
                    (1 - (x - x_hat).pow(2).sum(0) / (x - x.mean(0)).pow(2).sum(0)).mean()),
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
        Mistake(_VARIANCE_RATIO,
                answer=lambda x, x_hat: 1 - (x - x_hat).var(0).sum() / x.var(0).sum()),
        Mistake(_VARIANCE_RATIO, answer=lambda x, x_hat: 1 - (x - x_hat).var() / x.var()),
        Mistake("that is the variance of x_hat over the variance of x: a reconstruction can have "
                "x's spread and still be wrong everywhere. Measure the error, "
                "1 - sum ||x - x_hat||^2 / sum ||x - mean(x)||^2.",
                answer=lambda x, x_hat:
                    (x_hat - x_hat.mean(0)).pow(2).sum() / (x - x.mean(0)).pow(2).sum()),
        Mistake("the errors are not squared: the variance explained compares sums of squares, "
                "sum ||x - x_hat||^2 against sum ||x - mean(x)||^2.",
                answer=lambda x, x_hat: 1 - (x - x_hat).abs().sum() / (x - x.mean(0)).abs().sum()),
        Mistake("that compares lengths, not squared lengths: ||x - x_hat|| / "
                "||x - mean(x)|| is the square root of the unexplained share. Square both, or "
                "leave out the norms and sum the squares.",
                answer=lambda x, x_hat: 1 - (x - x_hat).norm() / (x - x.mean(0)).norm()),
        Mistake("one sum is a mean and the other a sum: both run over every entry, so that their "
                "ratio is the share of the variance left unexplained.",
                answer=lambda x, x_hat:
                    1 - (x - x_hat).pow(2).mean() / (x - x.mean(0)).pow(2).sum()),
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
