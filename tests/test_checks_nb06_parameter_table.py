"""Notebook 06's exercise checks: accept the solutions, explain typical mistakes."""

from helpers.checks import nb06_parameter_table as checks


def test_not_attempted_does_not_raise():
    for fb in [checks.check_layer_params(lambda d, e: None), checks.check_count_llama(lambda c: None),
               checks.check_crossover(lambda d, f: None)]:
        assert fb.status == "not attempted" and not fb
        assert "not attempted yet" in str(fb)


def test_layer_params():
    assert checks.check_layer_params(lambda d, e: (4 * d * d, 2 * e * d * d))
    fb = checks.check_layer_params(lambda d, e: (3 * d * d, 2 * e * d * d))
    assert not fb and "not the output projection" in fb.message
    fb = checks.check_layer_params(lambda d, e: (4 * d * d, e * d * d))
    assert not fb and "one matrix" in fb.message
    fb = checks.check_layer_params(lambda d, e: 4 * d * d)
    assert not fb and "expected a pair" in fb.message
    fb = checks.check_layer_params(lambda d, e: (4 * d * d, 8 * d * d))
    assert not fb and "expected 2*3*d^2 = 600" in fb.message


def solution(c):
    d, f, n = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    kv = c["num_key_value_heads"] * d // c["num_attention_heads"]
    return n * (2 * d * d + 2 * d * kv + 3 * d * f + 2 * d) + 2 * c["vocab_size"] * d + d


def test_count_llama():
    assert checks.check_count_llama(solution)
    fb = checks.check_count_llama(lambda c: solution(c | {"num_key_value_heads": c["num_attention_heads"]}))
    assert not fb and "grouped-query attention" in fb.message
    fb = checks.check_count_llama(
        lambda c: solution(c) - c["num_hidden_layers"] * c["hidden_size"] * c["intermediate_size"])
    assert not fb and "three (gate, up, down)" in fb.message
    fb = checks.check_count_llama(lambda c: solution(c) - c["vocab_size"] * c["hidden_size"])
    assert not fb and "lm_head is missing" in fb.message
    fb = checks.check_count_llama(lambda c: solution(c) - c["hidden_size"])
    assert not fb and "final RMSNorm" in fb.message
    fb = checks.check_count_llama(lambda c: solution(c) + 1)
    assert not fb and "off by +1" in fb.message
    fb = checks.check_count_llama(lambda c: "a lot")
    assert not fb and "whole number" in fb.message


def test_crossover():
    assert checks.check_crossover(lambda d, f: 2 * f)
    fb = checks.check_crossover(lambda d, f: f)
    assert not fb and "T/2 on average" in fb.message
    fb = checks.check_crossover(lambda d, f: 4 * d)
    assert not fb and "attention projections" in fb.message
    fb = checks.check_crossover(lambda d, f: 8 * d)
    assert not fb and "use d_ff" in fb.message
    fb = checks.check_crossover(lambda d, f: 1 / 0)
    assert not fb and "ZeroDivisionError" in fb.message
