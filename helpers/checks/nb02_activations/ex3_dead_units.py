"""Exercise 3: a dead-unit counter, the hidden units that get no gradient through ReLU from
any token of a batch (not the weak ones, nor those whose mean is negative)."""

import functools

import numpy as np
import torch

from helpers.checks.compare import exact
from helpers.checks.nb02_activations.ex2_gelu_grad import _ByHand
from helpers.checks.runner import Mistake


def dead_units(H):
    """Units (columns of H, (T, d_ff)) that ReLU passes no gradient from
    any token: asked of autograd."""
    H = torch.as_tensor(H).detach().double().requires_grad_(True)
    torch.relu(H).sum().backward()
    return int((H.grad == 0).all(dim=0).sum())


# (T=3 tokens, d_ff=7 units): units 0, 2 and 3 are dead; each typical slip gives another count.
_SMALL = torch.tensor([[-1.0, 2.0, -0.5, 0.0, 0.3, 1.0, -0.2],
                       [-2.0, -1.0, -0.1, -3.0, 0.2, 0.4, 0.5],
                       [-0.5, 0.5, -2.0, 0.0, 0.1, -0.3, 0.2]])


# (T=4, d_ff=5): only unit 3 is dead. Units 0-2 are weak but alive (a mean ReLU output below
# 0.01, unit 2's only 2.5e-10), and the mean pre-activation of units 2 and 4 is negative though
# one token switches each on: a threshold on a mean activation, or a test of the mean
# pre-activation, counts them as dead.
_WEAK = torch.tensor([[0.02, -0.001, 1e-9, -0.5, 2.0],
                      [-0.001, 0.02, -0.3, -0.5, -3.0],
                      [-0.005, 0.001, -0.2, -0.1, -1.0],
                      [-0.004, -0.005, -0.1, -0.2, -1.5]], dtype=torch.float64)


@functools.cache
def _mostly_off(T=200):
    """(T, 6): unit 0 dead; units 1-4 off for all tokens but 1, 15, 50 and 100 of them (99.5%
    to 50% off); unit 5 on for every token. A unit off for most tokens, but not all, still
    learns: only unit 0 is dead."""
    gen = torch.Generator().manual_seed(3)
    H = -(torch.rand(T, 6, generator=gen, dtype=torch.float64) + 0.01)
    for unit, on in ((1, 1), (2, 15), (3, 50), (4, 100), (5, T)):
        # large where on: no threshold on the mean activation counts it
        H[:on, unit] = 30 - H[:on, unit]
    return H


@functools.cache
def _pushed_pre_activations(d_model=16, d_ff=64, T=256, n_pushed=16):
    """Pre-activations (T, d_ff) of an up-projection whose first
    n_pushed biases were pushed down by 3.

    Drawn from its own generator the way nn.Linear draws its weights (uniform in
    +-1/sqrt(fan_in)), when a check first needs it: importing this module or running a check
    leaves torch's global generator alone.
    """
    gen = torch.Generator().manual_seed(2)

    def uniform(*shape):
        return (torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1) / d_model**0.5

    W1, b1 = uniform(d_model, d_ff), uniform(d_ff)
    b1[:n_pushed] -= 3.0
    return torch.randn(T, d_model, generator=gen, dtype=torch.float64) @ W1 + b1


class _Cases(list):
    """The dead-unit cases, a list that makes the pushed layer on first use."""

    def _filled(self):
        if list.__len__(self) == 0:
            self.extend([(_SMALL,), (_WEAK,), (_mostly_off(),), (_pushed_pre_activations(),)])
        return self

    def __getitem__(self, i):
        return list.__getitem__(self._filled(), i)

    def __iter__(self):
        return list.__iter__(self._filled())

    def __len__(self):
        return list.__len__(self._filled())


def _weak_count(H, threshold):
    return int((torch.relu(torch.as_tensor(H)).mean(dim=0) < threshold).sum())


def _off_share_count(H):
    """The counts a threshold on the share of tokens a unit is off for
    gives (50% to 99.9%, > and >=)."""
    share = (torch.as_tensor(H) <= 0).double().mean(dim=0)
    return {int((share > t).sum()) for t in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)} | {
        int((share >= t).sum()) for t in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)}


def _is_number(value):
    return (isinstance(value, (int, float, np.number))
            or (isinstance(value, torch.Tensor) and value.numel() == 1))


check_dead_units = _ByHand(
    "Exercise 3 (count the dead units)",
    reference=dead_units,
    cases=_Cases(),
    compare=exact(),
    mistakes=[
        Mistake("{call} counts units whose mean activation is small (below a threshold such as "
                "0.01); a unit is dead only when ReLU passes it nothing at all. One token with a "
                "small positive pre-activation still sends it a gradient: test `H <= 0` for every "
                "token, with no threshold.",
                when=lambda got, H: _is_number(got) and int(got) != dead_units(H) and any(
                    int(got) == _weak_count(H, t) for t in (1e-1, 5e-2, 1e-2, 1e-3, 1e-4, 1e-6))),
        Mistake("{call} counts units that are off for most tokens (a share above a threshold such "
                "as 90%); a unit that one token in 200 switches on still learns from that token. "
                "Dead means off for every token: no threshold on the share.",
                when=lambda got, H: _is_number(got) and int(got) != dead_units(H)
                and int(got) in _off_share_count(H)),
        Mistake("{call} counts units whose mean pre-activation is 0 or below; a unit "
                "with a negative mean can still be switched on by one token. Dead "
                "means off for every token.",
                when=lambda got, H: _is_number(got) and int(got) != dead_units(H)
                and int(got) in (int((H.mean(dim=0) <= 0).sum()), int((H.mean(dim=0) < 0).sum()))),
        Mistake("{call} counts entries <= 0, not units: a unit is a column of H, dead only "
                "when every token leaves it off.", answer=lambda H: int((H <= 0).sum())),
        Mistake("{call} counts units that are off for at least one token; a unit is dead only "
                "when it is off for every token.", answer=lambda H: int((H <= 0).any(dim=0).sum())),
        Mistake("{call} counts columns below 0 everywhere; at exactly 0 ReLU's slope is 0 too "
                "(torch's choice), so a column of zeros and negatives gets no gradient either.",
                answer=lambda H: int((H < 0).all(dim=0).sum())),
        Mistake("{call} counts tokens (rows) that every unit ignores; the units are the "
                "columns of H.", answer=lambda H: int((H <= 0).all(dim=1).sum())),
        Mistake("{call} is the number of units, not the dead ones.", answer=lambda H: H.shape[1]),
        Mistake("{call} counts the live units; the question asks for the dead ones.",
                answer=lambda H: H.shape[1] - dead_units(H)),
        Mistake("{call} gives one value per unit (True or False, or a count of tokens); return one "
                "number, how many units are dead: `int(....sum())` over the units.",
                when=lambda got, H: tuple(getattr(got, "shape", ())) == (H.shape[1],)),
        Mistake("{call} is the share of dead units (a mean); the question asks how many: a count.",
                when=lambda got, H: _is_number(got)
                    and abs(float(got) - dead_units(H) / H.shape[1]) < 1e-9),
    ],
    success="your count agrees with autograd: on the hand-made H, and on a layer whose 16 pushed "
            "units are dead for all 256 tokens.",
    name="count_dead_units",
)
