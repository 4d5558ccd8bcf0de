"""Checks for the exercises of notebook 02 (activations)."""

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from helpers import activations, plots
from helpers.checks.core import (
    MISSING,
    attempt,
    compare_arrays,
    correct,
    not_attempted,
    to_numpy,
    wrong,
)

X_CHART = np.linspace(-4.0, 4.0, 161)
CHART_CURVES = ("relu", "gelu", "silu")


def _curve_names(ax):
    """{label: (x, y)} of the lines on ax, labels lower-cased."""
    return {line.get_label().lower(): (np.asarray(line.get_xdata(), dtype=float),
                                       np.asarray(line.get_ydata(), dtype=float))
            for line in ax.get_lines() if not line.get_label().startswith("_")}


def _find(curves, name):
    """The curve whose label is `name` (or starts with it, e.g. 'gelu (exact)')."""
    for label, xy in curves.items():
        if label == name or label.startswith(name + " ") or label.startswith(name + "("):
            return xy
    return None


def check_comparison_chart(comparison_chart):
    """Exercise 1: a figure with ReLU, GELU and SiLU on one axis, labelled."""
    name = "Exercise 1 (the comparison chart)"
    hint = ("plot the three curves on one axis with ax.plot(x, y, label='relu') (labels relu, gelu, "
            "silu), GELU = x * 0.5 * (1 + erf(x / sqrt(2))), SiLU = x * sigmoid(x); add a title, "
            "axis labels and ax.legend().")
    fig = attempt(comparison_chart, X_CHART)
    if fig is MISSING:
        return not_attempted(name, hint)
    try:
        return _judge_chart(name, hint, fig)
    finally:
        if isinstance(fig, Figure):
            plt.close(fig)  # the check's own call must not show a second chart


def _judge_chart(name, hint, fig):
    if isinstance(fig, Exception):
        return wrong(name, f"comparison_chart(x) raised {type(fig).__name__}: {fig}", hint)
    if not isinstance(fig, Figure):
        return wrong(name, f"comparison_chart(x) returned a {type(fig).__name__}; return the "
                     "matplotlib Figure (fig, ax = plt.subplots() ... return fig).", hint)
    axes = [ax for ax in fig.axes if ax.get_lines()]
    if len(axes) != 1:
        return wrong(name, f"the figure has lines on {len(axes)} axes; put all three curves on "
                     "one axis so the negative side can be compared directly.", hint)
    ax = axes[0]
    curves = _curve_names(ax)
    missing = [c for c in CHART_CURVES if _find(curves, c) is None]
    if missing:
        return wrong(name, f"no line labelled {', '.join(missing)} (labels found: "
                     f"{sorted(curves) or 'none'}); give each curve a label.", hint)
    for curve in CHART_CURVES:
        x, y = _find(curves, curve)
        expected = activations.get(curve)(x)
        if x.shape != y.shape or x.size < 10:
            return wrong(name, f"the {curve} line has {y.size} points; plot it over the x "
                         "you were given.", hint)
        gap = np.abs(y - expected)
        if gap.max() > 1e-3:  # the tanh approximation of GELU is within 5e-4
            i = int(np.argmax(gap))
            why = _curve_mistake(curve, x, y)
            return wrong(name, f"the {curve} line is off: at x = {x[i]:.2f} it is {y[i]:.4f}, "
                         f"expected {expected[i]:.4f}{why}.", hint)
    problems = plots.unlabelled(fig)
    if problems:
        return wrong(name, "the curves are right but the figure is not labelled: "
                     + "; ".join(problems) + ".", hint)
    if ax.get_legend() is None:
        return wrong(name, "the curves are right but there is no legend: call ax.legend().", hint)
    return correct(name, "ReLU, GELU and SiLU on one axis: they agree for large x and differ "
                   "only in the negative valley.")


