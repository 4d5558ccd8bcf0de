"""The position-wise feed-forward network (the Transformer MLP).

`ffn_forward` is the lesson's formula in numpy:  GELU(x @ W1 + b1) @ W2 + b2.
`FFN` is the same computation as a torch module, with GPT-2's names
(`c_fc` = up-projection, `c_proj` = down-projection) as in nanoGPT.
"""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.modules import module as torch_module

from helpers import activations, validate


def check_ffn_shapes(x, W1, b1, W2, b2):
    """Raise a ValueError naming the argument when the FFN's shapes do not fit."""
    validate.ndim(x, "x", (1, 2, 3))
    validate.ndim(W1, "W1", 2)
    validate.ndim(W2, "W2", 2)
    d_model, d_ff = W1.shape
    if x.shape[-1] != d_model:
        raise ValueError(
            f"x has last dimension {x.shape[-1]} but W1 expects d_model={d_model} "
            f"(W1 has shape {tuple(W1.shape)})"
        )
    if W2.shape[0] != d_ff:
        raise ValueError(
            f"W2 has shape {tuple(W2.shape)} but W1 makes d_ff={d_ff} features: "
            f"W2 must have {d_ff} rows"
        )
    if b1 is not None and tuple(b1.shape) != (d_ff,):
        raise ValueError(f"b1 must have shape ({d_ff},) to match W1, got {tuple(b1.shape)}")
    if b2 is not None and tuple(b2.shape) != (W2.shape[1],):
        raise ValueError(
            f"b2 must have shape ({W2.shape[1]},) to match W2, got {tuple(b2.shape)}"
        )


def ffn_forward(x, W1, b1, W2, b2, activation="gelu"):
    """act(x @ W1 + b1) @ W2 + b2 in numpy. x: (..., d_model) -> (..., d_model_out).

    W1: (d_model, d_ff), W2: (d_ff, d_out); b1, b2 may be None (no bias).
    """
    kind = validate.same_kind(x=x, W1=W1, b1=b1, W2=W2, b2=b2)
    if kind != "numpy":
        raise TypeError("ffn_forward is the numpy reference; use helpers.ffn.FFN for torch tensors")
    act = activations.get(activation)
    check_ffn_shapes(x, W1, b1, W2, b2)
    for name, a in (("x", x), ("W1", W1), ("b1", b1), ("W2", W2), ("b2", b2)):
        if a is not None:
            validate.real(a, name)
            validate.finite(a, name)
    h = x @ W1                      # up-projection: (..., d_ff)
    if b1 is not None:
        h = h + b1
    h = act(h)                      # elementwise: the shape stays (..., d_ff)
    out = h @ W2                    # down-projection: (..., d_out)
    if b2 is not None:
        out = out + b2
    return out


def hooked(*modules):
    """True if calling these modules would run a hook: one of their own, or one on every module."""
    return bool(torch_module._global_forward_hooks or torch_module._global_forward_pre_hooks
                or torch_module._global_backward_hooks or torch_module._global_backward_pre_hooks
                or any(m._forward_hooks or m._forward_pre_hooks
                       or m._backward_hooks or m._backward_pre_hooks for m in modules))


def _weight_and_bias(linear):
    """An nn.Linear's (weight, bias), read from its parameter dict (see FFN.forward)."""
    parameters = linear._parameters
    return parameters["weight"], parameters["bias"]


