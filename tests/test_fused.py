"""helpers.fused: the byte counts, the compiler check (a missing compiler simulated), the profiler's
kernel list, the saved-tensor count and the recomputing SiluMul."""

import shutil

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers import fused


def test_bytes_between_the_matmuls():
    assert fused.weight_bytes(768, 3072, 4) == 2 * 768 * 3072 * 4
    assert fused.weight_bytes(4096, 11008, 2, "gated") == 3 * 4096 * 11008 * 2
    assert fused.between_bytes(1, 3072, 4) == 4 * 3072 * 4                   # written, read, written, read
    assert fused.between_bytes(10, 11008, 2, "gated") == 8 * 10 * 11008 * 2
    assert fused.between_bytes(10, 11008, 2, "gated", "fused") == 2 * 10 * 11008 * 2
    with pytest.raises(ValueError, match="kind"):
        fused.weight_bytes(768, 3072, 4, "relu")
    with pytest.raises(ValueError, match="n_tokens"):
        fused.between_bytes(0, 3072, 4)


def test_a_missing_compiler_is_said_in_one_sentence(monkeypatch):
    monkeypatch.setattr(fused, "cxx_compiler", lambda: None)
    said = fused.compile_problem("cpu")
    assert said.startswith("No C++ compiler") and said.count(". ") == 0 and said.endswith(".")


def test_the_compiler_is_found_where_inductor_looks(monkeypatch):
    import torch._inductor.config as inductor_config

    monkeypatch.setattr(inductor_config.cpp, "cxx", (None, "no-such-compiler-here"))
    assert fused.cxx_compiler() is None
    if shutil.which("g++"):
        monkeypatch.setattr(inductor_config.cpp, "cxx", (None, "g++"))
        assert fused.cxx_compiler() == shutil.which("g++")
        assert fused.compile_problem("cpu") is None


def test_kernels_lists_the_ops_not_their_views():
    w, b = torch.randn(8, 4), torch.randn(8)
    names = fused.kernels(lambda x: torch.tanh(F.linear(x, w, b)) * 2, torch.randn(3, 4))
    assert names == ["addmm", "tanh", "mul"], names


def test_saved_bytes_counts_each_activation_once_and_no_weights():
    mlp = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16)).to(torch.bfloat16)
    x = torch.randn(5, 16, dtype=torch.bfloat16, requires_grad=True)
    kept, shapes = fused.saved_bytes(mlp, x, params=list(mlp.parameters()))
    assert kept == 5 * 18 * 16 and sorted(shapes) == [((5, 16), "torch.bfloat16"), ((5, 64), "torch.bfloat16"),
                                                      ((5, 64), "torch.bfloat16")]
    with_weights, _ = fused.saved_bytes(mlp, x)
    assert with_weights > kept


def test_silu_mul_recomputes_and_matches_autograd():
    g = torch.Generator().manual_seed(0)
    gate = torch.randn(4, 6, generator=g, dtype=torch.float64, requires_grad=True)
    up = torch.randn(4, 6, generator=g, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(fused.SiluMul.apply, (gate, up))
    kept, _ = fused.saved_bytes(lambda a, b: fused.SiluMul.apply(a, b), gate, up)
    assert kept == 2 * gate.numel() * 8   # gate and up, nothing computed


def test_the_triton_kernel_refuses_cpu_tensors():
    with pytest.raises(ValueError, match="CUDA"):
        fused.swiglu_triton(torch.ones(2, 3), torch.ones(2, 3))
