"""GPTQ on one weight matrix: round column by column, and let the columns not yet rounded absorb
each error.

Frantar et al. 2023, "GPTQ: Accurate Post-Training Quantization for Generative Pre-trained
Transformers" (Algorithm 1, without its lazy batches, which change the speed, not the result).
Round-to-nearest rounds every weight on its own. GPTQ minimises the error of the layer's
*output* on calibration inputs X (tokens, d_in): with H = 2 X^T X (the Hessian of
||X W^T - X W_hat^T||^2 in each row of W), it rounds input column j of W, then spreads that
column's error over the columns after j, weighted by the inverse Hessian, so that the output
moves as little as it can. Weights have nn.Linear's layout (d_out, d_in), as in helpers.quantize.

    q, scale = gptq(W, X, bits=4)                   # scale (d_out, 1): one per output row
    W_hat = helpers.quantize.dequantize(q, scale)
"""

import torch

from helpers import validate
from helpers.quantize import levels

# GPTQ's default: 1% of the mean diagonal of H added to it, so that H is invertible even when
# some input features never vary in the calibration set.
DAMP = 0.01


def hessian(X):
    """H = 2 X^T X of calibration inputs X (tokens, d_in): (d_in, d_in), in float64."""
    validate.tensor(X, "X")
    validate.ndim(X, "X", 2)
    if not X.is_floating_point() or X.shape[0] == 0:
        raise ValueError("X must be floating-point calibration inputs (tokens, d_in) with at "
                         f"least one token, got dtype {X.dtype}, shape {tuple(X.shape)}")
    validate.finite(X, "X")
    X = X.double()
    return 2 * X.T @ X


def gptq(W, X, bits, damp=DAMP):
    """W (d_out, d_in) float, X (tokens, d_in) -> q (d_out, d_in) int8, scale (d_out, 1) float64.

    The scales are absmax per output row of the original W (as round-to-nearest with "row"
    would choose them); only the rounding decisions differ.
    """
    validate.tensor(W, "W")
    validate.ndim(W, "W", 2)
    if not W.is_floating_point() or W.numel() == 0:
        raise ValueError(f"W must be a non-empty floating-point matrix (d_out, d_in), got dtype "
                         f"{W.dtype}, shape {tuple(W.shape)}")
    validate.finite(W, "W")
    H = hessian(X)
    if H.shape[0] != W.shape[1]:
        raise ValueError(f"X has {H.shape[0]} features but W (d_out, d_in) = {tuple(W.shape)} "
                         f"expects d_in={W.shape[1]}")
    if not 0 <= validate.real_number(damp, "damp") <= 1:
        raise ValueError(f"damp must be from 0 to 1 (a share of H's mean diagonal), got {damp}")
    qmax = levels(bits)
    if bits > 8:
        raise ValueError(f"bits must be at most 8 (q is stored as int8), got {bits}")
    W = W.detach().double().clone()
    absmax = W.abs().amax(dim=1, keepdim=True)                          # (d_out, 1)
    scale = torch.where(absmax == 0, torch.ones_like(absmax), absmax / qmax)

    # a feature that is always 0:
    dead = torch.diag(H) == 0
    # its weights change no output
    H[dead, dead] = 1.0
    W[:, dead] = 0.0
    H += damp * torch.diag(H).mean() * torch.eye(len(H), dtype=H.dtype)
    # The upper Cholesky factor of H^-1: row j holds what the error of column j does to columns > j.
    U = torch.linalg.cholesky(torch.cholesky_inverse(torch.linalg.cholesky(H)), upper=True)

    q = torch.zeros_like(W)
    for j in range(W.shape[1]):
        w = W[:, j]
        q[:, j] = torch.round(w / scale[:, 0]).clamp(-qmax, qmax)
        err = (w - q[:, j] * scale[:, 0]) / U[j, j]                     # (d_out,)
        W[:, j + 1:] -= err[:, None] * U[j, j + 1:][None, :]            # the columns left absorb it
    return q.to(torch.int8), scale
