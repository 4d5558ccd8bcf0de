"""Elhage et al. 2022's toy model of superposition: n sparse features squeezed into m < n
dimensions.

Each input holds n features; feature i is present with probability p (else 0) and, when present,
is uniform in [0, 1]. The model stores x in m dimensions, h = W x, and reads it back with
x' = ReLU(W^T h + b). Column W_i of W (m, n) is the direction feature i is stored along; a
feature with ||W_i|| near 1 is stored, one near 0 is dropped. The loss weighs each feature's
squared error by its importance. Dense features: the model keeps the m most important ones, at
right angles. Sparse features: two rarely collide, so it packs more than m, at angles that
interfere a little: superposition.

Several sparsities train at once as independent "instances" (a leading axis on W and b), from the
model's own torch.Generator: the global random state is never touched.
"""

import math

import torch
from torch import nn

from helpers import validate, validate_values


def _bytes(dtype):
    """Bytes per element of a torch dtype."""
    return torch.empty((), dtype=dtype).element_size()


def _probability(p, name):
    """A float in (0, 1]: the chance that a feature is present."""
    if not validate_values._real_number(p) or not 0 < p <= 1:
        raise ValueError(f"{name} must be a probability in (0, 1], got {p!r}")
    return float(p)


def importance(n_features, decay=0.9):
    """(n_features,) weights decay**i: feature 0 matters most, as in Elhage et al."""
    n_features = validate.positive_int(n_features, "n_features")
    decay = validate.positive_number(decay, "decay")
    return decay ** torch.arange(n_features, dtype=torch.float64)


def sample_features(n, n_features, p, generator, dtype=torch.float64):
    """(n_instances, n, n_features) inputs: each feature present with probability p[k], value
    uniform in [0, 1].

    p: (n_instances,) tensor, one feature probability per instance.
    """
    n = validate.positive_int(n, "n")
    n_features = validate.positive_int(n_features, "n_features")
    validate.tensor(p, "p")
    validate.ndim(p, "p", 1)
    if not len(p):
        raise ValueError("p must hold one probability per instance, got an empty tensor")
    if not p.is_floating_point():
        raise TypeError(f"p must hold probabilities as floating-point numbers, got dtype {p.dtype}")
    outside = ~((p > 0) & (p <= 1))                                      # NaN is outside too
    if outside.any():
        k = int(outside.nonzero()[0])
        raise ValueError(f"p must hold probabilities in (0, 1], got {p[k].item()!r} at index {k}")
    validate.instance_of(generator, "generator", torch.Generator,
                         "(torch.Generator().manual_seed(0))")
    validate.float_dtype(dtype, "dtype")
    shape = (len(p), n, n_features)
    validate.affordable(2 * math.prod(shape) * _bytes(dtype), f"sampling {shape} features")
    present = torch.rand(shape, generator=generator, dtype=dtype) < p[:, None, None].to(dtype)
    return torch.rand(shape, generator=generator, dtype=dtype) * present


class ToyModel(nn.Module):
    """x (n_instances, N, n_features) -> ReLU(W^T W x + b), same shape; W (n_instances, n_hidden,
    n_features)."""

    def __init__(self, n_features, n_hidden, n_instances=1, generator=None, dtype=torch.float64):
        super().__init__()
        n_features = validate.positive_int(n_features, "n_features")
        n_hidden = validate.positive_int(n_hidden, "n_hidden")
        n_instances = validate.positive_int(n_instances, "n_instances")
        validate.float_dtype(dtype, "dtype")
        if generator is not None:
            validate.instance_of(generator, "generator", torch.Generator)
        validate.affordable(2 * n_instances * n_hidden * n_features * _bytes(dtype),
                            f"a ToyModel of {n_instances} x {n_hidden} x {n_features} weights")
        # Xavier-normal, as Elhage et al.
        std = (2 / (n_hidden + n_features)) ** 0.5
        W = std * torch.randn(n_instances, n_hidden, n_features, generator=generator, dtype=dtype)
        # column i: feature i's direction
        self.W = nn.Parameter(W)
        self.b = nn.Parameter(torch.zeros(n_instances, n_features, dtype=dtype))

    def forward(self, x):
        validate.tensor(x, "x")
        validate.ndim(x, "x", 3)
        n_instances, _, n = self.W.shape
        if x.shape[0] != n_instances or x.shape[2] != n:
            raise ValueError(f"x must have shape (n_instances={n_instances}, N, n_features={n}), "
                             f"got {tuple(x.shape)}")
        validate.matches_weight(x, self.W, "ToyModel")
        h = torch.einsum("imn,ibn->ibm", self.W, x)                   # (I, N, m): stored
        out = torch.einsum("imn,ibm->ibn", self.W, h) + self.b[:, None, :]   # (I, N, n): read back
        return torch.relu(out)


