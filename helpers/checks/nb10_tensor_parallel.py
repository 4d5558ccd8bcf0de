"""Checks for the exercises of notebook 10 (tensor parallelism)."""

import torch
import torch.nn.functional as F

from helpers.checks.core import MISSING, attempt, correct, not_attempted, shape_str, wrong

KEYS = ("W1", "b1", "W2", "b2")


def _toy_ffn(d_model=4, d_ff=12, T=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    W1, b1 = torch.randn(d_model, d_ff, generator=g), torch.randn(d_ff, generator=g)
    W2, b2 = torch.randn(d_ff, d_model, generator=g), torch.randn(d_model, generator=g)
    x = torch.randn(T, d_model, generator=g)
    return [t.double() for t in (x, W1, b1, W2, b2)]


def _shard_problem(shard, rank, d_model, d_ff, n):
    """Words for what is wrong with one shard's keys and shapes, or None."""
    if not isinstance(shard, dict) or any(k not in shard for k in KEYS):
        return f"shard {rank} must be a dict with keys {list(KEYS)}."
    w = d_ff // n
    shapes = {k: tuple(torch.as_tensor(shard[k]).shape) for k in KEYS}
    if shapes["W1"] == (d_model // n, d_ff):
        return (f"shard {rank}'s W1 has shape {shape_str(shapes['W1'])}: you split W1 by rows. "
                f"Split it by columns, shape ({d_model}, {w}), so each worker owns whole hidden units.")
    if shapes["W1"] != (d_model, w):
        return f"shard {rank}'s W1 has shape {shape_str(shapes['W1'])}; expected ({d_model}, {w})."
    if shapes["W2"] == (d_ff, d_model // n):
        return (f"shard {rank}'s W2 has shape {shape_str(shapes['W2'])}: you split W2 by columns. "
                f"Split it by rows, shape ({w}, {d_model}): the rows of this worker's hidden units.")
    expected = {"b1": (w,), "W2": (w, d_model), "b2": (d_model,)}
    for key, shape in expected.items():
        if shapes[key] != shape:
            return f"shard {rank}'s {key} has shape {shape_str(shapes[key])}; expected {shape_str(shape)}."
    return None


def check_split(split_megatron):
    """Exercise 1: W1 by columns, W2 by rows, b1 with W1, b2 whole on every worker."""
    name = "Exercise 1 (split the FFN)"
    hint = ("worker r owns hidden units r*w .. (r+1)*w-1 with w = d_ff // n: "
            "W1[:, units], b1[units], W2[units, :], and the whole b2.")
    x, W1, b1, W2, b2 = _toy_ffn()
    d_model, d_ff = W1.shape
    reference = F.gelu(x @ W1 + b1) @ W2 + b2
    for n in (2, 3):
        shards = attempt(split_megatron, W1, b1, W2, b2, n)
        if shards is MISSING:
            return not_attempted(name, hint)
        if isinstance(shards, Exception):
            return wrong(name, f"split_megatron(..., {n}) raised {type(shards).__name__}: {shards}", hint)
        if not isinstance(shards, (list, tuple)) or len(shards) != n:
            what = f"{len(shards)} shards" if isinstance(shards, (list, tuple)) else type(shards).__name__
            return wrong(name, f"split_megatron(..., {n}) must return a list of {n} shards, "
                         f"got {what}.", hint)
        for rank, shard in enumerate(shards):
            problem = _shard_problem(shard, rank, d_model, d_ff, n)
            if problem:
                return wrong(name, problem, hint)
        shards = [{k: torch.as_tensor(s[k]).double() for k in KEYS} for s in shards]
        if any(torch.allclose(s["b2"], b2 / n) and not torch.allclose(b2 / n, b2) for s in shards):
            return wrong(name, "a shard holds b2 / n: b2 is added once, after the all-reduce, "
                         "so every worker keeps the whole b2.", hint)
        partials = [F.gelu(x @ s["W1"] + s["b1"]) @ s["W2"] for s in shards]
        got = sum(partials) + shards[0]["b2"]
        if not torch.allclose(got, reference, atol=1e-10):
            return wrong(name, f"with {n} workers the partial outputs plus b2 differ from the FFN "
                         f"by up to {(got - reference).abs().max():.3g}: are W1's columns, b1's "
                         "entries and W2's rows of each worker the same hidden units?", hint)
    return correct(name, "the partial outputs of 2 and 3 workers add up to the FFN's output.")


def check_allreduce_bytes(allreduce_bytes):
    """Exercise 2: bytes of the one all-reduce, T * d_model * bytes per element."""
    name = "Exercise 2 (bytes per all-reduce)"
    hint = "the all-reduce sums the partial outputs of the down-projection: shape (T, d_model)."
    for T, d_model, d_ff, nbytes in [(8, 768, 3072, 8), (1024, 768, 3072, 2), (3, 5, 20, 4)]:
        got = attempt(allreduce_bytes, T, d_model, d_ff, nbytes)
        if got is MISSING:
            return not_attempted(name, hint)
        call = f"allreduce_bytes({T}, {d_model}, {d_ff}, {nbytes})"
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        expected = T * d_model * nbytes
        if got == T * d_ff * nbytes:
            return wrong(name, f"{call} = {got:,}: that is the hidden activations (T, d_ff). In "
                         "the Megatron split they never leave their worker.", hint)
        if got == T * d_model:
            return wrong(name, f"{call} = {got:,}: that counts numbers, not bytes; "
                         f"each number takes {nbytes} bytes.", hint)
        if got == 8 * expected:
            return wrong(name, f"{call} = {got:,}: that is bits; a byte is 8 bits.", hint)
        if got != expected:
            return wrong(name, f"{call} = {got}; expected {expected:,}.", hint)
    return correct(name, "T * d_model * bytes: 1,572,864 bytes for GPT-2 small at T=1024 in "
                   "bfloat16, whatever the number of workers.")


def check_params_per_worker(params_per_worker):
    """Exercise 3: numbers one worker holds, biases included (b2 is not split)."""
    name = "Exercise 3 (what one worker holds)"
    hint = ("W1 and W2 give d_model * d_ff / n each, b1 gives d_ff / n, "
            "and b2 (d_model) is held whole by every worker.")
    for d_model, d_ff, n in [(768, 3072, 2), (768, 3072, 4), (4, 12, 3)]:
        got = attempt(params_per_worker, d_model, d_ff, n)
        if got is MISSING:
            return not_attempted(name, hint)
        call = f"params_per_worker({d_model}, {d_ff}, {n})"
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        expected = (2 * d_model * d_ff + d_ff) // n + d_model
        if got == (2 * d_model * d_ff + d_ff + d_model) / n:
            return wrong(name, f"{call} = {got:,.0f}: you split b2 too. Every worker adds the "
                         "whole b2 after the all-reduce (or one does), so it is not divided.", hint)
        if got == 2 * d_model * d_ff // n:
            return wrong(name, f"{call} = {got:,}: you counted the weights only; add the biases.", hint)
        if got == 2 * d_model * d_ff + d_ff + d_model:
            return wrong(name, f"{call} = {got:,}: that is the whole FFN; divide what is split.", hint)
        if got != expected:
            return wrong(name, f"{call} = {got}; expected {expected:,}.", hint)
    gpt2 = (2 * 768 * 3072 + 3072) // 2 + 768
    return correct(name, f"2*d_model*d_ff/n + d_ff/n + d_model: {gpt2:,} numbers per worker "
                   "for GPT-2 small's MLP on 2 workers.")
