"""Exercise 2: `class GPT2MLP(nn.Module)`, GPT-2's MLP stored as its checkpoint stores it:
Conv1D layers whose weights are (in, out), so that a GPT-2 state_dict loads with no transpose.
Weights stored (out, in), sizes swapped, another activation or a missing part is named."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from helpers.checks.calling import attempt
from helpers.checks.core import referee
from helpers.checks.module import ModuleCheck
from helpers.checks.runner import Mistake
from helpers.checks.show import say, shape_str
from helpers.checks.verdict import wrong

D_MODEL, D_FF = 16, 64


class _Conv1D(nn.Module):
    """GPT-2's layer: out = x @ weight + bias, with weight stored (n_in,
    n_out), the way the formula reads."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias                    # (..., n_in) -> (..., n_out)


class Conv1DMLP(nn.Module):
    """GPT-2's MLP as its checkpoint stores it: c_fc.weight (d_model, d_ff),
    c_proj.weight (d_ff, d_model)."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.c_fc = _Conv1D(d_model, d_ff)
        self.act = nn.GELU(approximate="tanh")   # GPT-2 was trained with GELU's tanh formula
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
            layer.weight.copy_(torch.randn(layer.weight.shape, generator=gen,
                                           dtype=torch.float64) / math.sqrt(n_in))
            layer.bias.copy_(0.5 * torch.randn(layer.bias.shape, generator=gen,
                                               dtype=torch.float64))
    return mlp


def _tokens():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(3),
                       dtype=torch.float64)


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
_NO_BIAS = ("GPT-2's Conv1D has a bias as well as a weight: give each layer a `bias` of shape "
            "(n_out,), an nn.Parameter too.")
_NOT_PARAMETERS = ("your module has no parameter c_fc.weight or c_fc.bias: create each weight and "
                   "bias as nn.Parameter(...) inside a layer named c_fc (a plain tensor is not a "
                   "parameter, so load_state_dict cannot fill it).")

_conv1d_mlp_check = ModuleCheck(
    EX2,
    reference=_reference,
    build=lambda cls: cls(D_MODEL, D_FF),
    inputs=_tokens,
    key_hints={"c_fc.bias": _NO_BIAS, "c_proj.bias": _NO_BIAS, "c_fc": _NOT_PARAMETERS,
               "c_proj": _NOT_PARAMETERS.replace("c_fc", "c_proj")},
    mistakes=[
        Mistake("your output has d_ff numbers per token: did you forget the down-projection "
                "self.c_proj at the end of forward?",
                when=lambda got, ref, x: got.shape[-1] == D_FF),
        Mistake("that is the exact GELU; GPT-2 was trained with GELU's tanh formula, so its "
                "checkpoint needs nn.GELU(approximate=\"tanh\").", answer=_mlp_with(F.gelu)),
        Mistake("there is no activation between c_fc and c_proj: without it the two matrices fold "
                "into one (notebook 01).", answer=_mlp_with(lambda h: h)),
        Mistake("that is ReLU; GPT-2's MLP uses GELU, in its tanh formula.",
                answer=_mlp_with(F.relu)),
        Mistake("your forward leaves out the biases: Conv1D computes x @ weight + bias.",
                answer=_mlp_with(bias=False)),
        Mistake("the GELU comes after c_proj here; it goes between the two projections: "
                "c_proj(gelu(c_fc(x))).", answer=_mlp_with(order="act-after")),
    ],
    success="a GPT-2 checkpoint's c_fc.weight (16, 64) and c_proj.weight (64, 16) load into your "
            "module as they are, with no transpose, and give GPT-2's output.",
    name="your GPT2MLP",
)

_WANT = {"c_fc.weight": (D_MODEL, D_FF), "c_proj.weight": (D_FF, D_MODEL)}


def _layout_mistake(cls):
    """The sentence for a weight stored the nn.Linear way, (out, in), or
    multiplied transposed; else None."""
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
        if (bias is not None and tuple(bias.shape) == (want[0],)
                and not isinstance(getattr(module, layer, None), nn.Linear)):
            return say("{layer} was built with its two sizes swapped: its weight is {shape} and "
                       "its bias {bias}, as if it mapped {n_out} numbers to {n_in}. {layer} maps "
                       "{n_in} numbers to {n_out}: pass n_in = {n_in} first and n_out = {n_out} "
                       "second, for a weight {want} and a bias ({n_out},).",
                       layer=layer, shape=shape_str(got.shape), bias=shape_str(bias.shape),
                       n_in=want[0], n_out=want[1], want=shape_str(want))
        how = (say("that is nn.Linear's layout, (out, in)")
               if isinstance(getattr(module, layer, None), nn.Linear)
               else say("that is (out, in), nn.Linear's layout"))
        return say("{name} has shape {shape}: {how}. GPT-2's checkpoint stores Conv1D weights as "
                   "(in, out) = {want}: write your own Conv1D layer whose weight is nn.Parameter "
                   "of shape (n_in, n_out).",
                   name=name, shape=shape_str(got.shape), how=how, want=shape_str(want))
    if any(tuple(params[name].shape) != want for name, want in _WANT.items() if name in params) \
            or not all(name in params for name in _WANT):
        return None   # other shape or name problems: the module check names them
    try:
        module.to(torch.float64)
        module.load_state_dict({k: v.detach() for k, v in _reference().named_parameters()},
                               strict=False)
    # a module that cannot take the weights: the module check says why
    except Exception:  # noqa: BLE001
        return None
    with torch.no_grad():
        got = attempt(module, _tokens())
    if isinstance(got, RuntimeError) and "cannot be multiplied" in str(got):
        return say("your forward raised a shape error: it multiplies by the transposed weight. "
                   "Conv1D stores its weight as (in, out) already, so the product is x @ weight, "
                   "with no .T (nn.Linear and F.linear transpose because they store (out, in)).")
    return None


@referee(EX2)
def check_gpt2_mlp(cls):
    """Exercise 2: GPT2MLP(d_model, d_ff) holds GPT-2's Conv1D weights
    (in, out) and computes its MLP."""
    said = _layout_mistake(cls)
    return wrong(EX2, said) if said else _conv1d_mlp_check(cls)
