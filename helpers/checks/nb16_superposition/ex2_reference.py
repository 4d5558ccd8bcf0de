"""Notebook 16, exercise 2's reference: helpers.sae's SAE in float64, the inputs, and the codes and
loss a learner's typical variant computes (no ReLU, b_dec not subtracted, another mean...)."""

import torch

from helpers import sae

EX2 = "Exercise 2 (a sparse autoencoder)"
D_IN, N_FEATURES, L1_COEFF = 6, 10, 0.3


def _reference():
    """helpers.sae's SparseAutoencoder in float64 with every parameter nonzero (biases too), decoder
    columns unit."""
    g = torch.Generator().manual_seed(16)
    ref = sae.SparseAutoencoder(D_IN, N_FEATURES, generator=g, dtype=torch.float64)
    with torch.no_grad():
        ref.W_enc.copy_(torch.randn(N_FEATURES, D_IN, generator=g, dtype=torch.float64)
                        / D_IN ** 0.5)
        ref.b_enc.copy_(0.3 * torch.randn(N_FEATURES, generator=g, dtype=torch.float64))
        ref.b_dec.copy_(torch.randn(D_IN, generator=g, dtype=torch.float64))
    return ref


def _inputs():
    return torch.randn(12, D_IN, generator=torch.Generator().manual_seed(17), dtype=torch.float64)


def _codes(ref, x, relu=True, centre=True, act=torch.relu, sign=-1, bias_inside=True):
    """The encoder and its typical mistakes: no ReLU, b_dec not subtracted (or added), b_enc after
    the ReLU."""
    shifted = x + sign * ref.b_dec if centre else x
    pre = shifted @ ref.W_enc.T + (ref.b_enc if bias_inside else 0)
    f = act(pre) if relu else pre
    return f if bias_inside else f + ref.b_enc


_RECONSTRUCTION = {   # how the squared error (or the codes' size) is reduced to one number
    "batch": lambda e: e.sum(-1).mean(0), "all": lambda e: e.mean(),
    "width": lambda e: e.mean(-1).sum(0), "total": lambda e: e.sum()}


def _loss(ref, x, penalty="codes", mean="batch", l1_coeff=L1_COEFF, l1_mean=None, error="squared",
          swap=False):
    """The SAE loss and its typical mistakes: each argument plants one."""
    x_hat, f = ref(x)
    diff = x - x_hat
    if error == "length":                        # ||x - x_hat|| per row, not squared
        reconstruction = diff.norm(dim=-1).mean(0)
    elif error == "frobenius":                   # torch.norm(x - x_hat): one length for the batch
        reconstruction = diff.norm()
    else:
        reconstruction = _RECONSTRUCTION[mean](diff.pow(2))
    on = {"codes": f.abs(), "reconstruction": x_hat.abs(), "squared": f.pow(2)}
    l1 = (f.norm(dim=-1).mean(0) if penalty == "l2"
          else _RECONSTRUCTION[l1_mean or mean](on[penalty]))
    return l1_coeff * reconstruction + l1 if swap else reconstruction + l1_coeff * l1


def _pair_from(codes):
    """(ref, x) -> the (x_hat, f) a forward with these codes gives."""
    def answer(ref, x):
        f = codes(ref, x)
        return ref.decode(f), f
    return answer
