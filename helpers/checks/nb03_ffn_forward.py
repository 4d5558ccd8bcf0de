"""Checks for notebook 03's exercises (the FFN forward pass).

1. A prediction: the largest number of pairs the 16x FFN memorises completely.
2. `class GPT2MLP(nn.Module)`, GPT-2's MLP stored as its checkpoint stores it: Conv1D layers whose
   weights are (in, out), so that a GPT-2 state_dict loads with no transpose.
3. (stretch) Memorise by gradient descent instead of least squares, close to the least-squares fit.
4. The FFN's backward pass by hand: dW1, db1, dW2, db2 and dx, compared with autograd's.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from helpers import activations, capacity
from helpers.checks.compare import arrays
from helpers.checks.core import attempt, correct, names_read, outcome, referee, wrong
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import describe, plain, say, shape_str
from helpers.checks.state import seeded
from helpers.ffn import FFN

D_MODEL, D_FF = 16, 64


class _Conv1D(nn.Module):
    """GPT-2's layer: out = x @ weight + bias, with weight stored (n_in, n_out), the way the formula reads."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias                    # (..., n_in) -> (..., n_out)


class Conv1DMLP(nn.Module):
    """GPT-2's MLP as its checkpoint stores it: c_fc.weight (d_model, d_ff), c_proj.weight (d_ff, d_model)."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.c_fc = _Conv1D(d_model, d_ff)
        self.act = nn.GELU(approximate="tanh")                # GPT-2 was trained with GELU's tanh formula
        self.c_proj = _Conv1D(d_ff, d_model)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


def _reference():
    """A Conv1DMLP in float64 with GPT-2 sized weights (std 1/sqrt(fan-in)) and nonzero biases."""
    gen = torch.Generator().manual_seed(3)
    mlp = Conv1DMLP(D_MODEL, D_FF).double()
    with torch.no_grad():
        for layer in (mlp.c_fc, mlp.c_proj):
            n_in = layer.weight.shape[0]
            layer.weight.copy_(torch.randn(layer.weight.shape, generator=gen, dtype=torch.float64) / math.sqrt(n_in))
            layer.bias.copy_(0.5 * torch.randn(layer.bias.shape, generator=gen, dtype=torch.float64))
    return mlp


def _tokens():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(3), dtype=torch.float64)


def _mlp_with(act=None, bias=True, order="act-between"):
    """The output a typical mistake gives: (reference, x) -> tensor."""
    act = act or (lambda h: F.gelu(h, approximate="tanh"))

    def layer(conv, h):
        return h @ conv.weight + (conv.bias if bias else 0)

    def answer(ref, x):
        if order == "act-after":
            return act(layer(ref.c_proj, layer(ref.c_fc, x)))
        return layer(ref.c_proj, act(layer(ref.c_fc, x)))
    return answer


EX2 = "Exercise 2 (GPT-2's MLP as its checkpoint stores it)"
_NO_BIAS = ("GPT-2's Conv1D has a bias as well as a weight: give each layer a `bias` of shape (n_out,), "
            "an nn.Parameter too.")
_NOT_PARAMETERS = ("your module has no parameter c_fc.weight or c_fc.bias: create each weight and bias as "
                   "nn.Parameter(...) inside a layer named c_fc (a plain tensor is not a parameter, so "
                   "load_state_dict cannot fill it).")

_conv1d_mlp_check = ModuleCheck(
    EX2,
    reference=_reference,
    build=lambda cls: cls(D_MODEL, D_FF),
    inputs=_tokens,
    key_hints={"c_fc.bias": _NO_BIAS, "c_proj.bias": _NO_BIAS, "c_fc": _NOT_PARAMETERS,
               "c_proj": _NOT_PARAMETERS.replace("c_fc", "c_proj")},
    mistakes=[
        Mistake("your output has d_ff numbers per token: did you forget the down-projection "
                "self.c_proj at the end of forward?", when=lambda got, ref, x: got.shape[-1] == D_FF),
        Mistake("that is the exact GELU; GPT-2 was trained with GELU's tanh formula, so its checkpoint "
                "needs nn.GELU(approximate=\"tanh\").", answer=_mlp_with(F.gelu)),
        Mistake("there is no activation between c_fc and c_proj: without it the two matrices fold "
                "into one (notebook 01).", answer=_mlp_with(lambda h: h)),
        Mistake("that is ReLU; GPT-2's MLP uses GELU, in its tanh formula.", answer=_mlp_with(F.relu)),
        Mistake("your forward leaves out the biases: Conv1D computes x @ weight + bias.",
                answer=_mlp_with(bias=False)),
        Mistake("the GELU comes after c_proj here; it goes between the two projections: "
                "c_proj(gelu(c_fc(x))).", answer=_mlp_with(order="act-after")),
    ],
    success="a GPT-2 checkpoint's c_fc.weight (16, 64) and c_proj.weight (64, 16) load into your module "
            "as they are, with no transpose, and give GPT-2's output.",
    name="your GPT2MLP",
)

_WANT = {"c_fc.weight": (D_MODEL, D_FF), "c_proj.weight": (D_FF, D_MODEL)}


def _layout_mistake(cls):
    """The sentence for a weight stored the nn.Linear way, (out, in), or multiplied transposed; else None."""
    if not isinstance(cls, type) or issubclass(cls, Conv1DMLP):
        return None                                   # the module check says what is wrong
    module = attempt(lambda: cls(D_MODEL, D_FF), copies=False)
    if not isinstance(module, nn.Module):
        return None
    params = dict(module.named_parameters())
    for name, want in _WANT.items():
        got = params.get(name)
        if got is None or tuple(got.shape) != want[::-1]:
            continue
        layer = name.rsplit(".", 1)[0]
        bias = params.get(layer + ".bias")
        if bias is not None and tuple(bias.shape) == (want[0],) and not isinstance(getattr(module, layer, None), nn.Linear):
            return say("{layer} was built with its two sizes swapped: its weight is {shape} and its bias {bias}, "
                       "as if it mapped {n_out} numbers to {n_in}. {layer} maps {n_in} numbers to {n_out}: pass "
                       "n_in = {n_in} first and n_out = {n_out} second, for a weight {want} and a bias ({n_out},).",
                       layer=layer, shape=shape_str(got.shape), bias=shape_str(bias.shape), n_in=want[0],
                       n_out=want[1], want=shape_str(want))
        how = (say("that is nn.Linear's layout, (out, in)") if isinstance(getattr(module, layer, None), nn.Linear)
               else say("that is (out, in), nn.Linear's layout"))
        return say("{name} has shape {shape}: {how}. GPT-2's checkpoint stores Conv1D weights as (in, out) = "
                   "{want}: write your own Conv1D layer whose weight is nn.Parameter of shape (n_in, n_out).",
                   name=name, shape=shape_str(got.shape), how=how, want=shape_str(want))
    if any(tuple(params[name].shape) != want for name, want in _WANT.items() if name in params) \
            or not all(name in params for name in _WANT):
        return None                                   # other shape or name problems: the module check names them
    try:
        module.to(torch.float64)
        module.load_state_dict({k: v.detach() for k, v in _reference().named_parameters()}, strict=False)
    except Exception:  # noqa: BLE001 - a module that cannot take the weights: the module check says why
        return None
    with torch.no_grad():
        got = attempt(module, _tokens())
    if isinstance(got, RuntimeError) and "cannot be multiplied" in str(got):
        return say("your forward raised a shape error: it multiplies by the transposed weight. Conv1D stores "
                   "its weight as (in, out) already, so the product is x @ weight, with no .T (nn.Linear and "
                   "F.linear transpose because they store (out, in)).")
    return None


@referee(EX2)
def check_gpt2_mlp(cls):
    """Exercise 2: GPT2MLP(d_model, d_ff) holds GPT-2's Conv1D weights (in, out) and computes its MLP."""
    said = _layout_mistake(cls)
    return wrong(EX2, said) if said else _conv1d_mlp_check(cls)


