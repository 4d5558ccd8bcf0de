"""Notebook 09's checks accept a right answer and name typical mistakes."""

import math

import pytest
import torch

from helpers.checks import nb09_decode_bandwidth as checks

LAYER = 3 * 4096 * 11008                      # one Llama-2-7B MLP layer: gate, up, down
CPU_FFN = 2 * 2048 * 8192                     # section 4's larger FFN on a CPU
GPU_FFN = 2 * 4096 * 16384                    # and on a GPU


def test_layer_ratio_prediction():
    right = LAYER / CPU_FFN
    assert checks.check_layer_ratio(None, right).status == "not attempted"
    fb = checks.check_layer_ratio(right, right)
    assert fb and "you predicted 4.03, the bytes give 4.03" in fb.message
    assert checks.check_layer_ratio(4.4, right), "within 10% of the bytes' ratio is right"
    assert checks.check_layer_ratio(3 / 2 * 2 * 1.3, right), "11008 / 8192 rounded to 1.3 is still right"
    assert checks.check_layer_ratio(3.8, right), "the timing's own ratio is right"
    assert checks.check_layer_ratio(1.0, LAYER / GPU_FFN), "on a GPU the two hold about the same weights"
    assert "not a number" in checks.check_layer_ratio("4x", right).message


# Each wrong model's ratio, from the sizes (matrices, d_model, d_ff) of the layer (3, 4096, 11008) and the FFN
# (2, 2048, 8192), and the words that name it: each is rejected by the 10% tolerance and named.
LAYER_MODELS = [
    (3 * 4096 / (2 * 2048), "that leaves d_ff out"),                            # 3.0, the reviews' guess
    (4096 / 2048, "that is d_model's ratio alone (4096 / 2048)"),                # 2.0, not a dtype mistake
    (4096 * 11008 / (2048 * 8192), "that counts two matrices of 4096 x 11008"),         # 2.69: two matrices each
    (3 / 2, "that counts matrices only"),
    (11008 / 8192, "that counts one of the layer's three matrices"),
    (3 * 11008 / (2 * 8192), "that leaves d_model out"),
    (LAYER / (2048 * 8192), "that is twice the bytes' ratio"),                  # the FFN as one matrix
    (CPU_FFN / LAYER, "the question asks the layer's over the FFN's"),          # upside down
    (LAYER * 4 / (CPU_FFN * 2), "twice the FFN's bytes per weight: the layer and the FFN use the same dtype"),           # float32 layer, bfloat16 FFN
    (LAYER * 2 / (CPU_FFN * 4), "half the FFN's bytes per weight"),
    (3.5, "close, but not within 10%"),
    (4.6, "close, but not within 10%"),
]


@pytest.mark.parametrize("guess, words", LAYER_MODELS)
def test_layer_ratio_names_the_mistake(guess, words):
    fb = checks.check_layer_ratio(guess, LAYER / CPU_FFN)
    assert not fb and words in fb.message, fb.message
    assert f"you predicted {guess:.2f}, the bytes give 4.03" in fb.message


def test_layer_ratio_without_a_named_mistake_explains_the_bytes():
    fb = checks.check_layer_ratio(10.0, LAYER / CPU_FFN)
    assert not fb and "4.03x the weights of the FFN" in fb.message


def decode_bytes(config, bytes_per_weight, whole_table=False, mha=False, gate=True, norms=2, final_norm=True,
                 unembedding=True, per_byte=1, w_o=True, kv_matrices=2, embedding_row=True, one_layer=False,
                 d_ff_ratio=None, head_dim_from_kv=False, mlp_only=False):
    d, d_ff = config["hidden_size"], config["intermediate_size"]
    d_ff = d_ff_ratio * d if d_ff_ratio else d_ff
    n_layers, n_heads = config["num_hidden_layers"], config["num_attention_heads"]
    n_kv = n_heads if mha else config.get("num_key_value_heads", n_heads)
    head_dim = d // (n_kv if head_dim_from_kv else n_heads)
    if mlp_only:
        return n_layers * 3 * d * d_ff * bytes_per_weight
    n_layers = 1 if one_layer else n_layers
    attention = d * n_heads * head_dim + kv_matrices * d * n_kv * head_dim + (n_heads * head_dim * d if w_o else 0)
    mlp = (3 if gate else 2) * d * d_ff
    layer = attention + mlp + norms * d
    vocab_d = config["vocab_size"] * d
    embedding = vocab_d if whole_table else (d if embedding_row else 0)
    weights = embedding + n_layers * layer + (d if final_norm else 0) + (vocab_d if unembedding else 0)
    return weights * bytes_per_weight ** per_byte


def test_decode_bytes_accepts_the_count():
    assert checks.check_decode_bytes(lambda config, b: None).status == "not attempted"
    fb = checks.check_decode_bytes(decode_bytes)
    assert fb and "13.2 GB for Llama-2-7B in bfloat16, 66% of it the MLP" in fb.message, fb.message


