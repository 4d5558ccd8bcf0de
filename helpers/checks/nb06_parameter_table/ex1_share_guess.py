"""Exercise 1: a prediction, the MLP's share of the parameters one DeepSeek-V3 token uses;
the usual wrong shares are named."""

from helpers.checks.guesses import NamedPrediction
from helpers.checks.runner import Mistake
from helpers.checks.show import say
from helpers.config_params import count_params, human, load_config

_DS = load_config("deepseek-v3")
_DS_COUNT = count_params("deepseek-v3")
# routed experts a token runs, plus the shared
_EXPERTS_RUN = _DS["num_experts_per_tok"] + _DS["n_shared_experts"]
_EXPERTS = _DS["n_routed_experts"] + _DS["n_shared_experts"]
check_share_guess = NamedPrediction(
    "Exercise 1 (predict DeepSeek-V3's MLP share per token)",
    why=say("Each of DeepSeek-V3's {moe_layers} MoE layers holds {routed} routed experts and "
            "{shared} shared one, and a token runs {per_token} routed experts plus the "
            "shared one: {run} of {experts} expert MLPs. Attention, the first {dense} dense "
            "MLPs and the embeddings are used in full, so per token the MLP's share falls "
            "back near a dense model's 2/3.",
            moe_layers=_DS["num_hidden_layers"] - _DS["first_k_dense_replace"],
            routed=_DS["n_routed_experts"],
            shared=_DS["n_shared_experts"], per_token=_DS["num_experts_per_tok"], run=_EXPERTS_RUN,
            experts=_EXPERTS, dense=_DS["first_k_dense_replace"]),
    rel=0.2,
    variable="my_share_guess",
    fmt="{:.0f}%",
    percent=True,
    mistakes=[
        Mistake(say("{{got:g}}% is about the MLP's share of all {total} parameters ({share:.0%}); "
                    "the question asks for its share of the {active} one token uses, and a token "
                    "skips most of the experts.",
                    total=human(_DS_COUNT.total), share=_DS_COUNT.mlp_share,
                    active=human(_DS_COUNT.active)),
                when=lambda guess, actual: guess >= 90),
        Mistake(say("{{got:g}}% is about the share of the expert MLPs one token runs ({run} of "
                    "{experts}, {share:.1%}); the question asks what share of everything the token "
                    "uses sits in the MLP, attention and embeddings included.",
                    run=_EXPERTS_RUN, experts=_EXPERTS, share=_EXPERTS_RUN / _EXPERTS),
                when=lambda guess, actual: 0 < guess < 10),
        Mistake(say("{{got:g}}% leaves the MLP less than the rest, but what a token runs in full "
                    "is small: attention ({attention}) and the two embedding matrices "
                    "({embeddings}) of the {active} it uses. The 9 experts it runs in each of 58 "
                    "layers, with the 3 dense MLPs, weigh more.",
                    attention=human(_DS_COUNT.attention),
                    embeddings=human(_DS_COUNT.components["embedding"]
                                     + _DS_COUNT.components["unembedding"]),
                    active=human(_DS_COUNT.active)),
                when=lambda guess, actual: 10 <= guess < 0.8 * actual),
        Mistake("{got:g}% is more than a dense model's 2/3: per token an MoE model is close to a "
                "dense one, since attention and the embeddings are used in full while the experts "
                "shrink to the few a token runs.",
                when=lambda guess, actual: 1.2 * actual < guess < 90),
    ],
)
