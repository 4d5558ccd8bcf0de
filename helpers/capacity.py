"""How many random key -> value pairs an FFN stores: the capacity experiment of notebook 03.

An FFN is asked to map N random keys (N, d_model) to N random values (N, d_model).
Its up-projection keeps its random initial weights; its down-projection is fitted
by least squares, the exact minimum of the squared error (one solve, no learning
rate, same answer every run). A pair counts as *memorised* when the FFN's output
for its key lies nearer (Euclidean) to its own value than to any other value.
`trained_fraction` is the comparison: both projections trained by gradient descent.

Every FFN here draws its weights from its own `torch.Generator`: running the
experiment never moves the learner's global random state.
"""

import math

import torch
import torch.nn.functional as F

from helpers import validate
from helpers.device import cpu_threads
from helpers.ffn import FFN


def one_thread():
    """Run torch on one CPU thread inside the block: these problems are small, and
    extra threads only add start-up cost (and fight when the CPU is shared)."""
    return cpu_threads(1)


def random_pairs(n_pairs, d_model, seed=0):
    """keys, values: two (n_pairs, d_model) float64 tensors of standard normal numbers."""
    n_pairs = validate.positive_int(n_pairs, "n_pairs")
    d_model = validate.positive_int(d_model, "d_model")
    gen = torch.Generator().manual_seed(validate.non_negative_int(seed, "seed"))
    keys = torch.randn(n_pairs, d_model, generator=gen, dtype=torch.float64)
    values = torch.randn(n_pairs, d_model, generator=gen, dtype=torch.float64)
    return keys, values


def retrieval_accuracy(outputs, values):
    """Fraction of rows i whose nearest row of values (N, d) is values[i]; outputs: (N, d)."""
    for name, t in (("outputs", outputs), ("values", values)):
        validate.tensor(t, name)
        if not t.is_floating_point():
            raise TypeError(f"{name} must hold floating-point numbers, got dtype {t.dtype}")
        # a NaN row is nobody's nearest: it would score as chance, silently
        validate.finite(t, name)
    if outputs.shape != values.shape or outputs.ndim != 2:
        raise ValueError(
            f"outputs has shape {tuple(outputs.shape)} but values has shape "
            f"{tuple(values.shape)}: both must be (n_pairs, d_model)"
        )
    nearest = torch.cdist(outputs, values).argmin(dim=1)    # (N,) index of the closest value
    return (nearest == torch.arange(len(values))).double().mean().item()


def fit_down_proj(ffn, keys, values):
    """Set ffn.c_proj (the down-projection) to the least-squares fit of keys -> values.

    The up-projection keeps its weights; the down-projection's bias is set to 0.
    keys, values: (N, d_model). Returns ffn.
    """
    validate.instance_of(ffn, "ffn", FFN, "(c_fc, act, c_proj)")
    for name, t in (("keys", keys), ("values", values)):
        validate.tensor(t, name)
        validate.ndim(t, name, 2)
        validate.matches_weight(t, ffn.c_fc.weight, "FFN", name)
    if keys.shape != values.shape or keys.shape[-1] != ffn.d_model:
        raise ValueError(
            f"keys {tuple(keys.shape)} and values {tuple(values.shape)} must both be "
            f"(n_pairs, d_model={ffn.d_model})"
        )
    with torch.no_grad():
        hidden = ffn.act(ffn.c_fc(keys))                               # (N, d_ff)
        W2 = torch.linalg.lstsq(hidden, values).solution              # (d_ff, d_model)
        ffn.c_proj.weight.copy_(W2.T)                                 # nn.Linear stores (out, in)
        if ffn.c_proj.bias is not None:
            ffn.c_proj.bias.zero_()
    return ffn


