"""Notebook 02's exercise checks: accept the solutions, explain typical mistakes."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special  # noqa: E402
import torch  # noqa: E402

from helpers.checks import nb02_activations as checks  # noqa: E402


def Phi(x):
    return 0.5 * (1 + scipy.special.erf(x / np.sqrt(2)))


def chart(relu=lambda x: np.maximum(x, 0), gelu=lambda x: x * Phi(x),
          silu=lambda x: x * scipy.special.expit(x), labels=("relu", "gelu", "silu"),
          title="ReLU vs GELU vs SiLU", legend=True, two_axes=False):
    """A comparison_chart(x) with one thing changed at a time."""
    def comparison_chart(x):
        fig, axes = plt.subplots(1, 2 if two_axes else 1, squeeze=False)
        axes = axes[0]
        for i, (f, label) in enumerate(zip((relu, gelu, silu), labels, strict=True)):
            axes[i % len(axes)].plot(x, f(x), label=label)
        for ax in axes:
            ax.set(title=title, xlabel="x", ylabel="f(x)")
            if legend:
                ax.legend()
        return fig
    return comparison_chart


def test_not_attempted_does_not_raise():
    for fb in [checks.check_comparison_chart(lambda x: None), checks.check_gelu_grad(lambda x: None),
               checks.check_dead_units(lambda H: None), checks.check_comparison_chart(None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_comparison_chart_accepts_exact_and_tanh_gelu_and_closes_its_figure():
    before = plt.get_fignums()
    assert checks.check_comparison_chart(chart())
    tanh = lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))  # noqa: E731
    assert checks.check_comparison_chart(chart(gelu=tanh, labels=("ReLU", "GELU (tanh)", "SiLU")))
    assert plt.get_fignums() == before


def test_comparison_chart_names_the_typical_mistakes():
    fb = checks.check_comparison_chart(chart(gelu=lambda x: x * scipy.special.erf(x / np.sqrt(2))))
    assert not fb and "gelu line is off" in fb.message and "x * erf(x / sqrt(2))" in fb.message
    fb = checks.check_comparison_chart(chart(gelu=lambda x: 0.5 * x * (1 + scipy.special.erf(x))))
    assert not fb and "divide by sqrt(2)" in fb.message
    fb = checks.check_comparison_chart(chart(silu=scipy.special.expit))
    assert not fb and "sigmoid(x) alone" in fb.message
    fb = checks.check_comparison_chart(chart(labels=("relu", "gelu", "_nolegend_")))
    assert not fb and "no line labelled silu" in fb.message
    fb = checks.check_comparison_chart(chart(title=""))
    assert not fb and "not labelled" in fb.message and "no title" in fb.message
    fb = checks.check_comparison_chart(chart(legend=False))
    assert not fb and "no legend" in fb.message
    fb = checks.check_comparison_chart(chart(two_axes=True))
    assert not fb and "on one axis" in fb.message
    fb = checks.check_comparison_chart(lambda x: plt.plot(x, x))
    assert not fb and "returned a list" in fb.message
    plt.close("all")


def gelu_grad_exact(x):
    return Phi(x) + x * np.exp(-0.5 * x**2) / np.sqrt(2 * np.pi)


def test_gelu_grad():
    assert checks.check_gelu_grad(gelu_grad_exact)
    fb = checks.check_gelu_grad(Phi)
    assert not fb and "Phi(x) alone" in fb.message and "x * phi(x)" in fb.message
    fb = checks.check_gelu_grad(lambda x: x * Phi(x))
    assert not fb and "GELU(x) itself" in fb.message
    from helpers import activations
    fb = checks.check_gelu_grad(lambda x: activations.gelu_grad(x, "tanh"))
    assert not fb and "tanh approximation" in fb.message
    fb = checks.check_gelu_grad(lambda x: gelu_grad_exact(x)[:10])
    assert not fb and "shape (10,)" in fb.message
    fb = checks.check_gelu_grad(lambda x: torch.tensor(x) + "a")
    assert not fb and "raised TypeError" in fb.message


def test_dead_units():
    assert checks.check_dead_units(lambda H: int((H <= 0).all(dim=0).sum()))
    assert checks.check_dead_units(lambda H: (H <= 0).all(dim=0).sum())  # a 0-d tensor is fine
    fb = checks.check_dead_units(lambda H: int((H <= 0).sum()))
    assert not fb and "entries" in fb.message and "column" in fb.message
    fb = checks.check_dead_units(lambda H: int((H <= 0).any(dim=0).sum()))
    assert not fb and "at least one token" in fb.message
    fb = checks.check_dead_units(lambda H: int((H < 0).all(dim=0).sum()))
    assert not fb and "<= 0" in fb.message
    fb = checks.check_dead_units(lambda H: (H <= 0).all(dim=0))
    assert not fb and "returned a Tensor" in fb.message
    fb = checks.check_dead_units(lambda H: 1)
    assert not fb and "expected 3" in fb.message
