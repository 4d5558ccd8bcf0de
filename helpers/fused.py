"""Fusing the MLP: the bytes between its two matmuls, a compiler's kernels, and what backward keeps.

    PASSES["gelu"]["eager"]               # how often the T x d_ff activation
                                          # crosses memory, unfused
    crossings("gelu", "eager")            # those crossings in words, in the notebook's language
    between_bytes(T, d_ff, 2, "gated", "eager")   # those bytes for T tokens in bfloat16
    compile_problem()                     # None, or one sentence: why torch.compile cannot run here
    graphs_compiled()                     # how many graphs torch.compile
                                          # has compiled in this process
    rounding_bound(x, *weights)           # how far float32 may put a GELU
                                          # MLP's output from the exact one
    kernels(fn, *args)                    # the kernels one call runs, as torch.profiler lists them
    saved_bytes(fn, *args, params=...)    # the activation bytes autograd keeps for backward
    swiglu_triton(gate, up)               # silu(gate) * up in one Triton kernel (a CUDA GPU only)
    cache_per_capability()                # torch.compile's cache, one folder
                                          # per CPU capability (on import)
"""

import math
import os
import shutil
import sys

import torch

from helpers import validate
from helpers.language import say, translate


def cache_per_capability():
    """Point torch.compile's cache at a folder of this process's CPU capability; the folder's path.

    Inductor caches the C++ it writes under a key that leaves out ATEN_CPU_CAPABILITY: kernels
    written for AVX-512 and reused by a process limited to AVX2 give wrong numbers (the other way
    round, a crash). A folder per capability keeps them apart. Run when this module is imported."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    base = os.environ.get("TORCHINDUCTOR_CACHE_DIR") or default_cache_dir()
    base = base.rstrip(os.sep)
    if os.path.basename(base).startswith("cpu-"):   # another capability's folder, inherited
        base = os.path.dirname(base)
    folder = os.path.join(base, f"cpu-{torch.backends.cpu.get_cpu_capability().lower()}")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = folder
    return folder


cache_per_capability()

# Each time the hidden activation (T x d_ff numbers) is written to or read from memory between
# the first matmul and the last, counted per kernel. "eager": one library kernel per op, as
# PyTorch runs nn.GELU / F.silu and `*`. "fused": the activation computed in the first matmul's
# epilogue (gate and up as one matmul for the gated MLP), written once and read by the second.
# Each crossing is a phrase a learner reads (`crossings` says it in the notebook's language).
PASSES = {
    "gelu": {"eager": {say("c_fc writes h"): 1, say("GELU reads h"): 1, say("GELU writes a"): 1,
                       say("c_proj reads a"): 1},
             "fused": {say("c_fc + GELU write a"): 1, say("c_proj reads a"): 1}},
    "gated": {"eager": {say("gate_proj writes g"): 1, say("up_proj writes u"): 1,
                        say("SiLU reads g"): 1,
                        say("SiLU writes s"): 1, say("* reads s"): 1, say("* reads u"): 1,
                        say("* writes p"): 1, say("down_proj reads p"): 1},
              "fused": {say("gate_up + SiLU * write p"): 1, say("down_proj reads p"): 1}},
}


def crossings(kind="gelu", how="eager"):
    """PASSES[kind][how]'s crossings in words, in the course's language: ['c_fc writes h', ...]."""
    validate.choice(kind, "kind", PASSES)
    validate.choice(how, "how", PASSES[kind])
    return [translate(crossing) for crossing in PASSES[kind][how]]


def weight_bytes(d_model, d_ff, bytes_per_element, kind="gelu"):
    """Bytes of the MLP's weight matrices (biases left out): 2 or 3 of d_model x d_ff."""
    validate.choice(kind, "kind", PASSES)
    matrices = 2 if kind == "gelu" else 3
    return matrices * validate.positive_int(d_model, "d_model") \
        * validate.positive_int(d_ff, "d_ff") \
        * validate.positive_int(bytes_per_element, "bytes_per_element")


def between_bytes(n_tokens, d_ff, bytes_per_element, kind="gelu", how="eager"):
    """Bytes the hidden activations move between the two matmuls for n_tokens (PASSES times T x
    d_ff)."""
    validate.choice(kind, "kind", PASSES)
    validate.choice(how, "how", PASSES[kind])
    passes = sum(PASSES[kind][how].values())
    return passes * validate.positive_int(n_tokens, "n_tokens") \
        * validate.positive_int(d_ff, "d_ff") \
        * validate.positive_int(bytes_per_element, "bytes_per_element")


