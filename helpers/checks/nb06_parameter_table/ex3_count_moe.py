"""Exercise 3 (stretch): `count_moe(config)`, (total, active) of a Mixtral-style config.json;
the MoE count's own slips and the Llama slips are named by the change of each count."""

from helpers.checks.cases import pair
from helpers.checks.compare import exact
from helpers.checks.nb06_parameter_table.ex2_count_llama import (
    _DENSE_MLP_SLIPS,
    _LLAMA_SLIPS,
    _attention,
    _head,
)
from helpers.checks.nb06_parameter_table.sizes import _config, _sizes
from helpers.checks.runner import Check, Mistake
from helpers.checks.show import say
from helpers.config_params import count_params


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
              (_config("mixtral-8x7b", say("small Mixtral-style, 16 experts, top-4"),
                       hidden_size=1024,
                       intermediate_size=2816, num_hidden_layers=6, num_attention_heads=16,
                       num_key_value_heads=4, num_local_experts=16, num_experts_per_tok=4),)]


def _moe_off(d_total, d_active):
    """A `when` test: the learner's (total, active) is the reference's shifted
    by (d_total(c), d_active(c))."""

    def when(got, c):
        total, active = _counts(c)
        shift = (d_total(c), d_active(c))
        return (isinstance(got, tuple) and len(got) == 2 and all(isinstance(g, int) for g in got)
                and None not in shift and shift != (0, 0)
                and (got[0] - total, got[1] - active) == shift)

    return when


def _active_share(got, c):
    """True when active is total scaled by num_experts_per_tok /
    num_local_experts, everything included."""
    total, _ = _counts(c)
    return (isinstance(got, tuple) and len(got) == 2 and got[0] == total
            and abs(got[1] - total * c["num_experts_per_tok"] / c["num_local_experts"]) <= 1)


def _per_expert_layer(per_layer):
    """(d_total, d_active) for a change made to every expert: num_local_experts
    and num_experts_per_tok times."""
    def d_total(c):
        return _sizes(c).layers * c["num_local_experts"] * per_layer(_sizes(c))

    def d_active(c):
        return _sizes(c).layers * c["num_experts_per_tok"] * per_layer(_sizes(c))

    return d_total, d_active


# The MoE count's own slips: (sentence, d_total(c), d_active(c)).
_MOE_SLIPS = [
    ("the router is missing: each layer has a gate of hidden_size x num_local_experts weights (one "
     "score per expert), and every token uses it.", lambda c: -_router(c), lambda c: -_router(c)),
    ("total is right, but active leaves out the router: every token runs it to choose its experts.",
     lambda c: 0, lambda c: -_router(c)),
    ("active counts the router for the chosen experts only; a token computes the score of every "
     "expert (all num_local_experts of them) before it picks its num_experts_per_tok.",
     lambda c: 0,
     lambda c: (-_sizes(c).layers * _sizes(c).d
                * (c["num_local_experts"] - c["num_experts_per_tok"]))),
    ("you gave the router a bias; Mixtral's gate is a linear layer without bias.",
     lambda c: _sizes(c).layers * c["num_local_experts"],
     lambda c: _sizes(c).layers * c["num_local_experts"]),
    ("active counts one expert per layer; a token runs num_experts_per_tok of them.",
     lambda c: 0, lambda c: -(c["num_experts_per_tok"] - 1) * _expert(c)),
    ("active counts the experts a token skips (num_local_experts - num_experts_per_tok per layer) "
     "instead of the num_experts_per_tok it runs.",
     lambda c: 0, lambda c: (c["num_local_experts"] - 2 * c["num_experts_per_tok"]) * _expert(c)),
    ("active leaves out the embedding and the lm_head; published active counts (Mixtral's 12.9B) "
     "include both in full.", lambda c: 0, lambda c: -2 * _head(c)),
    ("active leaves out the embedding or the lm_head; published active counts (Mixtral's 12.9B) "
     "include both in full.", lambda c: 0, lambda c: -_head(c)),
    ("active leaves out attention; every token runs all of it (q_proj, k_proj, "
     "v_proj, o_proj in every layer).",
     lambda c: 0, lambda c: -_sizes(c).layers * _attention(c)),
    ("you kept count_llama's dense MLP and added the experts: in an MoE layer the experts replace "
     "the dense MLP.", _expert, _expert),
    ("each expert is a gated MLP of three matrices (gate, up, down: w1, w3, w2 in Mixtral's "
     "names); yours have two.", *_per_expert_layer(lambda s: -s.d * s.d_ff)),
]
# A Llama slip in an MoE count moves total and active alike (every token runs attention, the
# norms and the embeddings); the slips in the dense MLP are the experts' own above, and the
# MLP's biases would be per expert.
_MOE_SLIPS += [(message, delta, delta) for message, delta in _LLAMA_SLIPS
               if delta not in _DENSE_MLP_SLIPS]


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
        Mistake("{call}: active counts only the experts a token runs; the token also runs "
                "attention, the norms and the router, and uses the embedding and the lm_head.",
                when=lambda got, c: isinstance(got, tuple) and len(got) == 2
                and got[1] == c["num_experts_per_tok"] * _expert(c)),
        Mistake("{call}: active is total scaled by num_experts_per_tok / num_local_experts, as if "
                "the whole model were experts; only the experts are skipped: attention, the "
                "embeddings, the norms and the router run for every token.", when=_active_share),
        *(Mistake("{call}: " + message, when=_moe_off(d_total, d_active)) for message, d_total,
          d_active in _MOE_SLIPS),
    ],
    compare=pair(("total", "active"), exact()),
    success=say("Mixtral 8x7B holds {:,} parameters and a token uses {:,}, exactly; your count "
                "also holds for 16 experts with 4 per token.", *_counts(_MOE_CASES[0][0])),
    name="count_moe",
)
