"""Checks for notebook 06's exercises (the GPT-3 parameter table).

1. A prediction: the MLP's share of the parameters one DeepSeek-V3 token uses.
2. `count_llama(config)`: the exact parameter count of a Llama-style config.json.
3. (stretch) `count_moe(config)`: (total, active) of a Mixtral-style config.json.

The reference of every count is the course's calculator, `helpers.config_params.count_params`.
"""

from typing import NamedTuple

from helpers.checks.cases import Named, pair
from helpers.checks.compare import exact
from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.config_params import count_params, human, load_config


def _config(shipped, label=None, **changes):
    """A shipped config as the learner's function receives it, with some fields changed (label: a say() Text)."""
    return Named(load_config(shipped) | changes, say("{name} config", name=label or shipped))


class Sizes(NamedTuple):
    """The sizes of a Llama- or Mixtral-style config that the typical mistakes depend on."""

    d: int          # hidden_size
    d_ff: int       # intermediate_size, of one MLP (one expert in an MoE)
    layers: int
    vocab: int
    kv_width: int   # num_key_value_heads * head_dim: the width of k_proj and v_proj
    experts: int


def _sizes(c):
    """Sizes of a config dict; experts is 1 for a dense model."""
    d = c["hidden_size"]
    return Sizes(d, c["intermediate_size"], c["num_hidden_layers"], c["vocab_size"],
                 c["num_key_value_heads"] * (d // c["num_attention_heads"]), c.get("num_local_experts", 1))


def _total(c):
    return count_params(dict(c)).total


def _off_by(*deltas):
    """A `when` test: the learner's count is the reference's plus one of deltas(config) (None: not here)."""

    def when(got, c):
        steps = {delta(c) for delta in deltas} - {None, 0}
        return isinstance(got, int) and got - _total(c) in steps

    return when


def _tied(c):
    return c.get("tie_word_embeddings") is True


# ---- Exercise 1: a prediction --------------------------------------------------------------

_DS = load_config("deepseek-v3")
_DS_COUNT = count_params("deepseek-v3")
_EXPERTS_RUN = _DS["num_experts_per_tok"] + _DS["n_shared_experts"]   # routed experts a token runs, plus the shared
_EXPERTS = _DS["n_routed_experts"] + _DS["n_shared_experts"]
check_share_guess = NamedPrediction(
    "Exercise 1 (predict DeepSeek-V3's MLP share per token)",
    why=say("Each of DeepSeek-V3's {moe_layers} MoE layers holds {routed} routed experts and {shared} shared one, "
            "and a token runs {per_token} routed experts plus the shared one: {run} of {experts} expert MLPs. "
            "Attention, the first {dense} dense MLPs and the embeddings are used in full, so per token the MLP's "
            "share falls back near a dense model's 2/3.",
            moe_layers=_DS["num_hidden_layers"] - _DS["first_k_dense_replace"], routed=_DS["n_routed_experts"],
            shared=_DS["n_shared_experts"], per_token=_DS["num_experts_per_tok"], run=_EXPERTS_RUN,
            experts=_EXPERTS, dense=_DS["first_k_dense_replace"]),
    rel=0.2,
    variable="my_share_guess",
    fmt="{:.0f}%",
    percent=True,
    mistakes=[
        Mistake(say("{{got:g}}% is about the MLP's share of all {total} parameters ({share:.0%}); the question "
                    "asks for its share of the {active} one token uses, and a token skips most of the experts.",
                    total=human(_DS_COUNT.total), share=_DS_COUNT.mlp_share, active=human(_DS_COUNT.active)),
                when=lambda guess, actual: guess >= 90),
        Mistake(say("{{got:g}}% is about the share of the expert MLPs one token runs ({run} of {experts}, "
                    "{share:.1%}); the question asks what share of everything the token uses sits in the MLP, "
                    "attention and embeddings included.",
                    run=_EXPERTS_RUN, experts=_EXPERTS, share=_EXPERTS_RUN / _EXPERTS),
                when=lambda guess, actual: 0 < guess < 10),
        Mistake(say("{{got:g}}% leaves the MLP less than the rest, but what a token runs in full is small: "
                    "attention ({attention}) and the two embedding matrices ({embeddings}) of the {active} it "
                    "uses. The 9 experts it runs in each of 58 layers, with the 3 dense MLPs, weigh more.",
                    attention=human(_DS_COUNT.attention),
                    embeddings=human(_DS_COUNT.components["embedding"] + _DS_COUNT.components["unembedding"]),
                    active=human(_DS_COUNT.active)),
                when=lambda guess, actual: 10 <= guess < 0.8 * actual),
        Mistake("{got:g}% is more than a dense model's 2/3: per token an MoE model is close to a dense one, "
                "since attention and the embeddings are used in full while the experts shrink to the few a "
                "token runs.", when=lambda guess, actual: 1.2 * actual < guess < 90),
    ],
)

# ---- Exercise 2: count a Llama config ------------------------------------------------------

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
    """Where a missing k_proj (or v_proj) and a width of hidden_size // num_key_value_heads give one count."""
    s = _sizes(c)
    missing = -s.layers * s.d * s.kv_width
    return missing if _kv_by_kv_heads(c) == missing else None


# The slips of a Llama count, each a change of the total (None or 0: not seen on this config) and the
# sentence that names it. count_llama's check finds them in its total; count_moe's in both of its counts.
_LLAMA_SLIPS = [
    ("your count has an lm_head, but this config ties it (tie_word_embeddings is true): the unembedding "
     "reuses the embedding matrix, as GPT-2's does.", lambda c: _head(c) if _tied(c) else None),
    ("one vocab_size x hidden_size matrix is missing: tie_word_embeddings is false, so the embedding "
     "(embed_tokens) and the lm_head are two matrices.", lambda c: None if _tied(c) else -_head(c)),
    ("the embedding is missing: with a tied lm_head the vocab_size x hidden_size matrix is counted once, not "
     "zero times.", lambda c: -_head(c) if _tied(c) else None),
    ("you gave k_proj and v_proj the full width hidden_size; with grouped-query attention they have "
     "num_key_value_heads * head_dim outputs (head_dim = hidden_size / num_attention_heads).", _full_kv),
    ("k_proj and v_proj hold half the weights they should: one of them is missing, or you took hidden_size / "
     "num_key_value_heads as their width. Each is hidden_size x (num_key_value_heads * head_dim), with "
     "head_dim = hidden_size / num_attention_heads.", _kv_half),
    ("you gave k_proj and v_proj hidden_size / num_key_value_heads outputs; their width is "
     "num_key_value_heads * head_dim, with head_dim = hidden_size / num_attention_heads.",
     _kv_by_kv_heads),
    ("you gave q_proj or o_proj the key/value width; with grouped-query attention only k_proj and v_proj "
     "shrink: q_proj and o_proj stay hidden_size x hidden_size.", _each_layer(lambda s: -s.d * (s.d - s.kv_width))),
    ("you gave q_proj and o_proj the key/value width; with grouped-query attention only k_proj and v_proj "
     "shrink: q_proj and o_proj stay hidden_size x hidden_size.",
     _each_layer(lambda s: -2 * s.d * (s.d - s.kv_width))),
    ("one hidden_size x hidden_size matrix per layer is missing: attention has four, q_proj, k_proj, "
     "v_proj and o_proj (the output projection back to the residual stream).", _each_layer(lambda s: -s.d * s.d)),
    ("k_proj or v_proj is missing: attention has both, each hidden_size x (num_key_value_heads * head_dim).",
     _each_layer(lambda s: -s.d * s.kv_width)),
    ("one hidden_size x intermediate_size matrix per layer is missing: the gated MLP has three (gate_proj, "
     "up_proj, down_proj).", _MLP_TWO_MATRICES),
    ("your MLP is GPT's, two matrices of width 4 x hidden_size; Llama's gated MLP has three of width "
     "intermediate_size.", _MLP_GPT),
    ("your MLP has width 4 x hidden_size; Llama's width is the config's intermediate_size.", _MLP_4D),
    ("the RMSNorm weights are missing: two per layer (input_layernorm, post_attention_layernorm) plus the "
     "final norm, hidden_size each.", lambda c: -_norms(c)),
    ("the final RMSNorm (hidden_size weights, after the last layer) is missing.", lambda c: -_sizes(c).d),
    ("one RMSNorm per layer is missing: each layer has two, input_layernorm before attention and "
     "post_attention_layernorm before the MLP.", _each_layer(lambda s: -s.d)),
    ("you gave each RMSNorm a bias; RMSNorm has a weight only (LayerNorm, as in GPT-2, has both).", _norms),
    ("Llama has no position-embedding matrix: its rotary position embeddings have no parameters "
     "(max_position_embeddings only says how far they go).",
     lambda c: c.get("max_position_embeddings", 0) * _sizes(c).d),
    ("Llama's linear layers have no biases (attention_bias and mlp_bias are false); count weights only.",
     lambda c: _biases(c)[0]),
    ("Llama's linear layers have no biases (attention_bias and mlp_bias are false); count weights only.",
     _MLP_BIASES),
    ("Llama's linear layers have no biases (attention_bias and mlp_bias are false); count weights only.",
     _ALL_BIASES),
]


_LLAMA_CASES = [(_config("tinyllama-1.1b"),), (_config("llama-3-8b"),), (_config("llama-2-7b"),), (_TINY_TIED,)]


check_count_llama = Check(
    "Exercise 2 (count a Llama config by hand)",
    reference=_total,
    cases=_LLAMA_CASES,
    mistakes=[Mistake("{call} = {got:,}: " + message, when=_off_by(delta)) for message, delta in _LLAMA_SLIPS],
    compare=exact(),
    success=say("TinyLlama {:,}, Llama-3-8B {:,} and Llama-2-7B {:,}, exactly, and {:,} for TinyLlama "
                "with a tied lm_head.", *(_total(c) for (c,) in _LLAMA_CASES)),
    name="count_llama",
)


# ---- Exercise 3 (stretch): a mixture of experts ---------------------------------------------

def _counts(c):
    b = count_params(dict(c))
    return b.total, b.active


def _router(c):
    s = _sizes(c)
    return s.layers * s.d * s.experts


def _expert(c):
    """One expert in every layer: a gated MLP (gate, up, down)."""
    s = _sizes(c)
    return s.layers * 3 * s.d * s.d_ff


def _shifted(d_total, d_active):
    return lambda c: (_counts(c)[0] + d_total(c), _counts(c)[1] + d_active(c))


_MOE_CASES = [(_config("mixtral-8x7b"),),
              (_config("mixtral-8x7b", say("small Mixtral-style, 16 experts, top-4"), hidden_size=1024,
                       intermediate_size=2816, num_hidden_layers=6, num_attention_heads=16,
                       num_key_value_heads=4, num_local_experts=16, num_experts_per_tok=4),)]


def _moe_off(d_total, d_active):
    """A `when` test: the learner's (total, active) is the reference's shifted by (d_total(c), d_active(c))."""

    def when(got, c):
        total, active = _counts(c)
        shift = (d_total(c), d_active(c))
        return (isinstance(got, tuple) and len(got) == 2 and all(isinstance(g, int) for g in got)
                and None not in shift and shift != (0, 0) and (got[0] - total, got[1] - active) == shift)

    return when


def _active_share(got, c):
    """True when active is total scaled by num_experts_per_tok / num_local_experts, everything included."""
    total, _ = _counts(c)
    return (isinstance(got, tuple) and len(got) == 2 and got[0] == total
            and abs(got[1] - total * c["num_experts_per_tok"] / c["num_local_experts"]) <= 1)


def _per_expert_layer(per_layer):
    """(d_total, d_active) for a change made to every expert: num_local_experts and num_experts_per_tok times."""
    def d_total(c):
        return _sizes(c).layers * c["num_local_experts"] * per_layer(_sizes(c))

    def d_active(c):
        return _sizes(c).layers * c["num_experts_per_tok"] * per_layer(_sizes(c))

    return d_total, d_active


# The MoE count's own slips: (sentence, d_total(c), d_active(c)).
_MOE_SLIPS = [
    ("the router is missing: each layer has a gate of hidden_size x num_local_experts weights (one score per "
     "expert), and every token uses it.", lambda c: -_router(c), lambda c: -_router(c)),
    ("total is right, but active leaves out the router: every token runs it to choose its experts.",
     lambda c: 0, lambda c: -_router(c)),
    ("active counts the router for the chosen experts only; a token computes the score of every expert "
     "(all num_local_experts of them) before it picks its num_experts_per_tok.",
     lambda c: 0, lambda c: -_sizes(c).layers * _sizes(c).d * (c["num_local_experts"] - c["num_experts_per_tok"])),
    ("you gave the router a bias; Mixtral's gate is a linear layer without bias.",
     lambda c: _sizes(c).layers * c["num_local_experts"], lambda c: _sizes(c).layers * c["num_local_experts"]),
    ("active counts one expert per layer; a token runs num_experts_per_tok of them.",
     lambda c: 0, lambda c: -(c["num_experts_per_tok"] - 1) * _expert(c)),
    ("active counts the experts a token skips (num_local_experts - num_experts_per_tok per layer) instead of "
     "the num_experts_per_tok it runs.",
     lambda c: 0, lambda c: (c["num_local_experts"] - 2 * c["num_experts_per_tok"]) * _expert(c)),
    ("active leaves out the embedding and the lm_head; published active counts (Mixtral's 12.9B) include "
     "both in full.", lambda c: 0, lambda c: -2 * _head(c)),
    ("active leaves out the embedding or the lm_head; published active counts (Mixtral's 12.9B) include "
     "both in full.", lambda c: 0, lambda c: -_head(c)),
    ("active leaves out attention; every token runs all of it (q_proj, k_proj, v_proj, o_proj in every layer).",
     lambda c: 0, lambda c: -_sizes(c).layers * _attention(c)),
    ("you kept count_llama's dense MLP and added the experts: in an MoE layer the experts replace the dense "
     "MLP.", _expert, _expert),
    ("each expert is a gated MLP of three matrices (gate, up, down: w1, w3, w2 in Mixtral's names); yours "
     "have two.", *_per_expert_layer(lambda s: -s.d * s.d_ff)),
]
# A Llama slip in an MoE count moves total and active alike (every token runs attention, the norms and the
# embeddings); the slips in the dense MLP are the experts' own above, and the MLP's biases would be per expert.
_MOE_SLIPS += [(message, delta, delta) for message, delta in _LLAMA_SLIPS if delta not in _DENSE_MLP_SLIPS]


check_count_moe = Check(
    "Exercise 3 (count a mixture of experts)",
    reference=_counts,
    cases=_MOE_CASES,
    mistakes=[
        Mistake("you returned (active, total); return (total, active).",
                when=lambda got, c: tuple(got) == _counts(c)[::-1]),
        Mistake("{call}: active = total, but a token runs only num_experts_per_tok of the "
                "num_local_experts expert MLPs in each layer.",
                when=lambda got, c: got[1] == got[0] == _counts(c)[0]),
        Mistake("{call}: total counts one expert per layer: an MoE layer stores all "
                "num_local_experts of them (each a gated MLP: gate, up, down).",
                when=lambda got, c: _counts(c)[0] - got[0] in
                {(c["num_local_experts"] - 1) * _expert(c) + router for router in (0, _router(c))}),
        Mistake("{call}: active counts only the experts a token runs; the token also runs attention, the norms "
                "and the router, and uses the embedding and the lm_head.",
                when=lambda got, c: isinstance(got, tuple) and len(got) == 2
                and got[1] == c["num_experts_per_tok"] * _expert(c)),
        Mistake("{call}: active is total scaled by num_experts_per_tok / num_local_experts, as if the whole "
                "model were experts; only the experts are skipped: attention, the embeddings, the norms and "
                "the router run for every token.", when=_active_share),
        *(Mistake("{call}: " + message, when=_moe_off(d_total, d_active)) for message, d_total, d_active in _MOE_SLIPS),
    ],
    compare=pair(("total", "active"), exact()),
    success=say("Mixtral 8x7B holds {:,} parameters and a token uses {:,}, exactly; your count also holds "
                "for 16 experts with 4 per token.", *_counts(_MOE_CASES[0][0])),
    name="count_moe",
)
