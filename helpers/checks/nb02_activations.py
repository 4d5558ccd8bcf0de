"""Checks for notebook 02's exercises (activations).

1. A prediction: where GELU reaches its minimum.
2. The exact derivative of GELU(x) = x * Phi(x).
3. A dead-unit counter: hidden units that get no gradient through ReLU from a batch.
4. (stretch) The bottom of a valley, by bisection on the slope.
"""

import numpy as np
import scipy.optimize
import scipy.special
import torch

from helpers import activations
from helpers.checks.compare import arrays, exact, number
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.ffn import FFN

# Exercise 1 ----------------------------------------------------------------------------

check_valley_guess = Prediction(
    "Exercise 1 (where is GELU's valley?)",
    why="GELU(x) = x * Phi(x) is lowest where its slope crosses 0. Left of that point the gate Phi(x) "
        "shrinks faster than |x| grows, so GELU climbs back towards 0 and its slope is negative; right "
        "of it GELU rises to 0 at x = 0. SiLU's valley is deeper and further left: the figures below "
        "show both.",
    rel=0.2,
    variable="my_valley_x",
    fmt="{:.2f}",
    answer="brentq finds",
)

# Exercise 2 ----------------------------------------------------------------------------

_X = np.linspace(-4.0, 4.0, 81)
_Phi, _phi = activations.std_normal_cdf, activations.std_normal_pdf



def _close(got, expected, tol=1e-6):
    """True when got is an array of expected's shape within tol of it everywhere."""
    arr = np.asarray(got, dtype=float)
    return arr.shape == np.shape(expected) and bool(np.all(np.abs(arr - expected) <= tol))


check_gelu_grad = Check(
    "Exercise 2 (GELU's derivative)",
    reference=activations.gelu_grad,
    cases=[(_X,)],
    compare=arrays(atol=1e-6, rtol=1e-6),
    mistakes=[
        Mistake("your derivative is Phi(x) alone: that is the gate, not the slope. The product "
                "rule on x * Phi(x) adds x * phi(x), the term that makes the slope negative left "
                "of the valley.", answer=_Phi),
        Mistake("you have x * phi(x) but not Phi(x): the product rule gives both, "
                "1 * Phi(x) + x * phi(x).", answer=lambda x: x * _phi(x)),
        Mistake("the second term is x * phi(x): the derivative of Phi(x) is phi(x), multiplied by "
                "the x in front.", answer=lambda x: _Phi(x) + _phi(x)),
        Mistake("phi(x) = exp(-x**2 / 2) / sqrt(2 * pi): your normal density lacks its "
                "1 / sqrt(2 * pi).", answer=lambda x: _Phi(x) + x * np.exp(-x**2 / 2)),
        Mistake("the second term has the wrong sign: the product rule adds, Phi(x) + x * phi(x).",
                answer=lambda x: _Phi(x) - x * _phi(x)),
        Mistake("phi(x) = exp(-x**2 / 2) / sqrt(2 * pi): your density has exp(-x**2), without the / 2.",
                answer=lambda x: _Phi(x) + x * np.exp(-x**2) / np.sqrt(2 * np.pi)),
        Mistake("Phi(x) = 0.5 * (1 + erf(x / sqrt(2))): your Phi uses erf(x), without the / sqrt(2).",
                when=lambda got, x: _close(got, 0.5 * (1 + scipy.special.erf(x)) + x * _phi(x))
                or _close(got, 0.5 * (1 + scipy.special.erf(x)) + x * np.exp(-x**2) / np.sqrt(np.pi))),
        Mistake("your function returns GELU(x) itself, not its derivative.", answer=activations.gelu),
        Mistake("that is the derivative of GELU's tanh approximation; the exercise asks for "
                "exact GELU, x * Phi(x) with erf.", answer=lambda x: activations.gelu_grad(x, "tanh")),
        Mistake("{call} is within 1e-2 of the derivative but not within 1e-6: a finite difference "
                "(np.gradient, or (f(x + h) - f(x)) / h) only approximates it. Write the exact "
                "derivative with the product rule.",
                when=lambda got, x: _close(got, activations.gelu_grad(x), tol=1e-2)),
    ],
    success="Phi(x) + x * phi(x) agrees with helpers.activations.gelu_grad (checked against "
            "autograd in section 2) everywhere on [-4, 4], negative left of the valley.",
    name="my_gelu_grad",
)

# Exercise 3 ----------------------------------------------------------------------------


def dead_units(H):
    """Units (columns of H, (T, d_ff)) that ReLU passes no gradient from any token: asked of autograd."""
    H = torch.as_tensor(H).detach().double().requires_grad_(True)
    torch.relu(H).sum().backward()
    return int((H.grad == 0).all(dim=0).sum())


