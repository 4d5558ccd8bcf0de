"""helpers.quantize: absmax quantisation against torch's own quantizer and direct computation."""

import math
import os
import platform
import subprocess
import sys
import warnings

import pytest
import torch
from torch import nn

from helpers import int_kernels
from helpers import quantize as Q
from helpers.ffn import FFN
from helpers.gated import GatedMLP

GRANULARITIES = ("tensor", "row", 1, 3, 5, 15)  # odd group sizes of d_in = 15


def randn(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def linear(d_in, d_out, seed, dtype=torch.float64):
    """An nn.Linear with seeded weights and bias, built without drawing from the global RNG."""
    layer = nn.utils.skip_init(nn.Linear, d_in, d_out, dtype=dtype)
    with torch.no_grad():
        layer.weight.copy_(randn(d_out, d_in, seed=seed, dtype=dtype) / d_in ** 0.5)
        layer.bias.copy_(randn(d_out, seed=seed + 1, dtype=dtype) / 10)
    return layer


def ffn(d_model, d_ff, seed, dtype=torch.float32):
    """The course's FFN with seeded weights; its own initialisation's draws are undone."""
    with torch.random.fork_rng(devices=[]):
        mlp = FFN(d_model, d_ff).to(dtype)
    mlp.c_fc, mlp.c_proj = linear(d_model, d_ff, seed, dtype), linear(d_ff, d_model, seed + 2, dtype)
    return mlp


def torch_quantizer(fn, *args):
    """torch.quantize_per_* as integers; torch 2.13 warns that these functions are deprecated."""
    if not hasattr(torch, fn):
        pytest.skip(f"this torch has no torch.{fn}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*quantized tensor creation functions.*")
        return getattr(torch, fn)(*args).int_repr()


def assert_same_integers(q, theirs, W, scale):
    """Equal, except where W / scale sits within float rounding of a half (torch multiplies by
    1 / scale in float32, we divide): there the two roundings may go either way."""
    differ = q.long() != theirs.long()
    ratio = (W / scale).double()
    assert ((ratio - ratio.floor() - 0.5).abs()[differ] < 1e-4).all()
    assert (q.long() - theirs.long()).abs().max() <= 1


def test_levels_and_storage_dtype():
    assert [Q.levels(b) for b in (2, 3, 4, 8, 16)] == [1, 3, 7, 127, 32767]
    W = randn(4, 8, dtype=torch.float32)
    for bits in (2, 4, 8, 9, 16):
        q, scale = Q.quantize(W, bits, "row")
        assert q.dtype == (torch.int8 if bits <= 8 else torch.int16) and scale.dtype == torch.float32
        # Each row's largest |w| lands on the top level, and no value goes past it.
        assert (q.abs().amax(dim=1) == Q.levels(bits)).all() and q.abs().max() == Q.levels(bits)


def test_int4_range_is_symmetric_and_negation_exact():
    W = randn(16, 32, seed=1)
    W[0, 0] = -W.abs().max() * 2                                         # the row's extreme is negative
    q, scale = Q.quantize(W, 4, 8)
    assert q.min() == -7 and q.max() <= 7                                # -8 never used
    q_neg, scale_neg = Q.quantize(-W, 4, 8)
    assert torch.equal(q_neg, -q) and torch.equal(scale_neg, scale)


def test_same_integers_as_torch_per_channel_and_per_tensor():
    W = randn(48, 64, seed=2, dtype=torch.float32)
    q, scale = Q.quantize(W, 8, "row")
    zero = torch.zeros(48, dtype=torch.long)
    theirs = torch_quantizer("quantize_per_channel", W, scale[:, 0].double(), zero, 0, torch.qint8)
    assert_same_integers(q, theirs, W, scale)
    q, scale = Q.quantize(W, 8, "tensor")
    theirs = torch_quantizer("quantize_per_tensor", W, float(scale), 0, torch.qint8)
    assert_same_integers(q, theirs, W, scale)


@pytest.mark.parametrize("granularity", GRANULARITIES)
@pytest.mark.parametrize("bits", [2, 3, 4, 8, 16])
def test_round_trip_within_half_a_step(bits, granularity):
    W = randn(6, 15, seed=bits) * 3
    q, scale = Q.quantize(W, bits, granularity)
    k = 15 if granularity == "row" else 90 if granularity == "tensor" else granularity
    assert scale.shape == ((1, 1) if granularity == "tensor" else (6, 15 // k))
    step = scale.repeat_interleave(k, dim=1).reshape(-1, 15).expand(6, 15)  # each weight's scale
    W_hat = Q.dequantize(q, scale)
    assert W_hat.dtype == torch.float64
    assert ((W - W_hat).abs() <= step / 2 * (1 + 1e-12)).all()         # round to the nearest level
    groups = W.reshape(scale.shape[0], scale.shape[1], -1)
    assert torch.equal(scale, groups.abs().amax(dim=-1) / Q.levels(bits))  # absmax / top level


def test_all_zero_row_and_group_dequantise_to_exact_zeros():
    W = randn(4, 12, seed=3)
    W[1] = 0
    W[2, 4:8] = 0
    for granularity in ("row", 4):
        q, scale = Q.quantize(W, 4, granularity)
        assert torch.isfinite(scale).all() and (scale > 0).all()
        W_hat = Q.dequantize(q, scale)
        assert (W_hat[1] == 0).all() and (W_hat[2, 4:8] == 0).all()


def test_one_huge_weight_spoils_only_what_shares_its_scale():
    W = randn(8, 128, seed=4)
    W[3, 5] = 1e4
    errors = {}
    for granularity in ("tensor", "row", 32):
        W_hat = Q.dequantize(*Q.quantize(W, 8, granularity))
        errors[granularity] = Q.relative_error(W_hat[0], W[0])           # a row without it
    assert errors["tensor"] == 1.0                                       # every weight rounds to 0
    assert errors["row"] < 0.01 and errors[32] < 0.01
    W_hat = Q.dequantize(*Q.quantize(W, 8, 32))
    assert Q.relative_error(W_hat[3, 32:], W[3, 32:]) < 0.01            # its row's other groups


def test_more_bits_and_smaller_groups_give_less_error():
    W = randn(128, 128, seed=5)                                          # under torch's grain: one thread
    errors = [Q.relative_error(Q.dequantize(*Q.quantize(W, b, 32)), W) for b in (2, 3, 4, 6, 8)]
    assert errors == sorted(errors, reverse=True) and len(set(errors)) == 5
    # Each bit halves the step: from 4 to 8 bits the error falls about 16x (uniform rounding).
    assert 10 < errors[2] / errors[4] < 25
    by_k = [Q.relative_error(Q.dequantize(*Q.quantize(W, 4, k)), W) for k in ("tensor", 128, 16)]
    assert by_k[0] > by_k[1] > by_k[2]


def test_relative_error():
    a = torch.tensor([3.0, 4.0])
    assert Q.relative_error(a * 1.01, a) == pytest.approx(0.01)
    with pytest.raises(ValueError, match="all zeros"):
        Q.relative_error(a, torch.zeros(2))
    with pytest.raises(ValueError, match="shape"):
        Q.relative_error(a, torch.zeros(3))


def pure_int8(x, W):
    """x @ W.T with x per token and W per row in int8: the int32 sum, exactly, then the scales."""
    xq, x_scale = Q.quantize(x, 8, "row")
    Wq, W_scale = Q.quantize(W, 8, "row")
    return (xq.long() @ Wq.long().T).double() * x_scale * W_scale.T


def test_llm_int8_split_between_float_and_int8():
    x, W = randn(10, 32, seed=6), randn(24, 32, seed=7)
    x[4, 7] = 40.0                                                       # one outlier feature
    exact = x @ W.T
    bound = 1e-12 * (x.abs() @ W.abs().T)
    assert ((Q.llm_int8_split(x, W, threshold=0.0) - exact).abs() <= bound).all()  # all in float
    assert torch.equal(Q.llm_int8_split(x, W, threshold=math.inf), pure_int8(x, W))
    assert Q.outlier_columns(x, 6.0).nonzero().flatten().tolist() == [7]
    split = Q.relative_error(Q.llm_int8_split(x, W, 6.0), exact)
    assert split < Q.relative_error(pure_int8(x, W), exact) / 3          # the outlier no longer hurts
    rest = [j for j in range(32) if j != 7]                              # what the split computes
    expected = x[:, [7]] @ W[:, [7]].T + pure_int8(x[:, rest], W[:, rest])
    assert ((Q.llm_int8_split(x, W, 6.0) - expected).abs() <= bound).all()


def test_smooth_is_an_exact_equivalence_in_float64():
    x, W = randn(20, 16, seed=8), randn(12, 16, seed=9)
    x[:, 2] *= 50
    x_absmax = x.abs().amax(dim=0)
    s = Q.smooth(x_absmax, W, alpha=0.5)
    assert torch.allclose(s, (x_absmax / W.abs().amax(dim=0)).sqrt(), rtol=1e-15)
    smoothed = (x / s) @ (W * s).T
    assert ((smoothed - x @ W.T).abs() <= 1e-12 * (x.abs() @ W.abs().T)).all()
    assert (x / s).abs().amax(dim=0).max() < x_absmax.max() / 5          # the outlier tamed
    assert torch.equal(Q.smooth(x_absmax, W, alpha=0.0), 1 / W.abs().amax(dim=0))
    x_absmax[3] = 0
    assert Q.smooth(x_absmax, W)[3] == 1                                 # nothing to move


def test_int8_matmul_exact_and_its_fallback(monkeypatch):
    g = torch.Generator().manual_seed(10)
    a = torch.randint(-127, 128, (3, 37), generator=g, dtype=torch.int8)
    b = torch.randint(-127, 128, (37, 5), generator=g, dtype=torch.int8)
    expected = (a.long() @ b.long()).int()
    assert torch.equal(Q.int8_matmul(a, b), expected)

    def no_kernel(*args):
        raise RuntimeError("_int_mm: no kernel here")

    monkeypatch.setattr(torch, "_int_mm", no_kernel)
    assert torch.equal(Q.int8_matmul(a, b), expected)


def test_int8_linear_error_within_the_bound_of_its_scales():
    x, full = randn(2, 5, 64, seed=12), linear(64, 48, seed=11)
    layer = Q.Int8Linear(full)
    y = layer(x)
    assert y.shape == (2, 5, 48) and y.dtype == torch.float64
    # x.w - x_hat.w_hat = (x - x_hat).w + x_hat.(w - w_hat): each difference at most half a step.
    flat = x.reshape(-1, 64)
    x_scale = Q.quantize(flat, 8, "row")[1]                              # (10, 1)
    W_hat = Q.dequantize(layer.weight_q, layer.weight_scale)
    bound = x_scale / 2 * W_hat.abs().sum(1) + flat.abs().sum(1, keepdim=True) * layer.weight_scale.T / 2
    with torch.no_grad():
        error = (y - full(x)).reshape(-1, 48).abs()
    assert (error <= bound * (1 + 1e-9)).all()


def test_int8_copy_of_the_course_ffn():
    mlp = ffn(32, 128, seed=13)
    before = {k: v.clone() for k, v in mlp.state_dict().items()}
    quantized = Q.int8_copy(mlp)
    assert [name for name, _ in quantized.named_children()] == ["c_fc", "act", "c_proj"]
    x = randn(3, 7, 32, seed=15, dtype=torch.float32)
    with torch.no_grad():
        assert Q.relative_error(quantized(x), mlp(x)) < 0.02
    assert all(torch.equal(v, mlp.state_dict()[k]) for k, v in before.items())
    sequential = Q.int8_copy(nn.Sequential(mlp.c_fc, nn.GELU(), mlp.c_proj))
    assert torch.equal(sequential(x), quantized(x))
    # Bytes, exactly: float32 weights and biases; int8 weights with a float32 scale per row.
    weights, rows = 2 * 32 * 128, 128 + 32
    assert Q.weight_bytes(mlp) == 4 * (weights + rows)
    assert Q.weight_bytes(quantized) == weights + 4 * rows + 4 * rows
    with pytest.raises(TypeError, match="mlp must be an nn.Sequential"), torch.random.fork_rng(devices=[]):
        Q.int8_copy(GatedMLP(8, 16))


def test_fake_quantized_and_output_error():
    mlp, x = ffn(16, 64, seed=16, dtype=torch.float64), randn(9, 16, seed=18)
    errors = [Q.output_error(mlp, x, bits, 16) for bits in (2, 4, 8)]
    assert errors[0] > errors[1] > errors[2] > 0
    rounded = Q.fake_quantized(mlp, 4, "row")
    q, scale = Q.quantize(mlp.c_fc.weight.detach(), 4, "row")
    assert torch.equal(rounded.c_fc.weight, Q.dequantize(q, scale))
    assert not torch.equal(rounded.c_fc.weight, mlp.c_fc.weight)        # the original untouched


def test_pack_int4_halves_the_bytes_and_round_trips():
    q = torch.arange(-8, 8, dtype=torch.int8).repeat(3, 2)               # every 4-bit value
    packed = Q.pack_int4(q)
    assert packed.dtype == torch.uint8 and packed.shape == (3, 16)
    assert packed.numel() * packed.element_size() == q.numel() // 2
    assert torch.equal(Q.unpack_int4(packed), q)
    assert packed[0, 0] == (0x8 | 0x9 << 4)                              # -8 low, -7 high: two's complement


@pytest.mark.parametrize("call, error, words", [
    (lambda: Q.quantize(randn(2, 4), 1), ValueError, r"bits must be a whole number from 2 \(levels -1, 0, 1\) to 16, got 1"),
    (lambda: Q.quantize(randn(2, 4), 17), ValueError, "bits .* got 17"),
    (lambda: Q.quantize(randn(2, 4), 4.0), ValueError, "bits .* got 4.0"),
    (lambda: Q.quantize(randn(2, 4), True), ValueError, "bits .* got True"),
    (lambda: Q.quantize(randn(2, 6), 4, 4), ValueError, "granularity=4 .* d_in=6"),
    (lambda: Q.quantize(randn(2, 6), 4, "column"), ValueError, "granularity must be 'tensor'"),
    (lambda: Q.quantize(randn(2, 6), 4, 0), ValueError, "granularity"),
    (lambda: Q.quantize(torch.ones(2, 4, dtype=torch.int64), 4), TypeError, "W must hold floating.*int64"),
    (lambda: Q.quantize(randn(4), 4), ValueError, "W must be 2-D, got 1-D"),
    (lambda: Q.quantize(randn(2, 4).numpy(), 4), TypeError, "W must be a torch tensor"),
    (lambda: Q.quantize(torch.full((2, 2), math.nan), 4), ValueError, "W holds 1|W holds 4"),
    (lambda: Q.quantize(torch.zeros(0, 4), 4), ValueError, "W is empty"),
    (lambda: Q.dequantize(randn(2, 4), torch.ones(2, 1)), TypeError, "q must hold integers"),
    (lambda: Q.dequantize(torch.zeros(2, 4, dtype=torch.int8), torch.ones(3, 1)), ValueError,
     r"scale has shape \(3, 1\)"),
    (lambda: Q.llm_int8_split(randn(3, 4), randn(5, 6)), ValueError, "x has 4 features .* d_in=6"),
    (lambda: Q.llm_int8_split(randn(3, 4), randn(5, 4), -1.0), ValueError, "threshold must be"),
    (lambda: Q.smooth(randn(4).abs(), randn(5, 4), alpha=1.5), ValueError, "alpha must be from 0 to 1"),
    (lambda: Q.smooth(-randn(4).abs(), randn(5, 4)), ValueError, "x_absmax must be magnitudes"),
    (lambda: Q.smooth(randn(3).abs(), randn(5, 4)), ValueError, "x_absmax has 3 .* d_in=4"),
    (lambda: Q.Int8Linear(linear(4, 2, seed=0))(randn(3, 5)), ValueError, "last dimension 5"),
    (lambda: Q.Int8Linear(nn.GELU()), TypeError, "linear must be a Linear, got GELU"),
    (lambda: Q.pack_int4(torch.full((2, 4), 9, dtype=torch.int8)), ValueError, "from -8 to 7"),
    (lambda: Q.pack_int4(torch.zeros(2, 3, dtype=torch.int8)), ValueError, "even number"),
])
def test_bad_inputs_are_refused_by_name(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_leaves_the_global_rng_alone():
    W, x, layer, mlp = randn(8, 16), randn(4, 16), linear(16, 8, seed=1), ffn(16, 32, seed=2)
    state = torch.random.get_rng_state()
    Q.quantize(W, 4, 8)
    Q.llm_int8_split(x, W)
    Q.smooth(x.abs().amax(0), W)
    Q.Int8Linear(layer)(x)
    Q.int8_copy(mlp)(x.float())
    Q.output_error(mlp, x.float(), 4)
    assert torch.equal(torch.random.get_rng_state(), state)


def test_nan_and_inf_inputs_propagate_through_int8():
    """A diverged activation stays visible: NaN in, NaN out (never a healthy-looking bias)."""
    layer = Q.Int8Linear(nn.Linear(16, 8))
    assert layer(torch.full((2, 16), math.nan)).isnan().all()
    x = randn(3, 16, seed=4).float()
    x[1, 2] = math.inf
    y = layer(x)
    assert not y[1].isfinite().any() and y[[0, 2]].isfinite().all()
    assert Q.int8_copy(ffn(16, 32, seed=5))(torch.full((2, 16), math.nan)).isnan().all()


def test_int8_matmul_refuses_floats_in_words(monkeypatch):
    for a, b in ((randn(2, 3), randn(3, 2)), (torch.ones(2, 3, dtype=torch.int8), randn(3, 2))):
        with pytest.raises(TypeError, match="must hold int8"):
            Q.int8_matmul(a, b)
    monkeypatch.setattr(torch, "_int_mm", lambda *args: (_ for _ in ()).throw(RuntimeError("no kernel")))
    with pytest.raises(TypeError, match="a must hold int8"):           # the fallback never sees a float
        Q.int8_matmul(randn(2, 3), randn(3, 2))
    with pytest.raises(ValueError, match="differ in K"):
        Q.int8_matmul(torch.ones(2, 3, dtype=torch.int8), torch.ones(4, 2, dtype=torch.int8))


@pytest.mark.parametrize("bad", [0.0, -0.5, math.nan, math.inf])
def test_dequantize_refuses_scales_quantize_never_makes(bad):
    scale = torch.tensor([[bad], [0.1]])
    with pytest.raises(ValueError, match="scale must be finite and > 0"):
        Q.dequantize(torch.ones(2, 4, dtype=torch.int8), scale)


def test_zero_tokens_give_zero_rows_like_nn_linear():
    full = nn.Linear(16, 8)
    layer = Q.Int8Linear(full)
    for shape in ((0, 16), (2, 0, 16), (0, 3, 16)):
        x = torch.zeros(shape)
        assert layer(x).shape == full(x).shape
    assert Q.llm_int8_split(torch.zeros(0, 16), full.weight.detach()).shape == (0, 8)
    assert Q.int8_copy(ffn(16, 32, seed=6))(torch.zeros(0, 16)).shape == (0, 16)


def test_int8_matmul_stays_exact_where_the_kernel_saturates(monkeypatch):
    """Without VNNI, oneDNN's int8 kernel sums pairs of products in int16 and saturates; int8_matmul
    notices once (its probe) and computes exactly another way."""
    def saturating(a, b):
        return (a.long() @ b.long()).clamp(-2**15, 2**15 - 1).int()

    monkeypatch.setattr(torch, "_int_mm", saturating)
    monkeypatch.setattr(int_kernels, "_EXACT", {})
    g = torch.Generator().manual_seed(11)
    a = torch.randint(-127, 128, (5, 3000), generator=g, dtype=torch.int8)
    b = torch.randint(-127, 128, (3000, 7), generator=g, dtype=torch.int8)
    assert torch.equal(Q.int8_matmul(a, b).long(), a.long() @ b.long()) and int_kernels._EXACT == {"cpu": False}


@pytest.mark.skipif(platform.machine().lower() not in {"x86_64", "amd64"}, reason="ONEDNN_MAX_CPU_ISA names x86 sets")
def test_int8_matmul_is_exact_on_an_avx2_laptop():
    """Run as a CPU without VNNI (oneDNN limited to AVX2), where torch._int_mm's sums saturate."""
    probe = ("import torch; from helpers import int_kernels, quantize as Q; "
             "a = torch.full((4, 3000), 127, dtype=torch.int8); b = torch.full((3000, 4), -127, dtype=torch.int8); "
             "print(bool((Q.int8_matmul(a, b) == -3000 * 127 * 127).all()), int_kernels._EXACT['cpu'])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ONEDNN_MAX_CPU_ISA": "AVX2"})
    assert done.stdout.split()[:1] == ["True"], done.stdout + done.stderr[-2000:]