EX1 = "Exercise 1 (predict the capacity)"
_capacity_prediction = Prediction(
    EX1,
    why="Each hidden neuron adds one key (a column of W1) and one value (a row of W2); with d_ff of "
        "them, the least-squares fit reproduces d_ff arbitrary pairs exactly: 512 for d_ff = 512.",
    choices=(16, 32, 64, 128, 256, 512, 1024, 2048),
    variable="my_capacity_guess",
    fmt="{}",
)
_NAMED_GUESSES = {   # the likeliest wrong choices, and what each one mixes up
    16: "16 is the smallest N of the sweep, which every width holds; the question asks for the largest N the "
        "16x FFN still holds completely.",
    64: "64 is twice d_model; the pairs a memory holds are counted by its hidden neurons, and the 16x FFN has "
        "512 of them.",
    256: "256 pairs fit completely, but so do more: with d_ff = 512 hidden neurons, each output number has 512 "
         "unknowns to solve N equations with.",
    32: "32 is d_model, the length of each key and value; what a memory holds is counted by its hidden "
        "neurons, d_ff.",
    128: "128 is what the 4x FFN held (d_ff = 128); the 16x FFN has 512 hidden neurons.",
    1024: "1024 is 2 pairs per neuron: N pairs make N equations for each output number, and only d_ff "
          "unknowns can solve them all.",
    2048: "2048 is 4 pairs per neuron: N pairs make N equations for each output number, and only d_ff "
          "unknowns can solve them all.",
}