# (T=3 tokens, d_ff=7 units): units 0, 2 and 3 are dead; each typical slip gives another count.
_SMALL = torch.tensor([[-1.0, 2.0, -0.5, 0.0, 0.3, 1.0, -0.2],
                       [-2.0, -1.0, -0.1, -3.0, 0.2, 0.4, 0.5],
                       [-0.5, 0.5, -2.0, 0.0, 0.1, -0.3, 0.2]])


def _pushed_pre_activations(d_model=16, d_ff=64, T=256, n_pushed=16):
    """Pre-activations (T, d_ff) of an FFN whose first n_pushed biases were pushed down by 3."""
    gen = torch.Generator().manual_seed(2)
    ffn = FFN(d_model, d_ff, activation="relu").double()
    with torch.no_grad():
        for p in ffn.parameters():   # nn.Linear's own init, uniform in +-1/sqrt(fan_in), seeded here
            p.copy_((torch.rand(p.shape, generator=gen, dtype=torch.float64) * 2 - 1) / d_model**0.5)
        ffn.c_fc.bias[:n_pushed] -= 3.0
        return ffn.c_fc(torch.randn(T, d_model, generator=gen, dtype=torch.float64))


def _is_number(value):
    return isinstance(value, (int, float, np.number)) or (isinstance(value, torch.Tensor) and value.numel() == 1)


check_dead_units = Check(
    "Exercise 3 (count the dead units)",
    reference=dead_units,
    cases=[(_SMALL,), (_pushed_pre_activations(),)],
    compare=exact(),
    mistakes=[
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
                when=lambda got, H: _is_number(got) and abs(float(got) - dead_units(H) / H.shape[1]) < 1e-9),
    ],
    success="your count agrees with autograd: on the hand-made H, and on a layer whose 16 pushed "
            "units are dead for all 256 tokens.",
    name="count_dead_units",
)

# Exercise 4 ----------------------------------------------------------------------------


class _Slope:
    """A derivative handed to the learner's function, named in messages by what it is."""

    def __init__(self, fn, name):
        self.fn, self.name = fn, name

    def __call__(self, x):
        return self.fn(x)

    def __repr__(self):
        return self.name


def _valley(slope, lo, hi):
    return scipy.optimize.brentq(slope, lo, hi, xtol=1e-12)


def _near(a, b, tol):
    return isinstance(a, (int, float, np.floating)) and not isinstance(a, bool) and abs(a - b) < tol


def _after_one_halving(slope, lo, hi):
    """Where a bisection lands when its `return` sits inside the loop: after 0 or 1 halvings."""
    mid = (lo + hi) / 2
    lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
    return mid, (lo + hi) / 2


# Brackets that end left of 0, so that a slope returned in place of x (about 0) is not mistaken for an end.
check_valley_finder = Check(
    "Exercise 4 (the bottom of the valley by bisection)",
    reference=_valley,
    cases=[(_Slope(activations.gelu_grad, "gelu_grad"), -3.0, -0.1),
           (_Slope(activations.silu_grad, "silu_grad"), -3.0, -0.1),
           (_Slope(lambda x: x - 0.3, "slope of (x - 0.3)**2 / 2"), -1.0, 2.0)],
    compare=number(rel=0, abs=1e-6),
    mistakes=[
        Mistake("{call} = {got:.2g} is about 0: that is the slope at the bottom, slope(x). Return the x "
                "where it is reached, the middle of the last bracket.",
                when=lambda got, slope, lo, hi: _near(got, 0.0, 1e-3) and not _near(_valley(slope, lo, hi), 0.0, 1e-2)),
        Mistake("{call} returned the last bracket; return one number, its middle, (lo + hi) / 2.",
                when=lambda got, slope, lo, hi: isinstance(got, (tuple, list)) and len(got) == 2
                and all(_near(v, _valley(slope, lo, hi), 1e-2) for v in got)),
        Mistake("{call} is where the first halving (or none) leaves the bracket: is the `return` inside "
                "the loop? Return after the loop has finished.",
                when=lambda got, slope, lo, hi: any(_near(got, v, 1e-12) for v in _after_one_halving(slope, lo, hi))),
        Mistake("{call} walked to an end of the bracket: when the slope at the middle is "
                "negative, the bottom lies to its right, so the middle becomes the new left end.",
                when=lambda got, slope, lo, hi: _near(got, lo, 1e-3) or _near(got, hi, 1e-3)),
        Mistake("{call} is close but not within 1e-6: keep halving until the bracket is "
                "narrower than 1e-7 (about 25 halvings for a bracket 3 wide).",
                when=lambda got, slope, lo, hi: _near(got, _valley(slope, lo, hi), 1e-2)),
    ],
    success="bisection on the slope finds the bottom of both valleys, GELU's at x = -0.7518 "
            "and SiLU's at x = -1.2785, as brentq did in section 3.",
    name="find_valley",
)
