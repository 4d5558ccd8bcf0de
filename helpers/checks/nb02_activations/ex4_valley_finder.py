"""Exercise 4 (stretch): the bottom of a valley, found by bisection on the slope; a root finder of
scipy.optimize, or another method, is told from bisection by the points it asks for."""

import math
import sys
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.special

from helpers import activations
from helpers.checks.calling import attempt
from helpers.checks.compare import number
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.checks.verdict import wrong


class _Slope:
    """A derivative handed to the learner's function, named in messages by what it is.

    Each copy made for the learner notes the points it is called at, and the root-finder (a function
    of scipy.optimize) it is called from, if any: bisection can then be told from another method.
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
                # the public function
                if not name.startswith(("_", "f_")) and hasattr(scipy.optimize, name):
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
    "solver": "your function calls {solver}: a root-finder that does the work for you. This "
              "exercise is to write bisection yourself: halve [lo, hi] again and again, keeping "
              "the half where the slope changes sign.",
    "array": "your function calls the slope on an array of points (a grid search): bisection "
             "asks for the slope at one point at a time, the middle of the bracket, and keeps "
             "the half where the sign changes.",
    "not a middle": "your function asked for the slope at x = {x:.6g}, which is not the middle "
                    "of the bracket [{lo:.6g}, {hi:.6g}] bisection holds at that step: "
                    "bisection only ever looks at the middle, (lo + hi) / 2, and keeps the half "
                    "where the sign changes.",
}


def _not_bisection(log, slope, lo, hi):
    """Why the calls in log are not a bisection of [lo, hi] on slope, as (key,
    values); None when they are."""
    if log["solvers"]:
        return "solver", {"solver": ", ".join(sorted(log["solvers"]))}
    a, b = lo, hi
    for x in log["points"]:
        if np.ndim(x) > 0 and np.size(x) > 1:
            return "array", {}
        x = float(np.asarray(x).reshape(-1)[0]) if np.ndim(x) else float(x)
        if (math.isclose(x, a, rel_tol=0, abs_tol=1e-12)
                or math.isclose(x, b, rel_tol=0, abs_tol=1e-12)):
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


# Brackets that end left of 0, so that a slope returned in place of x (about
# 0) is not mistaken for an end.
check_valley_finder = _BisectionCheck(
    "Exercise 4 (the bottom of the valley by bisection)",
    reference=_valley,
    cases=[(_Slope(activations.gelu_grad, "gelu_grad"), -3.0, -0.1),
           (_Slope(activations.silu_grad, "silu_grad"), -3.0, -0.1),
           (_Slope(lambda x: x - 0.3, "slope of (x - 0.3)**2 / 2"), -1.0, 2.0)],
    compare=number(rel=0, abs=1e-6),
    mistakes=[
        Mistake("{call} = {got:.2g} is about 0: that is the slope at the bottom, slope(x). Return "
                "the x where it is reached, the middle of the last bracket.",
                when=lambda got, slope, lo, hi: _near(got, 0.0, 1e-3)
                    and not _near(_valley(slope, lo, hi), 0.0, 1e-2)),
        Mistake("{call} returned the last bracket; return one number, its middle, (lo + hi) / 2.",
                when=lambda got, slope, lo, hi: isinstance(got, (tuple, list)) and len(got) == 2
                and all(_near(v, _valley(slope, lo, hi), 1e-2) for v in got)),
        Mistake("{call} is where the first halving (or none) leaves the bracket: is the `return` "
                "inside the loop? Return after the loop has finished.",
                when=lambda got, slope, lo, hi: any(_near(got, v, 1e-12)
                                                    for v in _after_one_halving(slope, lo, hi))),
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
