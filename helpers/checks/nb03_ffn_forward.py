"""Checks for notebook 03's exercises (the FFN forward pass).

1. A prediction: the largest number of pairs the 16x FFN memorises completely.
2. `class GPT2MLP(nn.Module)`, GPT-2's MLP stored as its checkpoint stores it: Conv1D layers whose
   weights are (in, out), so that a GPT-2 state_dict loads with no transpose.
3. (stretch) Memorise by gradient descent instead of least squares, close to the least-squares fit.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

from helpers import capacity
from helpers.checks.core import attempt, correct, outcome, referee, wrong
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Mistake, Prediction
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


@referee(EX3)
def check_learned_memory(learn_values):
    """Exercise 3: learn_values(ffn, keys, values) trains c_proj until the error is near least squares'."""
    name = EX3
    ffn, keys, values = _memory_case()
    up_before = ffn.c_fc.weight.detach().clone()
    down_before = ffn.c_proj.weight.detach().clone()
    untrained = _mse(ffn, keys, values)
    with capacity.one_thread():  # small matrices: a second thread only adds waiting
        # ffn is the learner's to train in place; keys and values are copies, the check keeps its own
        got = attempt(learn_values, ffn, keys.clone(), values.clone(), copies=False)
    early = outcome(name, "learn_values(ffn, keys, values)", got)
    if early is not None:
        return early
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
    mse = _mse(trained, keys, values)
    said = say("the mean squared error is {mse:.2g} after training, against {untrained:.3f} untrained "
               "(least squares: 0, up to rounding)", mse=mse, untrained=untrained)
    if mse > untrained:
        return wrong(name, say("{said}: training made it worse. A learning rate too high, or gradients "
                               "that pile up because opt.zero_grad() is not called every step.", said=said))
    if mse > LEFT_AT_MOST * untrained:
        return wrong(name, say("{said}, {share:.0%} of the untrained error; at most {most:.0%} may be left. "
                               "Train for more steps or with a higher learning rate (print the loss every 50 "
                               "steps: is it still falling?).", said=said, share=mse / untrained, most=LEFT_AT_MOST))
    hits = round(capacity.retrieval_accuracy(out, values) * len(keys))
    return correct(name, say("{said}; {hits} of {n} pairs retrieved. Gradient descent, step by step, comes as "
                             "close as you like to what least squares solves at once.", said=said, hits=hits,
                             n=len(keys)))

