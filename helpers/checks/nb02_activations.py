"""Checks for notebook 02's exercises (activations).

1. A prediction: where GELU reaches its minimum.
2. The exact derivative of GELU(x) = x * Phi(x).
3. A dead-unit counter: hidden units that get no gradient through ReLU from a batch.
4. (stretch) The bottom of a valley, by bisection on the slope.
"""

import functools
import math
import sys
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.special
import torch

from helpers import activations
from helpers.checks.autograd_watch import autograd_used
from helpers.checks.compare import arrays, exact, number
from helpers.checks.core import attempt, referee, wrong
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import plain, say

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
_valley_prediction = check_valley_guess
EX1 = "Exercise 1 (where is GELU's valley?)"
_VALLEY_GUESSES = {   # what a wrong guess most likely mixed up, tried in order: (test, sentence)
    "value": "-0.17 is how low GELU goes, its minimum value; the question asks where, the x at which it gets "
             "there.",
    "silu": "about -1.28 is where SiLU bottoms out; GELU's gate Phi(x) closes faster than SiLU's sigmoid, so "
            "its valley lies nearer to 0.",
    "zero or right": "GELU(x) = x * Phi(x) is 0 at x = 0 and positive for x > 0; its valley, where it dips "
                     "below 0, lies left of 0.",
    "far left": "far to the left Phi(x) is almost 0 and GELU is almost 0 again: the valley's bottom lies between "
                "there and 0. Compare gelu(-1) with gelu(-0.5).",
    "minus one": "GELU(-1) = -0.159 is low, but GELU(-0.75) = -0.170 is lower: the bottom lies right of -1.",
    "minus half": "GELU(-0.5) = -0.154 is low, but GELU(-0.75) = -0.170 is lower: the bottom lies left of -0.5.",
}


def _valley_mixup(guess):
    """The key of _VALLEY_GUESSES the guess most likely comes from, else None."""
    if isinstance(guess, bool) or not isinstance(guess, (int, float)) or not math.isfinite(guess):
        return None
    for key, test in (("value", lambda g: abs(g + 0.17) < 0.006), ("silu", lambda g: abs(g + 1.278) < 0.06),
                      ("zero or right", lambda g: g >= 0), ("far left", lambda g: g < -1.5),
                      ("minus one", lambda g: g <= -0.9), ("minus half", lambda g: g >= -0.6)):
        if test(guess):
            return key
    return None


@referee(EX1)
def check_valley_guess(guess, actual):
    """Exercise 1: where GELU is lowest; the likeliest wrong guesses are named."""
    fb = _valley_prediction(guess, actual)
    key = _valley_mixup(plain(guess)) if fb.status == "wrong" else None
    return wrong(EX1, say("{said} {named}", said=fb.message, named=say(_VALLEY_GUESSES[key]))) if key else fb

# Exercise 2 ----------------------------------------------------------------------------

# [-4, 4] where the curve bends, and far out (|x| up to 1e6), where GELU is x or 0: the exact derivative is 1 or 0
# there to the last digit, while a finite difference (f(x + h) - f(x - h)) / (2h) subtracts two numbers near x
# and loses about eps * |x| / h to rounding (2e-5 at x = 1e6 with h = 1e-5). No h is small enough for the bend
# and large enough for the far points: the best central difference misses by about 2e-7, a five-point one by
# about 1e-8, while float64's own rounding of Phi(x) + x * phi(x) stays below 1e-15. So 1e-9 separates them.
_X = np.concatenate([np.linspace(-4.0, 4.0, 81), [-1e6, -1e3, -40.0, 40.0, 1e3, 1e6]])
_FD_TOL = 1e-9
_Phi, _phi = activations.std_normal_cdf, activations.std_normal_pdf



def _close(got, expected, tol=1e-6):
    """True when got is an array of expected's shape within tol of it everywhere."""
    arr = np.asarray(got, dtype=float)
    return arr.shape == np.shape(expected) and bool(np.all(np.abs(arr - expected) <= tol))


_BY_HAND = {   # what each exercise does instead of autograd
    "Exercise 2 (GELU's derivative)": say("the product rule on x * Phi(x), written with numpy"),
    "Exercise 3 (count the dead units)": say("a test of where ReLU's slope is 0, read from H itself"),
}


@dataclass(frozen=True)
class _ByHand(Check):
    """A Check whose right answer must not come from autograd, which is what it is compared with."""

    def _judge(self, answer):
        fb = super()._judge(answer)
        if fb.status != "correct" or not callable(answer):
            return fb
        used = autograd_used(answer, *self.cases[0])
        if not used:
            return fb
        return wrong(self.exercise, say("{name} gets its answer from autograd ({what}): the check compares you "
                                        "with autograd, and the exercise rules it out. Write it by hand: {how}.",
                                        name=self.name, what=", ".join(used), how=_BY_HAND[self.exercise]))


