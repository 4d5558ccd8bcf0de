"""Notebook 02's checks accept a right answer and name typical mistakes."""

import numpy as np
import scipy.special
import torch

from helpers import activations
from helpers.checks import nb02_activations as checks


def Phi(x):
    return 0.5 * (1 + scipy.special.erf(x / np.sqrt(2)))


def phi(x):
    return np.exp(-0.5 * x**2) / np.sqrt(2 * np.pi)


def bisect(steps=60, flip=False):
    def find_valley(slope, lo, hi):
        for _ in range(steps):
            mid = (lo + hi) / 2
            if (slope(mid) < 0) != flip:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
    return find_valley


def test_the_untouched_stubs_are_not_attempted():
    for fb in [checks.check_gelu_grad(lambda x: None), checks.check_dead_units(lambda H: None),
               checks.check_valley_finder(lambda slope, lo, hi: None), checks.check_gelu_grad(None),
               checks.check_valley_guess(None, -0.7518)]:
        assert fb.status == "not attempted" and not fb
        assert str(fb).startswith("[not attempted yet] Exercise") and "Hint" not in str(fb)


def test_the_reference_gelu_grad_is_autograd_of_torch_gelu():
    x = torch.linspace(-4, 4, 81, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.gelu(x).sum().backward()
    assert np.allclose(activations.gelu_grad(checks._X), x.grad.numpy(), atol=1e-12)


def test_gelu_grad():
    fb = checks.check_gelu_grad(lambda x: Phi(x) + x * phi(x))
    assert fb and str(fb).startswith("[correct] Exercise 2")
    assert checks.check_gelu_grad(lambda x: torch.as_tensor(Phi(x) + x * phi(x)))   # a tensor is fine
    cases = [
        (Phi, "Phi(x) alone"),
        (lambda x: x * phi(x), "but not Phi(x)"),
        (lambda x: Phi(x) + phi(x), "the second term is x * phi(x)"),
        (lambda x: Phi(x) + x * np.exp(-x**2 / 2), "lacks its 1 / sqrt(2 * pi)"),
        (lambda x: x * Phi(x), "GELU(x) itself"),
        (lambda x: activations.gelu_grad(x, "tanh"), "tanh approximation"),
        (lambda x: (Phi(x) + x * phi(x))[:10], "has shape (10,); expected (81,)"),
        (lambda x: torch.tensor(x) + "a", "raised TypeError"),
    ]
    for fn, words in cases:
        fb = checks.check_gelu_grad(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_the_dead_unit_reference_is_autograd_and_the_pushed_case_has_16():
    H = checks._pushed_pre_activations()
    assert checks.dead_units(H) == 16 == int((H <= 0).all(dim=0).sum())
    assert checks.dead_units(checks._SMALL) == 3


def test_dead_units():
    assert checks.check_dead_units(lambda H: int((H <= 0).all(dim=0).sum()))
    assert checks.check_dead_units(lambda H: (H <= 0).all(dim=0).sum())   # a 0-d tensor is fine
    assert checks.check_dead_units(lambda H: int((np.asarray(H) <= 0).all(axis=0).sum()))
    cases = [
        (lambda H: int((H <= 0).sum()), "counts entries <= 0"),
        (lambda H: int((H <= 0).any(dim=0).sum()), "at least one token"),
        (lambda H: int((H < 0).all(dim=0).sum()), "at exactly 0"),
        (lambda H: int((H <= 0).all(dim=1).sum()), "counts tokens (rows)"),
        (lambda H: H.shape[1], "the number of units"),
        (lambda H: int((H > 0).any(dim=0).sum()), "counts the live units"),
        (lambda H: (H <= 0).all(dim=0), "expected the number 3"),
        (lambda H: 1, "= 1; expected 3"),
    ]
    for fn, words in cases:
        fb = checks.check_dead_units(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_valley_finder():
    fb = checks.check_valley_finder(bisect())
    assert fb and "x = -0.7518" in fb.message
    fb = checks.check_valley_finder(bisect(flip=True))
    assert not fb and "walked to an end of the bracket" in fb.message
    fb = checks.check_valley_finder(bisect(steps=8))
    assert not fb and "close but not within 1e-6" in fb.message
    fb = checks.check_valley_finder(lambda slope, lo, hi: slope(lo))
    assert not fb and "find_valley(gelu_grad, -3.0, 0.0) = " in fb.message


def test_valley_prediction():
    fb = checks.check_valley_guess(-0.75, -0.7518)
    assert fb and "you predicted -0.75, the run gives -0.75" in fb.message
    fb = checks.check_valley_guess(-1.28, -0.7518)
    assert not fb and "SiLU's valley is deeper" in fb.message
    assert "write a number" in checks.check_valley_guess("left", -0.7518).message
