"""Checks for notebook 04's exercises (the network in 3D).

1. A prediction: the share of the 3,072 hidden units that ReLU sets to exactly 0 for one token.
2. `switched_off(h, a, keep)`: which hidden units one token switches off (helpers.network3d).
3. (stretch) `off_rate(X, W1, b1, activation)`: for each hidden unit, the share of tokens that
   switch it off.
"""

import numpy as np
import scipy.special

from helpers import activations, network3d
from helpers.checks.compare import arrays
from helpers.checks.core import referee, wrong
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import plain, say

EX1 = "Exercise 1 (predict the units ReLU switches off)"
_share_prediction = Prediction(
    EX1,
    why="Each pre-activation h_j = x @ W1[:, j] sums 768 products of random numbers centred on 0, "
        "so it is negative for about half of the units, and ReLU sets every negative one to "
        "exactly 0.",
    rel=0.2,
    variable="my_off_share",
    fmt="{:.2f}",
)


def _number(guess):
    """The guess as a finite float when it is a number, else None."""
    value = plain(guess)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        return None
    return float(value)


@referee(EX1)
def check_off_share(guess, actual):
    """Exercise 1: the share of hidden units ReLU sets to 0; a percent, the 10% rule and "none" are
    named."""
    fb = _share_prediction(guess, actual)
    value = _number(guess)
    if fb.status != "wrong" or value is None:
        return fb
    if 1 < value <= 100:
        return wrong(EX1, say("you wrote {value:g}: the question asks for a share between 0 and 1, "
                              "so {value:g}% is {share:g}. Set my_off_share = {share:g}, then run "
                              "this check again.",
                              value=value, share=value / 100))
    if value > 100 and value == int(value):
        return wrong(EX1, say("you wrote {value:g}, a number of units: the question asks for the "
                              "share of the 3,072 hidden units, between 0 and 1, so divide your "
                              "count by 3,072 ({value:g} units are {share:.2f} of them).",
                              value=value, share=value / 3072))
    if abs(value - network3d.NEARLY_OFF) < 0.02:
        return wrong(EX1, say("{said} 0.1 is the 10% rule, which only GELU's dimmed units need; "
                              "ReLU's off units are its exact zeros, every unit with h < 0.",
                              said=fb.message))
    if value < 0.05:
        return wrong(EX1, say("{said} Almost none is what GELU switches off at this scale (section "
                              "4); ReLU switches off every unit with h < 0.", said=fb.message))
    if value < 0.4:
        return wrong(EX1, say("{said} Fewer than half would need the sums h_j to lean positive; x "
                              "and W1 are drawn centred on 0, so flipping the sign of a column of "
                              "W1 is as likely as not, and h_j is negative as often as positive.",
                              said=fb.message))
    if 0.6 < value < 0.95:
        return wrong(EX1, say("{said} More than half would need the sums h_j to lean negative; "
                              "nothing in x or W1 prefers a sign, so h_j < 0 for about as many "
                              "units as h_j > 0.",
                              said=fb.message))
    if value >= 0.95:
        return wrong(EX1, say("{said} ReLU zeroes only the units with h < 0 and passes the others "
                              "unchanged; it does not switch off every unit.", said=fb.message))
    return fb


def _units(seed, n=200):
    """(h, relu(h), gelu(h)) for n hidden units with unit-scale pre-activations; 3 of them exactly
    0."""
    h = np.random.default_rng(seed).normal(size=n)
    h[[5, 70, 150]] = 0.0   # a unit with h = 0 passes nothing: off, whatever the activation
    return h, activations.relu(h), activations.gelu(h)


def _cases():
    """Both activations side by side first (the same 200 units through ReLU, then through GELU: one
    rule must serve both, and each typical mistake marks a different set there), then each on its
    own."""
    h, a_relu, a_gelu = _units(4)
    both = (np.concatenate([h, h]), np.concatenate([a_relu, a_gelu]), 0.1)
    return [both, (h, a_relu, 0.1), (h, a_gelu, 0.1), (h, a_gelu, 0.3)]


def _mask(got):
    """got as a boolean array, or None when it is not one value per unit."""
    try:
        return np.asarray(got).astype(bool)
    except (TypeError, ValueError):
        return None


def _wrong_only_at_zero(got, h, a, keep):
    """True when got is right wherever h != 0 and calls a unit with h = 0 on: what a / h <= keep
    gives."""
    mask, right = _mask(got), network3d.switched_off(h, a, keep)
    if mask is None or mask.shape != right.shape:
        return False
    zero = h == 0
    return bool(zero.any() and np.array_equal(mask[~zero], right[~zero]) and not mask[zero].all())


def _indices(got, h, a, keep):
    """True when got lists the indices of the off units instead of marking each unit."""
    right = np.flatnonzero(network3d.switched_off(h, a, keep))
    if isinstance(got, tuple) and len(got) == 1:
        got = got[0]
    arr = np.asarray(got) if isinstance(got, (np.ndarray, list, tuple)) else None
    return (arr is not None and arr.ndim == 1 and arr.dtype.kind in "iu" and arr.shape != h.shape
            and np.array_equal(arr, right))


