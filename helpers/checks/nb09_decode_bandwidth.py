"""Checks for notebook 09's exercises (decode is memory-bound).

1. A prediction: how many times longer one token takes through one layer of Llama-2-7B's MLP
   than through the larger FFN of section 4 (decode time follows the bytes).
2. The bytes one decode step reads, from a Llama-style config.json.
3. (stretch) The batch at which a decode step turns compute-bound, KV cache included.
"""

import math

from helpers import bandwidth
from helpers.checks import language
from helpers.checks.compare import exact, number
from helpers.checks.core import explained_calls, wrong
from helpers.checks.runner import Check, Mistake, Prediction
from helpers.checks.show import say
from helpers.config_params import count_params, load_config

# ---- Exercise 1: predict a 7B layer ----------------------------------------------------------

LAYER_RATIO = "Exercise 1 (predict a 7B layer)"
# Llama-2-7B's MLP: gate_proj, up_proj, down_proj, each 4096 x 11008
LAYER = (3, 4096, 11008)
# The ratio is a product of three factors (matrices, d_model, d_ff); a learner who rounds 11008 /
# 8192 to 1.3 or 1.4 lands within 4%. 10% keeps that and rejects the models that leave a factor out:
# the nearest, d_ff left out, is 26% low.
LAYER_REL = 0.1

# What each wrong model computes, from the layer's (matrices, d_model, d_ff) and the FFN's, and what
# it left out.
_LAYER_MODELS = [
    (lambda m, d, f, fm, fd, ff: (m * d) / (fm * fd),
     "that leaves d_ff out: the layer's 11008 hidden units against the FFN's "
     "{ffn_d_ff} make the ratio larger too."),
    (lambda m, d, f, fm, fd, ff: d / fd,
     "that is d_model's ratio alone ({d_model} / {ffn_d_model}): a matrix holds d_model x d_ff "
     "weights, and the layer has {matrices} matrices against the FFN's {ffn_matrices}."),
    (lambda m, d, f, fm, fd, ff: (d * f) / (fd * ff),
     "that counts two matrices of 4096 x 11008: Llama's MLP has three "
     "(gate_proj, up_proj, down_proj)."),
    (lambda m, d, f, fm, fd, ff: m / fm,
     "that counts matrices only; each also grows with d_model and d_ff."),
    (lambda m, d, f, fm, fd, ff: f / ff,
     "that counts one of the layer's three matrices: gate_proj, up_proj "
     "and down_proj are all read."),
    (lambda m, d, f, fm, fd, ff: (m * f) / (fm * ff),
     "that leaves d_model out (the layer's 4096 against the FFN's {ffn_d_model} doubles each "
     "matrix), or gives the layer half the FFN's bytes per weight:"),
    (lambda m, d, f, fm, fd, ff: m * d * f / (fd * ff),
     "that is twice the bytes' ratio: it compares the layer's {matrices} matrices with "
     "one of the FFN's (the FFN reads {ffn_matrices}, up and down), or gives the layer "
     "twice the FFN's bytes per weight:"),
]
_SAME_DTYPE = say("the layer and the FFN use the same dtype: their bytes per weight cancel.")
# a guess within 5% of a model's value is that model (rounding moves it by a few %)
_LAYER_NEAR = 0.05