class FFN(nn.Module):
    """GPT-2's MLP: c_fc (d_model -> d_ff), act, c_proj (d_ff -> d_model).

    `act` is a submodule (nn.GELU() by default), as in nanoGPT and Hugging Face's GPT-2:
    a forward hook on it reads or changes the d_ff hidden neurons.
    """

    def __init__(self, d_model, d_ff=None, activation="gelu", bias=True):
        super().__init__()
        d_model = validate.positive_int(d_model, "d_model")
        d_ff = 4 * d_model if d_ff is None else validate.positive_int(d_ff, "d_ff")
        self.activation = validate.choice(activation, "activation", activations.ACTIVATIONS)
        bias = validate.boolean(bias, "bias")
        self.c_fc = nn.Linear(d_model, d_ff, bias=bias)     # up-projection (x4 in GPT-2)
        # The hidden neurons: GPT-2's name (Llama's: act_fn).
        self.act = activations.module(activation)
        self.c_proj = nn.Linear(d_ff, d_model, bias=bias)   # down-projection

    # Llama's names for the same two matrices.
    @property
    def up_proj(self):
        return self.c_fc

    @property
    def down_proj(self):
        return self.c_proj

    @property
    def d_model(self):
        return self.c_fc.in_features

    @property
    def d_ff(self):
        return self.c_fc.out_features

    def forward(self, x):
        # nn.Module finds self.c_fc through __getattr__, a Python fallback run after the normal
        # lookup fails. At decode (T = 1) the two matvecs have just streamed the weights through
        # the caches, and each fallback then costs about 1% of the FFN's time: the seven of
        # `act(c_fc(x))` and `c_proj(h)` cost about 8%. So read the dicts nn.Module keeps.
        c_fc, act, c_proj = (self._modules[name] for name in ("c_fc", "act", "c_proj"))
        direct = not hooked(c_fc, act, c_proj) and type(c_fc) is type(c_proj) is nn.Linear
        try:
            if direct:   # what the three modules would compute, without calling them
                h = act.forward(F.linear(x, *_weight_and_bias(c_fc)))
            else:        # a hook to run, or a layer swapped in (int8, a learner's): call them
                h = act(c_fc(x))                             # (..., d_ff)
        except (RuntimeError, TypeError) as error:          # checked only once torch refuses x
            raise validate.explained(error, x, self.d_model, "FFN", c_fc.weight) from None
        if direct:
            return F.linear(h, *_weight_and_bias(c_proj))
        return c_proj(h)                                     # (..., d_model)

    @classmethod
    def from_numpy(cls, W1, b1, W2, b2, activation="gelu", dtype=torch.float64):
        """Build an FFN holding the numpy weights of `ffn_forward` (W1: (d_model, d_ff))."""
        W1, W2 = validate.as_array(W1, "W1"), validate.as_array(W2, "W2")
        b1 = None if b1 is None else validate.as_array(b1, "b1")
        b2 = None if b2 is None else validate.as_array(b2, "b2")
        validate.float_dtype(dtype, "dtype")
        check_ffn_shapes(np.zeros(W1.shape[0]), W1, b1, W2, b2)
        for name, array in (("W1", W1), ("b1", b1), ("W2", W2), ("b2", b2)):
            if array is not None:
                validate.finite(array, name)   # a NaN weight would make every output NaN, silently
        if W2.shape[1] != W1.shape[0]:
            raise ValueError(
                f"W2 has shape {W2.shape}: an FFN returns to d_model={W1.shape[0]} columns"
            )
        if (b1 is None) != (b2 is None):
            given, missing = ("b1", "b2") if b2 is None else ("b2", "b1")
            raise ValueError(f"{given} is given but {missing} is None: an FFN has both biases "
                             "or neither (nn.Linear(..., bias=...) applies to each layer)")
        ffn = cls(W1.shape[0], W1.shape[1], activation=activation, bias=b1 is not None)
        ffn = ffn.to(dtype)
        with torch.no_grad():
            # nn.Linear stores its weight as (out, in): the transpose of W1.
            ffn.c_fc.weight.copy_(torch.from_numpy(W1.T))
            ffn.c_proj.weight.copy_(torch.from_numpy(W2.T))
            if b1 is not None:
                ffn.c_fc.bias.copy_(torch.from_numpy(b1))
                ffn.c_proj.bias.copy_(torch.from_numpy(b2))
        return ffn


def param_count(d_model, d_ff, bias=True):
    """Parameters of one FFN: 2 * d_model * d_ff weights (+ d_ff + d_model biases)."""
    d_model = validate.positive_int(d_model, "d_model")
    d_ff = validate.positive_int(d_ff, "d_ff")
    return 2 * d_model * d_ff + ((d_ff + d_model) if validate.boolean(bias, "bias") else 0)


def flops(n_tokens, d_model, d_ff):
    """Multiply-add FLOPs of the two projections for n_tokens: 2 * 2 * T * d_model * d_ff."""
    n_tokens = validate.positive_int(n_tokens, "n_tokens")
    d_model = validate.positive_int(d_model, "d_model")
    return 4 * n_tokens * d_model * validate.positive_int(d_ff, "d_ff")