def train_toy(n_features=20, n_hidden=5, p=(1.0, 0.3, 0.1, 0.03, 0.01), decay=0.9, steps=1000,
              batch=256, lr=1e-2, seed=0):
    """A ToyModel with one instance per feature probability in p, trained with Adam; returns (model,
    losses).

    The defaults train all five instances in about two seconds on one CPU thread (a fresh batch each
    step).

    The loss of instance k is the importance-weighted squared error, summed over features and
    averaged over the batch: mean_b sum_i I_i (x_bi - x'_bi)^2. losses: (steps, n_instances).
    """
    if isinstance(p, (int, float)):
        p = (p,)
    if not isinstance(p, (list, tuple)) or not p:
        raise TypeError(f"p must be a probability or a list of them, got {type(p).__name__} {p!r}")
    probs = torch.tensor([_probability(q, f"p[{k}]") for k, q in enumerate(p)], dtype=torch.float64)
    steps = validate.positive_int(steps, "steps")
    batch = validate.positive_int(batch, "batch")
    lr = validate.positive_number(lr, "lr")
    seed = validate.non_negative_int(seed, "seed")
    n_hidden = validate.positive_int(n_hidden, "n_hidden")
    n_features = validate.positive_int(n_features, "n_features")
    if n_hidden >= n_features:
        raise ValueError(f"n_hidden must be below n_features for superposition to matter, got "
                         f"n_hidden={n_hidden} and n_features={n_features}")
    # a step holds about eight (instances, batch, features) float64 tensors: inputs, outputs,
    # errors, gradients
    validate.affordable(8 * len(probs) * batch * n_features * 8,
                        f"training {len(probs)} toy models on batches of {batch} x {n_features} "
                        "features")
    generator = torch.Generator().manual_seed(seed)
    weights = importance(n_features, decay)                             # (n,)
    model = ToyModel(n_features, n_hidden, len(probs), generator)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses = torch.empty(steps, len(probs), dtype=torch.float64)
    for step in range(steps):
        x = sample_features(batch, n_features, probs, generator)         # (I, batch, n)
        loss = (weights * (x - model(x)).pow(2)).sum(-1).mean(-1)       # (I,)
        optimizer.zero_grad()
        loss.sum().backward()                                         # instances are independent
        optimizer.step()
        losses[step] = loss.detach()
    return model.eval(), losses


def feature_norms(model):
    """(n_instances, n_features): ||W_i||, how strongly each feature is stored."""
    validate.instance_of(model, "model", ToyModel, "(from train_toy)")
    return model.W.detach().norm(dim=1)


def features_stored(model, threshold=0.5):
    """(n_instances,) the number of features with ||W_i|| > threshold in each instance."""
    threshold = validate.positive_number(threshold, "threshold")
    return (feature_norms(model) > threshold).sum(-1)


def interference(model):
    """(n_instances, n_features): sum over j != i of (W_i/||W_i|| . W_j)^2, feature i's share of
    superposition."""
    validate.instance_of(model, "model", ToyModel, "(from train_toy)")
    W = model.W.detach()
    unit = W / W.norm(dim=1, keepdim=True).clamp(min=1e-12)
    overlap = torch.einsum("imn,imk->ink", unit, W).pow(2)           # (I, n, n)
    return overlap.sum(-1) - overlap.diagonal(dim1=1, dim2=2)


def feature_directions(model, instance=0):
    """(n_features, n_hidden): the direction W_i of each feature in one instance, for a picture."""
    validate.instance_of(model, "model", ToyModel, "(from train_toy)")
    instance = validate.index(instance, "instance", model.W.shape[0])
    return model.W.detach()[instance].T.clone()
