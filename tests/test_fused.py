"""helpers.fused: the byte counts, the compiler check (a missing compiler simulated), the profiler's
kernel list, the saved-tensor count and the recomputing SiluMul."""

import importlib.util
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


def test_the_compiler_is_found_where_inductor_looks():
    """Inductor's own config, set through its own patch(): monkeypatch's undo would hide the setting
    from every later compile in the process."""
    import torch._inductor.config as inductor_config

    with inductor_config.patch({"cpp.cxx": (None, "no-such-compiler-here")}):
        assert fused.cxx_compiler() is None
    if shutil.which("g++"):
        with inductor_config.patch({"cpp.cxx": (None, "g++")}):
            assert fused.cxx_compiler() == shutil.which("g++")
            assert fused.compile_problem("cpu") is None
    assert inductor_config.cpp.cxx, "the compiler setting is readable after the test"


@pytest.mark.skipif(fused.compile_problem() is not None, reason="torch.compile cannot build kernels here")
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")   # dynamo's import
def test_graphs_compiled_counts_a_recompile_and_not_a_reuse():
    def mlp(x, w1, w2):
        return F.linear(F.gelu(F.linear(x, w1)), w2)

    g = torch.Generator().manual_seed(0)
    w1, w2 = torch.randn(8, 4, generator=g), torch.randn(4, 8, generator=g)
    compiled = torch.compile(mlp, dynamic=True)
    before = fused.graphs_compiled()
    compiled(torch.randn(3, 4, generator=g), w1, w2)
    first = fused.graphs_compiled()
    compiled(torch.randn(5, 4, generator=g), w1, w2)          # another T: the same dynamic graph
    reused = fused.graphs_compiled()
    compiled(torch.randn(5, 4, generator=g).double(), w1.double(), w2.double())   # another dtype
    assert (first - before, reused - first, fused.graphs_compiled() - reused) == (1, 0, 1)


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


def _gpt2_mlp(x, c_fc_w, c_fc_b, c_proj_w, c_proj_b):
    return F.linear(F.gelu(F.linear(x, c_fc_w, c_fc_b), approximate="tanh"), c_proj_w, c_proj_b)


def _gpt2_weights(d_model=768, d_ff=3072, tokens=16):
    g = torch.Generator().manual_seed(17)
    weights = [0.02 * torch.randn(d_ff, d_model, generator=g), 0.02 * torch.randn(d_ff, generator=g),
               0.02 * torch.randn(d_model, d_ff, generator=g), 0.02 * torch.randn(d_model, generator=g)]
    return torch.randn(tokens, d_model, generator=g), weights


def test_rounding_bound_holds_float32_in_any_order_and_nothing_coarser():
    x, weights = _gpt2_weights()
    exact = _gpt2_mlp(x.double(), *(w.double() for w in weights))
    bound = fused.rounding_bound(x, *weights)
    assert bound.shape == exact.shape and bound.dtype == torch.float64
    eager = _gpt2_mlp(x, *weights)
    # the same sums in another order: the d_ff terms of the second matmul in 48 float32 partial sums
    a = F.gelu(F.linear(x, weights[0], weights[1]), approximate="tanh")
    chunked = sum(a[:, i:i + 64] @ weights[2][:, i:i + 64].T for i in range(0, 3072, 64)) + weights[3]
    for out in (eager, chunked):
        error = (out.double() - exact).abs()
        assert error.max() > 0 and (error <= bound).all()
    # bfloat16 rounds 65,536 times more coarsely than float32: outside the float32 bound
    coarse = _gpt2_mlp(x.bfloat16(), *(w.bfloat16() for w in weights)).double()
    assert ((coarse - exact).abs() > bound).any()
    # a kernel that gets one element wrong by a part in a hundred of the largest is caught
    wrong = eager.clone()
    wrong[3, 5] += 1e-2 * exact.abs().max().item()
    assert ((wrong.double() - exact).abs() > bound).sum() == 1


def test_rounding_bound_names_a_mismatched_weight():
    x, (c_fc_w, c_fc_b, c_proj_w, c_proj_b) = _gpt2_weights(d_model=8, d_ff=32, tokens=2)
    with pytest.raises(ValueError, match=r"c_fc_w should be \(d_ff, d_model\) with d_model = 8"):
        fused.rounding_bound(x, c_fc_w.T, c_fc_b, c_proj_w, c_proj_b)
    with pytest.raises(ValueError, match=r"c_proj_w should be \(d_model, d_ff\) with d_ff = 32"):
        fused.rounding_bound(x, c_fc_w, c_fc_b, c_proj_w.T, c_proj_b)
    with pytest.raises(TypeError, match="x must be a torch tensor"):
        fused.rounding_bound(x.numpy(), c_fc_w, c_fc_b, c_proj_w, c_proj_b)