def _whole(guess):
    """The guess as a whole number when it is one (7, 7.0, numpy's or torch's 7), else None."""
    value = plain(guess)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value) if value == int(value) else None


@referee(EX1)
def check_capacity_guess(guess, actual):
    """Exercise 1: the largest N the 16x FFN memorises completely; the likeliest wrong choices are named."""
    fb = _capacity_prediction(guess, actual)
    named = _NAMED_GUESSES.get(_whole(guess)) if fb.status == "wrong" else None
    return wrong(EX1, say("{said} {named}", said=fb.message, named=say(named))) if named else fb


def _memory_case(n_pairs=64, d_model=32, d_ff=128):
    keys, values = capacity.random_pairs(n_pairs, d_model, seed=1)
    with seeded(1):
        return FFN(d_model, d_ff).double(), keys, values


EX3 = "Exercise 3 (memorise by gradient descent)"
# Least squares solves this memory exactly (64 pairs, 128 hidden neurons: the error is 0 up to rounding).
# Gradient descent is asked to come close: at most 1% of the error the untrained FFN makes is left.
LEFT_AT_MOST = 0.01


def _mse(ffn, keys, values):
    with torch.no_grad():
        return F.mse_loss(ffn(keys), values).item()


_LEAST_SQUARES = ("your function solves for the weights ({solver}): that is least squares, which section 6 already "
                  "did in one solve. This exercise is gradient descent: let an optimiser (or your own update, "
                  "W -= lr * W.grad) take many small steps on the loss.")
_NO_ZERO_GRAD = ("c_proj's gradient piles up: {steps} backward passes found the previous gradient still in "
                 ".grad and added to it, so every step follows the sum of all earlier gradients. Clear them every "
                 "step with opt.zero_grad() before loss.backward(); training longer will not fix it.")


_SOLVERS = ("lstsq", "pinv", "solve", "inv", "fit_down_proj", "svd", "qr", "cholesky")


def _solver_used(names, fn):
    """The least-squares or linear-solve call the learner's function ran or names (numpy's too), else None."""
    ran = sorted({n for n in names if n.rsplit(".", 1)[-1].removeprefix("linalg_") in _SOLVERS})
    codes = [getattr(f, "__code__", None) for f in [fn, *(c.cell_contents for c in getattr(fn, "__closure__", None)
                                                          or () if callable(c.cell_contents))]]
    named = sorted({n for code in codes if code is not None for n in names_read(code) if n in _SOLVERS})
    return ", ".join(ran or named) or None