def cxx_compiler():
    """The path of the C++ compiler inductor would call on a CPU, or None where there is none."""
    import torch._inductor.config as inductor_config  # imported here: it takes a moment

    for name in inductor_config.cpp.cxx:
        found = name and shutil.which(name)
        if found:
            return found
    return None


def compile_problem(device="cpu"):
    """None where torch.compile (inductor) can build kernels for device; else one sentence saying
    why not."""
    device = torch.device(device)
    if sys.version_info >= (3, 14) and not hasattr(torch, "_dynamo"):
        return "torch.compile does not support this Python yet, so the compiled runs are skipped."
    if device.type == "cuda":
        try:
            import triton  # noqa: F401 - inductor writes Triton kernels on a GPU
        except ImportError:
            return ("Triton is not installed, and inductor needs it on a GPU, so the compiled "
                    "runs are skipped.")
        return None
    if cxx_compiler() is None:
        return ("No C++ compiler was found (inductor writes C++ on a CPU and needs g++ or "
                "clang++), so the compiled runs are skipped and the rest of the notebook runs "
                "eagerly.")
    return None


def graphs_compiled():
    """How many graphs torch.compile has compiled in this process so far, by dynamo's own count: a
    call that leaves it unchanged ran kernels compiled before (a guard held); one that adds to it
    compiled again (a new shape it had specialised on, another dtype)."""
    from torch._dynamo.utils import counters  # imported here: it takes a moment

    return counters["stats"]["unique_graphs"]


# the largest |GELU'(h)|, 1.129 at h = sqrt(2) (the tanh form and the erf form alike)
GELU_SLOPE = 1.13
# rounding_bound's confidence: the bound fails with probability below 2 n exp(-LAMBDA^2 / 2)
LAMBDA = 10
# GELU's own rounding, in units of |h|: its dozen float32 operations, tanh's error included
GELU_ULPS = 16


def rounding_bound(x, c_fc_w, c_fc_b, c_proj_w, c_proj_b):
    """Elementwise, how far float32 may put gelu(x c_fc_w^T + c_fc_b) c_proj_w^T + c_proj_b from its
    exact value, whatever order a kernel sums in. Each n-term dot product (its bias included) is off
    by at most gamma(n) times the sum of its |terms|: Higham and Mary's probabilistic bound (2019),
    gamma(n) = exp(LAMBDA sqrt(n) u + n u^2 / (1 - u)) - 1, which holds when roundings are
    independent and mean zero but for a chance below 2 n exp(-LAMBDA^2 / 2) (1e-18 for n = 3,073),
    about sqrt(n) / LAMBDA times tighter than the worst case n u. The first matmul's error is
    carried through GELU's slope, GELU's own rounding added, and the d_ff errors that result, each
    from another sum, summed by the second matmul as independent ones (LAMBDA root-sum-squares).
    Computed in float64: any correct
    float32 kernel, eager or compiled, fused or not, stays within it; bfloat16 does not."""
    x, c_fc_w, c_fc_b, c_proj_w, c_proj_b = (validate.tensor(t, name).double() for t, name in (
        (x, "x"), (c_fc_w, "c_fc_w"), (c_fc_b, "c_fc_b"), (c_proj_w, "c_proj_w"),
        (c_proj_b, "c_proj_b")))
    if c_fc_w.ndim != 2 or c_fc_w.shape[1] != x.shape[-1]:
        raise ValueError(f"c_fc_w should be (d_ff, d_model) with d_model = {x.shape[-1]} (x's last "
                         f"dimension), got shape {tuple(c_fc_w.shape)}")
    if c_proj_w.ndim != 2 or c_proj_w.shape[1] != c_fc_w.shape[0]:
        raise ValueError(f"c_proj_w should be (d_model, d_ff) with d_ff = {c_fc_w.shape[0]} "
                         f"(c_fc_w's rows), got shape {tuple(c_proj_w.shape)}")
    u = torch.finfo(torch.float32).eps / 2

    def gamma(n):
        return math.expm1(LAMBDA * math.sqrt(n) * u + n * u * u / (1 - u))

    h = x @ c_fc_w.T + c_fc_b
    h_err = gamma(x.shape[-1] + 1) * (x.abs() @ c_fc_w.abs().T + c_fc_b.abs())
    a = torch.nn.functional.gelu(h, approximate="tanh")
    a_err = GELU_SLOPE * h_err + GELU_ULPS * u * (h.abs() + h_err)
    carried = LAMBDA * ((a_err ** 2) @ (c_proj_w ** 2).T).sqrt()   # d_ff independent errors, summed
    return gamma(c_fc_w.shape[0] + 1) \
        * ((a.abs() + a_err) @ c_proj_w.abs().T + c_proj_b.abs()) + carried