@pytest.mark.parametrize("mistake, words", [
    (dict(per_byte=0), "counts numbers, not bytes"),
    (dict(per_byte=2), "bytes_per_weight twice"),
    (dict(whole_table=True), "the whole embedding table"),
    (dict(unembedding=False), "left out the unembedding"),
    (dict(mha=True), "grouped-query attention"),
    (dict(w_o=False), "you left out W_O"),
    (dict(kv_matrices=1), "count both W_K and W_V"),
    (dict(gate=False), "three matrices"),
    (dict(norms=0, final_norm=False), "RMSNorm weights"),
    (dict(norms=1), "two RMSNorms"),
    (dict(final_norm=False), "the final RMSNorm, or the one"),
    (dict(embedding_row=False), "the final RMSNorm, or the one"),
    (dict(embedding_row=False, final_norm=False), "2 x hidden_size weights short"),
    (dict(one_layer=True), "multiply the layer by num_hidden_layers"),
    (dict(d_ff_ratio=4), "GPT-2's ratio"),
    (dict(head_dim_from_kv=True), "your head_dim is hidden_size / num_key_value_heads"),
    (dict(mlp_only=True), "the MLP's bytes alone"),
])
def test_decode_bytes_names_the_mistake(mistake, words):
    fb = checks.check_decode_bytes(lambda c, b: decode_bytes(c, b, **mistake))
    assert not fb and words in fb.message, (words, fb.message)


def test_decode_bytes_messages():
    assert "<tinyllama-1.1b config>" in checks.check_decode_bytes(lambda c, b: 1).message
    fb = checks.check_decode_bytes(lambda c, b: torch.tensor([decode_bytes(c, b, per_byte=0)]))
    assert not fb and "counts numbers" in fb.message, "a one-element tensor is named, not formatted away"


def knee_batch(n_params, kv_bytes_per_sequence, peak_flops, bandwidth, bytes_per_weight):
    room = 2 * n_params * bandwidth / peak_flops - kv_bytes_per_sequence
    return n_params * bytes_per_weight / room if room > 0 else math.inf


def test_knee_batch_success_gives_the_computed_knees():
    assert checks.check_knee_batch(lambda *a: None).status == "not attempted"
    fb = checks.check_knee_batch(knee_batch)
    # Llama-3-8B by hand: 32 layers of attention (2 x 4096^2 + 2 x 4096 x 1024), MLP (3 x 4096 x 14336) and
    # two norms, plus the final norm and the unembedding (128256 x 4096); its cache at 256 tokens.
    n = 32 * (2 * 4096**2 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096 + 128256 * 4096
    kv = 2 * 32 * 8 * 128 * 2 * 256
    h100 = 989e12, 3.35e12
    assert fb, fb.message
    assert f"{knee_batch(n, kv, *h100, 2):.0f} for Llama-3-8B" in fb.message, fb.message
    assert "868 for Llama-3-8B" in fb.message and "295 for an H100" in fb.message
    assert "never for Llama-2-7B at 4096" in fb.message


def test_knee_batch_names_the_mistake():
    def no_kv(n, kv, peak, bw, b):
        return knee_batch(n, 0, peak, bw, b)

    def one_flop(n, kv, peak, bw, b):
        room = n * bw / peak - kv
        return n * b / room if room > 0 else math.inf

    def negative(n, kv, peak, bw, b):
        return n * b / (2 * n * bw / peak - kv)

    def zero_for_never(n, kv, peak, bw, b):
        found = knee_batch(n, kv, peak, bw, b)
        return 0 if math.isinf(found) else found

    def no_bytes(n, kv, peak, bw, b):
        return knee_batch(n, kv, peak, bw, 1)

    def plus_kv(n, kv, peak, bw, b):
        return n * b / (2 * n * bw / peak + kv)

    def swapped(n, kv, peak, bw, b):
        return knee_batch(n, kv, bw, peak, b)

    def tripled(n, kv, peak, bw, b):                 # no named mistake: the check says what it expected
        return 3 * knee_batch(n, kv, peak, bw, b)

    for answer, words in [(no_kv, "knee without the KV cache"), (one_flop, "2 FLOPs per sequence"),
                          (negative, "return math.inf"), (zero_for_never, "no batch of 0 sequences"),
                          (no_bytes, "left out bytes_per_weight"), (plus_kv, "subtract it, do not add it"),
                          (swapped, "are swapped"), (tripled, "expected 295.2")]:
        fb = checks.check_knee_batch(answer)
        assert not fb and words in fb.message, (words, fb.message)


def test_knee_batch_one_element_tensor_is_named():
    fb = checks.check_knee_batch(lambda n, kv, peak, bw, b: torch.tensor([knee_batch(n, 0, peak, bw, b)]))
    assert not fb, fb.message
