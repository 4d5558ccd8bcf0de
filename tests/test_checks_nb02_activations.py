"""Notebook 02's checks accept a right answer and name typical mistakes."""

import numpy as np
import scipy.special
import torch

from helpers import activations
from helpers.checks import nb02_activations as checks
from helpers.checks.nb02_activations import ex2_gelu_grad, ex3_dead_units, ex4_valley_finder


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
    x = torch.tensor(ex2_gelu_grad._X, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.gelu(x).sum().backward()
    assert np.allclose(activations.gelu_grad(ex2_gelu_grad._X), x.grad.numpy(), atol=1e-12)


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
        (lambda x: np.gradient(x * Phi(x), x), "np.gradient of GELU"),
        (lambda x: (Phi(x) + x * phi(x))[:10], "has shape (10,); expected (87,)"),
        (lambda x: torch.tensor(x) + "a", "raised TypeError"),
    ]
    for fn, words in cases:
        fb = checks.check_gelu_grad(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_the_dead_unit_reference_is_autograd_and_the_pushed_case_has_16():
    H = ex3_dead_units._pushed_pre_activations()
    assert checks.dead_units(H) == 16 == int((H <= 0).all(dim=0).sum())
    assert checks.dead_units(ex3_dead_units._SMALL) == 3


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
    assert not fb and "changed its input `x` in place" in fb.message, fb

    def cleared(H):                     # H[H <= 0] = 1 in place: nothing is dead any more
        H[H <= 0] = 1.0
        return checks.dead_units(H)

    fb = checks.check_dead_units(cleared)
    assert fb.status == "wrong" and "count_dead_units((3, 7) array)" in fb.message, fb

    def shifted(H):                     # H -= 10 in place: every unit is dead
        H -= 10
        return checks.dead_units(H)

    fb = checks.check_dead_units(shifted)
    assert not fb and "changed its input `H` in place" in fb.message, fb

    def new_slope(slope, lo, hi):       # the slope swapped in place for one whose root is -2
        slope.fn = lambda x: x + 2.0
        return ex4_valley_finder._valley(slope, lo, hi)

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
    assert "not a number" in checks.check_valley_guess("left", -0.7518).message


def test_importing_and_running_the_checks_leaves_torch_s_generator_alone(monkeypatch):
    import importlib
    import sys

    import helpers.checks
    before = torch.get_rng_state()
    # a fresh copy for this test alone: the module every other test holds is put back afterwards
    monkeypatch.setattr(helpers.checks, "nb02_activations", sys.modules["helpers.checks.nb02_activations"])
    for name in [n for n in sys.modules if n.startswith("helpers.checks.nb02_activations")]:
        monkeypatch.delitem(sys.modules, name)   # the package and its submodules, imported afresh
    fresh = importlib.import_module("helpers.checks.nb02_activations")
    assert torch.equal(before, torch.get_rng_state()), "importing the checks drew from torch's global generator"
    fresh.ex3_dead_units._pushed_pre_activations.cache_clear()
    fresh.check_dead_units(lambda H: int((torch.as_tensor(H) <= 0).all(dim=0).sum()))
    assert torch.equal(before, torch.get_rng_state()), "running the check drew from torch's global generator"
    assert fresh.dead_units(fresh.ex3_dead_units._pushed_pre_activations()) == 16


def test_the_fresh_import_above_leaves_every_other_test_the_module_it_holds():
    import sys

    import pytest

    import helpers.checks

    held = sys.modules["helpers.checks.nb02_activations"]
    with pytest.MonkeyPatch.context() as patch:
        test_importing_and_running_the_checks_leaves_torch_s_generator_alone(patch)
    assert sys.modules["helpers.checks.nb02_activations"] is held and helpers.checks.nb02_activations is held
    from helpers.checks import core

    assert core.public_name(held.check_valley_finder) == "check_valley_finder"


def test_a_threshold_on_the_mean_activation_is_not_dead():
    def below(threshold):
        return lambda H: int((torch.relu(torch.as_tensor(H)).mean(dim=0) < threshold).sum())

    for threshold in (0.1, 0.01, 1e-3, 1e-6):
        fb = checks.check_dead_units(below(threshold))
        assert not fb and "mean activation is small" in fb.message, (threshold, fb.message)
    for fn in (lambda H: int((H.mean(dim=0) <= 0).sum()), lambda H: int((H.mean(dim=0) < 0).sum())):
        fb = checks.check_dead_units(fn)
        assert not fb and "mean pre-activation is 0 or below" in fb.message, fb.message
    assert checks.check_dead_units(lambda H: int((torch.relu(H).sum(dim=0) == 0).sum()))


def test_a_finite_difference_is_not_the_derivative_by_hand():
    def gelu(x):
        return x * Phi(x)

    cases = [
        (lambda x: (gelu(x + 1e-5) - gelu(x - 1e-5)) / 2e-5, "is a finite difference"),
        (lambda x: (gelu(x + 1e-3) - gelu(x - 1e-3)) / 2e-3, "is a finite difference"),
        (lambda x: (gelu(x + 1e-7) - gelu(x)) / 1e-7, "is a finite difference"),
        (lambda x, h=0.025: (-gelu(x + 2 * h) + 8 * gelu(x + h) - 8 * gelu(x - h) + gelu(x - 2 * h)) / (12 * h),
         "is a finite difference"),
        (lambda x: np.diff(gelu(x)) / np.diff(x), "one number fewer than x"),
        (lambda x: (Phi(x) + x * phi(x)).astype(np.float32), "is float32"),
    ]
    for fn, words in cases:
        fb = checks.check_gelu_grad(fn)
        assert not fb and words in fb.message, (words, fb.message)
    exact_ways = [lambda x: 0.5 * scipy.special.erfc(-x / np.sqrt(2)) + x * phi(x),
                  lambda x: activations.gelu_grad(torch.as_tensor(x)).numpy()]
    for fn in exact_ways:
        assert checks.check_gelu_grad(fn)


def test_a_library_root_finder_or_a_grid_is_not_bisection():
    import scipy.optimize

    cases = [
        (lambda slope, lo, hi: scipy.optimize.brentq(slope, lo, hi, xtol=1e-12), "scipy.optimize.brentq"),
        (lambda slope, lo, hi: scipy.optimize.bisect(slope, lo, hi, xtol=1e-12), "scipy.optimize.bisect"),
        (lambda slope, lo, hi: scipy.optimize.root_scalar(slope, bracket=(lo, hi), xtol=1e-12).root,
         "scipy.optimize.root_scalar"),
    ]
    for fn, words in cases:
        fb = checks.check_valley_finder(fn)
        assert not fb and words in fb.message and "write bisection yourself" in fb.message, fb.message
        assert "f_raise" not in fb.message

    def grid(slope, lo, hi):
        x = np.linspace(lo, hi, 3_000_001)
        return float(x[np.argmin(np.abs(slope(x)))])

    fb = checks.check_valley_finder(grid)
    assert not fb and "an array of points" in fb.message, fb.message

    def thirds(slope, lo, hi):            # a bracket split at one third: converges, but is not bisection
        for _ in range(80):
            x = lo + (hi - lo) / 3
            lo, hi = (x, hi) if slope(x) < 0 else (lo, x)
        return (lo + hi) / 2

    fb = checks.check_valley_finder(thirds)
    assert not fb and "not the middle of the bracket" in fb.message, fb.message

    def checked_ends(slope, lo, hi):      # looking at the ends first, and at each middle twice, is still bisection
        assert slope(lo) < 0 < slope(hi)
        while hi - lo > 1e-10:
            mid = lo + (hi - lo) / 2
            if slope(mid) == 0:
                return mid
            lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
        return (lo + hi) / 2

    assert checks.check_valley_finder(checked_ends)


def test_each_likely_valley_guess_is_named():
    for guess, words in [(-0.17, "its minimum value"), (-1.28, "where SiLU bottoms out"), (0.0, "left of 0"),
                         (0.5, "left of 0"), (-2.5, "far to the left"), (-1.0, "right of -1"),
                         (-0.5, "left of -0.5")]:
        fb = checks.check_valley_guess(guess, -0.7518)
        assert not fb and words in fb.message, (guess, fb.message)
    assert checks.check_valley_guess(-0.75, -0.7518)


def test_a_unit_off_for_most_tokens_is_not_dead():
    for threshold in (0.9, 0.95, 0.99):
        def share_dead(H, threshold=threshold):
            return int(((torch.as_tensor(H) <= 0).double().mean(dim=0) > threshold).sum())
        fb = checks.check_dead_units(share_dead)
        assert fb.status == "wrong" and "off for most tokens" in str(fb), (threshold, str(fb))


def test_autograd_is_refused_where_the_text_rules_it_out():
    def grad_by_autograd(x):
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        torch.nn.functional.gelu(t).sum().backward()
        return t.grad.numpy()

    def grad_by_autograd_grad(x):
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(torch.nn.functional.gelu(t).sum(), t)
        return g.numpy()

    def dead_by_autograd(H):
        H = torch.as_tensor(H).detach().double().requires_grad_(True)
        torch.relu(H).sum().backward()
        return int((H.grad == 0).all(dim=0).sum())

    for check, fn in [(checks.check_gelu_grad, grad_by_autograd), (checks.check_gelu_grad, grad_by_autograd_grad),
                      (checks.check_dead_units, dead_by_autograd)]:
        fb = check(fn)
        assert fb.status == "wrong" and "from autograd" in str(fb) and "by hand" in str(fb), str(fb)
    assert checks.check_gelu_grad(lambda x: Phi(x) + x * phi(x))
    assert checks.check_dead_units(lambda H: int((torch.as_tensor(H) <= 0).all(dim=0).sum()))


def test_python_s_math_on_an_array_is_named():
    import math

    def with_math_erf(x):
        return 0.5 * (1 + math.erf(x / math.sqrt(2))) + x * np.exp(-x**2 / 2) / math.sqrt(2 * math.pi)

    fb = checks.check_gelu_grad(with_math_erf)
    assert not fb and "takes one Python number (math.erf" in fb.message, fb.message
    assert "converted to Python scalars" not in fb.message
