"""Exercise 4's cases and slips: the layers the backward pass is tried on, autograd's
gradients, and the gradients each typical slip of a hand-written backward pass gives, with the
sentence that names it."""

import torch
import torch.nn.functional as F

from helpers import activations

_GRAD_NAMES = ("dW1", "db1", "dW2", "db2", "dx")
_INPUT_NAMES = ("x", "W1", "b1", "W2", "b2", "grad_out")


def _backward_case(T, d_model, d_ff, seed):
    """(x, W1, b1, W2, b2, grad_out) in float64, in the formula's layout: W1
    (d_model, d_ff), W2 (d_ff, d_model)."""
    gen = torch.Generator().manual_seed(seed)

    def draw(*shape, scale=1.0):
        return scale * torch.randn(shape, generator=gen, dtype=torch.float64)

    return (draw(T, d_model), draw(d_model, d_ff, scale=d_model**-0.5), draw(d_ff, scale=0.5),
            draw(d_ff, d_model, scale=d_ff**-0.5), draw(d_model, scale=0.5), draw(T, d_model))


# A wide layer (d_ff != d_model, so a product with a missing transpose cannot run) and a
# square one (where it can, and computes the wrong numbers), each with several tokens, so a
# bias gradient must sum over them.
_BACKWARD_CASES = ((5, 6, 10, 40), (3, 7, 7, 41))


def autograd_backward(x, W1, b1, W2, b2, grad_out):
    """(dW1, db1, dW2, db2, dx) of out = GELU(x @ W1 + b1) @ W2 + b2 for upstream
    gradient grad_out: autograd's."""
    with torch.enable_grad():
        leaves = [t.detach().clone().requires_grad_(True) for t in (x, W1, b1, W2, b2)]
        x_, W1_, b1_, W2_, b2_ = leaves
        out = F.gelu(x_ @ W1_ + b1_) @ W2_ + b2_
        grads = torch.autograd.grad(out, leaves, grad_out)
    dx, dW1, db1, dW2, db2 = grads
    return dW1, db1, dW2, db2, dx


def _by_hand(x, W1, b1, W2, b2, g, slope="exact", at="h", W2_T=True, W1_T=True, a_for_dW2="a",
             bias="sum"):
    """The five gradients written out, with one slip switched on (the
    models of the named mistakes)."""
    h = x @ W1 + b1
    a = F.gelu(h)
    dW2 = (a if a_for_dW2 == "a" else h).T @ g
    da = g @ (W2.T if W2_T else W2)
    point = h if at == "h" else a
    local = {"exact": lambda: activations.gelu_grad(point), "none": lambda: torch.ones_like(point),
             "value": lambda: F.gelu(point), "tanh": lambda: activations.gelu_grad(point, "tanh"),
             "relu": lambda: (point > 0).to(point.dtype)}[slope]()
    dh = da * local
    dW1 = x.T @ dh
    dx = dh @ (W1.T if W1_T else W1)
    reduce = (lambda t: t.sum(0)) if bias == "sum" else (lambda t: t.mean(0))
    return dW1, reduce(dh), dW2, reduce(g), dx


# {variant of _by_hand: the sentence naming it}; tried in this order on
# the first gradient that is wrong.
_BACKWARD_SLIPS = (
    ({"slope": "none"}, "GELU's derivative is left out: on the way back through GELU the gradient "
                        "is multiplied by GELU's slope at each hidden number, dh = da * gelu'(h), "
                        "with da = grad_out @ W2.T."),
    ({"at": "a"}, "GELU's derivative is taken at a = GELU(h), the post-activation; it belongs at "
                  "the pre-activation h = x @ W1 + b1, the number GELU was given."),
    ({"slope": "value"}, "the gradient is multiplied by GELU(h), the activation's value; it is "
                         "multiplied by its derivative, gelu'(h) "
                         "(helpers.activations.gelu_grad, notebook 02)."),
    ({"slope": "tanh"}, "that is the derivative of GELU's tanh formula; this FFN uses exact GELU, "
                        "so its slope is Phi(h) + h * phi(h) (helpers.activations.gelu_grad)."),
    ({"slope": "relu"}, "that is ReLU's derivative (0 or 1); GELU's slope is smooth: "
                        "Phi(h) + h * phi(h), small but not 0 for negative h."),
    ({"W2_T": False}, "da = grad_out @ W2 is missing a transpose: W2 maps d_ff to d_model, so the "
                      "gradient goes back through W2.T, da = grad_out @ W2.T (this layer is "
                      "square, so the product ran anyway)."),
    ({"W1_T": False}, "dx = dh @ W1 is missing a transpose: W1 maps d_model to d_ff, so the "
                      "gradient goes back through W1.T, dx = dh @ W1.T (this layer is square, so "
                      "the product ran anyway)."),
    ({"a_for_dW2": "h"}, "dW2 uses h, the pre-activation; W2 multiplies a = GELU(h), so "
                         "dW2 = a.T @ grad_out."),
    ({"bias": "mean"}, "a bias gradient is the mean over the tokens; the bias is added to "
                       "every token and the loss adds up their effects, so it is the sum "
                       "over tokens: grad.sum(0)."),
)

_BACKWARD_SHAPES = {
    "transposed": "{name} has shape {shape}, the transpose of {param}'s {want}: a gradient "
                  "has the shape of what it differentiates. Swap the factors "
                  "(a.T @ grad_out, not grad_out.T @ a).",
    "bias per token": "{name} has shape {shape}, one row per token: the bias is added to "
                      "every token, so its gradient sums the tokens' gradients over "
                      "dimension 0, giving {want}.",
    "dx at h": "dx has shape {shape}: that is the gradient at the hidden layer. x reaches h "
               "through W1, so carry it one step further back, through W1.T, to shape {want}.",
    "other": "{name} has shape {shape}; it should have the shape of {param}, {want}.",
}

_BACKWARD_SAID = {
    "autograd": "your function calls autograd ({what}): this exercise is the backward pass by "
                "hand. Write each gradient with matrix products and GELU's derivative; the check "
                "compares them with autograd for you.",
    "in place": "your function changed its input {name} in place (an `-=`, `*=` or `.add_` on it "
                "or on a view of it): a backward pass reads its inputs and returns new tensors, "
                "and the caller still needs {name} as it was.",
    "five": "{call} returned {got}; return five tensors, `return dW1, db1, dW2, db2, dx`.",
    "order": "your five gradients are all right but in another order: "
             "return dW1, db1, dW2, db2, dx.",
    "sign": "{name} has the wrong sign: a gradient is the derivative itself; the minus sign "
            "belongs to the update step, W -= lr * dW.",
    "per token": "your gradients are divided by the number of tokens: grad_out already holds dL/d "
                 "out for each token, so the sums over tokens are plain sums.",
    "dx is grad_out": "dx equals grad_out: x reaches out through W1, GELU and W2, so dx is "
                      "dh @ W1.T, not the upstream gradient passed on.",
    "dx is da": "dx is da = grad_out @ W2.T, the gradient at GELU's output: carry it on through "
                "GELU's derivative and W1.T.",
    "shape error": "{call} raised a shape error in a matrix product: a transpose is "
                   "missing or extra. Write each product's shapes down: dW1 is (d_model, "
                   "d_ff), so it is x.T @ dh.",
    "wrong": "{call} gives a {name} that, set beside autograd's, {problem}; the "
             "other gradients {others}.",
}