@referee(EX3)
def check_learned_memory(learn_values):
    """Exercise 3: learn_values(ffn, keys, values) trains c_proj until the error is near least squares'."""
    name = EX3
    ffn, keys, values = _memory_case()
    up_before = ffn.c_fc.weight.detach().clone()
    down_before = ffn.c_proj.weight.detach().clone()
    untrained = _mse(ffn, keys, values)
    piled, recorder = [], _Calls()

    def on_gradient(grad):   # runs before autograd adds grad to .grad: an old gradient still there piles up
        old = ffn.c_proj.weight.grad
        piled.append(old is not None and bool(old.any()))

    hook = ffn.c_proj.weight.register_hook(on_gradient)
    try:
        with capacity.one_thread(), recorder:  # small matrices: a second thread only adds waiting
            # ffn is the learner's to train in place; keys and values are copies, the check keeps its own
            got = attempt(learn_values, ffn, keys.clone(), values.clone(), copies=False)
    finally:
        hook.remove()
    early = outcome(name, "learn_values(ffn, keys, values)", got)
    if early is not None:
        return early
    solver = _solver_used(recorder.names, learn_values)
    if solver is not None:
        return wrong(name, say(_LEAST_SQUARES, solver=solver))
    if got is not ffn and not isinstance(got, nn.Module):
        return wrong(name, say("learn_values returned {got}; return ffn itself, the module you trained.",
                               got=describe(got)))
    trained = got
    if not hasattr(trained, "c_fc") or not hasattr(trained, "c_proj"):
        return wrong(name, say("learn_values returned {got}, which has no c_fc and c_proj: return ffn.",
                               got=describe(got)))
    if trained.c_fc.weight.dtype != keys.dtype:
        return wrong(name, say("your function made the FFN {dtype} (ffn.float()?); the keys and values are "
                               "float64: keep the FFN in float64.",
                               dtype=str(trained.c_fc.weight.dtype).removeprefix("torch.")))
    if not torch.equal(trained.c_fc.weight.detach(), up_before):
        return wrong(name, say("the up-projection c_fc changed: the experiment keeps it fixed (random keys). "
                               "Give the optimiser only ffn.c_proj.parameters()."))
    with torch.no_grad():
        out = trained(keys)
    if not torch.isfinite(out).all():
        return wrong(name, say("after training, the FFN's output holds NaN or infinity: the loss diverged. "
                               "Lower the learning rate."))
    if torch.equal(trained.c_proj.weight.detach(), down_before):
        return wrong(name, say("c_proj's weights are what they were before training: does your loop call "
                               "opt.step(), with an optimiser made from ffn.c_proj.parameters()?"))
    if any(piled):
        return wrong(name, say(_NO_ZERO_GRAD, steps=sum(piled)))
    mse = _mse(trained, keys, values)
    if not piled and mse < 1e-20:   # set exactly, with no gradient ever taken: a solve, not descent
        return wrong(name, say(_LEAST_SQUARES, solver=say("no gradient of c_proj was ever computed")))
    said = say("the mean squared error is {mse:.2g} after training, against {untrained:.3f} untrained "
               "(least squares: 0, up to rounding)", mse=mse, untrained=untrained)
    if mse > untrained:
        return wrong(name, say("{said}: training made it worse. Is the learning rate too high? Print the loss "
                               "every 50 steps: jumping up and down means a lower learning rate.", said=said))
    if mse > LEFT_AT_MOST * untrained:
        return wrong(name, say("{said}, {share:.0%} of the untrained error; at most {most:.0%} may be left. "
                               "Train for more steps or with a higher learning rate (print the loss every 50 "
                               "steps: is it still falling?).", said=said, share=mse / untrained, most=LEFT_AT_MOST))
    hits = round(capacity.retrieval_accuracy(out, values) * len(keys))
    return correct(name, say("{said}; {hits} of {n} pairs retrieved. Gradient descent, step by step, comes as "
                             "close as you like to what least squares solves at once.", said=said, hits=hits,
                             n=len(keys)))



# Exercise 4: the backward pass by hand --------------------------------------------------------------

EX4 = "Exercise 4 (the backward pass by hand)"
_GRAD_NAMES = ("dW1", "db1", "dW2", "db2", "dx")
_INPUT_NAMES = ("x", "W1", "b1", "W2", "b2", "grad_out")


