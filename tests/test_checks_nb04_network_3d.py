"""Notebook 04's checks accept a right answer and name typical mistakes."""

import numpy as np
import pytest
import scipy.stats

from helpers import network3d
from helpers.activations import gelu, get, relu
from helpers.checks import nb04_network_3d as checks


def switched_off(h, a, keep=0.1):
    return np.abs(a) <= keep * np.abs(h)


def test_the_reference_mask():
    h = np.linspace(-3, 3, 601)
    assert np.array_equal(network3d.switched_off(h, relu(h)), relu(h) == 0)       # ReLU: the exact zeros
    cut = scipy.stats.norm.ppf(0.1)                                                 # Phi(h) = 0.1 at -1.2816
    gelu_off = network3d.switched_off(h, gelu(h))
    assert np.array_equal(gelu_off, (h <= cut) | (h == 0))                         # h = 0 passes nothing
    with pytest.raises(ValueError, match=r"a has shape \(3,\); expected \(4,\)"):
        network3d.switched_off(np.zeros(4), np.zeros(3))


def test_stubs_are_not_attempted():
    for fb in [checks.check_switched_off(lambda h, a, keep=0.1: None), checks.check_switched_off(None),
               checks.check_off_rate(lambda X, W1, b1, act: None), checks.check_off_share(None, 0.5)]:
        assert fb.status == "not attempted" and str(fb).startswith("[not attempted yet] Exercise")
        assert "Hint" not in str(fb)


def test_switched_off_accepts_the_rule_and_names_mistakes():
    fb = checks.check_switched_off(switched_off)
    assert fb and str(fb).startswith("[correct] Exercise 2")
    with np.errstate(divide="ignore", invalid="ignore"):   # the share passed, with h = 0 taken care of
        assert checks.check_switched_off(lambda h, a, keep=0.1: np.where(h == 0, True, a / np.where(h == 0, 1, h) <= keep))
    fb = checks.check_switched_off(lambda h, a, keep=0.1: np.abs(a) < keep * np.abs(h))   # strict: h = 0 counts on
    assert not fb and "if you wrote < : 0 < 0 is False" in fb.message, fb.message
    assert checks.check_switched_off(lambda h, a, keep=0.1: (np.abs(a) <= keep * np.abs(h)).astype(int))
    cases = [
        (lambda h, a, keep=0.1: a == 0, "only the exact zeros"),
        (lambda h, a, keep=0.1: h < 0, "every negative pre-activation"),
        (lambda h, a, keep=0.1: a < 0, "negative outputs: ReLU has none"),
        (lambda h, a, keep=0.1: np.abs(a) < keep, "compared |a| with keep itself"),
        (lambda h, a, keep=0.1: a <= keep * h, "without absolute values on both sides"),
        (lambda h, a, keep=0.1: np.abs(a) <= keep * h, "take the absolute value of h too"),
        (lambda h, a, keep=0.1: ~switched_off(h, a, keep), "True for the units that are on"),
        (lambda h, a, keep=0.1: switched_off(h, a), "use the argument keep"),
        (lambda h, a, keep=0.1: int(switched_off(h, a, keep).sum()), "you returned one number"),
        (lambda h, a, keep=0.1: np.flatnonzero(switched_off(h, a, keep)), "the indices of the off units"),
        (lambda h, a, keep=0.1: np.nonzero(switched_off(h, a, keep)), "the indices of the off units"),
        (lambda h, a, keep=0.1: a <= keep, "you compared a with keep itself"),
        (lambda h, a, keep=0.1: a <= keep * np.abs(h), "you took |h| but not |a|"),
        (lambda h, a, keep=0.1: scipy.stats.norm.cdf(h) <= keep, "GELU's share Phi(h) <= keep for both"),
    ]
    for answer, words in cases:
        fb = checks.check_switched_off(answer)
        assert not fb and fb.status == "wrong", words
        assert words in fb.message, (words, fb.message)