def check_layer_ratio(guess, bytes_ratio, ffn=(2, 2048, 8192)):
    """Exercise 1: the learner's guess against the bytes' ratio (the layer's weights / the FFN's).

    ffn: the FFN's (matrices, d_model, d_ff), so that each wrong model's ratio can be computed and
    named.
    """
    why = say("A decode step's time is its bytes over the bandwidth: the layer's three 4096 x "
              "11008 matrices hold {bytes_ratio:.2f}x the weights of the FFN, in the same dtype, "
              "and both come from memory at about the same rate, so the timing above lands near "
              "{bytes_ratio:.2f} too, within the machine's noise.",
              bytes_ratio=bytes_ratio)
    feedback = Prediction(LAYER_RATIO, why=why, rel=LAYER_REL, variable="my_ratio_guess",
                          fmt="{:.2f}", answer="the bytes give")(guess, bytes_ratio)
    if feedback.status != "wrong" or isinstance(guess, bool) \
            or not isinstance(guess, (int, float)) or not math.isfinite(guess):
        return feedback
    said = {"guess": guess, "bytes_ratio": bytes_ratio}
    if math.isclose(guess, 1 / bytes_ratio, rel_tol=_LAYER_NEAR):
        return wrong(LAYER_RATIO, say("you predicted {guess:.2f}, the bytes give "
                                      "{bytes_ratio:.2f}: that is the FFN's time over the layer's; "
                                      "the question asks the layer's over the FFN's.",
                                      **said))
    sizes = (*LAYER, *ffn)
    names = {"matrices": LAYER[0], "d_model": LAYER[1], "d_ff": LAYER[2], "ffn_matrices": ffn[0],
             "ffn_d_model": ffn[1], "ffn_d_ff": ffn[2]}
    values = [(model(*sizes), sentence) for model, sentence in _LAYER_MODELS]
    value, sentence = min(values, key=lambda item: abs(guess - item[0]) / item[0])
    if not math.isclose(guess, value, rel_tol=_LAYER_NEAR) \
            or math.isclose(value, bytes_ratio, rel_tol=LAYER_REL):
        # near, but no model of the list: a factor misread
        if abs(guess - bytes_ratio) <= 0.3 * bytes_ratio:
            sentence = ("close, but not within 10%: the ratio is the product of three "
                        "ratios, the matrices ({matrices} / {ffn_matrices}), d_model "
                        "({d_model} / {ffn_d_model}) and d_ff ({d_ff} / {ffn_d_ff}); work "
                        "each one out to two digits.")
        else:
            return feedback
    return wrong(LAYER_RATIO, say("you predicted {guess:.2f}, the bytes give "
                                  "{bytes_ratio:.2f}: {sentence}",
                                  sentence=say("{} {}", say(sentence, **names),
                                               _SAME_DTYPE if sentence.endswith(":") else why),
                                  **said))


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


