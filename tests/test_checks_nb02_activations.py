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


def bisect(steps=60, flip=False, give="x", return_in_loop=False):
    """A bisection find_valley with one typical slip switched on."""
    def find_valley(slope, lo, hi):
        for _ in range(steps):
            mid = (lo + hi) / 2
            if (slope(mid) < 0) != flip:
                lo = mid
            else:
                hi = mid
            if return_in_loop:
                return (lo + hi) / 2
        mid = (lo + hi) / 2
        return {"x": mid, "slope": slope(mid), "bracket": (lo, hi)}[give]
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
        (lambda x: Phi(x) - x * phi(x), "the wrong sign"),
        (lambda x: Phi(x) + x * np.exp(-x**2) / np.sqrt(2 * np.pi), "without the / 2"),
        (lambda x: 0.5 * (1 + scipy.special.erf(x)) + x * phi(x), "uses erf(x), without the / sqrt(2)"),
        (lambda x: np.gradient(x * Phi(x), x), "a finite difference"),
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
        (lambda H: (H <= 0).all(dim=0), "one value per unit"),
        (lambda H: (H <= 0).sum(dim=0), "one value per unit"),
        (lambda H: float((H <= 0).all(dim=0).double().mean()), "the share of dead units"),
        (lambda H: 1, "= 1; expected 3"),
    ]
    for fn, words in cases:
        fb = checks.check_dead_units(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_valley_finder():
    fb = checks.check_valley_finder(bisect())
    assert fb and "x = -0.7518" in fb.message
    assert checks.check_valley_finder(bisect(steps=25)), "25 halvings of a bracket 3 wide are within 1e-6"
    cases = [
        (bisect(flip=True), "walked to an end of the bracket"),
        (bisect(steps=8), "close but not within 1e-6"),
        (bisect(give="slope"), "that is the slope at the bottom, slope(x)"),
        (bisect(give="bracket"), "returned the last bracket"),
        (bisect(return_in_loop=True), "is the `return` inside the loop?"),
        (lambda slope, lo, hi: (lo + hi) / 2, "is the `return` inside the loop?"),
        (lambda slope, lo, hi: slope(lo), "find_valley(gelu_grad, -3.0, -0.1) = "),
    ]
    for fn, words in cases:
        fb = checks.check_valley_finder(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_the_slope_is_told_apart_from_an_end_of_the_bracket():
    """Returning slope(x) (about 0) was once read as 'walked to an end': no bracket ends near 0 now."""
    for slope, lo, hi in checks.check_valley_finder.cases:
        assert abs(lo) > 0.05 and abs(hi) > 0.05 and slope(lo) < 0 < slope(hi)
    fb = checks.check_valley_finder(bisect(give="slope"))
    assert "walked to an end" not in fb.message, fb.message


def test_learners_that_change_their_inputs_in_place_are_not_fooled():
    def doubled_x(x):                   # x *= 2, then the right derivative for the doubled x
        x *= 2
        return activations.gelu_grad(x)

    fb = checks.check_gelu_grad(doubled_x)
    assert not fb and "differs in" in fb.message, fb

    def cleared(H):                     # H[H <= 0] = 1 in place: nothing is dead any more
        H[H <= 0] = 1.0
        return checks.dead_units(H)

    fb = checks.check_dead_units(cleared)
    assert fb.status == "wrong" and "count_dead_units((3, 7) array)" in fb.message, fb

    def shifted(H):                     # H -= 10 in place: every unit is dead
        H -= 10
        return checks.dead_units(H)

    fb = checks.check_dead_units(shifted)
    assert not fb and "the number of units" in fb.message, fb

    def new_slope(slope, lo, hi):       # the slope swapped in place for one whose root is -2
        slope.fn = lambda x: x + 2.0
        return checks._valley(slope, lo, hi)

    fb = checks.check_valley_finder(new_slope)
    assert not fb and "find_valley(gelu_grad, -3.0, -0.1) = -2" in fb.message, fb
    assert checks.check_gelu_grad(lambda x: Phi(x) + x * phi(x)), "the right answer after a mutating one"
    assert checks.check_dead_units(lambda H: int((H <= 0).all(dim=0).sum()))
    assert checks.check_valley_finder(bisect())


def test_real_code_that_still_returns_none_is_told_so():
    def my_gelu_grad(x):
        Phi = 0.5 * (1.0 + scipy.special.erf(x / np.sqrt(2.0)))  # noqa: F841 - the stub's return left below
        return None

    fb = checks.check_gelu_grad(my_gelu_grad)
    assert fb.status == "wrong" and "returns None: is the stub's `return None` still there?" in fb.message, fb


def test_valley_prediction():
    fb = checks.check_valley_guess(-0.75, -0.7518)
    assert fb and "you predicted -0.75, brentq finds -0.75" in fb.message
    fb = checks.check_valley_guess(-1.28, -0.7518)
    assert not fb and "SiLU's valley is deeper" in fb.message
    assert "write a number" in checks.check_valley_guess("left", -0.7518).message
