"""Absmax quantisation of an MLP's weights and activations: fewer bits per number, and its cost.

A matrix is stored as small integers q and float scales, one per tensor, per row or per group
of k columns: W ~ q * scale. Weights have nn.Linear's layout (d_out, d_in), as c_fc.weight and
up_proj.weight: y = x @ W.T, a row is one output channel, a column one input feature (the papers
write X W, their W being our W.T). Activations x are (tokens, d_in): a row is one token.

    q, scale = quantize(W, bits=4, granularity=128)   # "tensor", "row" or a group size k
    W_hat = dequantize(q, scale)                      # |W - W_hat| <= scale / 2, elementwise
    relative_error(W_hat, W)                          # ||W_hat - W|| / ||W|| (Frobenius)
    llm_int8_split(x, W, threshold=6.0)               # outlier features of x kept in float
    s = smooth(x_absmax, W, alpha=0.5)                # (x / s) @ (W * s).T == x @ W.T
    int8_copy(mlp)                                    # the MLP on real int8 matmuls

int8_copy runs torch._int_mm, the int8 kernel torchao's int8 path calls on a CPU: PyTorch's own
torch.ao.quantization.quantize_dynamic warns on stderr that it is deprecated (torch 2.13).
int8_matmul and the int4 packing (pack_int4, unpack_int4) live in helpers.int_kernels.
"""

import copy
import numbers
from collections import OrderedDict

import torch
from torch import nn

from helpers import validate
from helpers.ffn import FFN
from helpers.int_kernels import int8_matmul, pack_int4, unpack_int4  # noqa: F401 - exported