def _backward_case(T, d_model, d_ff, seed):
    """(x, W1, b1, W2, b2, grad_out) in float64, in the formula's layout: W1 (d_model, d_ff), W2 (d_ff, d_model)."""
    gen = torch.Generator().manual_seed(seed)

    def draw(*shape, scale=1.0):
        return scale * torch.randn(shape, generator=gen, dtype=torch.float64)

    return (draw(T, d_model), draw(d_model, d_ff, scale=d_model**-0.5), draw(d_ff, scale=0.5),
            draw(d_ff, d_model, scale=d_ff**-0.5), draw(d_model, scale=0.5), draw(T, d_model))


# A wide layer (d_ff != d_model, so a product with a missing transpose cannot run) and a square one (where it
# can, and computes the wrong numbers), each with several tokens, so a bias gradient must sum over them.
_BACKWARD_CASES = ((5, 6, 10, 40), (3, 7, 7, 41))


def autograd_backward(x, W1, b1, W2, b2, grad_out):
    """(dW1, db1, dW2, db2, dx) of out = GELU(x @ W1 + b1) @ W2 + b2 for upstream gradient grad_out: autograd's."""
    with torch.enable_grad():
        leaves = [t.detach().clone().requires_grad_(True) for t in (x, W1, b1, W2, b2)]
        x_, W1_, b1_, W2_, b2_ = leaves
        out = F.gelu(x_ @ W1_ + b1_) @ W2_ + b2_
        grads = torch.autograd.grad(out, leaves, grad_out)
    dx, dW1, db1, dW2, db2 = grads
    return dW1, db1, dW2, db2, dx


def _by_hand(x, W1, b1, W2, b2, g, slope="exact", at="h", W2_T=True, W1_T=True, a_for_dW2="a", bias="sum"):
    """The five gradients written out, with one slip switched on (the models of the named mistakes)."""
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


# {variant of _by_hand: the sentence naming it}; tried in this order on the first gradient that is wrong.
_BACKWARD_SLIPS = (
    ({"slope": "none"}, "GELU's derivative is left out: on the way back through GELU the gradient is multiplied by "
                        "GELU's slope at each hidden number, dh = da * gelu'(h), with da = grad_out @ W2.T."),
    ({"at": "a"}, "GELU's derivative is taken at a = GELU(h), the post-activation; it belongs at the "
                  "pre-activation h = x @ W1 + b1, the number GELU was given."),
    ({"slope": "value"}, "the gradient is multiplied by GELU(h), the activation's value; it is multiplied by its "
                         "derivative, gelu'(h) (helpers.activations.gelu_grad, notebook 02)."),
    ({"slope": "tanh"}, "that is the derivative of GELU's tanh formula; this FFN uses exact GELU, so its slope is "
                        "Phi(h) + h * phi(h) (helpers.activations.gelu_grad)."),
    ({"slope": "relu"}, "that is ReLU's derivative (0 or 1); GELU's slope is smooth: Phi(h) + h * phi(h), "
                        "small but not 0 for negative h."),
    ({"W2_T": False}, "da = grad_out @ W2 is missing a transpose: W2 maps d_ff to d_model, so the gradient goes "
                      "back through W2.T, da = grad_out @ W2.T (this layer is square, so the product ran anyway)."),
    ({"W1_T": False}, "dx = dh @ W1 is missing a transpose: W1 maps d_model to d_ff, so the gradient goes back "
                      "through W1.T, dx = dh @ W1.T (this layer is square, so the product ran anyway)."),
    ({"a_for_dW2": "h"}, "dW2 uses h, the pre-activation; W2 multiplies a = GELU(h), so dW2 = a.T @ grad_out."),
    ({"bias": "mean"}, "a bias gradient is the mean over the tokens; the bias is added to every token and the "
                       "loss adds up their effects, so it is the sum over tokens: grad.sum(0)."),
)

_BACKWARD_SHAPES = {
    "transposed": "{name} has shape {shape}, the transpose of {param}'s {want}: a gradient has the shape of what "
                  "it differentiates. Swap the factors (a.T @ grad_out, not grad_out.T @ a).",
    "bias per token": "{name} has shape {shape}, one row per token: the bias is added to every token, so its "
                      "gradient sums the tokens' gradients over dimension 0, giving {want}.",
    "dx at h": "dx has shape {shape}: that is the gradient at the hidden layer. x reaches h through W1, so "
               "carry it one step further back, through W1.T, to shape {want}.",
    "other": "{name} has shape {shape}; it should have the shape of {param}, {want}.",
}

