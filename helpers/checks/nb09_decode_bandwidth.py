"""Checks for the exercises of notebook 09 (decode is memory-bound)."""

import math

from helpers.checks.core import MISSING, attempt, correct, not_attempted, wrong

H100 = (989e12, 3.35e12)  # bf16 dense FLOP/s and HBM bytes/s from NVIDIA's H100 SXM datasheet


def _number(name, call, got, hint):
    """None when got is a usable number, else the Feedback that says what is wrong."""
    if isinstance(got, Exception):
        return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not math.isfinite(got):
        return wrong(name, f"{call} returned {got!r}; expected a finite number.", hint)
    return None


def _close(a, b, rel=1e-6):
    return math.isclose(a, b, rel_tol=rel)


def check_ffn_intensity(ffn_intensity):
    """Exercise 1: FLOPs per byte of weights for an FFN step over n_tokens."""
    name = "Exercise 1 (arithmetic intensity)"
    hint = ("FLOPs: 2 per multiply-add, T * 2 * d_model * d_ff multiply-adds; "
            "bytes: 2 * d_model * d_ff weights times bytes_per_weight.")
    for T, d_model, d_ff, b in [(1, 768, 3072, 4), (64, 1024, 4096, 2), (512, 256, 1024, 4)]:
        call = f"ffn_intensity({T}, {d_model}, {d_ff}, {b})"
        got = attempt(ffn_intensity, T, d_model, d_ff, b)
        if got is MISSING:
            return not_attempted(name, hint)
        problem = _number(name, call, got, hint)
        if problem is not None:
            return problem
        expected = 2 * T / b
        if _close(got, expected):
            continue
        if _close(got, T / b):
            return wrong(name, f"{call} = {got:g}, half of {expected:g}: a multiply-add is 2 FLOPs.",
                         hint)
        if _close(got, 2 * T):
            return wrong(name, f"{call} = {got:g}; expected {expected:g}: you divided by weights, "
                         f"not bytes (each weight is {b} bytes).", hint)
        return wrong(name, f"{call} = {got:g}; expected {expected:g} FLOPs per byte.", hint)
    return correct(name, "2 * T / bytes_per_weight: 0.5 FLOP per byte for one float32 token, "
                   "whatever d_model and d_ff are.")


def check_kv_cache_bytes(kv_cache_bytes):
    """Exercise 2: bytes of the KV cache for n_tokens."""
    name = "Exercise 2 (KV cache size)"
    hint = ("per token and layer the cache keeps one K and one V vector per key/value head: "
            "2 * n_layers * n_kv_heads * d_head * bytes_per_element.")
    cases = [  # n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes: GPT-2, GPT-3, Llama-3-8B
        (1024, 12, 12, 12, 64, 4),
        (2048, 96, 96, 96, 128, 2),
        (8192, 32, 32, 8, 128, 2),
    ]
    for n_tokens, n_layers, n_heads, n_kv_heads, d_head, b in cases:
        call = f"kv_cache_bytes({n_tokens}, {n_layers}, {n_heads}, {n_kv_heads}, {d_head}, {b})"
        got = attempt(kv_cache_bytes, n_tokens, n_layers, n_heads, n_kv_heads, d_head, b)
        if got is MISSING:
            return not_attempted(name, hint)
        problem = _number(name, call, got, hint)
        if problem is not None:
            return problem
        per_layer_head = n_tokens * n_layers * d_head
        expected = 2 * per_layer_head * n_kv_heads * b
        if got == expected:
            continue
        if got == expected // 2:
            return wrong(name, f"{call} = {got:,}, half of {expected:,}: the cache holds K and V.",
                         hint)
        if n_heads != n_kv_heads and got == 2 * per_layer_head * n_heads * b:
            return wrong(name, f"{call} = {got:,}; expected {expected:,}: with grouped-query "
                         f"attention only the {n_kv_heads} key/value heads are cached, "
                         f"not all {n_heads} query heads.", hint)
        if got == expected // b:
            return wrong(name, f"{call} = {got:,}; expected {expected:,}: that counts elements; "
                         f"multiply by {b} bytes each.", hint)
        return wrong(name, f"{call} = {got:,}; expected {expected:,} bytes.", hint)
    return correct(name, "2 * n_layers * n_kv_heads * d_head * bytes per token: 9,663,676,416 bytes "
                   "for GPT-3 at 2048 tokens, and no term for the MLP.")


def check_knee_tokens(knee_tokens):
    """Exercise 3: the batch size where the FFN turns compute-bound."""
    name = "Exercise 3 (where the roofline bends)"
    hint = ("with T tokens the FFN does 2 * T FLOPs per weight, i.e. 2 * T / bytes_per_weight per "
            "byte; set that equal to peak_flops / bandwidth and solve for T.")
    cases = [(*H100, 2), (1e12, 60e9, 4)]
    for peak, bw, b in cases:
        call = f"knee_tokens({peak:g}, {bw:g}, {b})"
        got = attempt(knee_tokens, peak, bw, b)
        if got is MISSING:
            return not_attempted(name, hint)
        problem = _number(name, call, got, hint)
        if problem is not None:
            return problem
        expected = peak * b / (2 * bw)
        if _close(got, expected, rel=0.01):
            continue
        if _close(got, 2 * expected, rel=0.01):
            return wrong(name, f"{call} = {got:.4g}, twice {expected:.4g}: each weight gives 2 FLOPs "
                         "per token (a multiply and an add).", hint)
        if _close(got, 1 / expected, rel=0.01):
            return wrong(name, f"{call} = {got:.4g}; expected {expected:.4g}: the ratio is upside "
                         "down (peak_flops over bandwidth, not the reverse).", hint)
        if _close(got, expected / b, rel=0.01):
            return wrong(name, f"{call} = {got:.4g}; expected {expected:.4g}: you left out the "
                         f"{b} bytes each weight takes.", hint)
        return wrong(name, f"{call} = {got:.4g}; expected {expected:.4g} tokens.", hint)
    return correct(name, "peak * bytes / (2 * bandwidth): about 295 tokens for an H100 in bfloat16; "
                   "below that, decode waits on memory.")