def _count(value):
    """A whole number, not a bool (True == 1) nor a float (4.0)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _float_matrix(t, name, dims=2):
    """Require a finite floating-point torch tensor with `dims` dimensions."""
    validate.tensor(t, name)
    validate.ndim(t, name, dims)
    if not t.is_floating_point():
        raise TypeError(f"{name} must hold floating-point numbers, got dtype {t.dtype}")
    validate.finite(t, name)


def levels(bits):
    """The largest stored integer, 2**(bits-1) - 1: 127 for 8 bits, 7 for 4 bits."""
    if not _count(bits) or not 2 <= bits <= 16:
        raise ValueError(
            f"bits must be a whole number from 2 (levels -1, 0, 1) to 16, got {bits!r}")
    # Symmetric: -127..127, never -128, so that -q is stored exactly and 0 sits in the middle.
    return 2 ** (bits - 1) - 1


def _group_size(granularity, W):
    """Columns that share one scale; per tensor, all of W (its rows reshaped into one)."""
    d_in = W.shape[-1]
    if granularity == "tensor":
        return W.numel()
    if granularity == "row":
        return d_in
    if not _count(granularity) or granularity < 1:
        raise ValueError(f"granularity must be 'tensor', 'row' or a group size (a positive whole "
                         f"number), got {granularity!r}")
    if d_in % granularity:
        raise ValueError(f"granularity={granularity} (a group size) must divide W's last dimension "
                         f"d_in={d_in} (W has shape {tuple(W.shape)})")
    return int(granularity)


def _absmax(W, bits, granularity):
    """quantize without the checks: the kernel path calls it on every forward."""
    qmax, k = levels(bits), _group_size(granularity, W)
    rows = 1 if granularity == "tensor" else W.shape[0]
    groups = W.detach().to(torch.promote_types(W.dtype, torch.float32)).reshape(rows, -1, k)
    absmax = groups.abs().amax(dim=-1)                                  # (rows, n_groups)
    # An all-zero group: any scale stores it as q = 0; 1 avoids 0 / 0 and dequantises to exact 0.
    # A NaN or inf absmax keeps its scale (NaN, inf), so that what it multiplies shows it, not hides
    # it.
    scale = torch.where(absmax == 0, torch.ones_like(absmax), absmax / qmax)
    q = torch.round(groups / scale[..., None]).clamp(-qmax, qmax)      # to the nearest level
    return q.to(torch.int8 if bits <= 8 else torch.int16).reshape(W.shape), scale


def quantize(W, bits, granularity="row"):
    """Symmetric absmax: W (rows, d_in) float -> q (rows, d_in) int8/int16, scale (rows or 1,
    n_groups).

    granularity: "tensor" (one scale), "row" (one per output row, or per token of an activation)
    or k (one per group of k inputs of a row; 128 is the usual group size of GPTQ and AWQ
    releases). q holds -(2**(bits-1) - 1) .. 2**(bits-1) - 1, in int8 up to 8 bits.
    """
    _float_matrix(W, "W")
    if W.numel() == 0:
        raise ValueError(f"W is empty (shape {tuple(W.shape)}): there is nothing to quantize")
    return _absmax(W, bits, granularity)


def dequantize(q, scale):
    """q (rows, d_in) integers, scale (rows or 1, n_groups) -> float (rows, d_in): q * its scale."""
    for name, t in (("q", q), ("scale", scale)):
        validate.tensor(t, name)
        validate.ndim(t, name, 2)
    if q.dtype not in (torch.int8, torch.int16, torch.int32):
        raise TypeError(f"q must hold integers (int8 or int16, from quantize), got dtype {q.dtype}")
    if not scale.is_floating_point():
        raise TypeError(f"scale must hold floating-point numbers, got dtype {scale.dtype}")
    bad = ~((scale > 0) & torch.isfinite(scale))                      # 0, negative, NaN or inf
    if bool(bad.any()):
        raise ValueError("scale must be finite and > 0, as quantize makes it (absmax / levels, or "
                         f"1 for an all-zero group), got {float(scale[bad][0])} in "
                         f"{int(bad.sum())} of its {scale.numel()} entries")
    rows, n_groups = scale.shape
    if rows not in (1, q.shape[0]) or n_groups < 1 or q.numel() % (rows * n_groups):
        raise ValueError(f"scale has shape {tuple(scale.shape)}, which fits no grouping of q "
                         f"{tuple(q.shape)}: expected (1, 1), ({q.shape[0]}, 1) or "
                         f"({q.shape[0]}, d_in // k) for groups of k")
    groups = q.reshape(rows, n_groups, -1).to(scale.dtype)             # (rows, n_groups, k)
    return (groups * scale[..., None]).reshape(q.shape)


def relative_error(approx, exact):
    """||approx - exact|| / ||exact||, Frobenius norms: 0.01 means 1% of the signal is error."""
    validate.tensor(approx, "approx")
    validate.tensor(exact, "exact")
    if approx.shape != exact.shape:
        raise ValueError(f"approx has shape {tuple(approx.shape)} but exact has "
                         f"{tuple(exact.shape)}")
    norm = torch.linalg.vector_norm(exact.double())
    if norm == 0:
        raise ValueError("exact is all zeros: an error relative to it is undefined")
    return float(torch.linalg.vector_norm(approx.double() - exact.double()) / norm)


def fake_quantized(module, bits, granularity="row"):
    """A copy of module whose every nn.Linear weight is rounded to `bits` (stored as floats
    again)."""
    validate.instance_of(module, "module", nn.Module)
    rounded = copy.deepcopy(module)
    with torch.no_grad():
        for layer in rounded.modules():
            if isinstance(layer, nn.Linear):
                W = layer.weight
                W.copy_(dequantize(*quantize(W.detach(), bits, granularity)).to(W.dtype))
    return rounded


def output_error(mlp, x, bits, granularity="row"):
    """Relative error of mlp(x) when its weights are rounded to `bits`: x (..., d_model)."""
    with torch.no_grad():
        return relative_error(fake_quantized(mlp, bits, granularity)(x), mlp(x))


def outlier_columns(x, threshold=6.0):
    """(d_in,) bool: the input features where some token of x (tokens, d_in) has |value| >=
    threshold."""
    validate.tensor(x, "x")
    validate.ndim(x, "x", 2)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not threshold >= 0:
        raise ValueError("threshold must be a number >= 0 (math.inf: no outliers), got "
                         f"{threshold!r}")
    return (x.abs() >= threshold).any(dim=0)


def _int8_linear(x, Wq, W_scale):
    """x (tokens, d_in) float, Wq (d_out, d_in) int8, W_scale (d_out, 1) -> (tokens, d_out)."""
    if x.shape[0] == 0:                                                 # no tokens: as nn.Linear
        return x.new_zeros(0, Wq.shape[0])
    xq, x_scale = _absmax(x, 8, "row")                                  # per token: (tokens, 1)
    # in place: one pass less
    return int8_matmul(xq, Wq.T).to(x_scale.dtype).mul_(x_scale).mul_(W_scale.T)


def llm_int8_split(x, W, threshold=6.0):
    """x (tokens, d_in) @ W.T (W: (d_out, d_in)) -> (tokens, d_out), as LLM.int8() computes it.

    Dettmers et al. 2022, "LLM.int8(): 8-bit Matrix Multiplication for Transformers at Scale":
    the input features (columns of x) holding a value of magnitude >= threshold in any token
    are multiplied in float; the rest in int8, x per token and W per output channel, and the
    two parts summed. The paper found such outlier features systematic from about 6.7B
    parameters on; 6.0 is its threshold (bitsandbytes' default). threshold=0 keeps every
    feature in float, math.inf none.
    """
    _float_matrix(x, "x")
    _float_matrix(W, "W")
    if x.shape[1] != W.shape[1] or x.dtype != W.dtype:
        raise ValueError(f"x has {x.shape[1]} features of {x.dtype} but W (d_out, d_in) = "
                         f"{tuple(W.shape)} of {W.dtype} expects d_in={W.shape[1]} of its dtype")
    outliers = outlier_columns(x, threshold)
    y = x[:, outliers] @ W[:, outliers].T                               # float part (tokens, d_out)
    rest = ~outliers
    if rest.any():
        Wq, W_scale = _absmax(W[:, rest], 8, "row")
        y = y + _int8_linear(x[:, rest], Wq, W_scale).to(x.dtype)
    return y


def smooth(x_absmax, W, alpha=0.5):
    """SmoothQuant's scale s (d_in,) = max|x_j|**alpha / max|W_j|**(1 - alpha), per input feature j.

    Xiao et al. 2023, "SmoothQuant": (x / s) @ (W * s).T == x @ W.T, so dividing the
    activations by s and multiplying W's columns by s moves the outliers' range from the
    activations into the weights; alpha = 0.5 splits it evenly (the paper's balance point for
    most of its models).
    x_absmax (d_in,): max |x| per feature over calibration tokens. AWQ (Lin et al. 2024) uses the
    same equivalence for weight-only quantisation: every input channel's scale is s_x**alpha (s_x
    its mean |x|), alpha grid-searched for the smallest output error after rounding W.
    """
    _float_matrix(x_absmax, "x_absmax", dims=1)
    _float_matrix(W, "W")
    if x_absmax.shape[0] != W.shape[1]:
        raise ValueError(f"x_absmax has {x_absmax.shape[0]} features but W (d_out, d_in) = "
                         f"{tuple(W.shape)} expects d_in={W.shape[1]}")
    if (x_absmax < 0).any():
        raise ValueError("x_absmax must be magnitudes (>= 0): max |x| per feature, x.abs().amax(0)")
    if not 0 <= validate.real_number(alpha, "alpha") <= 1:
        raise ValueError(f"alpha must be from 0 to 1 (the share of the range moved), got {alpha}")
    W_absmax = W.detach().abs().amax(dim=0)                             # (d_in,)
    s = x_absmax.pow(alpha) / W_absmax.pow(1 - alpha)
    return torch.where((x_absmax > 0) & (W_absmax > 0), s, torch.ones_like(s))  # 1: nothing to move


class Int8Linear(nn.Module):
    """nn.Linear on int8: W per output row, x per token at run time, one int32 matmul, two scales.

    The scheme of torchao's int8 dynamic-activation config, which on a CPU calls the same
    torch._int_mm. Inference only (integers carry no gradient).
    """

    def __init__(self, linear):
        super().__init__()
        validate.instance_of(linear, "linear", nn.Linear)
        self.in_features, self.out_features = linear.in_features, linear.out_features
        q, scale = quantize(linear.weight.detach(), 8, "row")
        self.register_buffer("weight_q", q)                             # (d_out, d_in) int8
        self.register_buffer("weight_scale", scale)                     # (d_out, 1)
        self.register_buffer("bias", None if linear.bias is None else linear.bias.detach().clone())

    def forward(self, x):
        validate.model_input(x, self.in_features, "Int8Linear")
        # 0 tokens too, unlike reshape(-1, ...)
        tokens = x.reshape(x.shape[:-1].numel(), self.in_features)
        y = _int8_linear(tokens, self.weight_q, self.weight_scale)
        y = y.reshape(*x.shape[:-1], self.out_features).to(x.dtype)
        return y if self.bias is None else y + self.bias

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, int8"


def int8_copy(mlp):
    """A copy of mlp (an nn.Sequential, or the course's FFN) with Int8Linear for each nn.Linear
    child.

    An FFN becomes the Sequential it computes, with its names: c_fc, act, c_proj.
    """
    if isinstance(mlp, FFN):
        mlp = nn.Sequential(OrderedDict(c_fc=mlp.c_fc, act=mlp.act, c_proj=mlp.c_proj))
    if not isinstance(mlp, nn.Sequential):
        raise TypeError("mlp must be an nn.Sequential or a helpers.ffn.FFN, got "
                        f"{type(mlp).__name__}; for another module, replace its nn.Linear layers "
                        "by Int8Linear(layer)")
    return nn.Sequential(OrderedDict(
        (name, Int8Linear(m) if isinstance(m, nn.Linear) else copy.deepcopy(m))
        for name, m in mlp.named_children()))


def weight_bytes(module):
    """Bytes of a module's parameters and buffers (each tensor once): what its weights occupy."""
    validate.instance_of(module, "module", nn.Module)
    tensors = {(t.data_ptr(), t.dtype, t.shape): t
               for t in [*module.parameters(), *module.buffers()]}
    return sum(t.numel() * t.element_size() for t in tensors.values())

