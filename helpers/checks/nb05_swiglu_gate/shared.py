"""What more than one exercise uses: the small widths the checks build, SiLU's minimum (where
SiLU(z) = 1 and how low it goes), a fused checkpoint drawn from a seed, and cases made when a
check first needs them."""

import functools
import math
from collections.abc import Sequence

import scipy.optimize
import torch

from helpers import activations
from helpers.checks.cases import Named
from helpers.checks.show import say

D_MODEL, D_FF = 8, 24
# SiLU's minimum sits at -a where a * sigmoid(a) = 1, i.e. where SiLU(a) = 1.
SILU_ONE = scipy.optimize.brentq(  # 1.278465
    lambda z: float(activations.silu(z)) - 1.0, 0.0, 5.0, xtol=1e-13
)
SILU_ARGMIN = -SILU_ONE
SILU_MIN = float(activations.silu(SILU_ARGMIN))  # -0.278465


def _fused_state(d_model, d_ff, seed):
    """The state_dict of a fused gated MLP: gate_up_proj.weight (2*d_ff, d_model), down_proj.weight.

    Drawn from the check's own generator as nn.Linear draws its weights (uniform in
    ±1/√in_features), so that building it touches neither torch's global generator nor anything
    else of the learner's.
    """
    g = torch.Generator().manual_seed(seed)

    def linear(d_in, d_out):
        bound = 1 / math.sqrt(d_in)
        return (torch.rand(d_out, d_in, generator=g, dtype=torch.float64) * 2 - 1) * bound

    gate, up, down = linear(d_model, d_ff), linear(d_model, d_ff), linear(d_ff, d_model)
    tensors = {"gate_up_proj.weight": torch.cat([gate, up]), "down_proj.weight": down}
    return Named(tensors, say("fused state_dict, d_model={d_model}, d_ff={d_ff}",
                              d_model=d_model, d_ff=d_ff))


class _Lazy(Sequence):
    """A check's cases, built on first use (not at import): make() -> a list of argument tuples."""

    def __init__(self, make):
        self._make = make

    @functools.cached_property
    def _cases(self):
        return self._make()

    def __getitem__(self, i):
        return self._cases[i]

    def __len__(self):
        return len(self._cases)
