"""Memory bandwidth and the roofline: how fast this machine reads weights.

A decode step reads every weight once and does 2 FLOPs per weight per token,
so with few tokens its speed is set by bytes per second, not FLOPs per second.

    stream_read_bandwidth(n_bytes)   # GB/s of a plain sum over a filled array
    last_level_cache_bytes()         # the largest CPU cache this machine reports (None: unknown)
    matvec_bandwidth(d_out, d_in)    # GB/s of W @ x, reading W once
    roofline_seconds(flops, n_bytes, peak_flops, bandwidth)
    GPUS["H100 SXM"]                 # published peak FLOP/s and bandwidth, with their source

All rates are in bytes (or FLOPs) per second; divide by 1e9 for GB/s.
"""

import math
from dataclasses import dataclass
from pathlib import Path

import torch

from helpers import validate
from helpers.device import check_available
from helpers.params.breakdown import Breakdown
from helpers.timing import benchmark


@dataclass(frozen=True)
class GPU:
    """A GPU's published peak: dense 16-bit tensor FLOP/s, memory bytes/s, L2 cache bytes."""

    name: str
    peak_flops: float
    bandwidth: float
    l2_bytes: int
    source: str

    @property
    def knee(self):
        """FLOPs per byte where its roofline bends (the batch at the knee, in 16-bit weights)."""
        return self.peak_flops / self.bandwidth


# From NVIDIA's datasheets. Tensor-core figures are quoted "with sparsity" (2x); the dense
# figure is half of it. Colab's free GPU is a T4; its paid ones are the L4 and the A100.
GPUS = {
    "T4": GPU("T4", 65e12, 320e9, 4 * 2**20,
              "NVIDIA T4 datasheet: 65 TFLOPS mixed precision (FP16), 320 GB/s GDDR6"),
    "L4": GPU("L4", 121e12, 300e9, 48 * 2**20,
              "NVIDIA L4 datasheet: 242 TFLOPS BF16 with sparsity (121 dense), 300 GB/s GDDR6"),
    "A100 40GB SXM": GPU("A100 40GB SXM", 312e12, 1555e9, 40 * 2**20,
                         "NVIDIA A100 datasheet: 312 TFLOPS BF16 dense (624 with sparsity), "
                         "1,555 GB/s HBM2"),
    "A100 80GB SXM": GPU("A100 80GB SXM", 312e12, 2039e9, 40 * 2**20,
                         "NVIDIA A100 datasheet: 312 TFLOPS BF16 dense, 2,039 GB/s HBM2e"),
    "H100 SXM": GPU("H100 SXM", 989e12, 3.35e12, 50 * 2**20,
                    "NVIDIA H100 datasheet: 1,979 TFLOPS BF16 with sparsity (989 dense), "
                    "3.35 TB/s HBM3"),
}


def filled(n_elements, dtype=torch.float32, device="cpu", seed=0):
    """A tensor (n_elements,) of random values: every page written, so reads are real.

    torch.empty hands out memory the OS has not mapped yet; reading it maps a
    shared page of zeros, which sits in cache and reads impossibly fast.
    """
    n_elements = validate.positive_int(n_elements, "n_elements")
    element_bytes(dtype)  # a torch.dtype, not a string
    device = check_available(device)
    generator = torch.Generator().manual_seed(seed)
    values = torch.empty(n_elements).uniform_(-1.0, 1.0, generator=generator)  # writes every page
    return values.to(dtype=dtype, device=device)


def last_level_cache_bytes(sysfs="/sys/devices/system/cpu/cpu0/cache"):
    """Bytes of the largest CPU cache the system reports (L3 on most machines), or None.

    A decode measurement must read more weight bytes than this, or it times the cache.
    Linux says it in sysfs (`index3/size` holds "491520K"); elsewhere this returns None.
    Some virtual machines report a whole host's cache: a larger figure only makes a
    measurement read more bytes, never fewer.
    """
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    sizes = []
    for size in Path(sysfs).glob("index*/size"):
        text = size.read_text().strip()
        if text[:-1].isdigit() and text[-1] in units:
            sizes.append(int(text[:-1]) * units[text[-1]])
        elif text.isdigit():
            sizes.append(int(text))
    return max(sizes, default=None)


def element_bytes(dtype):
    """Bytes per element of a torch dtype: 4 for float32, 2 for bfloat16."""
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype such as torch.float32, got {dtype!r}")
    return torch.empty((), dtype=dtype).element_size()


