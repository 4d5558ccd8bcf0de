"""Notebook 05's exercise checks: accept the solutions, explain typical mistakes."""

import math

import numpy as np
import pytest
import scipy.optimize
import scipy.special

from helpers.checks import nb05_swiglu_gate as checks


def silu(z):
    return z * scipy.special.expit(z)


def test_silu_constants():
    assert math.isclose(checks.SILU_ONE, 1.2785, abs_tol=1e-4)
    assert math.isclose(silu(checks.SILU_ONE), 1.0, abs_tol=1e-12)
    found = scipy.optimize.minimize_scalar(silu, bounds=(-3, 0), method="bounded", options={"xatol": 1e-9})
    assert math.isclose(found.x, checks.SILU_ARGMIN, abs_tol=1e-5)
    assert math.isclose(checks.SILU_MIN, 1 - checks.SILU_ONE, abs_tol=1e-12)   # min = 1 - a


def test_not_attempted_does_not_raise():
    for fb in [checks.check_swiglu_hidden(lambda x, g, u: None), checks.check_gate_preactivation(lambda g: None),
               checks.check_fuse_weights(lambda g, u: None), checks.check_llama_width(lambda d, m: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_swiglu_hidden():
    assert checks.check_swiglu_hidden(lambda x, Wg, Wu: silu(x @ Wg) * (x @ Wu))
    fb = checks.check_swiglu_hidden(lambda x, Wg, Wu: silu(x @ Wu) * (x @ Wg))
    assert not fb and "up branch" in fb.message
    fb = checks.check_swiglu_hidden(lambda x, Wg, Wu: (x @ Wg) * (x @ Wu))
    assert not fb and "no activation" in fb.message
    fb = checks.check_swiglu_hidden(lambda x, Wg, Wu: scipy.special.expit(x @ Wg) * (x @ Wu))
    assert not fb and "sigmoid" in fb.message and "(0, 1)" in fb.message
    fb = checks.check_swiglu_hidden(lambda x, Wg, Wu: (silu(x @ Wg) * (x @ Wu)).T)
    assert not fb and "(6, 3)" in fb.message


def _inverse_silu(g):
    return scipy.optimize.brentq(lambda z: silu(z) - g, checks.SILU_ARGMIN, g + 1.0)


def test_gate_preactivation():
    fb = checks.check_gate_preactivation(_inverse_silu)
    assert fb and all(f"{_inverse_silu(g):.3f}" in fb.message for g in [0.1, 1.5, 2.0])
    fb = checks.check_gate_preactivation(lambda g: g)
    assert not fb and "itself" in fb.message
    fb = checks.check_gate_preactivation(lambda g: math.log(g / (1 - g)) if 0 < g < 1 else float("nan"))
    assert not fb and "SiLU(-2.1972) = -0.2197" in fb.message
    left = lambda g: scipy.optimize.brentq(lambda z: silu(z) - g, -20, checks.SILU_ARGMIN)  # noqa: E731
    fb = checks.check_gate_preactivation(lambda g: _inverse_silu(g) if g >= 0 else left(g))
    assert not fb and "left of SiLU's minimum" in fb.message
    fb = checks.check_gate_preactivation(lambda g: "z")
    assert not fb and "not a number" in fb.message


def test_fuse_weights():
    assert checks.check_fuse_weights(lambda Wg, Wu: np.concatenate([Wg, Wu], axis=1))
    fb = checks.check_fuse_weights(lambda Wg, Wu: np.concatenate([Wg, Wu], axis=0))
    assert not fb and "stacked the rows" in fb.message
    fb = checks.check_fuse_weights(lambda Wg, Wu: np.concatenate([Wu, Wg], axis=1))
    assert not fb and "[up | gate]" in fb.message
    fb = checks.check_fuse_weights(lambda Wg, Wu: Wg + Wu)
    assert not fb and "add" in fb.message


@pytest.mark.parametrize("mistake, words", [
    (lambda d, m: int(2 * 4 * d / 3) // m * m, "rounded down"),
    (lambda d, m: int(2 * 4 * d / 3), "not a multiple of 256"),
    (lambda d, m: 4 * d, "plain FFN"),
    (lambda d, m: (int(2 * 4 * d / 3) // m + 1) * m, "always add one more"),
])
def test_llama_width(mistake, words):
    assert checks.check_llama_width(lambda d, m: -(-(8 * d // 3) // m) * m)
    fb = checks.check_llama_width(mistake)
    assert not fb and words in fb.message