# Profiler entries that are not kernels: wrappers that call kernels, views that move no data,
# and the compiled region's own bookkeeping.
NOT_KERNELS = {"aten::linear", "aten::t", "aten::transpose", "aten::as_strided", "aten::expand",
               "aten::resolve_conj", "aten::view", "aten::reshape", "aten::_unsafe_view",
               "aten::empty",
               "aten::empty_strided", "aten::detach", "aten::alias", "aten::matmul",
               "aten::contiguous",
               "aten::result_type", "aten::to", "aten::_to_copy", "aten::lift_fresh",
               "aten::unsqueeze"}


def _is_kernel(name):
    if "cpp_fused" in name or name.startswith("triton_"):
        return True
    return name.startswith("aten::") and name not in NOT_KERNELS


def kernels(fn, *args):
    """The kernels one call fn(*args) runs on a CPU, in order, as torch.profiler lists them.

    An op inside another kernel (the bias copy inside addmm) is part of it, not listed apart.
    """
    validate.function(fn, "fn")
    # the profiler's start and stop lines off stderr
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    from torch.profiler import ProfilerActivity, profile

    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU]) as prof:
        fn(*args)
    names = []
    for event in prof.events():
        parent, inside = event.cpu_parent, False
        while parent is not None:
            inside = inside or _is_kernel(parent.name)
            parent = parent.cpu_parent
        if _is_kernel(event.name) and not inside:
            name = event.name
            names.append(name[name.index("cpp_fused"):] if "cpp_fused" in name
                         else name.removeprefix("aten::"))
    return names


def saved_bytes(fn, *args, params=()):
    """(bytes, [(shape, dtype name)]) of the tensors autograd keeps for backward in fn(*args).

    Counted with torch.autograd.graph.saved_tensors_hooks: each storage once, however many ops
    keep it; the storages of `params` (the weights) are left out, so what remains is activations.
    """
    validate.function(fn, "fn")
    weights = {p.untyped_storage().data_ptr() for p in params}
    kept = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            kept.setdefault(storage.data_ptr(),
                            (storage.nbytes(), tuple(tensor.shape), str(tensor.dtype)))
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*args)
    return (sum(n for n, _, _ in kept.values()),
            [(shape, dtype) for _, shape, dtype in kept.values()])


def swiglu_triton(gate, up):
    """silu(gate) * up in one Triton kernel on a CUDA GPU; gate, up: (T, d_ff), contiguous, same
    dtype."""
    if not (torch.is_tensor(gate) and torch.is_tensor(up) and gate.is_cuda
            and gate.shape == up.shape):
        raise ValueError("gate and up must be CUDA tensors of one shape, got "
                         f"{getattr(gate, 'shape', gate)} and {getattr(up, 'shape', up)}")
    kernel = _triton_kernel()
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    kernel[(-(-n // 1024),)](gate, up, out, n, BLOCK=1024)
    return out


_KERNEL = []


def _triton_kernel():
    """The kernel, built once (Triton is imported only here: it exists only beside a GPU)."""
    if not _KERNEL:
        import triton
        import triton.language as tl

        # BLOCK in capitals: Triton's style
        @triton.jit
        def silu_mul_kernel(gate_ptr, up_ptr, out_ptr, n, BLOCK: tl.constexpr):  # noqa: N803
            offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            inside = offsets < n
            g = tl.load(gate_ptr + offsets, mask=inside).to(tl.float32)   # sigmoid in float32
            u = tl.load(up_ptr + offsets, mask=inside).to(tl.float32)
            # read twice, written once
            p = g * tl.sigmoid(g) * u
            tl.store(out_ptr + offsets, p.to(out_ptr.dtype.element_ty), mask=inside)

        _KERNEL.append(silu_mul_kernel)
    return _KERNEL[0]


class SiluMul(torch.autograd.Function):
    """silu(gate) * up, keeping only gate and up for backward and recomputing silu(gate) there.

    The course's own version of the idea of Liger-Kernel's LigerSiLUMulFunction (whose Triton
    backward also writes the gradients into gate's and up's buffers; this one leaves them alone).
    """

    @staticmethod
    def forward(ctx, gate, up):
        ctx.save_for_backward(gate, up)
        return torch.nn.functional.silu(gate) * up

    @staticmethod
    def backward(ctx, grad_out):
        gate, up = ctx.saved_tensors
        # recomputed: nothing of size T x d_ff was kept for it
        sig = torch.sigmoid(gate)
        silu = gate * sig
        return grad_out * up * (sig + silu * (1 - sig)), grad_out * silu
