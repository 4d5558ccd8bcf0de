"""helpers.bandwidth: filled arrays, measured bandwidths, the roofline, decode bytes from a config."""

import math

import pytest
import torch

from helpers import bandwidth
from helpers.config_params import count_params


def test_filled_is_written_random_and_seeded():
    x = bandwidth.filled(1000)
    assert x.shape == (1000,) and x.dtype == torch.float32
    assert torch.equal(x, bandwidth.filled(1000)) and not torch.equal(x, bandwidth.filled(1000, seed=1))
    assert (x != 0).all() and x.abs().max() <= 1
    assert bandwidth.filled(10, torch.bfloat16).dtype == torch.bfloat16
    with pytest.raises(ValueError, match="n_elements"):
        bandwidth.filled(0)


def test_element_bytes():
    assert bandwidth.element_bytes(torch.float32) == 4
    assert bandwidth.element_bytes(torch.bfloat16) == 2
    with pytest.raises(TypeError, match="dtype"):
        bandwidth.element_bytes("float32")


def test_measured_bandwidths_are_plausible():
    # Not a timing test: only positive and below 100 TB/s, which no machine reaches.
    for rate in (bandwidth.stream_read_bandwidth(2**20, repeat=2),
                 bandwidth.matvec_bandwidth(256, 256, repeat=2)):
        assert 0 < rate < 100e12
    with pytest.raises(ValueError, match="d_out"):
        bandwidth.matvec_bandwidth(0, 4)


def test_ffn_bytes_and_intensity():
    weights = 2 * 768 * 3072
    assert bandwidth.ffn_bytes(1, 768, 3072) == (weights + 2 * 768 + 2 * 3072) * 4
    assert bandwidth.ffn_bytes(1, 768, 3072, bytes_per_element=2) == (weights + 7680) * 2
    flops = 4 * 768 * 3072  # one token: 2 FLOPs per weight
    assert bandwidth.arithmetic_intensity(flops, weights * 4) == 0.5
    with pytest.raises(ValueError, match="n_bytes"):
        bandwidth.arithmetic_intensity(1, 0)


def test_roofline():
    # 1 GFLOP over 1 GB on a 100 GFLOP/s, 10 GB/s machine: reading takes 0.1 s, computing 0.01 s.
    assert bandwidth.roofline_seconds(1e9, 1e9, 100e9, 10e9) == pytest.approx(0.1)
    assert bandwidth.roofline_seconds(1e12, 1e9, 100e9, 10e9) == pytest.approx(10.0)
    assert bandwidth.knee_intensity(989e12, 3.35e12) == pytest.approx(295.2, abs=0.1)
    with pytest.raises(ValueError, match="bandwidth"):
        bandwidth.roofline_seconds(1, 1, 1, 0)


def test_decode_weight_bytes_gpt3_mlp_is_two_thirds():
    b = count_params("gpt3-175b", weights_only=True)
    read = bandwidth.decode_weight_bytes(b, bytes_per_param=2)
    assert read["mlp"] == 2 * 115_964_116_992 and read["embedding"] == 2 * 12_288
    assert read["unembedding"] == 2 * 617_558_016
    total = sum(read.values())
    assert total == 2 * (175_181_291_520 - 617_558_016 + 12_288)
    assert read["mlp"] / total == pytest.approx(2 / 3, abs=0.01)


def test_decode_weight_bytes_tied_and_moe():
    gpt2 = count_params("gpt2")  # tied: the unembedding reads the embedding matrix
    assert bandwidth.decode_weight_bytes(gpt2, 4)["unembedding"] == 4 * 50257 * 768
    mixtral = count_params("mixtral-8x7b")
    read = bandwidth.decode_weight_bytes(mixtral, 1)
    assert read["mlp"] == mixtral.components["mlp"] // 4  # 2 of 8 experts
    with pytest.raises(ValueError, match="bytes_per_param"):
        bandwidth.decode_weight_bytes(gpt2, 0)


def test_kv_cache_bytes():
    gpt3 = count_params("gpt3-175b", weights_only=True)
    assert bandwidth.kv_cache_bytes(gpt3) == 2 * 96 * 96 * 128 * 2 == 4_718_592
    assert bandwidth.kv_cache_bytes(gpt3, 2048) == 9_663_676_416
    llama3 = count_params("llama-3-8b")  # grouped-query attention: 8 key/value heads of 32
    assert bandwidth.kv_cache_bytes(llama3) == 2 * 32 * 8 * 128 * 2
    with pytest.raises(ValueError, match="n_tokens"):
        bandwidth.kv_cache_bytes(gpt3, 0)


def test_published_gpus_and_their_knees():
    gpus = bandwidth.GPUS
    assert gpus["H100 SXM"].knee == pytest.approx(295.2, abs=0.1)      # 989 TFLOP/s over 3.35 TB/s
    assert gpus["A100 40GB SXM"].bandwidth == 1555e9 and gpus["A100 80GB SXM"].bandwidth == 2039e9
    assert gpus["T4"].peak_flops == 65e12 and gpus["T4"].bandwidth == 320e9
    assert all("datasheet" in g.source for g in gpus.values())
    assert gpus["A100 40GB SXM"].l2_bytes < 256 * 2**20 and gpus["H100 SXM"].l2_bytes < 256 * 2**20


def test_knee_batch_with_and_without_a_kv_cache():
    h100 = bandwidth.GPUS["H100 SXM"]
    n = 6.7e9
    assert bandwidth.knee_batch(n, 0, h100.peak_flops, h100.bandwidth, 2) == pytest.approx(h100.knee)
    with_cache = bandwidth.knee_batch(n, 10e6, h100.peak_flops, h100.bandwidth, 2)
    assert with_cache > h100.knee                                      # the cache moves the knee out
    # at the knee, computing and reading take the same time
    flops, read = 2 * n * with_cache, n * 2 + with_cache * 10e6
    assert flops / h100.peak_flops == pytest.approx(read / h100.bandwidth)
    assert bandwidth.knee_batch(n, 2 * n * h100.bandwidth / h100.peak_flops, h100.peak_flops,
                                h100.bandwidth, 2) == math.inf         # never compute-bound
    with pytest.raises(ValueError, match="kv_bytes_per_sequence"):
        bandwidth.knee_batch(n, -1, 1, 1)
