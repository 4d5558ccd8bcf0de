"""Checks for notebook 09's exercises (decode is memory-bound).

1. A prediction: how many times longer one token takes through one layer of Llama-2-7B's MLP
   than through the 128 MiB FFN of section 3 (decode time follows the bytes).
2. The bytes one decode step reads, from a Llama-style config.json.
3. (stretch) The batch at which a decode step turns compute-bound, KV cache included.
"""

import math

from helpers import bandwidth
from helpers.checks import language
from helpers.checks.compare import exact, number
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import say
from helpers.config_params import count_params, load_config

check_layer_ratio = Prediction(
    "Exercise 1 (predict a 7B layer)",
    why="A decode step's time is its bytes over the bandwidth: the layer's three 4096 x 11008 float32 "
        "matrices hold 541,065,216 bytes, 4.03x the 134,217,728 of the 128 MiB FFN, and both come from "
        "DRAM at about the same rate, so the timing above lands near 4 too, within the machine's noise. "
        "(Forgetting the gate gives 2.69.)",
    rel=0.3,
    variable="my_ratio_guess",
    fmt="{:.2f}",
    answer="the bytes give",
)

# ---- Exercise 2: bytes per decode step from a config ----------------------------------------


class Config(dict):
    """A config.json's fields, shown in messages by the model's name."""

    name = "a"

    def __repr__(self):
        return language.translate(say("<{name} config>", name=self.name))   # shown inside a call


def _config(name):
    config = Config(load_config(name))
    config.name = name
    return config


def _step_bytes(config, bytes_per_weight, **parts):
    """The course's count (helpers.bandwidth.decode_weight_bytes), with some parts changed."""
    read = bandwidth.decode_weight_bytes(count_params(config), bytes_per_weight)
    b = count_params(config)
    changes = {
        "embedding": b.vocab_size * b.d_model * bytes_per_weight,          # the whole table
        "no_unembedding": 0,
        "mha": b.n_layers * 2 * b.d_model * (b.n_heads - b.n_kv_heads) * b.head_dim * bytes_per_weight,
        "no_gate": -b.components["mlp"] // 3 * bytes_per_weight,
        "no_norms": 0,
    }
    total = sum(read.values())
    for part in parts:
        if part == "embedding":
            total += changes["embedding"] - read["embedding"]
        elif part == "no_unembedding":
            total -= read["unembedding"]
        elif part == "no_norms":
            total -= read["norms"]
        else:
            total += changes[part]
    return total


def _like(**parts):
    return lambda config, bytes_per_weight: _step_bytes(config, bytes_per_weight, **parts)


check_decode_bytes = Check(
    "Exercise 2 (bytes per decode step)",
    reference=lambda config, bytes_per_weight: sum(
        bandwidth.decode_weight_bytes(count_params(config), bytes_per_weight).values()),
    cases=[(_config("llama-2-7b"), 2), (_config("llama-3-8b"), 2), (_config("tinyllama-1.1b"), 4)],
    compare=exact(),
    name="decode_bytes",
    mistakes=[
        Mistake("{call} = {got:,}: that counts numbers, not bytes; multiply by bytes_per_weight.",
                answer=lambda config, bpw: _step_bytes(config, bpw) // bpw),
        Mistake("{call} = {got:,}: you counted the whole embedding table. A decode step looks up one "
                "row of it, the new token's; the unembedding (vocab x d_model) is the one read whole.",
                answer=_like(embedding=True)),
        Mistake("{call} = {got:,}: you left out the unembedding, the vocab x d_model matrix that scores "
                "every word; it is read whole at every step.", answer=_like(no_unembedding=True)),
        Mistake("{call} = {got:,}: W_K and W_V have num_key_value_heads x head_dim outputs, not "
                "hidden_size: with grouped-query attention they are smaller than W_Q.",
                answer=_like(mha=True)),
        Mistake("{call} = {got:,}: Llama's MLP has three matrices: gate_proj, up_proj and down_proj.",
                answer=_like(no_gate=True)),
        Mistake("{call} = {got:,}: almost; you left out the RMSNorm weights (2 x hidden_size per layer, "
                "plus hidden_size for the final norm).", answer=_like(no_norms=True)),
    ],
    success="every matrix once, one embedding row, the unembedding whole: 13.2 GB for Llama-2-7B "
            "in bfloat16, of which the MLP is two thirds.",
)

# ---- Exercise 3: the knee with the KV cache --------------------------------------------------

H100 = bandwidth.GPUS["H100 SXM"]


def _active(name):
    b = count_params(name)
    return b.active - b.components["embedding"]   # 2 FLOPs per weight used; the lookup does none


def _knee_compare(got, expected):
    """Like number(), but math.inf (never) must be answered with math.inf."""
    if math.isinf(expected):
        if isinstance(got, (int, float)) and math.isinf(got) and got > 0:
            return None
        return say("= {got}; with this much KV cache per sequence the step never turns compute-bound: math.inf",
                   got=got)
    return number(rel=1e-3)(got, expected)


def _kv(name, context):
    return bandwidth.kv_cache_bytes(count_params(name), context)


check_knee_batch = Check(
    "Exercise 3 (the knee with a KV cache)",
    reference=bandwidth.knee_batch,
    cases=[
        (_active("llama-2-7b"), 0, H100.peak_flops, H100.bandwidth, 2),
        (_active("llama-3-8b"), _kv("llama-3-8b", 256), H100.peak_flops, H100.bandwidth, 2),
        (_active("llama-2-7b"), _kv("llama-2-7b", 4096), H100.peak_flops, H100.bandwidth, 2),
    ],
    compare=_knee_compare,
    name="knee_batch",
    mistakes=[
        Mistake("{call} = {got:.4g}: that is the knee without the KV cache. Each sequence adds its cache "
                "to the bytes read, so the knee moves to a larger batch, or away altogether.",
                answer=lambda n, kv, peak, bw, bpw: bandwidth.knee_batch(n, 0, peak, bw, bpw)),
        Mistake("{call} = {got:.4g}: each weight gives 2 FLOPs per sequence (a multiply and an add).",
                answer=lambda n, kv, peak, bw, bpw: bandwidth.knee_batch(n / 2, kv, peak, bw, 2 * bpw)),
        Mistake("{call} = {got:.4g}: a negative batch means the two times never meet: return math.inf.",
                when=lambda got, *case: isinstance(got, (int, float)) and got < 0),
    ],
    success="B = N * bytes / (2 * N * bandwidth / peak - KV bytes per sequence): 295 for an H100 "
            "without a cache, 770 for Llama-3-8B at 256 tokens of context, and never for Llama-2-7B "
            "at 4096: long contexts keep decode memory-bound at any batch.",
)
