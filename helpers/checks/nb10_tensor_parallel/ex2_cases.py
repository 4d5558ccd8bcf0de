"""Notebook 10, exercise 2's cases: a small float64 gated MLP, its input, and the numbers of workers
it is split over."""

from dataclasses import dataclass

import torch

from helpers import tensor_parallel
from helpers.checks import language
from helpers.checks.show import say
from helpers.checks.state import seeded
from helpers.gated import GatedMLP

EX2 = "Exercise 2 (split Llama's MLP)"
GATED = tensor_parallel.GATED_KEYS
D_MODEL, D_FF, T = 8, 24, 3


def _gated(seed=2):
    """A float64 GatedMLP and an input x of T tokens, both drawn from `seed`."""
    with seeded(seed):
        mlp = GatedMLP(D_MODEL, D_FF).double()
    x = torch.randn(T, D_MODEL, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return mlp, x


@dataclass(frozen=True)
class Workers:
    """One case of the forward check: the MLP, the number of workers and the tokens."""

    mlp: GatedMLP
    n_workers: int
    x: torch.Tensor

    def __repr__(self):
        return language.translate(say("{n} workers", n=self.n_workers))   # shown inside a call


MLP, X = _gated()
SPLIT_CASES = [(MLP, 2), (MLP, 3)]
FORWARD_CASES = [(Workers(MLP, 2, X),), (Workers(MLP, 3, X),)]
