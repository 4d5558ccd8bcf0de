"""Exercise 2: `count_llama(config)`, the exact parameter count of a Llama-style config.json;
each typical slip (biases, k/v at full width, the head or the norms counted wrong, an MLP of two
matrices) is named by the change of the total it makes."""

from helpers.checks.compare import exact
from helpers.checks.nb06_parameter_table.sizes import _config, _off_by, _sizes, _tied, _total
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say

_TINY_TIED = _config("tinyllama-1.1b", say("tinyllama-1.1b with tie_word_embeddings: true"),
                     tie_word_embeddings=True)


def _biases(c):
    """Biases a learner may add by mistake, over all layers: attention's, the MLP's, both."""
    s = _sizes(c)
    attention, mlp = 2 * s.d + 2 * s.kv_width, 2 * s.d_ff + s.d
    return tuple(s.layers * b for b in (attention, mlp, attention + mlp))


def _full_kv(c):
    s = _sizes(c)
    return s.layers * 2 * s.d * (s.d - s.kv_width)


def _head(c):
    s = _sizes(c)
    return s.vocab * s.d


def _norms(c):
    s = _sizes(c)
    return (2 * s.layers + 1) * s.d


def _attention(c):
    """One layer's attention weights: q_proj and o_proj d x d, k_proj and v_proj d x kv_width."""
    s = _sizes(c)
    return 2 * s.d * s.d + 2 * s.d * s.kv_width


def _each_layer(per_layer):
    """A delta of `per_layer(sizes)` parameters in every layer."""
    return lambda c: _sizes(c).layers * per_layer(_sizes(c))