def seeded_ffn(d_model, d_ff, seed=0, activation="gelu"):
    """A float64 FFN (d_model -> d_ff -> d_model) drawn from its own generator, as nn.Linear draws:
    every weight and bias uniform in +-1/sqrt(fan-in), the number of inputs each output sums."""
    gen = torch.Generator().manual_seed(validate.non_negative_int(seed, "seed"))
    # FFN's constructor draws from the global generator: put it back
    with torch.random.fork_rng(devices=[]):
        ffn = FFN(d_model, d_ff, activation=activation).double()
    with torch.no_grad():
        for layer in (ffn.c_fc, ffn.c_proj):
            bound = 1 / math.sqrt(layer.in_features)
            layer.weight.uniform_(-bound, bound, generator=gen)
            layer.bias.uniform_(-bound, bound, generator=gen)
    return ffn


def memorised_fraction(d_model, d_ff, n_pairs, seed=0, activation="gelu"):
    """Fit an FFN (d_model -> d_ff -> d_model) to n_pairs random pairs; return the fraction
    memorised."""
    keys, values = random_pairs(n_pairs, d_model, seed)
    ffn = seeded_ffn(d_model, d_ff, seed, activation)
    with one_thread():
        fit_down_proj(ffn, keys, values)
        with torch.no_grad():
            return retrieval_accuracy(ffn(keys), values)


def adam_steps(params, loss_fn, steps, lr, betas=(0.9, 0.999), eps=1e-8):
    """`steps` Adam updates of params (tensors with requires_grad) on loss_fn(); torch.optim.Adam's
    rule.

    Written out because torch.optim's first use imports torch's compiler, seconds on a laptop, for a
    loop this small. tests/test_capacity.py checks it against torch.optim.Adam step by step.
    """
    params = list(params)
    m = [torch.zeros_like(p) for p in params]              # running mean of the gradients
    v = [torch.zeros_like(p) for p in params]              # running mean of their squares
    for t in range(1, steps + 1):
        grads = torch.autograd.grad(loss_fn(), params)
        with torch.no_grad():
            for p, g, m_p, v_p in zip(params, grads, m, v, strict=True):
                m_p.mul_(betas[0]).add_(g, alpha=1 - betas[0])
                v_p.mul_(betas[1]).addcmul_(g, g, value=1 - betas[1])
                step = lr / (1 - betas[0] ** t)
                denom = (v_p / (1 - betas[1] ** t)).sqrt_().add_(eps)
                p.addcdiv_(m_p, denom, value=-step)
    return params


def trained_fraction(d_model, d_ff, n_pairs, seed=0, steps=300, lr=0.03):
    """Train the whole FFN (up- and down-projection) with Adam on n_pairs random pairs; the fraction
    retrieved.

    The same pairs and starting weights as memorised_fraction; only the up-projection is no longer
    fixed.
    """
    steps = validate.positive_int(steps, "steps")
    lr = validate.positive_number(lr, "lr")
    keys, values = random_pairs(n_pairs, d_model, seed)
    ffn = seeded_ffn(d_model, d_ff, seed)
    with one_thread(), torch.enable_grad():
        # c_fc learns its keys too
        adam_steps(ffn.parameters(), lambda: F.mse_loss(ffn(keys), values), steps, lr)
        with torch.no_grad():
            return retrieval_accuracy(ffn(keys), values)


def capacity(n_pairs_list, fractions):
    """The largest n_pairs whose pairs were all memorised (0 if none)."""
    if len(n_pairs_list) != len(fractions):
        raise ValueError(f"n_pairs_list has {len(n_pairs_list)} sizes but fractions has "
                         f"{len(fractions)} values: one fraction per size")
    for i, (n, f) in enumerate(zip(n_pairs_list, fractions, strict=True)):
        validate.positive_int(n, f"n_pairs_list[{i}]")
        if not 0 <= validate.non_negative_number(f, f"fractions[{i}]") <= 1:
            raise ValueError(f"fractions[{i}] must be a fraction from 0 to 1, got {f!r}")
    full = [n for n, f in zip(n_pairs_list, fractions, strict=True) if f == 1.0]
    return max(full, default=0)