def _curve_mistake(curve, x, y):
    """A guess at the typical mistake behind a wrong curve, as a phrase."""
    if curve == "gelu" and np.allclose(y, x * activations.std_normal_cdf(x) * 2 - x, atol=1e-3):
        return " (that is x * erf(x / sqrt(2)): Phi(x) is 0.5 * (1 + erf(x / sqrt(2))))"
    if curve == "gelu" and np.allclose(y, x * activations.std_normal_cdf(x * np.sqrt(2)), atol=1e-3):
        return " (that is 0.5 * x * (1 + erf(x)): divide by sqrt(2) inside erf)"
    if curve == "silu" and np.allclose(y, 1 / (1 + np.exp(-x)), atol=1e-3):
        return " (that is sigmoid(x) alone: SiLU multiplies it by x)"
    if curve == "relu" and np.allclose(y, np.abs(x), atol=1e-3):
        return " (that is |x|: ReLU sets negatives to 0)"
    return ""


def check_gelu_grad(gelu_grad):
    """Exercise 2: the exact derivative of GELU, Phi(x) + x * phi(x)."""
    name = "Exercise 2 (GELU's derivative)"
    hint = ("product rule on x * Phi(x): d/dx = Phi(x) + x * phi(x), with phi(x) = "
            "exp(-x**2 / 2) / sqrt(2 * pi) the normal density.")
    x = np.linspace(-4.0, 4.0, 81)
    got = attempt(gelu_grad, x)
    if got is MISSING:
        return not_attempted(name, hint)
    xt = torch.tensor(x, requires_grad=True)
    torch.nn.functional.gelu(xt).sum().backward()
    expected = xt.grad.numpy()
    arr = to_numpy(got) if not isinstance(got, Exception) else None
    if arr is not None and arr.shape == x.shape:
        if np.allclose(arr, activations.std_normal_cdf(x), atol=1e-4):
            return wrong(name, "your derivative is Phi(x) alone: that is the gate, not the slope; "
                         "it misses the x * phi(x) term and is never negative.", hint)
        if np.allclose(arr, activations.gelu(x), atol=1e-4):
            return wrong(name, "your function returns GELU(x) itself, not its derivative.", hint)
        if np.allclose(arr, activations.gelu_grad(x, "tanh"), atol=1e-3) and not np.allclose(
                arr, expected, atol=1e-6):
            return wrong(name, "this is the derivative of the tanh approximation; the exercise "
                         "asks for exact GELU (torch's default).", hint)
    return compare_arrays(name, got, expected, "gelu_grad(x)", hint, atol=1e-6, rtol=1e-6)


def check_dead_units(count_dead_units):
    """Exercise 3: units (columns) whose ReLU derivative is 0 for every token."""
    name = "Exercise 3 (count the dead units)"
    hint = ("a unit j is dead for this batch when H[:, j] <= 0 for every token: "
            "(H <= 0).all(dim=0) marks those columns; count them.")
    H = torch.tensor([[-1.0, 2.0, -0.5, 0.0, 0.3],
                      [-2.0, -1.0, -0.1, -3.0, 0.2],
                      [-0.5, 0.5, -2.0, 0.0, 0.1]])     # (T=3 tokens, d_ff=5 units)
    got = attempt(count_dead_units, H)
    if got is MISSING:
        return not_attempted(name, hint)
    if isinstance(got, Exception):
        return wrong(name, f"count_dead_units(H) raised {type(got).__name__}: {got}", hint)
    try:
        value = float(got)
    except (TypeError, ValueError, RuntimeError):
        return wrong(name, f"count_dead_units(H) returned a {type(got).__name__}; return one "
                     "number (int(...)).", hint)
    off = H <= 0
    mistakes = {  # what typical slips give for this H (10, 4, 2 and 5)
        int(off.sum()): f"you counted entries <= 0 ({int(off.sum())} of {H.numel()}), not units: "
                        "a unit is a column of H, dead only if every token leaves it off.",
        int(off.any(dim=0).sum()): "you counted units that are off for at least one token (any); "
                                   "a unit is dead only when it is off for all tokens.",
        int((H < 0).all(dim=0).sum()): "you counted columns with every entry < 0; at exactly 0 "
                                       "ReLU's derivative is also 0 (torch's choice), so use <= 0.",
        H.shape[1]: "that is the number of units, not the dead ones.",
    }
    if value in mistakes:
        return wrong(name, f"count_dead_units(H) = {value:g}: " + mistakes[int(value)], hint)
    if value != 3.0:
        return wrong(name, f"count_dead_units(H) = {value:g}; expected 3 for this H "
                     "(columns 0, 2 and 3 are never positive).", hint)
    return correct(name, "3 of 5 units get no gradient through ReLU from this batch.")