def _kv_by_kv_heads(c):
    """The change when k_proj and v_proj get hidden_size // num_key_value_heads outputs."""
    s = _sizes(c)
    return s.layers * 2 * s.d * (s.d // c["num_key_value_heads"] - s.kv_width)


_MLP_TWO_MATRICES = _each_layer(lambda s: -s.d * s.d_ff)
_MLP_GPT = _each_layer(lambda s: 8 * s.d * s.d - 3 * s.d * s.d_ff)
_MLP_4D = _each_layer(lambda s: 3 * s.d * (4 * s.d - s.d_ff))


def _MLP_BIASES(c):  # noqa: N802 - a delta, named as the constants beside it
    return _biases(c)[1]


def _ALL_BIASES(c):  # noqa: N802
    return _biases(c)[2]


_DENSE_MLP_SLIPS = {_MLP_TWO_MATRICES, _MLP_GPT, _MLP_4D, _MLP_BIASES, _ALL_BIASES}

def _kv_half(c):
    """Where a missing k_proj (or v_proj) and a width of hidden_size //
    num_key_value_heads give one count."""
    s = _sizes(c)
    missing = -s.layers * s.d * s.kv_width
    return missing if _kv_by_kv_heads(c) == missing else None


# The slips of a Llama count, each a change of the total (None or 0: not seen on this
# config) and the sentence that names it. count_llama's check finds them in its total;
# count_moe's in both of its counts.
_LLAMA_SLIPS = [
    ("your count has an lm_head, but this config ties it (tie_word_embeddings is true): the "
     "unembedding reuses the embedding matrix, as GPT-2's does.",
     lambda c: _head(c) if _tied(c) else None),
    ("one vocab_size x hidden_size matrix is missing: tie_word_embeddings is false, so the "
     "embedding (embed_tokens) and the lm_head are two matrices.",
     lambda c: None if _tied(c) else -_head(c)),
    ("the embedding is missing: with a tied lm_head the vocab_size x hidden_size matrix is counted "
     "once, not zero times.", lambda c: -_head(c) if _tied(c) else None),
    ("you gave k_proj and v_proj the full width hidden_size; with grouped-query attention they "
     "have num_key_value_heads * head_dim outputs (head_dim = hidden_size / num_attention_heads).",
     _full_kv),
    ("k_proj and v_proj hold half the weights they should: one of them is missing, or you took "
     "hidden_size / num_key_value_heads as their width. Each is hidden_size x "
     "(num_key_value_heads * head_dim), with head_dim = hidden_size / num_attention_heads.",
     _kv_half),
    ("you gave k_proj and v_proj hidden_size / num_key_value_heads outputs; their width is "
     "num_key_value_heads * head_dim, with head_dim = hidden_size / num_attention_heads.",
     _kv_by_kv_heads),
    ("you gave q_proj or o_proj the key/value width; with grouped-query attention only k_proj and "
     "v_proj shrink: q_proj and o_proj stay hidden_size x hidden_size.",
     _each_layer(lambda s: -s.d * (s.d - s.kv_width))),
    ("you gave q_proj and o_proj the key/value width; with grouped-query attention only k_proj and "
     "v_proj shrink: q_proj and o_proj stay hidden_size x hidden_size.",
     _each_layer(lambda s: -2 * s.d * (s.d - s.kv_width))),
    ("one hidden_size x hidden_size matrix per layer is missing: attention has four, q_proj, "
     "k_proj, v_proj and o_proj (the output projection back to the residual stream).",
     _each_layer(lambda s: -s.d * s.d)),
    ("k_proj or v_proj is missing: attention has both, each hidden_size x "
     "(num_key_value_heads * head_dim).",
     _each_layer(lambda s: -s.d * s.kv_width)),
    ("one hidden_size x intermediate_size matrix per layer is missing: the gated MLP has three "
     "(gate_proj, up_proj, down_proj).", _MLP_TWO_MATRICES),
    ("your MLP is GPT's, two matrices of width 4 x hidden_size; Llama's gated MLP has three of "
     "width intermediate_size.", _MLP_GPT),
    ("your MLP has width 4 x hidden_size; Llama's width is the config's intermediate_size.",
     _MLP_4D),
    ("the RMSNorm weights are missing: two per layer (input_layernorm, post_attention_layernorm) "
     "plus the final norm, hidden_size each.", lambda c: -_norms(c)),
    ("the final RMSNorm (hidden_size weights, after the last layer) is missing.",
     lambda c: -_sizes(c).d),
    ("one RMSNorm per layer is missing: each layer has two, input_layernorm before attention and "
     "post_attention_layernorm before the MLP.", _each_layer(lambda s: -s.d)),
    ("you gave each RMSNorm a bias; RMSNorm has a weight only (LayerNorm, as in GPT-2, has both).",
     _norms),
    ("Llama has no position-embedding matrix: its rotary position embeddings have no parameters "
     "(max_position_embeddings only says how far they go).",
     lambda c: c.get("max_position_embeddings", 0) * _sizes(c).d),
    ("Llama's linear layers have no biases (attention_bias and mlp_bias are "
     "false); count weights only.",
     lambda c: _biases(c)[0]),
    ("Llama's linear layers have no biases (attention_bias and mlp_bias are "
     "false); count weights only.",
     _MLP_BIASES),
    ("Llama's linear layers have no biases (attention_bias and mlp_bias are "
     "false); count weights only.",
     _ALL_BIASES),
]


_LLAMA_CASES = [(_config("tinyllama-1.1b"),), (_config("llama-3-8b"),), (_config("llama-2-7b"),),
                (_TINY_TIED,)]


check_count_llama = Check(
    "Exercise 2 (count a Llama config by hand)",
    reference=_total,
    cases=_LLAMA_CASES,
    mistakes=[Mistake("{call} = {got:,}: " + message, when=_off_by(delta))
              for message, delta in _LLAMA_SLIPS],
    compare=exact(),
    success=say("TinyLlama {:,}, Llama-3-8B {:,} and Llama-2-7B {:,}, exactly, and {:,} for "
                "TinyLlama with a tied lm_head.", *(_total(c) for (c,) in _LLAMA_CASES)),
    name="count_llama",
)
