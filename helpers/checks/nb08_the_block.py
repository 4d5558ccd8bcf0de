"""Checks for the exercises of notebook 08 (the Transformer block)."""

import numpy as np
import torch

from helpers.checks.core import (
    MISSING,
    attempt,
    compare_arrays,
    correct,
    not_attempted,
    to_numpy,
    wrong,
)


def _close(arr, expected):
    expected = to_numpy(expected)
    return arr is not None and arr.shape == expected.shape and np.allclose(arr, expected, atol=1e-7)


def _layer_norm_input():
    g = torch.Generator().manual_seed(8)
    x = 2 * torch.randn(4, 6, generator=g, dtype=torch.float64) + 1
    x[3] = 1.0 + 1e-3 * torch.randn(6, generator=g, dtype=torch.float64)  # a token of tiny variance
    weight = torch.randn(6, generator=g, dtype=torch.float64)
    bias = torch.randn(6, generator=g, dtype=torch.float64)
    return x, weight, bias


def check_layer_norm(my_layer_norm):
    """Exercise 1: (x - mean) / sqrt(var + eps) * weight + bias over the last dimension."""
    name = "Exercise 1 (LayerNorm by hand)"
    hint = "mean and var over dim=-1 with keepdim=True; var divides by d (correction=0); then * weight + bias."
    x, weight, bias = _layer_norm_input()
    eps = 1e-5
    got = attempt(my_layer_norm, x.clone(), weight, bias, eps)
    if got is MISSING:
        return not_attempted(name, hint)
    arr = None if isinstance(got, Exception) else to_numpy(got)

    def ln(x, dim=-1, correction=0, eps=eps, affine=True):
        mean = x.mean(dim=dim, keepdim=True)
        var = x.var(dim=dim, keepdim=True, correction=correction)
        y = (x - mean) / torch.sqrt(var + eps)
        return y * weight + bias if affine else y

    mistakes = [
        (ln(x, correction=1), "you used the unbiased variance (dividing by d - 1, torch.var's default); "
                              "LayerNorm divides by d: pass correction=0 (or unbiased=False)."),
        (ln(x, eps=0.0), "you left out eps: a token whose numbers are nearly equal (the last one here) "
                         "then gets divided by almost 0; add eps inside the square root."),
        (ln(x, affine=False), "you normalised but forgot the learned scale and shift: * weight + bias."),
        ((x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)) * weight + bias,
         "you did not subtract the mean: that is RMSNorm's formula (plus a bias), not LayerNorm's."),
    ]
    if arr is not None and arr.shape == tuple(x.shape):
        dim0 = (x - x.mean(0)) / torch.sqrt(x.var(0, correction=0) + eps) * weight + bias
        if _close(arr, dim0):
            return wrong(name, "you normalised over the tokens (dim 0); LayerNorm normalises each token "
                         "over its own d numbers (dim -1).", hint)
        for wrong_answer, message in mistakes:
            if _close(arr, wrong_answer):
                return wrong(name, message, hint)
    return compare_arrays(name, got, ln(x), "my_layer_norm(x, weight, bias, eps)", hint, atol=1e-9)


def check_pre_ln_block(my_block):
    """Exercise 2: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x))."""
    from helpers.block import Block

    name = "Exercise 2 (the pre-LN block)"
    hint = "two lines: x = x + attn(ln_1(x)), then x = x + mlp(ln_2(x)) on the updated x."
    torch.manual_seed(8)
    b = Block(8, 2).double()
    with torch.no_grad():   # random norm weights, so that every mistake shows
        for ln in (b.ln_1, b.ln_2):
            ln.weight.normal_()
            ln.bias.normal_()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    with torch.no_grad():
        got = attempt(my_block, x.clone(), b.ln_1, b.attn, b.ln_2, b.mlp)
        if got is MISSING:
            return not_attempted(name, hint)
        arr = None if isinstance(got, Exception) else to_numpy(got)
        after_attn = x + b.attn(b.ln_1(x))
        post_ln = b.ln_1(x + b.attn(x))
        post_ln = b.ln_2(post_ln + b.mlp(post_ln))
        mistakes = [
            (x + b.attn(b.ln_1(x)) + b.mlp(b.ln_2(x)),
             "your MLP reads x from before the attention update: that is the parallel block. "
             "In GPT-2's block the MLP reads the stream after attention was added."),
            (post_ln,
             "you normalised after the add (post-LN, the original Transformer); GPT-2 normalises "
             "the sublayer's input: x + attn(ln_1(x))."),
            (b.mlp(b.ln_2(b.attn(b.ln_1(x)))),
             "there is no residual add: each sublayer's result must be added to x, not replace it."),
            (b.ln_1(x) + b.attn(b.ln_1(x)),
             "you added the update to the normalised x; the residual adds it to x itself."),
        ]
        for wrong_answer, message in mistakes:
            if _close(arr, wrong_answer):
                return wrong(name, message, hint)
        expected = after_attn + b.mlp(b.ln_2(after_attn))
    return compare_arrays(name, got, expected, "my_block(x, ln_1, attn, ln_2, mlp)", hint, atol=1e-9)


def check_block_params(block_params):
    """Exercise 3: 12 d^2 + 13 d for GPT-2's block, 12 d^2 + 11 d for the parallel block."""
    name = "Exercise 3 (count a block)"
    hint = ("attention 4d^2 + 4d (c_attn and c_proj with biases), MLP 8d^2 + 5d, "
            "and a weight and a bias of d per LayerNorm (two in GPT-2's block, one in the parallel one).")
    for d, parallel in [(768, False), (64, False), (768, True), (20, True)]:
        got = attempt(block_params, d, parallel=parallel)
        if got is MISSING:
            return not_attempted(name, hint)
        call = f"block_params({d}, parallel={parallel})"
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        expected = 12 * d * d + (11 if parallel else 13) * d
        if got == expected:
            continue
        if got == 12 * d * d:
            why = "that is the weights alone: add the biases (9d) and the LayerNorms."
        elif got == 12 * d * d + 9 * d:
            why = "the biases are there but the LayerNorms are missing (2d each)."
        elif parallel and got == 12 * d * d + 13 * d:
            why = "the parallel block has one LayerNorm, not two."
        elif got == 12 * d * d + 4 * d or got == 12 * d * d + (2 if parallel else 4) * d:
            why = "the LayerNorms are there but the biases of the four linear layers are missing (9d)."
        else:
            why = f"expected {expected:,}."
        return wrong(name, f"{call} = {got:,}; {why}", hint)
    return correct(name, "12*d^2 + 13*d (7,087,872 at d = 768); the parallel block 12*d^2 + 11*d.")