check_gelu_grad = _ByHand(
    "Exercise 2 (GELU's derivative)",
    reference=activations.gelu_grad,
    cases=[(_X,)],
    compare=arrays(atol=_FD_TOL, rtol=_FD_TOL),
    mistakes=[
        Mistake("{call} is float32 (np.float32, or torch's default dtype): it agrees with the derivative only to "
                "about 1e-7. Compute in float64, numpy's default.",
                when=lambda got, x: getattr(got, "dtype", None) in (np.float32, torch.float32)),
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
        Mistake("{call} is np.gradient of GELU: a finite difference between neighbouring points of x, which "
                "only approximates the slope (and badly where the points are far apart). The exercise is the "
                "derivative by hand: the product rule on x * Phi(x).",
                when=lambda got, x: _close(got, np.gradient(activations.gelu(x), x), tol=1e-12)),
        Mistake("{call} has one number fewer than x: np.diff of GELU's values is a finite difference between "
                "neighbours, not the derivative at each x. Use the product rule on x * Phi(x), element by element.",
                when=lambda got, x: np.shape(got) == (len(x) - 1,)),
        Mistake("{call} is a finite difference, (gelu(x + h) - gelu(x - h)) / (2 * h) or np.gradient: close to "
                "the slope, but it subtracts two nearly equal numbers, and far from 0 (x = 1e6) rounding leaves it "
                "off by more than 1e-9. The exercise is the derivative by hand: the product rule on x * Phi(x).",
                when=lambda got, x: _close(got, activations.gelu_grad(x), tol=1e-2)),
    ],
    success="Phi(x) + x * phi(x) agrees with helpers.activations.gelu_grad (checked against "
            "autograd in section 2) to 1e-9 on [-4, 4] and far out, negative left of the valley.",
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


# (T=4, d_ff=5): only unit 3 is dead. Units 0-2 are weak but alive (a mean ReLU output below 0.01, unit 2's
# only 2.5e-10), and the mean pre-activation of units 2 and 4 is negative though one token switches each on:
# a threshold on a mean activation, or a test of the mean pre-activation, counts them as dead.
_WEAK = torch.tensor([[0.02, -0.001, 1e-9, -0.5, 2.0],
                      [-0.001, 0.02, -0.3, -0.5, -3.0],
                      [-0.005, 0.001, -0.2, -0.1, -1.0],
                      [-0.004, -0.005, -0.1, -0.2, -1.5]], dtype=torch.float64)


@functools.cache
def _mostly_off(T=200):
    """(T, 6): unit 0 dead; units 1-4 off for all tokens but 1, 15, 50 and 100 of them (99.5% to 50% off);
    unit 5 on for every token. A unit off for most tokens, but not all, still learns: only unit 0 is dead."""
    gen = torch.Generator().manual_seed(3)
    H = -(torch.rand(T, 6, generator=gen, dtype=torch.float64) + 0.01)
    for unit, on in ((1, 1), (2, 15), (3, 50), (4, 100), (5, T)):
        H[:on, unit] = 30 - H[:on, unit]   # large where on: no threshold on the mean activation counts it
    return H


@functools.cache
def _pushed_pre_activations(d_model=16, d_ff=64, T=256, n_pushed=16):
    """Pre-activations (T, d_ff) of an up-projection whose first n_pushed biases were pushed down by 3.

    Drawn from its own generator the way nn.Linear draws its weights (uniform in +-1/sqrt(fan_in)), when a
    check first needs it: importing this module or running a check leaves torch's global generator alone.
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
    """The counts a threshold on the share of tokens a unit is off for gives (50% to 99.9%, > and >=)."""
    share = (torch.as_tensor(H) <= 0).double().mean(dim=0)
    return {int((share > t).sum()) for t in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)} | {
        int((share >= t).sum()) for t in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)}


def _is_number(value):
    return isinstance(value, (int, float, np.number)) or (isinstance(value, torch.Tensor) and value.numel() == 1)


check_dead_units = _ByHand(
    "Exercise 3 (count the dead units)",
    reference=dead_units,
    cases=_Cases(),
    compare=exact(),
    mistakes=[
        Mistake("{call} counts units whose mean activation is small (below a threshold such as 0.01); a unit is "
                "dead only when ReLU passes it nothing at all. One token with a small positive pre-activation "
                "still sends it a gradient: test `H <= 0` for every token, with no threshold.",
                when=lambda got, H: _is_number(got) and int(got) != dead_units(H) and any(
                    int(got) == _weak_count(H, t) for t in (1e-1, 5e-2, 1e-2, 1e-3, 1e-4, 1e-6))),
        Mistake("{call} counts units that are off for most tokens (a share above a threshold such as 90%); a "
                "unit that one token in 200 switches on still learns from that token. Dead means off for every "
                "token: no threshold on the share.",
                when=lambda got, H: _is_number(got) and int(got) != dead_units(H)
                and int(got) in _off_share_count(H)),
        Mistake("{call} counts units whose mean pre-activation is 0 or below; a unit with a negative mean can "
                "still be switched on by one token. Dead means off for every token.",
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
                when=lambda got, H: _is_number(got) and abs(float(got) - dead_units(H) / H.shape[1]) < 1e-9),
    ],
    success="your count agrees with autograd: on the hand-made H, and on a layer whose 16 pushed "
            "units are dead for all 256 tokens.",
    name="count_dead_units",
)

# Exercise 4 ----------------------------------------------------------------------------


class _Slope:
    """A derivative handed to the learner's function, named in messages by what it is.

    Each copy made for the learner notes the points it is called at, and the root-finder (a function of
    scipy.optimize) it is called from, if any: bisection can then be told from another method.
    """

    def __init__(self, fn, name, log=None):
        self.fn, self.name = fn, name
        self.log = log if log is not None else {"points": [], "solvers": set()}

    def __call__(self, x):
        self.log["points"].append(x)
        frame = sys._getframe(1)
        while frame is not None:
            module = frame.f_globals.get("__name__", "")
            if module.startswith("scipy.optimize"):
                name = frame.f_code.co_name
                if not name.startswith(("_", "f_")) and hasattr(scipy.optimize, name):   # the public function
                    self.log["solvers"].add("scipy.optimize." + name)
            frame = frame.f_back
        return self.fn(x)

    def __deepcopy__(self, memo):
        return _Slope(self.fn, self.name, self.log)

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


EX4 = "Exercise 4 (the bottom of the valley by bisection)"
_NOT_BISECTION = {
    "solver": "your function calls {solver}: a root-finder that does the work for you. This exercise is to write "
              "bisection yourself: halve [lo, hi] again and again, keeping the half where the slope changes sign.",
    "array": "your function calls the slope on an array of points (a grid search): bisection asks for the slope at "
             "one point at a time, the middle of the bracket, and keeps the half where the sign changes.",
    "not a middle": "your function asked for the slope at x = {x:.6g}, which is not the middle of the bracket "
                    "[{lo:.6g}, {hi:.6g}] bisection holds at that step: bisection only ever looks at the middle, "
                    "(lo + hi) / 2, and keeps the half where the sign changes.",
}


def _not_bisection(log, slope, lo, hi):
    """Why the calls in log are not a bisection of [lo, hi] on slope, as (key, values); None when they are."""
    if log["solvers"]:
        return "solver", {"solver": ", ".join(sorted(log["solvers"]))}
    a, b = lo, hi
    for x in log["points"]:
        if np.ndim(x) > 0 and np.size(x) > 1:
            return "array", {}
        x = float(np.asarray(x).reshape(-1)[0]) if np.ndim(x) else float(x)
        if math.isclose(x, a, rel_tol=0, abs_tol=1e-12) or math.isclose(x, b, rel_tol=0, abs_tol=1e-12):
            continue                       # an end of the bracket, asked again
        if not math.isclose(x, (a + b) / 2, rel_tol=0, abs_tol=1e-9 * (hi - lo)):
            return "not a middle", {"x": x, "lo": a, "hi": b}
        a, b = (x, b) if slope(x) < 0 else (a, x)
    return None


@dataclass(frozen=True)
class _BisectionCheck(Check):
    """Exercise 4's check: find_valley right on every case, and getting there by bisection."""

    def _judge(self, find_valley):
        fb = super()._judge(find_valley)
        if fb.status != "correct":
            return fb
        for slope, lo, hi in self.cases:
            watched = _Slope(slope.fn, slope.name)
            attempt(find_valley, watched, lo, hi)
            found = _not_bisection(watched.log, slope, lo, hi)
            if found is not None:
                key, values = found
                return wrong(self.exercise, say(_NOT_BISECTION[key], **values))
        return fb


# Brackets that end left of 0, so that a slope returned in place of x (about 0) is not mistaken for an end.
check_valley_finder = _BisectionCheck(
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