@pytest.mark.parametrize("divided", [
    lambda h, a, keep=0.1: a / h <= keep,                    # the share passed, written out
    lambda h, a, keep=0.1: np.abs(a / h) <= keep,
    lambda h, a, keep=0.1: a / h < keep,
    lambda h, a, keep=0.1: np.divide(a, h) <= keep,
])
def test_a_division_without_the_h_zero_case_is_named(divided):
    """a / h is NaN at h = 0 (0 / 0), so these call a unit that passes nothing on; the cases hold such units."""
    h, _, _ = checks._units(4)
    assert (h == 0).sum() == 3
    with np.errstate(divide="ignore", invalid="ignore"):
        fb = checks.check_switched_off(divided)
    assert not fb and "a / h is 0 / 0 = NaN where h = 0" in fb.message, fb.message
    assert "calls a unit with h = 0 on, though it passes nothing" in fb.message


def test_the_reference_calls_a_unit_with_h_zero_off():
    h, a_relu, a_gelu = checks._units(4)
    for a in (a_relu, a_gelu):
        assert network3d.switched_off(h, a)[h == 0].all()


def off_rate(X, W1, b1, activation):
    H = X @ W1 + b1
    return switched_off(H, get(activation)(H)).mean(axis=0)


def test_off_rate():
    fb = checks.check_off_rate(off_rate)
    assert fb and "dead unit" in fb.message

    def by_loop(X, W1, b1, act):
        return np.array([off_rate(X[t:t + 1], W1, b1, act) for t in range(len(X))]).mean(axis=0)

    assert checks.check_off_rate(by_loop), "one token at a time, then the mean, is right too"
    cases = [
        (lambda X, W1, b1, act: switched_off(X @ W1 + b1, get(act)(X @ W1 + b1)).mean(axis=1), "one number per token"),
        (lambda X, W1, b1, act: off_rate(X, W1, b1, act) * len(X), "you counted the tokens"),
        (lambda X, W1, b1, act: 1 - off_rate(X, W1, b1, act), "how often each unit is on"),
        (lambda X, W1, b1, act: off_rate(X, W1, 0, act), "leave out the bias"),
        (lambda X, W1, b1, act: (X @ W1 + b1 < 0).mean(axis=0), "with GELU you counted the negative"),
        (lambda X, W1, b1, act: off_rate(X, W1, b1, "relu"), "ReLU's rule"),       # ReLU for both
        (lambda X, W1, b1, act: off_rate(X, W1, b1, "gelu"), "you used GELU whatever the argument says"),
        (lambda X, W1, b1, act: float(off_rate(X, W1, b1, act).mean()), "you returned one number"),
    ]
    for answer, words in cases:
        fb = checks.check_off_rate(answer)
        assert not fb and words in fb.message, (words, fb.message)


def test_off_share_prediction():
    fb = checks.check_off_share(0.5, 1543 / 3072)
    assert fb and "you predicted 0.50, the run gives 0.50" in fb.message
    fb = checks.check_off_share(0.1, 1543 / 3072)
    assert not fb and "about half of the units" in fb.message and "10% rule" in fb.message
    assert "not a number" in checks.check_off_share("half", 0.5).message
    assert checks.check_off_share(0.45, 1543 / 3072), "a guess within 20% of the share is right"


@pytest.mark.parametrize(("guess", "words"), [
    (50, "so 50% is 0.5. Set my_off_share = 0.5"),                 # a percent for a share
    (0.1, "0.1 is the 10% rule"),                                   # GELU's rule, asked about ReLU
    (0.0, "Almost none is what GELU switches off"),                 # GELU's answer at this scale
    (np.float64(0.25), "Fewer than half would need the sums h_j to lean positive"),   # too few
    (0.16, "Fewer than half would need"),                            # one standard deviation below 0
    (0.75, "More than half would need the sums h_j to lean negative"),
    (1.0, "it does not switch off every unit"),                      # all of them
])
def test_the_likeliest_wrong_shares_are_named(guess, words):
    fb = checks.check_off_share(guess, 1543 / 3072)
    assert not fb and words in fb.message, fb
    assert checks.check_off_share(np.float32(0.5), 1543 / 3072)


@pytest.mark.parametrize("count", [1536, 1543.0, 3072])
def test_a_count_of_units_is_named_as_a_count_not_as_all_units_off(count):
    fb = checks.check_off_share(count, 1543 / 3072)
    assert not fb and "a number of units" in fb.message and "divide your count by 3,072" in fb.message, fb.message
    assert "every unit" not in fb.message