COMPILE_AND_COMPARE = """
import torch, torch.nn.functional as F
from helpers import fused
def mlp(x, w1, b1, w2, b2):
    return F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2)
g = torch.Generator().manual_seed(0)
args = [torch.randn(64, 96, generator=g), torch.randn(384, 96, generator=g) / 10, torch.zeros(384),
        torch.randn(96, 384, generator=g) / 20, torch.zeros(96)]
with torch.no_grad():
    out = torch.compile(mlp, dynamic=True)(*args)
    print(float((out - mlp(*args)).abs().max()))
"""


@pytest.mark.skipif(fused.compile_problem() is not None, reason="torch.compile cannot build kernels here")
def test_a_process_limited_to_another_capability_does_not_reuse_the_cached_kernels(tmp_path):
    """Inductor's cache key leaves out ATEN_CPU_CAPABILITY: AVX-512 kernels reused under AVX2 gave
    wrong numbers (1.2 off on outputs of size 0.4). Two processes, one cache folder handed to both."""
    import os
    import subprocess
    import sys

    from course_paths import ROOT

    native = torch.backends.cpu.get_cpu_capability()
    lower = "avx2" if native.startswith("AVX512") else "default"
    if native == "DEFAULT":
        pytest.skip("this CPU has no vector capability to limit")
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    for capability in (None, lower):   # this process's capability, then a lower one
        run_env = env if capability is None else dict(env, ATEN_CPU_CAPABILITY=capability)
        ran = subprocess.run([sys.executable, "-c", COMPILE_AND_COMPARE], env=run_env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=600)
        assert ran.returncode == 0, ran.stderr[-2000:]
        assert float(ran.stdout.split()[-1]) < 1e-4, (capability, ran.stdout)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted({f"cpu-{native.lower()}", f"cpu-{lower}"})


def test_the_cache_folder_follows_the_capability(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cpu-avx2"))   # a folder inherited from a parent
    folder = fused.cache_per_capability()
    assert folder == str(tmp_path / f"cpu-{torch.backends.cpu.get_cpu_capability().lower()}")
    assert fused.cache_per_capability() == folder   # twice: the same folder, not one inside the other


TRITON_KERNEL_ON_CPU = """
import torch, torch.nn.functional as F
from helpers import fused
kernel = fused._triton_kernel()
g = torch.Generator().manual_seed(0)
for dtype, tolerance in ((torch.float32, 1e-6), (torch.bfloat16, 2 ** -7)):
    for n in (5, 1024, 3000):                      # under one block, one block, a ragged last block
        gate, up = (torch.randn(n, generator=g).to(dtype) for _ in range(2))
        out = torch.full_like(gate, float("nan"))
        kernel[(-(-n // 1024),)](gate, up, out, n, BLOCK=1024)
        want = F.silu(gate.float()) * up.float()
        assert torch.allclose(out.float(), want, rtol=tolerance, atol=tolerance), (dtype, n)
print("ok")
"""


@pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                    reason="Triton is not installed here (it comes with torch's CUDA builds)")
def test_the_triton_kernel_gives_silu_times_up_in_tritons_interpreter(tmp_path):
    """The GPU kernel's own code, run on the CPU by Triton's interpreter (TRITON_INTERPRET=1): every
    element of a ragged last block written, none past it, in float32 and in bfloat16."""
    import os
    import subprocess
    import sys

    from course_paths import ROOT

    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    ran = subprocess.run([sys.executable, "-c", TRITON_KERNEL_ON_CPU], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0 and ran.stdout.strip() == "ok", ran.stderr[-2000:]


def test_the_crossings_are_said_in_the_notebooks_language():
    from helpers import language

    assert fused.crossings("gelu", "eager") == ["c_fc writes h", "GELU reads h", "GELU writes a", "c_proj reads a"]
    before = language.current()
    try:
        language.use("ko")
        korean = fused.crossings("gated", "fused")
    finally:
        language.use(before)
    assert korean == ["gate_up + SiLU *가 p를 씀", "down_proj가 p를 읽음"]
    with pytest.raises(ValueError, match="how"):
        fused.crossings("gelu", "compiled")