_BACKWARD_SAID = {
    "autograd": "your function calls autograd ({what}): this exercise is the backward pass by hand. Write each "
                "gradient with matrix products and GELU's derivative; the check compares them with autograd for "
                "you.",
    "in place": "your function changed its input {name} in place (an `-=`, `*=` or `.add_` on it or on a view of "
                "it): a backward pass reads its inputs and returns new tensors, and the caller still needs "
                "{name} as it was.",
    "five": "{call} returned {got}; return five tensors, `return dW1, db1, dW2, db2, dx`.",
    "order": "your five gradients are all right but in another order: return dW1, db1, dW2, db2, dx.",
    "sign": "{name} has the wrong sign: a gradient is the derivative itself; the minus sign belongs to the "
            "update step, W -= lr * dW.",
    "per token": "your gradients are divided by the number of tokens: grad_out already holds dL/d out for "
                 "each token, so the sums over tokens are plain sums.",
    "dx is grad_out": "dx equals grad_out: x reaches out through W1, GELU and W2, so dx is dh @ W1.T, not the "
                      "upstream gradient passed on.",
    "dx is da": "dx is da = grad_out @ W2.T, the gradient at GELU's output: carry it on through GELU's "
                "derivative and W1.T.",
    "shape error": "{call} raised a shape error in a matrix product: a transpose is missing or extra. Write "
                   "each product's shapes down: dW1 is (d_model, d_ff), so it is x.T @ dh.",
    "wrong": "{call} gives a {name} that, set beside autograd's, {problem}; the other gradients {others}.",
}


