"""Notebook 06's checks accept a right answer, name typical mistakes, and say "not attempted" for a stub."""

import pytest

from helpers.checks import nb06_parameter_table as checks
from helpers.checks.nb06_parameter_table import ex2_count_llama, sizes
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
    assert count_llama(sizes._config("llama-3-8b")) == count_params("llama-3-8b").total == 8_030_261_248
    assert count_moe(sizes._config("mixtral-8x7b")) == (46_702_792_704, 12_879_925_248)


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
    (never_a_head, "the embedding (embed_tokens) and the lm_head are two matrices"),
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
    assert not fb and "not a number" in fb.message


@pytest.mark.parametrize(("guess", "words"), [
    (98, "the MLP's share of all 671.0B parameters"),
    (95, "the MLP's share of all 671.0B parameters"),
    (3.5, "the share of the expert MLPs one token runs (9 of 257, 3.5%)"),
    (33, "leaves the MLP less than the rest"),
    (50, "leaves the MLP less than the rest"),
    (80, "more than a dense model's 2/3"),
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


def test_a_counter_that_pops_its_config_fields_is_named_and_breaks_nothing():
    """config.pop("tie_word_embeddings") in the learner's function changes the caller's config: named as an
    in-place edit, and the check's own cases stay intact for the next attempt."""
    def pops_then_counts(c):            # the count is right, but the caller's config loses a field
        tied = c.pop("tie_word_embeddings")
        return count_llama(c | {"tie_word_embeddings": tied})

    def pops_then_forgets(c):           # wrong twice: the popped config counts as untied (the lm_head stays)
        c.pop("tie_word_embeddings")
        return count_params(dict(c)).total

    for popping in (pops_then_counts, pops_then_forgets):
        fb = checks.check_count_llama(popping)
        assert not fb and "changed its input `c` in place" in fb.message, fb.message
    assert all("tie_word_embeddings" in case[0] for case in checks.check_count_llama.cases), "cases intact"
    assert checks.check_count_llama(count_llama), "the right answer still passes (no KeyError)"


def llama(c, kv="gqa", q_o="full", o_proj=True, k_and_v=2, mlp="gated", norms_per_layer=2, final_norm=True,
          norm_bias=False, head="by_tie", embedding=True, positions=False, biases=""):
    """count_llama written out with one slip switched on at a time (the defaults are right)."""
    d, d_ff, n, vocab = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], c["vocab_size"]
    head_dim = d // c["num_attention_heads"]
    kv_width = {"gqa": c["num_key_value_heads"] * head_dim, "full": d,
                "d / kv_heads": d // c["num_key_value_heads"]}[kv]
    q_width = d if q_o == "full" else kv_width               # q_o: "full", "kv" (q_proj and o_proj), "q" (q_proj)
    o_width = kv_width if q_o == "kv" else d
    attention = d * q_width + (d * o_width if o_proj else 0) + k_and_v * d * kv_width
    mlp_weights = {"gated": 3 * d * d_ff, "two": 2 * d * d_ff, "gpt": 2 * d * 4 * d, "4d": 3 * d * 4 * d}[mlp]
    norms = norms_per_layer * d * (2 if norm_bias else 1)
    layer = attention + mlp_weights + norms
    if "attention" in biases:
        layer += 2 * d + 2 * kv_width
    if "mlp" in biases:
        layer += 2 * d_ff + d
    has_head = {"by_tie": not c["tie_word_embeddings"], "always": True, "never": False}[head]
    outside = (vocab * d if embedding else 0) + (d * (2 if norm_bias else 1) if final_norm else 0)
    outside += (vocab * d if has_head else 0) + (c["max_position_embeddings"] * d if positions else 0)
    return n * layer + outside


LLAMA_SLIPS = [
    (dict(kv="full"), "grouped-query attention"),
    (dict(kv="d / kv_heads"), "hidden_size / num_key_value_heads outputs"),
    (dict(q_o="kv"), "q_proj and o_proj the key/value width"),
    (dict(q_o="q"), "q_proj or o_proj the key/value width"),
    (dict(o_proj=False), "attention has four, q_proj, k_proj, v_proj and o_proj"),
    (dict(k_and_v=1), "k_proj or v_proj is missing"),
    (dict(mlp="two"), "the gated MLP has three"),
    (dict(mlp="gpt"), "your MLP is GPT's"),
    (dict(mlp="4d"), "Llama's width is the config's intermediate_size"),
    (dict(norms_per_layer=0, final_norm=False), "the RMSNorm weights are missing"),
    (dict(final_norm=False), "the final RMSNorm"),
    (dict(norms_per_layer=1), "one RMSNorm per layer is missing"),
    (dict(norm_bias=True), "RMSNorm has a weight only"),
    (dict(head="always"), "this config ties it"),
    (dict(head="never"), "the embedding (embed_tokens) and the lm_head are two matrices"),
    (dict(embedding=False), "one vocab_size x hidden_size matrix is missing"),     # untied: the same count
    (dict(positions=True), "no position-embedding matrix"),
    (dict(biases="attention"), "no biases"),
    (dict(biases="mlp"), "no biases"),
    (dict(biases="attention mlp"), "no biases"),
]


def test_the_written_out_counter_is_right():
    assert checks.check_count_llama(llama)


@pytest.mark.parametrize(("slip", "words"), LLAMA_SLIPS)
def test_every_llama_miscount_is_named(slip, words):
    fb = checks.check_count_llama(lambda c: llama(c, **slip))
    assert not fb and words in fb.message, (slip, fb.message)
    assert "expected" not in fb.message, "a named mistake, not a bare 'expected X'"


def test_a_tied_config_without_its_embedding_is_named():
    def no_embedding_when_tied(c):
        return llama(c, embedding=not c["tie_word_embeddings"])

    fb = checks.check_count_llama(no_embedding_when_tied)
    assert not fb and "counted once, not zero times" in fb.message, fb.message


def test_the_llama_slips_give_distinct_counts():
    """Each slip moves the first config's count (and the tied one's, for the lm_head) by its own amount, so
    that none hides another where the check first sees it (the shared k/v sentence excepted: it says both)."""
    for c in (ex2_count_llama._LLAMA_CASES[0][0], ex2_count_llama._TINY_TIED):
        deltas = [delta(c) for _, delta in ex2_count_llama._LLAMA_SLIPS if delta is not ex2_count_llama._kv_half]
        seen = [d for d in deltas if d]
        assert len(seen) == len(set(seen)), (c, deltas)
    assert ex2_count_llama._kv_half(ex2_count_llama._LLAMA_CASES[0][0]) is None, "TinyLlama tells the two k/v slips apart"


def moe(c, router="right", active="right", total_experts="all", experts_matrices=3, **llama_slip):
    """count_moe written out with one slip switched on at a time (the defaults are right)."""
    d, d_ff, n = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    experts, k = c["num_local_experts"], c["num_experts_per_tok"]
    expert = experts_matrices * d * d_ff
    dense = llama(c, **llama_slip) - n * 3 * d * d_ff                  # attention, norms, embeddings
    router_total = {"right": d * experts, "none": 0, "bias": d * experts + experts, "k scores": d * experts}[router]
    router_active = {"right": d * experts, "none": 0, "bias": d * experts + experts, "k scores": d * k}[router]
    stored = 1 if total_experts == "one" else experts
    total = dense + n * (stored * expert + router_total)
    if total_experts == "dense kept":
        total += n * 3 * d * d_ff
    runs = {"right": k, "one": 1, "skipped": experts - k}.get(active, k)
    act = dense + n * (runs * expert + router_active)
    if total_experts == "dense kept":
        act += n * 3 * d * d_ff
    if active == "no router":
        act -= n * router_active
    if active == "no embeddings":
        act -= 2 * c["vocab_size"] * d
    if active == "no lm_head":
        act -= c["vocab_size"] * d
    if active == "no attention":
        head_dim = d // c["num_attention_heads"]
        act -= n * (2 * d * d + 2 * d * c["num_key_value_heads"] * head_dim)
    if active == "experts only":
        act = n * k * expert
    if active == "scaled":
        act = round(total * k / experts)
    if active == "total":
        act = total
    return total, act


MOE_SLIPS = [
    (dict(router="none"), "the router is missing"),
    (dict(active="no router"), "active leaves out the router"),
    (dict(router="k scores"), "a token computes the score of every expert"),
    (dict(router="bias"), "gate is a linear layer without bias"),
    (dict(active="one"), "active counts one expert per layer"),
    (dict(active="skipped"), "the experts a token skips"),
    (dict(active="no embeddings"), "active leaves out the embedding and the lm_head"),
    (dict(active="no lm_head"), "active leaves out the embedding or the lm_head"),
    (dict(active="no attention"), "active leaves out attention"),
    (dict(active="experts only"), "active counts only the experts a token runs"),
    (dict(active="scaled"), "as if the whole model were experts"),
    (dict(active="total"), "a token runs only num_experts_per_tok"),
    (dict(total_experts="one"), "total counts one expert per layer"),
    (dict(total_experts="dense kept"), "the experts replace the dense MLP"),
    (dict(experts_matrices=2), "yours have two"),
    (dict(kv="full"), "grouped-query attention"),
    (dict(kv="d / kv_heads"), "or you took hidden_size / num_key_value_heads"),   # on Mixtral, the same count
    (dict(q_o="kv"), "q_proj and o_proj the key/value width"),
    (dict(o_proj=False), "o_proj (the output projection"),
    (dict(k_and_v=1), "one of them is missing, or you took hidden_size / num_key_value_heads"),   # one count
    (dict(norms_per_layer=0, final_norm=False), "the RMSNorm weights are missing"),
    (dict(final_norm=False), "the final RMSNorm"),
    (dict(norms_per_layer=1), "one RMSNorm per layer is missing"),
    (dict(norm_bias=True), "RMSNorm has a weight only"),
    (dict(head="never"), "the lm_head are two matrices"),
    (dict(positions=True), "no position-embedding matrix"),
    (dict(biases="attention"), "no biases"),
]


def test_the_written_out_moe_counter_is_right():
    assert checks.check_count_moe(moe)


@pytest.mark.parametrize(("slip", "words"), MOE_SLIPS)
def test_every_moe_miscount_is_named(slip, words):
    fb = checks.check_count_moe(lambda c: moe(c, **slip))
    assert not fb and words in fb.message, (slip, fb.message)
    assert "expected" not in fb.message, "a named mistake, not a bare 'expected X'"
