"""Exercise 2: the exact derivative of GELU(x) = x * Phi(x), told from a finite difference, from
autograd and from the usual slips of the product rule and of the normal density."""

from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.special
import torch

from helpers import activations
from helpers.checks.autograd_watch import autograd_used
from helpers.checks.compare import arrays
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.checks.verdict import wrong

# [-4, 4] where the curve bends, and far out (|x| up to 1e6), where GELU is x or 0: the exact
# derivative is 1 or 0 there to the last digit, while a finite difference (f(x + h) - f(x - h)) /
# (2h) subtracts two numbers near x and loses about eps * |x| / h to rounding (2e-5 at x = 1e6 with
# h = 1e-5). No h is small enough for the bend and large enough for the far points: the best central
# difference misses by about 2e-7, a five-point one by about 1e-8, while float64's own rounding of
# Phi(x) + x * phi(x) stays below 1e-15. So 1e-9 separates them.
_X = np.concatenate([np.linspace(-4.0, 4.0, 81), [-1e6, -1e3, -40.0, 40.0, 1e3, 1e6]])
_FD_TOL = 1e-9
_Phi, _phi = activations.std_normal_cdf, activations.std_normal_pdf


def _close(got, expected, tol=1e-6):
    """True when got is an array of expected's shape within tol of it everywhere."""
    arr = np.asarray(got, dtype=float)
    return arr.shape == np.shape(expected) and bool(np.all(np.abs(arr - expected) <= tol))


_BY_HAND = {   # what each exercise does instead of autograd
    "Exercise 2 (GELU's derivative)": say("the product rule on x * Phi(x), written with numpy"),
    "Exercise 3 (count the dead units)":
        say("a test of where ReLU's slope is 0, read from H itself"),
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
        return wrong(self.exercise, say("{name} gets its answer from autograd ({what}): the check "
                                        "compares you with autograd, and the exercise rules it "
                                        "out. Write it by hand: {how}.",
                                        name=self.name, what=", ".join(used),
                                        how=_BY_HAND[self.exercise]))


check_gelu_grad = _ByHand(
    "Exercise 2 (GELU's derivative)",
    reference=activations.gelu_grad,
    cases=[(_X,)],
    compare=arrays(atol=_FD_TOL, rtol=_FD_TOL),
    mistakes=[
        Mistake("{call} is float32 (np.float32, or torch's default dtype): it agrees with the "
                "derivative only to about 1e-7. Compute in float64, numpy's default.",
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
        Mistake("phi(x) = exp(-x**2 / 2) / sqrt(2 * pi): your density has "
                "exp(-x**2), without the / 2.",
                answer=lambda x: _Phi(x) + x * np.exp(-x**2) / np.sqrt(2 * np.pi)),
        Mistake("Phi(x) = 0.5 * (1 + erf(x / sqrt(2))): your Phi uses "
                "erf(x), without the / sqrt(2).",
                when=lambda got, x: _close(got, 0.5 * (1 + scipy.special.erf(x)) + x * _phi(x))
                or _close(got, (0.5 * (1 + scipy.special.erf(x))
                                + x * np.exp(-x**2) / np.sqrt(np.pi)))),
        Mistake("your function returns GELU(x) itself, not its derivative.",
                answer=activations.gelu),
        Mistake("that is the derivative of GELU's tanh approximation; the exercise asks for "
                "exact GELU, x * Phi(x) with erf.",
                answer=lambda x: activations.gelu_grad(x, "tanh")),
        Mistake("{call} is np.gradient of GELU: a finite difference between neighbouring points of "
                "x, which only approximates the slope (and badly where the points are far apart). "
                "The exercise is the derivative by hand: the product rule on x * Phi(x).",
                when=lambda got, x: _close(got, np.gradient(activations.gelu(x), x), tol=1e-12)),
        Mistake("{call} has one number fewer than x: np.diff of GELU's values is a finite "
                "difference between neighbours, not the derivative at each x. Use the product rule "
                "on x * Phi(x), element by element.",
                when=lambda got, x: np.shape(got) == (len(x) - 1,)),
        Mistake("{call} is a finite difference, (gelu(x + h) - gelu(x - h)) / (2 * h) or "
                "np.gradient: close to the slope, but it subtracts two nearly equal numbers, and "
                "far from 0 (x = 1e6) rounding leaves it off by more than 1e-9. The exercise is "
                "the derivative by hand: the product rule on x * Phi(x).",
                when=lambda got, x: _close(got, activations.gelu_grad(x), tol=1e-2)),
    ],
    success="Phi(x) + x * phi(x) agrees with helpers.activations.gelu_grad (checked against "
            "autograd in section 2) to 1e-9 on [-4, 4] and far out, negative left of the valley.",
    name="my_gelu_grad",
)
