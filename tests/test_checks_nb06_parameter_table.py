"""Notebook 06's checks accept a right answer, name typical mistakes, and say "not attempted" for a stub."""

import pytest

from helpers.checks import nb06_parameter_table as checks
from helpers.config_params import count_params


def count_llama(c):
    d, d_ff, n = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    kv = c["num_key_value_heads"] * (d // c["num_attention_heads"])
    head = 0 if c["tie_word_embeddings"] else c["vocab_size"] * d
    return n * (2 * d * d + 2 * d * kv + 3 * d * d_ff + 2 * d) + c["vocab_size"] * d + d + head


def count_moe(c):
    d, d_ff, n = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    experts, k = c["num_local_experts"], c["num_experts_per_tok"]
    total = count_llama(c) + n * ((experts - 1) * 3 * d * d_ff + d * experts)
    return total, total - n * (experts - k) * 3 * d * d_ff


def test_untouched_stubs_are_not_attempted():
    for fb in [checks.check_count_llama(lambda c: None), checks.check_count_moe(lambda c: None),
               checks.check_share_guess(None, 64.4)]:
        assert fb.status == "not attempted" and not fb
        assert str(fb).startswith("[not attempted yet] Exercise")
        assert "Hint" not in str(fb)


def test_the_reference_is_the_calculator():
    # the check's cases are the shipped configs, counted by helpers.config_params
    assert count_llama(checks._config("llama-3-8b")) == count_params("llama-3-8b").total == 8_030_261_248
    assert count_moe(checks._config("mixtral-8x7b")) == (46_702_792_704, 12_879_925_248)


def test_count_llama_accepts_the_solution():
    fb = checks.check_count_llama(count_llama)
    assert fb and str(fb).startswith("[correct] Exercise 2") and "1,034,512,384" in fb.message


def kv_full(c):
    return count_llama(c | {"num_key_value_heads": c["num_attention_heads"]})


def minus_one_mlp_matrix(c):
    return count_llama(c) - c["num_hidden_layers"] * c["hidden_size"] * c["intermediate_size"]


def always_untied(c):
    return count_llama(c | {"tie_word_embeddings": False})


def never_a_head(c):
    return count_llama(c | {"tie_word_embeddings": True})


def with_mlp_biases(c):
    return count_llama(c) + c["num_hidden_layers"] * (2 * c["intermediate_size"] + c["hidden_size"])


def norms_with_bias(c):
    return count_llama(c) + (2 * c["num_hidden_layers"] + 1) * c["hidden_size"]


@pytest.mark.parametrize(("answer", "words"), [
    (kv_full, "grouped-query attention"),
    (minus_one_mlp_matrix, "three (gate_proj, up_proj, down_proj)"),
    (always_untied, "this config ties it (tie_word_embeddings is true)"),
    (never_a_head, "the lm_head is missing"),
    (lambda c: count_llama(c) - c["hidden_size"], "final RMSNorm"),
    (lambda c: count_llama(c) - (2 * c["num_hidden_layers"] + 1) * c["hidden_size"], "RMSNorm weights are missing"),
    (norms_with_bias, "RMSNorm has a weight only"),
    (with_mlp_biases, "no biases"),
])
def test_count_llama_names_the_mistake(answer, words):
    fb = checks.check_count_llama(answer)
    assert not fb and fb.status == "wrong" and words in fb.message, fb.message
    assert "<" in fb.message and "config>" in fb.message      # the config by its name, not field by field


def test_count_llama_other_answers():
    fb = checks.check_count_llama(lambda c: count_llama(c) + 1)
    assert not fb and "= 1,100,048,385; expected 1,100,048,384" in fb.message
    fb = checks.check_count_llama(lambda c: "a lot")
    assert not fb and "expected the number" in fb.message
    fb = checks.check_count_llama(lambda c: c["hidden_dim"])
    assert not fb and "raised KeyError" in fb.message


def test_count_moe():
    fb = checks.check_count_moe(count_moe)
    assert fb and "12,879,925,248" in fb.message
    cases = [
        (lambda c: count_moe(c)[::-1], "you returned (active, total)"),
        (lambda c: (count_moe(c)[0], count_moe(c)[0]), "a token runs only num_experts_per_tok"),
        (lambda c: tuple(x - c["num_hidden_layers"] * c["hidden_size"] * c["num_local_experts"]
                         for x in count_moe(c)), "the router is missing"),
        (lambda c: (count_moe(c)[0],
                    count_moe(c)[1] - c["num_hidden_layers"] * c["hidden_size"] * c["num_local_experts"]),
         "active leaves out the router"),
        (lambda c: (count_llama(c), count_moe(c)[1]), "total counts one expert per layer"),
        (lambda c: (count_moe(c)[0], count_moe(c)[1] - 2 * c["vocab_size"] * c["hidden_size"]),
         "leaves out the embedding and the lm_head"),
        (lambda c: count_moe(c)[0], "expected a pair (total, active)"),
    ]
    for answer, words in cases:
        fb = checks.check_count_moe(answer)
        assert not fb and words in fb.message, (words, fb.message)


def test_count_moe_is_tried_beyond_mixtral():
    # hard-coding Mixtral's 8 experts and top-2 passes the first case and fails the second
    def mixtral_only(c):
        total, active = count_moe(c | {"num_local_experts": 8, "num_experts_per_tok": 2})
        return total, active

    fb = checks.check_count_moe(mixtral_only)
    assert not fb and "16 experts, top-4" in fb.message


def test_share_prediction():
    fb = checks.check_share_guess(64, 64.39)
    assert fb and "you predicted 64%, the run gives 64%" in fb.message and "9 of 257 expert MLPs" in fb.message
    fb = checks.check_share_guess(98, 64.39)
    assert not fb and "you predicted 98%" in fb.message
    fb = checks.check_share_guess("two thirds", 64.39)
    assert not fb and "write a number" in fb.message


@pytest.mark.parametrize(("guess", "words"), [
    (98, "the MLP's share of all 671.0B parameters"),
    (95, "the MLP's share of all 671.0B parameters"),
    (3.5, "the share of the expert MLPs one token runs (9 of 257, 3.5%)"),
])
def test_share_prediction_mistakes_are_named(guess, words):
    fb = checks.check_share_guess(guess, 64.39)
    assert not fb and words in fb.message, fb.message
    assert fb.message.endswith(checks.check_share_guess.why), "the why still follows the named mistake"


def test_a_fraction_given_for_the_percent_is_read_as_one():
    """Exercise 1 asks for a percent; 0.64 is the right share written as a fraction."""
    fb = checks.check_share_guess(0.64, 64.39)
    assert not fb and "you wrote 0.64: as a percent that is 64%" in fb.message, fb.message
    assert "set my_share_guess = 64" in fb.message and "you predicted 1%" not in fb.message
    assert checks.check_share_guess(64, 64.39) and checks.check_share_guess(66.7, 64.39)


def test_a_counter_that_pops_its_config_fields_neither_fools_nor_breaks_the_check():
    """config.pop("tie_word_embeddings") in the learner's function changes only the learner's copy."""
    def pops_then_counts(c):            # right: reads the flag by popping it from its own copy
        tied = c.pop("tie_word_embeddings")
        return count_llama(c | {"tie_word_embeddings": tied})

    def pops_then_forgets(c):           # wrong: the popped config counts as untied (the lm_head stays)
        c.pop("tie_word_embeddings")
        return count_params(dict(c)).total

    assert checks.check_count_llama(pops_then_counts)
    fb = checks.check_count_llama(pops_then_forgets)
    assert not fb and "this config ties it (tie_word_embeddings is true)" in fb.message, fb.message
    assert all("tie_word_embeddings" in case[0] for case in checks.check_count_llama.cases), "cases intact"
    assert checks.check_count_llama(count_llama), "the right answer still passes (no KeyError)"