def stream_read_bandwidth(n_bytes, dtype=torch.float32, device="cpu", repeat=5, min_time=0.02):
    """Bytes per second of x.sum() over a filled array of about n_bytes (each byte read once)."""
    n_bytes = validate.positive_int(n_bytes, "n_bytes")
    device = check_available(device)
    x = filled(max(1, n_bytes // element_bytes(dtype)), dtype, device)
    timing = benchmark(x.sum, device=device, repeat=repeat, min_time=min_time)
    return timing.per_second(x.numel() * x.element_size())


def matvec_bandwidth(d_out, d_in, dtype=torch.float32, device="cpu", repeat=5, min_time=0.02):
    """Bytes of W (d_out, d_in) per second of a plain W @ x (x: (d_in,)), the decode kernel."""
    d_out = validate.positive_int(d_out, "d_out")
    d_in = validate.positive_int(d_in, "d_in")
    device = check_available(device)
    W = filled(d_out * d_in, dtype, device).reshape(d_out, d_in)
    x = filled(d_in, dtype, device, seed=1)
    timing = benchmark(lambda: torch.mv(W, x), device=device, repeat=repeat, min_time=min_time)
    return timing.per_second(W.numel() * W.element_size())


def ffn_bytes(n_tokens, d_model, d_ff, bytes_per_element=4):
    """Bytes an FFN moves for n_tokens: both weight matrices once, plus x, h and the output."""
    n_tokens = validate.positive_int(n_tokens, "n_tokens")
    d_model = validate.positive_int(d_model, "d_model")
    d_ff = validate.positive_int(d_ff, "d_ff")
    validate.positive_number(bytes_per_element, "bytes_per_element")  # 0.5 for 4-bit weights
    weights = 2 * d_model * d_ff
    activations = n_tokens * (2 * d_model + 2 * d_ff)  # x in, h out and in, y out
    return (weights + activations) * bytes_per_element


def arithmetic_intensity(flops, n_bytes):
    """FLOPs per byte moved: low means bandwidth-bound, high means compute-bound."""
    return (validate.non_negative_number(flops, "flops")
            / validate.positive_number(n_bytes, "n_bytes"))


def roofline_seconds(flops, n_bytes, peak_flops, bandwidth):
    """The roofline's time: the slower of computing (flops / peak) and reading (bytes /
    bandwidth)."""
    flops = validate.non_negative_number(flops, "flops")
    n_bytes = validate.non_negative_number(n_bytes, "n_bytes")
    peak_flops = validate.positive_number(peak_flops, "peak_flops")
    bandwidth = validate.positive_number(bandwidth, "bandwidth")
    return max(flops / peak_flops, n_bytes / bandwidth)


def knee_intensity(peak_flops, bandwidth):
    """FLOPs per byte where the roofline turns from bandwidth-bound to compute-bound."""
    return (validate.positive_number(peak_flops, "peak_flops")
            / validate.positive_number(bandwidth, "bandwidth"))


def knee_batch(n_params, kv_bytes_per_sequence, peak_flops, bandwidth, bytes_per_weight=2):
    """The batch at which a decode step turns compute-bound (math.inf: never), KV cache included.

    One step over B sequences does 2 * n_params * B FLOPs and reads n_params * bytes_per_weight
    bytes of weights plus B * kv_bytes_per_sequence of KV cache. The two times meet at

        B = n_params * bytes_per_weight
            / (2 * n_params * bandwidth / peak_flops - kv_bytes_per_sequence)

    when each sequence's cache alone takes longer to read than its FLOPs take, they never meet.
    """
    for value, name in ((n_params, "n_params"), (peak_flops, "peak_flops"),
                        (bandwidth, "bandwidth"), (bytes_per_weight, "bytes_per_weight")):
        validate.positive_number(value, name)
    validate.non_negative_number(kv_bytes_per_sequence, "kv_bytes_per_sequence")
    # bytes per sequence to spare
    room = 2 * n_params * bandwidth / peak_flops - kv_bytes_per_sequence
    return n_params * bytes_per_weight / room if room > 0 else math.inf


def decode_weight_bytes(breakdown, bytes_per_param=2):
    """Bytes of weights one decode step (one token per sequence) reads, by component.

    breakdown: a helpers.config_params.Breakdown. Every matrix is read once, except the
    embedding tables, of which one row is read; the unembedding (vocab x d_model, tied or
    not) is read whole. An MoE reads only the experts its token picked.
    """
    validate.instance_of(breakdown, "breakdown", Breakdown,
                         "(from helpers.config_params.count_params)")
    b, c = breakdown, breakdown.components
    per_param = validate.positive_int(bytes_per_param, "bytes_per_param")
    counts = {
        "embedding": b.d_model,  # one row: the new token's vector
        "position_embedding": b.d_model if c["position_embedding"] else 0,
        "attention": c["attention"],
        "mlp": b.mlp_active,  # an MoE reads the experts its token picked (and shared ones)
        "router": c["router"],
        "norms": c["norms"],
        "unembedding": b.vocab_size * b.d_model,  # logits for every word of the vocabulary
    }
    return {name: n * per_param for name, n in counts.items()}


def kv_cache_bytes(breakdown, n_tokens=1, bytes_per_element=2):
    """KV cache of n_tokens: 2 (K and V) * n_layers * n_kv_heads * d_head * bytes, per token.

    Only attention has a cache; no term depends on the MLP.
    """
    b = validate.instance_of(breakdown, "breakdown", Breakdown,
                             "(from helpers.config_params.count_params)")
    n_tokens = validate.positive_int(n_tokens, "n_tokens")
    per_element = validate.positive_int(bytes_per_element, "bytes_per_element")
    return 2 * b.n_layers * b.n_kv_heads * b.head_dim * per_element * n_tokens
