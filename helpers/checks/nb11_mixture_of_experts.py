"""Checks for the exercises of notebook 11 (mixture of experts)."""

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


def _logits():
    return torch.randn(6, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64)


def check_top_k_gates(top_k_gates):
    """Exercise 1: (T, E) gates, softmax over each row's top k, zeros elsewhere."""
    name = "Exercise 1 (the gates)"
    hint = "logits.topk(k) gives values and ids; softmax the values, then scatter them into zeros (T, E)."
    logits, k = _logits(), 2
    got = attempt(top_k_gates, logits, k)
    if got is MISSING:
        return not_attempted(name, hint)
    top, idx = logits.topk(k, dim=-1)
    expected = torch.zeros_like(logits).scatter(1, idx, torch.softmax(top, dim=-1))
    arr = to_numpy(got) if not isinstance(got, Exception) else None
    if arr is not None and arr.shape == expected.shape:
        rows = arr.sum(-1)
        nonzero = (arr != 0).sum(-1)
        if (nonzero == logits.shape[1]).all():
            return wrong(name, "every expert has a non-zero gate: keep only the top k per token "
                         "and put zeros elsewhere.", hint)
        if abs(rows - k).max() < 1e-9:
            return wrong(name, f"each row sums to {k}: the chosen experts need softmax weights, "
                         "not 1 each.", hint)
        if (rows < 1 - 1e-6).all():
            return wrong(name, f"rows sum to {rows.min():.3f}..{rows.max():.3f}, not 1: take the "
                         "softmax over the k chosen logits (or renormalise after keeping k).", hint)
        picked = (arr != 0)
        best = (expected != 0).numpy()
        if not (picked == best).all():
            return wrong(name, "the non-zero gates are not at each token's k largest logits: "
                         "topk picks the largest (did you take the smallest?).", hint)
    return compare_arrays(name, got, expected, f"top_k_gates(logits, {k})", hint, atol=1e-9)


def check_moe_params(moe_params):
    """Exercise 2: (total, active) of a router + n_experts SwiGLU experts, no biases."""
    name = "Exercise 2 (total and active parameters)"
    hint = ("one SwiGLU expert holds 3 * d_model * d_ff (gate, up, down); the router d_model * E; "
            "a token uses the router and top_k experts.")
    for d_model, d_ff, E, k in [(32, 64, 8, 2), (4096, 14336, 8, 2), (10, 7, 4, 1)]:
        got = attempt(moe_params, d_model, d_ff, E, k)
        if got is MISSING:
            return not_attempted(name, hint)
        call = f"moe_params({d_model}, {d_ff}, {E}, {k})"
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            return wrong(name, f"{call} must return a pair (total, active), got {got!r}.", hint)
        total, active = got
        expert, router = 3 * d_model * d_ff, d_model * E
        if (total, active) == (router + E * expert, router + k * expert):
            continue
        if (total, active) == (E * expert, k * expert):
            return wrong(name, f"{call} = {got}: you forgot the router (d_model x E).", hint)
        if (total, active) == (router + E * 2 * d_model * d_ff, router + k * 2 * d_model * d_ff):
            return wrong(name, f"{call} = {got}: a SwiGLU expert has three matrices "
                         "(gate_proj, up_proj, down_proj), not two.", hint)
        if active == total:
            return wrong(name, f"{call} = {got}: active equals total, but a token runs through "
                         f"only top_k={k} of the {E} experts.", hint)
        return wrong(name, f"{call} = {got}; expected ({router + E * expert:,}, "
                     f"{router + k * expert:,}).", hint)
    return correct(name, "router + E experts held, router + k experts used: for one Mixtral layer "
                   "1,409,318,912 held and 352,354,304 used per token.")


def check_expert_load(expert_load):
    """Exercise 3: tokens per expert from the (T, k) chosen ids, every expert listed."""
    name = "Exercise 3 (count the load)"
    hint = "flatten the (T, k) ids and count each id, with minlength=n_experts (torch.bincount)."
    chosen = torch.tensor([[0, 2], [2, 1], [0, 2], [1, 0], [2, 0]])   # expert 3 is never chosen
    got = attempt(expert_load, chosen, 4)
    if got is MISSING:
        return not_attempted(name, hint)
    expected = torch.tensor([4, 2, 4, 0])
    arr = to_numpy(got) if not isinstance(got, Exception) else None
    if arr is not None and arr.shape == (3,):
        return wrong(name, "your counts have 3 entries for 4 experts: an expert no token chose "
                     "still needs its 0 (minlength).", hint)
    if arr is not None and arr.shape == (4,) and arr.tolist() == [2, 1, 2, 0]:
        return wrong(name, "you counted only each token's first choice; every one of the k "
                     "slots sends the token to an expert.", hint)
    return compare_arrays(name, got, expected, "expert_load(chosen, 4)", hint)