check_switched_off = Check(
    "Exercise 2 (which units are off)",
    reference=network3d.switched_off,
    cases=_cases(),
    compare=arrays(atol=0, rtol=0),
    mistakes=[
        Mistake("you returned one number; return one True/False per hidden unit (a boolean array "
                "shaped like h), so that the drawing can cross out each unit.",
                when=lambda got, h, a, keep: np.ndim(got) == 0),
        Mistake("you returned the indices of the off units; return one True/False per hidden unit "
                "(a boolean array shaped like h), so that the drawing can cross out each unit.",
                when=_indices),
        Mistake("your test calls a unit with h = 0 on, though it passes nothing. If you divided: a "
                "/ h is 0 / 0 = NaN where h = 0, and NaN <= keep is False; if you wrote < : 0 < 0 "
                "is False too. Write \"at most keep\" without a division: |a| <= keep * |h|.",
                when=_wrong_only_at_zero),
        Mistake("you marked only the exact zeros: right for ReLU, but GELU never gives exactly 0. "
                "Measure how much of its input a unit passes, |a| against |h|.",
                answer=lambda h, a, keep: a == 0),
        Mistake("you tested GELU's share Phi(h) <= keep for both activations; ReLU passes all "
                "(share 1) or nothing (share 0), so one rule must read the unit's output a against "
                "its input h.",
                answer=lambda h, a, keep: scipy.special.ndtr(h) <= keep),
        Mistake("you took |h| but not |a|: a negative output (GELU's small negatives) is below "
                "keep * |h| however large it is. Compare sizes on both sides: |a| <= keep * |h|.",
                answer=lambda h, a, keep: a <= keep * np.abs(h)),
        Mistake("you marked every negative pre-activation. GELU still passes between 10% and 50% "
                "of most of them (its share Phi(h) only falls below 10% for h < -1.28): dimmed, "
                "not off.",
                answer=lambda h, a, keep: h < 0),
        Mistake("you marked the negative outputs: ReLU has none (its off units are exactly 0), and "
                "under GELU most negative outputs still pass more than 10% of h: dimmed, not off.",
                answer=lambda h, a, keep: a < 0),
        Mistake("you compared |a| with keep itself; off means a small share of the unit's own "
                "input: compare |a| with keep * |h|.", answer=lambda h, a, keep: np.abs(a) <= keep),
        Mistake("you compared a with keep itself; off means a small share of the unit's own input, "
                "and a negative a is below any keep: compare |a| with keep * |h|.",
                answer=lambda h, a, keep: a <= keep),
        Mistake("without absolute values on both sides the test flips for a negative h (keep * h "
                "is negative too): compare |a| with keep * |h|.",
                answer=lambda h, a, keep: a <= keep * h),
        Mistake("keep * h is negative wherever h is, so no negative unit can pass that test: take "
                "the absolute value of h too, |a| <= keep * |h|.",
                answer=lambda h, a, keep: np.abs(a) <= keep * h),
        Mistake("your mask is True for the units that are on; return True for the off ones.",
                answer=lambda h, a, keep: np.abs(a) > keep * np.abs(h)),
        Mistake("{call} gives the mask for keep=0.1: use the argument keep, not a fixed 10%.",
                answer=lambda h, a, keep: np.abs(a) <= 0.1 * np.abs(h)),
    ],
    success="ReLU's off units are exactly its zeros; GELU's are only those that pass under 10% of "
            "their input (h < -1.28): one rule for both.",
    name="switched_off",
)


def _off_rate(X, W1, b1, activation):
    H = X @ W1 + b1                                                        # (T, d_ff)
    return network3d.switched_off(H, activations.get(activation)(H)).mean(axis=0)


def _token_cases():
    rng = np.random.default_rng(5)
    X, W1 = rng.normal(size=(64, 8)), rng.normal(size=(8, 32)) / np.sqrt(8)
    # units 0-2: very negative bias
    b1 = np.where(np.arange(32) < 3, -4.0, 0.1 * rng.normal(size=32))
    return [(X, W1, b1, "relu"), (X, W1, b1, "gelu")]


check_off_rate = Check(
    "Exercise 3 (how often is each unit off)",
    reference=_off_rate,
    cases=_token_cases(),
    compare=arrays(atol=1e-12, rtol=0),
    mistakes=[
        Mistake("you have one number per token; average over the tokens (axis 0) to get one number "
                "per hidden unit.", when=lambda got, X, W1, b1, act: np.shape(got) == (len(X),)),
        Mistake("you returned one number, the share over every token and unit at once; average "
                "over the tokens only (axis 0), for one share per hidden unit.",
                when=lambda got, X, W1, b1, act: np.ndim(got) == 0),
        Mistake("you used GELU whatever the argument says: take the activation activation names, "
                "helpers.activations.get(activation).",
                answer=lambda X, W1, b1, act: _off_rate(X, W1, b1, "gelu")),
        Mistake("you counted the tokens; divide by their number for a share between 0 and 1.",
                answer=lambda X, W1, b1, act: _off_rate(X, W1, b1, act) * len(X)),
        Mistake("that is how often each unit is on; return how often it is off.",
                answer=lambda X, W1, b1, act: 1 - _off_rate(X, W1, b1, act)),
        Mistake("your rates leave out the bias b1: the pre-activation is X @ W1 + b1.",
                answer=lambda X, W1, b1, act: _off_rate(X, W1, 0 * b1, act)),
        Mistake("with GELU you counted the negative pre-activations, ReLU's rule; a GELU unit is "
                "off only when it passes under 10% of its input: use switched_off with the "
                "activation the argument names, helpers.activations.get(activation).",
                answer=lambda X, W1, b1, act: (X @ W1 + b1 < 0).mean(axis=0)),
    ],
    success="each unit is off for some tokens and on for others; only a unit whose bias pushes "
            "every token below 0 is off for all of them (a dead unit, notebook 02).",
    name="off_rate",
)
