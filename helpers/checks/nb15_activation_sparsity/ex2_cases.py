"""Notebook 15, exercise 2's cases: small MLPs (ReLU and GELU, d_model = d_ff and not), their inputs
and the sets of active units, one set for all tokens or one per token."""

import torch

from helpers import sparsity
from helpers.ffn import FFN


def _mlp(d_model, d_ff, activation, seed):
    g = torch.Generator().manual_seed(seed)
    # nn.Linear's default init draws from the global generator:
    with torch.random.fork_rng(devices=[]):
        mlp = FFN(d_model, d_ff, activation=activation).double()   # leave the learner's untouched
    with torch.no_grad():
        for p in mlp.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.5)
    return mlp.eval().requires_grad_(False)


def _cases():
    g = torch.Generator().manual_seed(15)
    cases = []
    # d_model = d_ff: a swap gives an answer, not an error
    square = _mlp(16, 16, "relu", 1)
    x = torch.randn(16, generator=g, dtype=torch.float64)
    cases.append((x, square, sparsity.active_units(sparsity.hidden(x, square))))
    relu = _mlp(8, 32, "relu", 2)
    x = torch.randn(8, generator=g, dtype=torch.float64)
    cases.append((x, relu, sparsity.active_units(sparsity.hidden(x, relu)).nonzero().flatten()))
    gelu = _mlp(8, 32, "gelu", 3)
    xs = torch.randn(4, 8, generator=g, dtype=torch.float64)
    # negative pre-activations among the active units
    every = _mlp(8, 32, "gelu", 4)
    shared = torch.randn(3, 8, generator=g, dtype=torch.float64)
    # a set per token
    cases.append((xs, gelu, sparsity.active_units(sparsity.hidden(xs, gelu), 0.2)))
    # T tokens, one set
    cases.insert(2, (shared, every, torch.ones(32, dtype=torch.bool)))
    return cases