class _Calls(torch.overrides.TorchFunctionMode):
    """Records the torch functions and tensor methods that run inside it."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func)))
        return func(*args, **(kwargs or {}))


_AUTOGRAD = ("backward", "grad", "requires_grad_", "vjp", "jacobian")


def _autograd_used(names, got):
    """The autograd calls among names (or a returned tensor that requires grad), as a phrase; else None."""
    used = sorted({n for n in names if n.rsplit(".", 1)[-1] in _AUTOGRAD})
    if used:
        return ", ".join(used)
    if isinstance(got, (tuple, list)) and any(isinstance(t, torch.Tensor) and t.requires_grad for t in got):
        return say("what it returns requires grad")
    return None


def _as_tensor(value):
    try:
        return torch.as_tensor(value, dtype=torch.float64)
    except Exception:  # noqa: BLE001 - not an array: the caller says so
        return None


def _close(got, want):
    return got is not None and got.shape == want.shape and torch.allclose(got, want, rtol=1e-9, atol=1e-10)


def _shape_mistake(name, got, want, case):
    """A sentence for a gradient of the wrong shape, naming what the shape says; None when the shape is right."""
    if got.shape == want.shape:
        return None
    T, d_ff = case[0].shape[0], case[1].shape[1]
    param = {"dW1": "W1", "db1": "b1", "dW2": "W2", "db2": "b2", "dx": "x"}[name]
    if got.dim() == 2 and tuple(got.shape) == tuple(want.shape)[::-1]:
        key = "transposed"
    elif name in ("db1", "db2") and tuple(got.shape) == (T, *want.shape):
        key = "bias per token"
    elif name == "dx" and tuple(got.shape) == (T, d_ff):
        key = "dx at h"
    else:
        key = "other"
    return say(_BACKWARD_SHAPES[key], name=name, shape=shape_str(got.shape), want=shape_str(want.shape), param=param)


def _diagnose(grads, want, case, call):
    """The sentence for five gradients that are not all right."""
    if all(any(_close(g, w) for w in want) for g in grads):
        return say(_BACKWARD_SAID["order"])
    if _close(grads[4], case[5] @ case[3].T) and not _close(grads[4], want[4]):
        return say(_BACKWARD_SAID["dx is da"])
    for name, mine, right in zip(_GRAD_NAMES, grads, want, strict=True):
        said = _shape_mistake(name, mine, right, case)
        if said is not None:
            return said
    wrong_ones = [i for i in range(5) if not _close(grads[i], want[i])]
    T = case[0].shape[0]
    if all(_close(grads[i], want[i] / T) for i in wrong_ones) and set(wrong_ones) != {1, 3}:
        return say(_BACKWARD_SAID["per token"])
    for i in wrong_ones:
        if _close(grads[i], -want[i]):
            return say(_BACKWARD_SAID["sign"], name=_GRAD_NAMES[i])
    if 4 in wrong_ones and _close(grads[4], case[5]):
        return say(_BACKWARD_SAID["dx is grad_out"])
    for variant, sentence in _BACKWARD_SLIPS:
        try:
            slipped = _by_hand(*case, **variant)
        except RuntimeError:   # a transpose left out of a wide layer cannot run: not this case's mistake
            continue
        if any(not _close(slipped[i], want[i]) for i in wrong_ones) and all(
                _close(grads[i], slipped[i]) for i in wrong_ones):
            return say(sentence)
    first = wrong_ones[0]
    others = (say("agree with autograd's") if len(wrong_ones) == 1
              else say("{names} differ too", names=", ".join(_GRAD_NAMES[i] for i in wrong_ones[1:])))
    return say(_BACKWARD_SAID["wrong"], call=call, name=_GRAD_NAMES[first], others=others,
               problem=arrays(atol=1e-10, rtol=1e-9)(grads[first], want[first]))


def _five_agree(got, want):
    """None when five gradients agree with autograd's, else a phrase (the check's _diagnose names the mistake)."""
    if not (isinstance(got, (tuple, list)) and len(got) == 5):
        return say("returned {got}; return five tensors", got=describe(got))
    grads = [_as_tensor(g) for g in got]
    if all(_close(g, w) for g, w in zip(grads, want, strict=True)):
        return None
    return say("gives gradients that differ from autograd's")


@dataclass(frozen=True)
class _BackwardCheck(Check):
    """Exercise 4's check: five gradients by hand, equal to autograd's, with no autograd and no input changed."""

    def _judge(self, ffn_backward):
        call = self.name
        for i, case in enumerate(self.cases):
            given = tuple(t.clone() for t in case)
            recorder = _Calls()
            with recorder:
                got = attempt(ffn_backward, *given, copies=False)
            early = outcome(self.exercise, call, got, first=i == 0)
            if early is not None:
                if isinstance(got, RuntimeError) and "cannot be multiplied" in str(got):
                    return wrong(self.exercise, say(_BACKWARD_SAID["shape error"], call=call))
                return early
            for name, before, after in zip(_INPUT_NAMES, case, given, strict=True):   # first: it spoils the rest
                if not torch.equal(before, after):
                    return wrong(self.exercise, say(_BACKWARD_SAID["in place"], name=name))
            used = _autograd_used(recorder.names, got)
            if used is not None:
                return wrong(self.exercise, say(_BACKWARD_SAID["autograd"], what=used))
            grads = tuple(_as_tensor(g) for g in got) if isinstance(got, (tuple, list)) and len(got) == 5 else None
            if grads is None or any(g is None for g in grads):
                return wrong(self.exercise, say(_BACKWARD_SAID["five"], call=call, got=describe(got)))
            want = self.reference(*case)
            if self.compare(grads, want) is not None:
                return wrong(self.exercise, _diagnose(grads, want, case, call))
        return correct(self.exercise, self.success)


check_ffn_backward = _BackwardCheck(
    EX4,
    reference=autograd_backward,
    cases=[_backward_case(*sizes) for sizes in _BACKWARD_CASES],
    compare=_five_agree,
    success="dW1, db1, dW2, db2 and dx agree with autograd on a wide and a square layer: dW2 = a.T @ grad_out, "
            "db2 = grad_out.sum(0), dh = (grad_out @ W2.T) * gelu'(h), dW1 = x.T @ dh, db1 = dh.sum(0), "
            "dx = dh @ W1.T. autograd puts dW1.T in up_proj.weight.grad, since nn.Linear stores (out, in).",
    name="ffn_backward",
)
