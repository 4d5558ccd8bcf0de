"""Checks for the exercises of notebook 06 (the GPT-3 parameter table)."""

from helpers.checks.core import MISSING, attempt, correct, not_attempted, wrong
from helpers.config_params import count_params, load_config


def _number(name, call, got, hint):
    """Feedback for an answer that is not a whole number (None when it is one)."""
    if isinstance(got, Exception):
        return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
    if isinstance(got, bool) or not isinstance(got, int):
        if isinstance(got, float) and got.is_integer():
            return None
        return wrong(name, f"{call} returned {got!r}, expected a whole number of parameters.", hint)
    return None


def check_layer_params(layer_params):
    """Exercise 1: weights of one block, (attention, mlp), for width d_model and MLP expansion."""
    name = "Exercise 1 (one block: 4d^2 vs 2*expansion*d^2)"
    hint = ("attention has four d x d matrices (Q, K, V, output); the MLP has an up-projection "
            "d x (expansion*d) and a down-projection back.")
    for d_model, expansion in [(12288, 4), (768, 4), (10, 3)]:
        call = f"layer_params({d_model}, {expansion})"
        got = attempt(layer_params, d_model, expansion)
        if got is MISSING:
            return not_attempted(name, hint)
        if isinstance(got, Exception):
            return wrong(name, f"{call} raised {type(got).__name__}: {got}", hint)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return wrong(name, f"{call} returned {got!r}; expected a pair (attention, mlp).", hint)
        attention, mlp = got
        d2 = d_model * d_model
        if attention == 3 * d2:
            return wrong(name, f"{call} gives attention = 3*d^2 = {attention:,}: "
                         "you counted Q, K and V but not the output projection.", hint)
        if attention != 4 * d2:
            return wrong(name, f"{call} gives attention = {attention:,}; expected 4*d^2 = {4 * d2:,}.",
                         hint)
        if mlp == expansion * d2:
            return wrong(name, f"{call} gives mlp = {mlp:,}: that is one matrix; "
                         "the MLP has two (up and down).", hint)
        if mlp != 2 * expansion * d2:
            return wrong(name, f"{call} gives mlp = {mlp:,}; expected 2*{expansion}*d^2 = "
                         f"{2 * expansion * d2:,}.", hint)
    return correct(name, "4d^2 for attention, 8d^2 for a 4x MLP: exactly twice as many.")


def check_count_llama(count_llama):
    """Exercise 2: the exact total of a Llama-style config (GQA, gated MLP, RMSNorm, untied head)."""
    name = "Exercise 2 (count a Llama config by hand)"
    hint = ("per layer: q and o are d x d, k and v are d x (num_key_value_heads * head_dim); "
            "gate, up and down are d x d_ff each; two RMSNorm weights of size d. Then embedding, "
            "final norm and an untied lm_head.")
    for model in ["tinyllama-1.1b", "llama-3-8b", "llama-2-7b"]:
        config = load_config(model)
        call = f"count_llama(<{model} config>)"
        got = attempt(count_llama, dict(config))
        if got is MISSING:
            return not_attempted(name, hint)
        problem = _number(name, call, got, hint)
        if problem is not None:
            return problem
        expected = count_params(config).total
        if got == expected:
            continue
        d, d_ff, layers = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"]
        heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
        kv_width = kv * (d // heads)
        mistakes = {
            expected + layers * 2 * d * (d - kv_width):
                "you gave k and v the full width d; with grouped-query attention they have "
                f"num_key_value_heads * head_dim = {kv_width:,} outputs.",
            expected - layers * d * d_ff:
                "one d x d_ff matrix per layer is missing: the gated MLP has three (gate, up, down).",
            expected - config["vocab_size"] * d:
                "the lm_head is missing: tie_word_embeddings is false, so it is its own matrix.",
            expected - (2 * layers + 1) * d:
                "the RMSNorm weights are missing (two per layer plus the final norm, d each).",
            expected - d:
                "the final RMSNorm (d weights) is missing.",
        }
        if got in mistakes:
            return wrong(name, f"{call} = {got:,}; expected {expected:,}: {mistakes[got]}", hint)
        return wrong(name, f"{call} = {got:,}; expected {expected:,} (off by {got - expected:+,}).",
                     hint)
    return correct(name, "TinyLlama 1,100,048,384, Llama-3-8B 8,030,261,248 and "
                   "Llama-2-7B 6,738,415,616, exactly.")


def check_crossover(crossover):
    """Exercise 3: the context length where causal QK^T + AV FLOPs equal the MLP's."""
    name = "Exercise 3 (when does attention's core overtake the MLP?)"
    hint = ("per token and layer the MLP costs 2 * (2 * d_model * d_ff) FLOPs; QK^T and AV cost "
            "2 * t * d_model each for a token that sees t keys, and with a causal mask a token "
            "sees T/2 keys on average.")
    for d_model, d_ff in [(64, 96), (768, 3072), (12288, 49152)]:
        call = f"crossover({d_model}, {d_ff})"
        got = attempt(crossover, d_model, d_ff)
        if got is MISSING:
            return not_attempted(name, hint)
        problem = _number(name, call, got, hint)
        if problem is not None:
            return problem
        if got == 2 * d_ff:
            continue
        if got == d_ff:
            return wrong(name, f"{call} = {got:,}: that is where a token that sees all T keys "
                         "breaks even; with a causal mask a token sees T/2 on average.", hint)
        if got == 4 * d_model:
            return wrong(name, f"{call} = {got:,}: that is where the core overtakes the attention "
                         "projections (8*d^2 FLOPs), not the MLP.", hint)
        if got == 8 * d_model:
            return wrong(name, f"{call} = {got:,} = 8*d_model: right for a 4x MLP, but use d_ff "
                         f"itself (here d_ff = {d_ff / d_model:g} * d_model).", hint)
        return wrong(name, f"{call} = {got:,}; expected {2 * d_ff:,}.", hint)
    return correct(name, "T = 2 * d_ff: 6,144 tokens for GPT-2, 98,304 for GPT-3.")
