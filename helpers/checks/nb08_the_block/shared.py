"""What the block and the stack exercises share: the small sizes they build, RMSNorm's eps, and
a seeded reference whose RMSNorm weights are random, so that a misplaced norm shows."""

import torch

from helpers.block import RMSNorm
from helpers.checks.state import seeded

D_MODEL, N_HEAD, D_FF, N_LAYERS = 16, 2, 40, 2
EPS = 1e-6   # LlamaConfig's default rms_norm_eps


def _with_random_norms(make):
    """A seeded float64 reference whose RMSNorm weights are random, so
    that a misplaced norm shows."""
    def reference():
        with seeded(8):
            module = make().double()
            with torch.no_grad():
                for norm in module.modules():
                    if isinstance(norm, RMSNorm):
                        norm.weight.normal_()
        return module
    return reference


def _stream():
    return torch.randn(2, 5, D_MODEL, generator=torch.Generator().manual_seed(8),
                       dtype=torch.float64)
