"""Notebook 09's checks accept a right answer and name typical mistakes."""

import math

from helpers.checks import nb09_decode_bandwidth as checks


def test_layer_ratio_prediction():
    assert checks.check_layer_ratio(None, 4.1).status == "not attempted"
    right = 3 * 4096 * 11008 * 4 / (2 * 2048 * 8192 * 4)
    fb = checks.check_layer_ratio(right, right)
    assert fb and "you predicted 4.03, the bytes give 4.03" in fb.message
    fb = checks.check_layer_ratio(2 * 4096 * 11008 * 4 / (2 * 2048 * 8192 * 4), right)   # forgot the gate
    assert not fb and "Forgetting the gate gives 2.69" in fb.message
    assert "write a number" in checks.check_layer_ratio("4x", 4.3).message


def decode_bytes(config, bytes_per_weight, whole_table=False, mha=False, gate=True, norms=True,
                 unembedding=True, per_byte=True):
    d, d_ff = config["hidden_size"], config["intermediate_size"]
    n_layers, n_heads = config["num_hidden_layers"], config["num_attention_heads"]
    n_kv = n_heads if mha else config.get("num_key_value_heads", n_heads)
    head_dim = d // n_heads
    attention = d * n_heads * head_dim + 2 * d * n_kv * head_dim + n_heads * head_dim * d
    mlp = (3 if gate else 2) * d * d_ff
    layer = attention + mlp + (2 * d if norms else 0)
    vocab_d = config["vocab_size"] * d
    weights = (vocab_d if whole_table else d) + n_layers * layer + (d if norms else 0) + \
        (vocab_d if unembedding else 0)
    return weights * (bytes_per_weight if per_byte else 1)


def test_decode_bytes():
    assert checks.check_decode_bytes(lambda config, b: None).status == "not attempted"
    fb = checks.check_decode_bytes(decode_bytes)
    assert fb and "13.2 GB for Llama-2-7B" in fb.message
    cases = [
        (dict(per_byte=False), "counts numbers, not bytes"),
        (dict(whole_table=True), "the whole embedding table"),
        (dict(unembedding=False), "left out the unembedding"),
        (dict(mha=True), "grouped-query attention"),
        (dict(gate=False), "three matrices"),
        (dict(norms=False), "RMSNorm weights"),
    ]
    for mistake, words in cases:
        fb = checks.check_decode_bytes(lambda c, b, m=mistake: decode_bytes(c, b, **m))
        assert not fb and words in fb.message, (words, fb.message)
    assert "<llama-2-7b config>" in checks.check_decode_bytes(lambda c, b: 1).message


def knee_batch(n_params, kv_bytes_per_sequence, peak_flops, bandwidth, bytes_per_weight):
    room = 2 * n_params * bandwidth / peak_flops - kv_bytes_per_sequence
    return n_params * bytes_per_weight / room if room > 0 else math.inf


def test_knee_batch():
    assert checks.check_knee_batch(lambda *a: None).status == "not attempted"
    fb = checks.check_knee_batch(knee_batch)
    assert fb and "770 for Llama-3-8B" in fb.message

    def no_kv(n, kv, peak, bw, b):
        return knee_batch(n, 0, peak, bw, b)

    def one_flop(n, kv, peak, bw, b):
        room = n * bw / peak - kv
        return n * b / room if room > 0 else math.inf

    def negative(n, kv, peak, bw, b):
        return n * b / (2 * n * bw / peak - kv)

    def upside_down(n, kv, peak, bw, b):
        return 1 / knee_batch(n, kv, peak, bw, b)

    for answer, words in [(no_kv, "knee without the KV cache"), (one_flop, "2 FLOPs per sequence"),
                          (negative, "return math.inf"), (upside_down, "expected 295.2")]:
        fb = checks.check_knee_batch(answer)
        assert not fb and words in fb.message, (words, fb.message)