def _step_bytes(config, bytes_per_weight, *changes):
    """The course's count (helpers.bandwidth.decode_weight_bytes), with the named parts changed."""
    b = count_params(config)
    read = bandwidth.decode_weight_bytes(b, bytes_per_weight)
    d, q, kv = b.d_model, b.n_heads * b.head_dim, b.n_kv_heads * b.head_dim
    per_layer = b.n_layers * bytes_per_weight
    delta = {
        "whole_embedding": (b.vocab_size - 1) * d * bytes_per_weight,      # the table, not one row
        "no_unembedding": -read["unembedding"],
        "mha": per_layer * 2 * d * (q - kv),                               # W_K, W_V as wide as W_Q
        "no_gate": -read["mlp"] // 3,
        "no_norms": -read["norms"],
        "no_w_o": -per_layer * q * d,
        "one_of_k_v": -per_layer * d * kv,
        "one_norm_per_layer": -per_layer * d,
        # the final norm or the row
        "one_vector_short": -d * bytes_per_weight,
        # the final norm and the row
        "two_vectors_short": -2 * d * bytes_per_weight,
        "one_layer": -(read["attention"] + read["mlp"] + read["norms"] - d * bytes_per_weight)
                     # the layers' count not multiplied
                     * (b.n_layers - 1) // b.n_layers,
        # GPT-2's d_ff = 4 d_model
        "gpt2_d_ff": per_layer * 3 * d * (4 * d - b.d_ff),
        # head_dim from the kv heads:
        "kv_head_dim": per_layer * 2 * d * (b.n_heads * d // b.n_kv_heads - q)
                       # every head and kv width grows
                       + per_layer * 2 * d * (d - kv),
    }
    return sum(read.values()) + sum(delta[change] for change in changes)


def _like(*changes):
    return lambda config, bytes_per_weight: _step_bytes(config, bytes_per_weight, *changes)


def _llama2_7b_summary():
    read = bandwidth.decode_weight_bytes(count_params("llama-2-7b"), 2)
    return say("{gb:.1f} GB for Llama-2-7B in bfloat16, {mlp_share:.0%} of it the MLP",
               gb=sum(read.values()) / 1e9, mlp_share=read["mlp"] / sum(read.values()))


check_decode_bytes = Check(
    "Exercise 2 (bytes per decode step)",
    reference=lambda config, bytes_per_weight: sum(
        bandwidth.decode_weight_bytes(count_params(config), bytes_per_weight).values()),
    # TinyLlama first: with grouped-query attention a missing W_K and a missing W_O differ in size,
    # and unlike Llama-3-8B, K and V as wide as Q and GPT-2's 4 x d_model MLP add different amounts.
    cases=[(_config("tinyllama-1.1b"), 4), (_config("llama-3-8b"), 2), (_config("llama-2-7b"), 2)],
    compare=exact(),
    name="decode_bytes",
    mistakes=[
        Mistake("{call} = {got}: that counts numbers, not bytes; multiply by bytes_per_weight.",
                answer=lambda config, bpw: _step_bytes(config, bpw) // bpw),
        Mistake("{call} = {got}: that multiplies by bytes_per_weight twice.",
                answer=lambda config, bpw: _step_bytes(config, bpw) * bpw),
        Mistake("{call} = {got}: you counted the whole embedding table. A decode step "
                "looks up one row of it, the new token's; the unembedding (vocab x "
                "d_model) is the one read whole.",
                answer=_like("whole_embedding")),
        Mistake("{call} = {got}: you left out the unembedding, the vocab x d_model matrix that "
                "scores every word; it is read whole at every step.",
                answer=_like("no_unembedding")),
        Mistake("{call} = {got}: W_K and W_V have num_key_value_heads x head_dim outputs, not "
                "hidden_size: with grouped-query attention they are smaller than W_Q.",
                answer=_like("mha")),
        Mistake("{call} = {got}: you left out W_O, attention's output projection "
                "(num_attention_heads x head_dim -> hidden_size).", answer=_like("no_w_o")),
        Mistake("{call} = {got}: keys and values have a matrix each: count both W_K and W_V.",
                answer=_like("one_of_k_v")),
        Mistake("{call} = {got}: Llama's MLP has three matrices: gate_proj, up_proj and down_proj.",
                answer=_like("no_gate")),
        Mistake("{call} = {got}: almost; you left out the RMSNorm weights (2 x hidden_size per "
                "layer, plus hidden_size for the final norm).",
                answer=_like("no_norms")),
        Mistake("{call} = {got}: almost; each layer has two RMSNorms (one before attention, one "
                "before the MLP), hidden_size weights each.",
                answer=_like("one_norm_per_layer")),
        Mistake("{call} = {got}: almost; you are hidden_size weights short: the final RMSNorm, or "
                "the one embedding row of the new token.",
                answer=_like("one_vector_short")),
        Mistake("{call} = {got}: almost; you are 2 x hidden_size weights short: the final RMSNorm "
                "and the one embedding row of the new token.",
                answer=_like("two_vectors_short")),
        Mistake("{call} = {got}: that is one layer's weights plus the rest; multiply the layer by "
                "num_hidden_layers.", answer=_like("one_layer")),
        Mistake("{call} = {got}: your MLP is 4 x hidden_size wide, GPT-2's ratio; Llama's width is "
                "intermediate_size, read from the config.", answer=_like("gpt2_d_ff")),
        Mistake("{call} = {got}: your head_dim is hidden_size / num_key_value_heads; a "
                "head has hidden_size / num_attention_heads numbers, and only the "
                "number of K and V heads shrinks.",
                answer=_like("kv_head_dim")),
        Mistake("{call} = {got}: that is the MLP's bytes alone; a decode step reads attention, the "
                "norms, the unembedding and one embedding row too.",
                answer=lambda config, bpw:
                    bandwidth.decode_weight_bytes(count_params(config), bpw)["mlp"]),
    ],
    success=say("every matrix once, one embedding row, the unembedding whole: {summary}.",
                summary=_llama2_7b_summary()),
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
        return say("= {got}; with this much KV cache per sequence the step never "
                   "turns compute-bound: math.inf",
                   got=got)
    return number(rel=1e-3)(got, expected)


def _kv(name, context):
    return bandwidth.kv_cache_bytes(count_params(name), context)


KNEE_CASES = [
    (_active("llama-2-7b"), 0, H100.peak_flops, H100.bandwidth, 2),
    (_active("llama-3-8b"), _kv("llama-3-8b", 256), H100.peak_flops, H100.bandwidth, 2),
    (_active("llama-2-7b"), _kv("llama-2-7b", 4096), H100.peak_flops, H100.bandwidth, 2),
]


def _batch(knee):
    return say("never") if math.isinf(knee) else format(knee, ".0f")


_no_cache, _llama3, _llama2_long = (bandwidth.knee_batch(*case) for case in KNEE_CASES)

check_knee_batch = Check(
    "Exercise 3 (the knee with a KV cache)",
    reference=bandwidth.knee_batch,
    cases=KNEE_CASES,
    compare=_knee_compare,
    name="knee_batch",
    mistakes=[
        Mistake("{call} = {got}: that is the knee without the KV cache. Each sequence adds its "
                "cache to the bytes read, so the knee moves to a larger batch, or away altogether.",
                answer=lambda n, kv, peak, bw, bpw: bandwidth.knee_batch(n, 0, peak, bw, bpw)),
        Mistake("{call} = {got}: each weight gives 2 FLOPs per sequence (a multiply and an add).",
                answer=lambda n, kv, peak, bw, bpw:
                    bandwidth.knee_batch(n / 2, kv, peak, bw, 2 * bpw)),
        Mistake("{call} = {got}: you left out bytes_per_weight; reading the weights takes "
                "n_params x bytes_per_weight / bandwidth.",
                answer=lambda n, kv, peak, bw, bpw: bandwidth.knee_batch(n, kv, peak, bw, 1)),
        Mistake("{call} = {got}: the KV cache adds bytes to read, so it leaves less room per "
                "sequence: subtract it, do not add it.",
                answer=lambda n, kv, peak, bw, bpw: n * bpw / (2 * n * bw / peak + kv)),
        Mistake("{call} = {got}: peak_flops and bandwidth are swapped; the knee is near peak / "
                "bandwidth FLOPs per byte, hundreds on an H100.",
                answer=lambda n, kv, peak, bw, bpw: bandwidth.knee_batch(n, kv, bw, peak, bpw)),
        Mistake("{call} = {got}: a negative batch means the two times never meet: return math.inf.",
                when=lambda got, *case: isinstance(got, (int, float)) and got < 0),
        Mistake("{call} = {got}: no batch of 0 sequences turns compute-bound; when the "
                "times never meet, return math.inf.",
                when=lambda got, *case: isinstance(got, (int, float)) and got == 0),
    ],
    success=say("B = N * bytes / (2 * N * bandwidth / peak - KV bytes per sequence): "
                "{no_cache} for an H100 without a cache, {llama3} for Llama-3-8B at 256 tokens "
                "of context, and {llama2_long} for Llama-2-7B at 4096: long contexts keep "
                "decode memory-bound at any batch.",
                no_cache=_batch(_no_cache), llama3=_batch(_llama3),
                llama2_long=_batch(_llama2_long)),
)


# Called with the wrong number of arguments, a check says how to call it (not Python's TypeError).
check_layer_ratio = explained_calls(LAYER_RATIO, check_layer_ratio)
