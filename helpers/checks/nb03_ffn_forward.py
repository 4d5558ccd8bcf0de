"""Checks for the exercises of notebook 03 (the FFN forward pass)."""

import numpy as np
import torch

from helpers import activations
from helpers.checks.core import (
    MISSING,
    attempt,
    compare_arrays,
    correct,
    not_attempted,
    shape_str,
    to_numpy,
    wrong,
)


def _seed_weights(T=4, d_model=512, d_ff=2048, seed=3):
    """x (T, d_model) and the FFN weights of seed 003's hands-on 1."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(T, d_model))
    W1 = rng.normal(size=(d_model, d_ff)) / np.sqrt(d_model)
    b1 = rng.normal(size=d_ff) * 0.1
    W2 = rng.normal(size=(d_ff, d_model)) / np.sqrt(d_ff)
    b2 = rng.normal(size=d_model) * 0.1
    return x, W1, b1, W2, b2


def check_ffn_forward(ffn_forward):
    """Exercise 1: GELU(x @ W1 + b1) @ W2 + b2 for x (4, 512), d_ff = 2048."""
    name = "Exercise 1 (the FFN forward pass)"
    hint = "up-projection x @ W1 + b1, then the exact GELU h * Phi(h), then the down-projection @ W2 + b2."
    x, W1, b1, W2, b2 = _seed_weights()
    got = attempt(ffn_forward, x, W1, b1, W2, b2)
    out = None if got is MISSING or isinstance(got, Exception) else to_numpy(got)
    if out is not None and out.shape == (4, 2048):
        return wrong(name, "your output has shape (4, 2048); expected (4, 512): "
                     "did you forget the down-projection (@ W2 + b2)?", hint)

    def with_(act="gelu", bias1=True, bias2=True):
        h = activations.get(act)(x @ W1 + (b1 if bias1 else 0))
        return h @ W2 + (b2 if bias2 else 0)

    expected = with_()
    if out is not None and out.shape == expected.shape and not np.allclose(out, expected, atol=1e-6):
        known = [
            (with_("identity"), "there is no activation between the two matrices: "
                                "did you forget the GELU? Without it W1 @ W2 folds into one matrix."),
            (with_("relu"), "this is ReLU; the seed's FFN uses GELU (h * Phi(h))."),
            (with_("gelu_tanh"), "this is GELU's tanh approximation; use the exact GELU "
                                 "0.5 * h * (1 + erf(h / sqrt(2)))."),
            (with_(bias1=False), "b1 is missing: add it right after x @ W1, before the GELU."),
            (with_(bias2=False), "b2 is missing: add it after the down-projection @ W2."),
            (with_(bias1=False, bias2=False), "both biases b1 and b2 are missing."),
        ]
        for candidate, message in known:
            if np.allclose(out, candidate, atol=1e-6):
                return wrong(name, message, hint)
    result = compare_arrays(name, got, expected, "your output", hint)
    if not result:
        return result
    return correct(name, "(4, 512) -> (4, 2048) -> GELU -> (4, 512), the same numbers as "
                         "helpers.ffn.ffn_forward.")


def check_ffn_params(ffn_params):
    """Exercise 2: parameters of one FFN, ffn_params(d_model, d_ff, bias)."""
    name = "Exercise 2 (count the parameters)"
    hint = ("two weight matrices of d_model * d_ff entries each, plus a bias of d_ff (up) "
            "and one of d_model (down) when bias=True.")
    cases = [(768, 3072, True), (512, 2048, False), (512, 8192, True), (12288, 49152, True)]
    for d_model, d_ff, bias in cases:
        got = attempt(ffn_params, d_model, d_ff, bias)
        if got is MISSING:
            return not_attempted(name, hint)
        call = f"ffn_params({d_model}, {d_ff}, bias={bias})"
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        weights = 2 * d_model * d_ff
        expected = weights + ((d_ff + d_model) if bias else 0)
        if got == expected:
            continue
        if bias and got == weights:
            return wrong(name, f"{call} = {got:,}: you left out the biases "
                         f"({d_ff:,} + {d_model:,}).", hint)
        if got in (d_model * d_ff, d_model * d_ff + d_ff, d_model * d_ff + d_model):
            return wrong(name, f"{call} = {got:,}: that counts one matrix; the FFN has two "
                         "(up-projection and down-projection).", hint)
        if not bias and got == expected + d_ff + d_model:
            return wrong(name, f"{call} = {got:,}: with bias=False there are no biases.", hint)
        if d_ff != 4 * d_model and got in (8 * d_model**2, 8 * d_model**2 + 5 * d_model):
            return wrong(name, f"{call} = {got:,}: you assumed d_ff = 4 * d_model; "
                         "use the d_ff you are given.", hint)
        return wrong(name, f"{call} = {got!r}; expected {expected:,}.", hint)
    return correct(name, "2 * d_model * d_ff (+ d_ff + d_model); 4,722,432 for one GPT-2 small layer.")


def _retrieval_case(n_pairs=60, d_model=8, noise=0.9, seed=5):
    gen = torch.Generator().manual_seed(seed)
    values = torch.randn(n_pairs, d_model, generator=gen, dtype=torch.float64)
    outputs = values + noise * torch.randn(n_pairs, d_model, generator=gen, dtype=torch.float64)
    return outputs, values


def _accuracy(outputs, values, dim=1, pick=torch.argmin):
    nearest = pick(torch.cdist(outputs, values), dim=dim)
    return (nearest == torch.arange(len(values))).double().mean().item()


def check_retrieval_accuracy(retrieval_accuracy):
    """Exercise 3: fraction of outputs whose nearest value is their own."""
    name = "Exercise 3 (what counts as memorised)"
    hint = ("distances = torch.cdist(outputs, values) is (N, N); row i's nearest value is "
            "distances[i].argmin(); count the rows where that is i, divide by N.")
    outputs, values = _retrieval_case()
    got = attempt(retrieval_accuracy, outputs, values)
    if got is MISSING:
        return not_attempted(name, hint)
    if isinstance(got, Exception):
        return wrong(name, f"retrieval_accuracy raised {type(got).__name__}: {got}", hint)
    arr = to_numpy(got)
    if arr is None or arr.size != 1:
        shape = "" if arr is None else f" of shape {shape_str(arr.shape)}"
        return wrong(name, f"retrieval_accuracy returned a {type(got).__name__}{shape}; "
                     "expected one number between 0 and 1.", hint)
    value = float(arr.reshape(()))
    n = len(values)
    expected = _accuracy(outputs, values)
    if abs(value - expected) < 1e-9:
        return correct(name, f"{round(expected * n)} of {n} outputs sit nearest to their own "
                             f"value: accuracy {expected:.2f}.")
    if abs(value - expected * n) < 1e-9:
        return wrong(name, f"you returned {value:g}, the number of memorised pairs; "
                     f"return the fraction ({expected:.3f}).", hint)
    if abs(value - _accuracy(outputs, values, dim=0)) < 1e-9:
        return wrong(name, f"you returned {value:.3f}: that looks for the nearest output of each "
                     "value (argmin over dim 0); look for the nearest value of each output (dim 1).",
                     hint)
    if abs(value - _accuracy(outputs, values, pick=torch.argmax)) < 1e-9:
        return wrong(name, f"you returned {value:.3f}: nearest means the smallest distance "
                     "(argmin), not the largest.", hint)
    return wrong(name, f"you returned {value:.3f}; expected {expected:.3f}.", hint)
