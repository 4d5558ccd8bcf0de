"""Integer weights as a machine multiplies and stores them.

    int8_matmul(a, b)        # int8 (M, K) @ int8 (K, N) -> int32 (M, N), exact
    pack_int4(q)             # two 4-bit weights a byte; unpack_int4 gives them back

int8_matmul runs torch._int_mm where it sums exactly (tried once per device: without VNNI its CPU
code saturates) and exact float32 matmuls over chunks of K elsewhere. helpers.quantize, which
names these too, makes the integers.
"""

import torch

from helpers import validate


def _int_mm_exact(device):
    """Whether torch._int_mm sums exactly here. Without VNNI (oneDNN's AVX2 or SSE4.1 code) it adds
    pairs of products in int16, which saturates: sums of 127 * 127 come back wrong. Tried once per
    device."""
    if device.type not in _EXACT:
        a = torch.full((32, 64), 127, dtype=torch.int8, device=device)
        try:
            _EXACT[device.type] = bool((torch._int_mm(a, a.T.contiguous()) == 64 * 127 * 127).all())
        except (RuntimeError, NotImplementedError):  # an older torch's CPU, or a GPU's size limits
            _EXACT[device.type] = False
    return _EXACT[device.type]


_EXACT = {}
_CHUNK = 1024   # 1024 products of at most 127 * 127 sum below 2**24: exact in float32


def int8_matmul(a, b):
    """a (M, K) int8 @ b (K, N) int8 -> (M, N) int32, exact: PyTorch's int8 kernel, torch._int_mm,
    where it sums exactly; elsewhere float32 matmuls over chunks of K, each exact, summed in
    int32."""
    for name, t in (("a", a), ("b", b)):
        validate.tensor(t, name)
        validate.ndim(t, name, 2)
        if t.dtype != torch.int8:
            raise TypeError(f"{name} must hold int8 (quantize(..., 8)'s q), got dtype {t.dtype}: "
                            "quantize a float tensor first")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"a (M, K) = {tuple(a.shape)} and b (K, N) = {tuple(b.shape)} differ in K")
    if _int_mm_exact(a.device):
        try:
            return torch._int_mm(a, b)
        # sizes the kernel does not take (a GPU's limits)
        except (RuntimeError, NotImplementedError):
            pass
    out = torch.zeros(a.shape[0], b.shape[1], dtype=torch.int32, device=a.device)
    for k in range(0, a.shape[1], _CHUNK):
        out += (a[:, k:k + _CHUNK].float() @ b[k:k + _CHUNK].float()).to(torch.int32)
    return out


def pack_int4(q):
    """q (rows, d_in) int8 in -8..7, d_in even -> (rows, d_in // 2) uint8: two weights a byte."""
    validate.tensor(q, "q")
    validate.ndim(q, "q", 2)
    if q.dtype != torch.int8 or q.shape[1] % 2 or q.numel() and not -8 <= int(q.min()) <= \
            int(q.max()) <= 7:
        raise ValueError(f"q must be int8 values from -8 to 7 with an even number of columns "
                         f"(quantize(W, 4)), got dtype {q.dtype}, shape {tuple(q.shape)}")
    nibbles = q.to(torch.uint8) & 0xF                                  # two's complement, 4 bits
    return nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)


def unpack_int4(packed):
    """(rows, n) uint8 from pack_int4 -> (rows, 2n) int8: the low nibble first."""
    validate.tensor(packed, "packed")
    if packed.dtype != torch.uint8 or packed.ndim != 2:
        raise TypeError(f"packed must be a 2-D uint8 tensor (pack_int4's), got {packed.dtype} "
                        f"{tuple(packed.shape)}")
    q = torch.stack([packed & 0xF, packed >> 4], dim=-1).reshape(len(packed), -1).to(torch.int8)
    return (q ^ 8) - 8                                                  # sign-extend 4 bits
