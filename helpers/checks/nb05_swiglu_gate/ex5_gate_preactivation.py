"""Exercise 5 (stretch): `gate_preactivation(g)`, the z on SiLU's rising branch with
SiLU(z) = g."""

import math

import scipy.optimize

from helpers import activations
from helpers.checks.compare import number
from helpers.checks.nb05_swiglu_gate.shared import SILU_ARGMIN
from helpers.checks.runner import Check, Mistake


def _inverse_silu(g):
    """The z >= SILU_ARGMIN with SiLU(z) = g (SiLU rises there)."""
    return scipy.optimize.brentq(lambda z: float(activations.silu(z)) - g,
                                 SILU_ARGMIN, max(g, 0.0) + 1.0, xtol=1e-14)


def _left_branch(g):
    return scipy.optimize.brentq(lambda z: float(activations.silu(z)) - g, -40.0, SILU_ARGMIN)


def _roughly(got, g):
    """True for an answer within 1e-3 of the right z, but not within the check's 1e-6."""
    try:
        return 1e-6 < abs(float(got) - _inverse_silu(g)) < 1e-3
    except (TypeError, ValueError):
        return False


check_gate_preactivation = Check(
    "Exercise 5 (which pre-activation gives this gate?)",
    reference=_inverse_silu,
    cases=[(0.1,), (1.5,), (0.0,), (2.0,), (-0.2,)],
    compare=number(rel=1e-6, abs=1e-6),
    mistakes=[
        Mistake("{call} returned the gate itself: the gate value is what comes OUT of SiLU; find "
                "the z that goes in.", answer=lambda g: g),
        Mistake("{call} = {got}: that is SiLU(g), SiLU applied to the gate. The question goes the "
                "other way: which z has SiLU(z) = g?", answer=lambda g: float(activations.silu(g))),
        Mistake("{call} = {got}: that inverts sigmoid, log(g / (1 - g)); the gate is SiLU(z) = "
                "z * sigmoid(z).", answer=lambda g: math.log(g / (1 - g))),
        Mistake("{call} = {got} is left of SiLU's minimum at -1.278465: it gives the same gate, "
                "but take the solution on the rising branch (z >= -1.278465).",
                answer=_left_branch),
        Mistake("{call} = {got} is close, but not within 1e-6 of the answer: each halving of the "
                "interval gains one binary digit, so halve it more times (or pass a smaller xtol).",
                when=_roughly),
    ],
    success="the gates 0.1, 1.5, 0 and 2 of source post 2 come from pre-activations of about "
            "0.183, 1.758, 0 and 2.218.",
    name="gate_preactivation",
)
