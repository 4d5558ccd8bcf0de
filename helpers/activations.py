"""ReLU, GELU (exact and tanh), SiLU and their derivatives.

Each function takes a numpy array or a torch tensor and returns the same kind.
The formulas are written once, with `np`/`torch` functions picked by `_ops`.
"""

import math

import numpy as np
import scipy.special
import torch
from torch import nn

from helpers import validate

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
TANH_COEFF = 0.044715  # from the GELU paper's tanh approximation


def _prepare(x):
    """Lists and numbers become numpy arrays; return (x, ops) for its kind."""
    if not isinstance(x, (np.ndarray, torch.Tensor)):
        x = validate.as_array(x, "x")
    validate.real(x, "x")
    if validate.kind_of(x) == "torch":
        return x, torch.erf, torch.exp, torch.tanh, torch.sigmoid, torch.where
    sigmoid = scipy.special.expit
    return x, scipy.special.erf, np.exp, np.tanh, sigmoid, np.where


def relu(x):
    """max(x, 0), elementwise."""
    x, *_, where = _prepare(x)
    return where(x > 0, x, x * 0)


def relu_grad(x):
    """d relu / dx: 1 where x > 0, else exactly 0 (torch's choice at x = 0)."""
    x, *_, where = _prepare(x)
    return where(x > 0, x * 0 + 1, x * 0)


def std_normal_cdf(x):
    """Phi(x) = P(Z <= x) for Z ~ N(0, 1), via the error function."""
    x, erf, *_ = _prepare(x)
    return 0.5 * (1.0 + erf(x / math.sqrt(2.0)))


def std_normal_pdf(x):
    """phi(x), the standard normal density."""
    x, _, exp, *_ = _prepare(x)
    return exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _tanh_inner(x):
    return SQRT_2_OVER_PI * (x + TANH_COEFF * x**3)


def gelu(x, approximate="none"):
    """GELU(x) = x * Phi(x); approximate="tanh" gives GPT-2's tanh formula."""
    validate.choice(approximate, "approximate", {"none", "tanh"})
    x, _, _, tanh, *_ = _prepare(x)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + tanh(_tanh_inner(x)))
    return x * std_normal_cdf(x)


def gelu_grad(x, approximate="none"):
    """d GELU / dx. Exact: Phi(x) + x * phi(x); negative for x below about -0.75."""
    validate.choice(approximate, "approximate", {"none", "tanh"})
    x, _, _, tanh, *_ = _prepare(x)
    if approximate == "tanh":
        t = tanh(_tanh_inner(x))
        d_inner = SQRT_2_OVER_PI * (1.0 + 3.0 * TANH_COEFF * x**2)
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * d_inner
    return std_normal_cdf(x) + x * std_normal_pdf(x)


def silu(x):
    """SiLU(x) = x * sigmoid(x), also called Swish."""
    x, *_, sigmoid, _ = _prepare(x)
    return x * sigmoid(x)


def silu_grad(x):
    """d SiLU / dx = sigmoid(x) * (1 + x * (1 - sigmoid(x)))."""
    x, *_, sigmoid, _ = _prepare(x)
    s = sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


# name -> (function, derivative); "gelu_tanh" is GELU with approximate="tanh".
ACTIVATIONS = {
    "relu": (relu, relu_grad),
    "gelu": (gelu, gelu_grad),
    "gelu_tanh": (lambda x: gelu(x, "tanh"), lambda x: gelu_grad(x, "tanh")),
    "silu": (silu, silu_grad),
    "identity": (lambda x: x, lambda x: x * 0 + 1),
}


def get(name):
    """The activation function called `name` (see ACTIVATIONS)."""
    validate.choice(name, "activation", ACTIVATIONS)
    return ACTIVATIONS[name][0]


def get_grad(name):
    """The derivative of the activation called `name`."""
    validate.choice(name, "activation", ACTIVATIONS)
    return ACTIVATIONS[name][1]


# The same functions as torch modules, for the MLPs: torch's own kernels (one pass over
# memory where the readable formulas above take several), and a submodule that a forward
# hook can reach (`mlp.act.register_forward_hook(...)` sees every hidden neuron).
MODULES = {
    "relu": nn.ReLU,
    "gelu": nn.GELU,
    "gelu_tanh": lambda: nn.GELU(approximate="tanh"),
    "silu": nn.SiLU,
    "identity": nn.Identity,
}


def module(name):
    """A fresh nn.Module computing the activation called `name` (nn.GELU() for "gelu")."""
    validate.choice(name, "activation", MODULES)
    return MODULES[name]()
