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


_LLAMA_CASES = [(_config("tinyllama-1.1b"),), (_config("llama-3-8b"),), (_config("llama-2-7b"),), (_TINY_TIED,)]


check_count_llama = Check(
    "Exercise 2 (count a Llama config by hand)",
    reference=_total,
    cases=_LLAMA_CASES,
    mistakes=[
        Mistake("{call} = {got:,}: your count has an lm_head, but this config ties it "
                "(tie_word_embeddings is true): the unembedding reuses the embedding matrix, as GPT-2's does.",
                when=_off_by(lambda c: _head(c) if _tied(c) else None)),
        Mistake("{call} = {got:,}: the lm_head is missing: tie_word_embeddings is false, so the "
                "unembedding is a vocab_size x hidden_size matrix of its own.",
                when=_off_by(lambda c: None if _tied(c) else -_head(c))),
        Mistake("{call} = {got:,}: you gave k_proj and v_proj the full width hidden_size; with "
                "grouped-query attention they have num_key_value_heads * head_dim outputs "
                "(head_dim = hidden_size / num_attention_heads).", when=_off_by(_full_kv)),
        Mistake("{call} = {got:,}: one hidden_size x intermediate_size matrix per layer is missing: "
                "the gated MLP has three (gate_proj, up_proj, down_proj).",
                when=_off_by(lambda c: -_sizes(c).layers * _sizes(c).d * _sizes(c).d_ff)),
        Mistake("{call} = {got:,}: the RMSNorm weights are missing: two per layer "
                "(input_layernorm, post_attention_layernorm) plus the final norm, hidden_size each.",
                when=_off_by(lambda c: -_norms(c))),
        Mistake("{call} = {got:,}: the final RMSNorm (hidden_size weights, after the last layer) is missing.",
                when=_off_by(lambda c: -_sizes(c).d)),
        Mistake("{call} = {got:,}: you gave each RMSNorm a bias; RMSNorm has a weight only "
                "(LayerNorm, as in GPT-2, has both).",
                when=_off_by(_norms)),
        Mistake("{call} = {got:,}: Llama's linear layers have no biases (attention_bias and mlp_bias "
                "are false); count weights only.",
                when=_off_by(*(lambda c, i=i: _biases(c)[i] for i in range(3)))),
    ],
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
        Mistake("{call}: the router is missing: each layer has a gate of hidden_size x "
                "num_local_experts weights (one score per expert), and every token uses it.",
                answer=_shifted(lambda c: -_router(c), lambda c: -_router(c))),
        Mistake("{call}: total is right, but active leaves out the router: every token runs it "
                "to choose its experts.", answer=_shifted(lambda c: 0, lambda c: -_router(c))),
        Mistake("{call}: total counts one expert per layer: an MoE layer stores all "
                "num_local_experts of them (each a gated MLP: gate, up, down).",
                when=lambda got, c: _counts(c)[0] - got[0] in
                {(c["num_local_experts"] - 1) * _expert(c) + router for router in (0, _router(c))}),
        Mistake("{call}: active leaves out the embedding and the lm_head; published active counts "
                "(Mixtral's 12.9B) include both in full.",
                answer=_shifted(lambda c: 0, lambda c: -2 * _head(c))),
    ],
    compare=pair(("total", "active"), exact()),
    success=say("Mixtral 8x7B holds {:,} parameters and a token uses {:,}, exactly; your count also holds "
                "for 16 experts with 4 per token.", *_counts(_MOE_CASES[0][0])),
    name="count_moe",
)
