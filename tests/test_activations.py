"""helpers.activations against torch.nn.functional, scipy and autograd."""

import numpy as np
import pytest
import scipy.special
import scipy.stats
import torch
import torch.nn.functional as F

from helpers import activations as A

X = np.linspace(-6, 6, 1201)
XT = torch.tensor(X, dtype=torch.float64)
# Against torch, 1e-9: torch's float64 erf has come out 3e-11 from the exact value (a CPU with
# AVX-512, its first call on two threads). A wrong formula misses by far more (tanh GELU: 4.7e-4).
TORCH_ATOL = 1e-9


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (A.relu, F.relu),
        (A.gelu, F.gelu),
        (lambda x: A.gelu(x, "tanh"), lambda x: F.gelu(x, approximate="tanh")),
        (A.silu, F.silu),
    ],
)
def test_matches_torch_functional(ours, theirs):
    torch.testing.assert_close(ours(XT), theirs(XT), rtol=0, atol=TORCH_ATOL)
    np.testing.assert_allclose(ours(X), theirs(XT).numpy(), rtol=0, atol=TORCH_ATOL)


def test_gelu_is_x_times_normal_cdf_from_scipy():
    np.testing.assert_allclose(A.gelu(X), X * scipy.stats.norm.cdf(X), atol=1e-14)
    np.testing.assert_allclose(A.gelu(X), 0.5 * X * (1 + scipy.special.erf(X / np.sqrt(2))), atol=1e-15)


def test_silu_is_x_times_sigmoid_from_scipy():
    np.testing.assert_allclose(A.silu(X), X * scipy.special.expit(X), atol=1e-15)


@pytest.mark.parametrize("name", ["relu", "gelu", "gelu_tanh", "silu"])
def test_derivative_matches_autograd(name):
    x = XT[XT != 0].clone().requires_grad_(True)  # ReLU has no derivative at exactly 0
    A.get(name)(x).sum().backward()
    torch.testing.assert_close(A.get_grad(name)(x.detach()), x.grad, rtol=0, atol=TORCH_ATOL)


def test_relu_derivative_is_exactly_zero_for_negatives_gelu_is_not():
    neg = X[X < -0.5]
    assert np.all(A.relu_grad(neg) == 0)
    assert np.all(A.gelu_grad(neg) != 0)
    assert A.gelu_grad(-1.0) < 0  # in the valley the slope is negative


def test_same_kind_comes_back():
    assert isinstance(A.gelu(X), np.ndarray)
    assert isinstance(A.gelu(XT), torch.Tensor)
    assert A.silu(torch.ones(3, dtype=torch.float32)).dtype == torch.float32
    assert isinstance(A.relu([1.0, -2.0]), np.ndarray)


def test_gelu_tanh_error_is_small_but_not_zero():
    err = np.abs(A.gelu(X) - A.gelu(X, "tanh")).max()
    assert 1e-5 < err < 1e-3
