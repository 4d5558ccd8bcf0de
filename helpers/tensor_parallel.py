"""Run a tensor-parallel MLP for real: N processes, torch.distributed, one all-reduce.

Notebook 10 cuts the weights into shards (W1 by columns, W2 by rows); `run`
starts one process per shard, each loads only its own shard and runs a worker
function (`worker_forward` by default, or yours), whose partial outputs are
summed by an all-reduce. `run_parallelized` does the same split with PyTorch's
own engine (`parallelize_module` with `ColwiseParallel` / `RowwiseParallel`),
the API used on real GPUs; it needs `torch.distributed.tensor`, public from torch 2.5
(`engine_missing()` says so in a sentence on an older torch).

`helpers.launch` starts the processes; a worker function written in a notebook cell
runs there from its source code, with `torch`, `F` and `nn` in scope.

A shard is a dict of tensors in the math layout `x @ W1`, for GPT-2's MLP:
    W1 (d_model, d_ff / N), b1 (d_ff / N,), W2 (d_ff / N, d_model), b2 (d_model,)
and for Llama's gated MLP (no biases):
    W_gate (d_model, d_ff / N), W_up (d_model, d_ff / N), W_down (d_ff / N, d_model)
"""

import copy
import time
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from helpers import validate
from helpers.language import said

# pick_backend for notebook 10
from helpers.launch import launch, load_portable, peak_memory_bytes, pick_backend, portable  # noqa

SHARD_KEYS = ("W1", "b1", "W2", "b2")
GATED_KEYS = ("W_gate", "W_up", "W_down")


def worker_forward(x, shard, all_reduce):
    """One worker's share of GPT-2's MLP. x: (T, d_model) -> (T, d_model), the full output."""
    h = F.gelu(x @ shard["W1"] + shard["b1"])   # (T, d_ff / N): only this worker's hidden units
    partial = h @ shard["W2"]                   # (T, d_model): this worker's part of the sum
    out = all_reduce(partial)                   # the one communication: sum over workers
    return out + shard["b2"]                    # b2 once, after the sum (not N times)


def split_gated(mlp, n_workers):
    """Shards of a helpers.gated.GatedMLP: gate and up by columns, down by rows (math layout)."""
    # Imported here, not above: workers import this module, and helpers.gated loads scipy.
    from helpers.gated import GatedMLP

    if not isinstance(mlp, GatedMLP):
        raise TypeError(f"mlp must be a helpers.gated.GatedMLP (gate_proj, up_proj, down_proj), "
                        f"got {type(mlp).__name__}")
    if any(m.bias is not None for m in (mlp.gate_proj, mlp.up_proj, mlp.down_proj)):
        raise ValueError("mlp must have no biases (Llama's MLP has none; these shards hold "
                         "weights only), got a GatedMLP built with bias=True")
    n_workers = validate.positive_int(n_workers, "n_workers")
    if mlp.d_ff % n_workers:
        raise ValueError(f"n_workers must divide d_ff = {mlp.d_ff}, got {n_workers}")
    w = mlp.d_ff // n_workers
    gate, up = mlp.gate_proj.weight.detach().T, mlp.up_proj.weight.detach().T   # (d_model, d_ff)
    down = mlp.down_proj.weight.detach().T                                        # (d_ff, d_model)
    return [{"W_gate": gate[:, r * w:(r + 1) * w], "W_up": up[:, r * w:(r + 1) * w],
             "W_down": down[r * w:(r + 1) * w, :]} for r in range(n_workers)]


def gated_worker_forward(x, shard, all_reduce):
    """One worker's share of Llama's MLP: SiLU(x W_gate) * (x W_up), its rows of W_down, one sum."""
    h = F.silu(x @ shard["W_gate"]) * (x @ shard["W_up"])   # (T, d_ff / N)
    return all_reduce(h @ shard["W_down"])                    # (T, d_model), summed over workers


def ring_bytes(n_bytes, n_workers):
    """Bytes one worker sends in a ring all-reduce of an n_bytes buffer: 2 (N - 1) / N * n_bytes.

    Reduce-scatter, then all-gather: N - 1 steps each, one chunk of n_bytes / N per step.
    """
    n_bytes = validate.non_negative_int(n_bytes, "n_bytes")
    n_workers = validate.positive_int(n_workers, "n_workers")
    return 2 * (n_workers - 1) * n_bytes / n_workers


class CountingAllReduce:
    """dist.all_reduce (sum) that records the bytes of every tensor it sends."""

    def __init__(self):
        self.sent_bytes = []

    def __call__(self, tensor):
        tensor = tensor.contiguous().clone()
        self.sent_bytes.append(tensor.numel() * tensor.element_size())
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
        return tensor


@dataclass
class WorkerResult:
    """What one worker reports: its output, what it holds and what it sent."""

    rank: int
    output: torch.Tensor          # (T, d_model) after the all-reduce
    n_params: int                 # numbers this worker holds
    shard_shapes: dict            # name -> shape of each tensor it holds
    sent_bytes: list              # bytes of each all-reduce, in order
    seconds: float                # wall time of the forward, all-reduce included
    collectives: dict = field(default_factory=dict)   # name -> count, e.g. {"all_reduce": 1}
    peak_memory: int | None = None                     # the process's peak resident bytes


def peak_memory_summary(results, expected_below=0.5e9):
    """A clause on the workers' peak memory, measured against what the text expects (bytes), in the
    course's language (helpers.language)."""
    validate.positive_number(expected_below, "expected_below")
    if not isinstance(results, (list, tuple)):
        raise TypeError("results must be a list of the workers' results (from run), got "
                        f"{type(results).__name__}")
    peaks = [r.peak_memory for r in results]
    if any(p is None for p in peaks):
        return said("this system does not report a process's peak memory")
    if max(peaks) <= expected_below:
        return said("each worker's memory peaked below {limit:.1f} GB", limit=expected_below / 1e9)
    return said("a worker's memory peaked at {peak:.2f} GB, above the {limit:.1f} GB the text "
                "expects (a torch built for CUDA loads more)", peak=max(peaks) / 1e9,
                limit=expected_below / 1e9)


def check_shards(shards, x):
    """Refuse GPT-2 shards that do not fit together or do not fit x (T, d_model)."""
    check_shard_list(shards)
    for rank, shard in enumerate(shards):
        missing = [k for k in SHARD_KEYS if k not in shard]
        if missing:
            raise ValueError(f"shards[{rank}] lacks {missing}; a shard holds {list(SHARD_KEYS)}")
        d_model, width = shard["W1"].shape
        if x.ndim != 2 or x.shape[1] != d_model:
            raise ValueError(
                f"x must have shape (T, {d_model}) to match shards[{rank}]['W1'], "
                f"got {tuple(x.shape)}")
        expected = {"b1": (width,), "W2": (width, d_model), "b2": (d_model,)}
        for key, shape in expected.items():
            if tuple(shard[key].shape) != shape:
                raise ValueError(
                    f"shards[{rank}]['{key}'] has shape {tuple(shard[key].shape)}; expected "
                    f"{shape} to match its W1 of shape {tuple(shard['W1'].shape)}")


def check_shard_list(shards):
    """Refuse anything but a non-empty list of dicts of tensors."""
    if not isinstance(shards, (list, tuple)) or not shards:
        raise ValueError(f"shards must be a non-empty list of dicts, got {type(shards).__name__}")
    for rank, shard in enumerate(shards):
        if not isinstance(shard, dict) or not shard:
            raise ValueError(
                f"shards[{rank}] must be a dict of tensors, got {type(shard).__name__}")
        for key, value in shard.items():
            if not isinstance(value, torch.Tensor):
                raise ValueError(f"shards[{rank}]['{key}'] must be a tensor, got "
                                 f"{type(value).__name__}")


def _result(rank, out, held, sent_bytes, collectives, seconds):
    return WorkerResult(rank=rank, output=out.detach().cpu(),
                        n_params=sum(v.numel() for v in held.values()),
                        shard_shapes={k: tuple(v.shape) for k, v in held.items()},
                        sent_bytes=sent_bytes, seconds=seconds, collectives=collectives,
                        peak_memory=peak_memory_bytes())


def _shards_task(rank, world_size, payload, dev):
    """In each worker: its forward function on its own shard, with a counting all-reduce."""
    shard = {k: v.to(dev) for k, v in payload["shard"].items()}
    forward = load_portable(payload["forward"])
    reduce = CountingAllReduce()
    start = time.perf_counter()
    out = forward(payload["x"].to(dev), shard, reduce)
    seconds = time.perf_counter() - start
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"the worker function must return a tensor, got {type(out).__name__}")
    return _result(rank, out, shard, reduce.sent_bytes, {"all_reduce": len(reduce.sent_bytes)},
                   seconds)


def _parallelized_task(rank, world_size, payload, dev):
    """In each worker: PyTorch's parallelize_module on a device mesh, then the forward."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor.debug import CommDebugMode
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        RowwiseParallel,
        parallelize_module,
    )

    class Recorder(CommDebugMode):
        """CommDebugMode that also records the bytes of each all-reduce."""

        def __init__(self):
            super().__init__()
            self.sent_bytes = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = str(getattr(func, "_overloadpacket", func))
            if name.endswith("all_reduce") and DTensor not in types and args:
                self.sent_bytes.append(args[0].numel() * args[0].element_size())
            return super().__torch_dispatch__(func, types, args, kwargs)

    styles = {"colwise": ColwiseParallel, "rowwise": RowwiseParallel}
    mesh = init_device_mesh(dev.type, (world_size,))
    module = parallelize_module(payload["module"].to(dev), mesh,
                                {name: styles[style]() for name, style in payload["plan"].items()})
    start = time.perf_counter()
    with Recorder() as comm, torch.no_grad():
        out = module(payload["x"].to(dev))
    out = out.wait() if hasattr(out, "wait") else out   # an AsyncCollectiveTensor until waited on
    seconds = time.perf_counter() - start
    held = {name: p.to_local() if isinstance(p, DTensor) else p
            for name, p in module.named_parameters()}
    counts = {str(op).rsplit(".", 1)[-1]: n for op, n in comm.get_comm_counts().items()}
    return _result(rank, out, held, comm.sent_bytes, counts, seconds)


def run(shards, x, forward=None, backend=None, timeout_s=300.0):
    """Run forward(x, shard, all_reduce) in len(shards) processes; a list of WorkerResult, by rank.

    x: (T, d_model). forward: worker_forward (GPT-2's shards) unless given. Raises
    RuntimeError with the workers' messages if one fails or takes over timeout_s seconds.
    """
    if forward is None:
        check_shards(shards, x)
        forward = worker_forward
    else:
        check_shard_list(shards)
    spec, x = portable(forward), x.detach().cpu()
    payloads = [{"forward": spec, "x": x,
                 "shard": {k: v.detach().cpu().clone() for k, v in s.items()}}
                # each worker loads its own shard, and nothing else
                for s in shards]
    return launch(_shards_task, payloads, backend, timeout_s, allow=[WorkerResult])


def engine_missing():
    """None when this torch has PyTorch's tensor-parallel engine (public from 2.5), else a sentence
    why not."""
    try:   # what _parallelized_task imports
        from torch.distributed.tensor import DTensor  # noqa: F401
        from torch.distributed.tensor.debug import CommDebugMode  # noqa: F401
        from torch.distributed.tensor.parallel import parallelize_module  # noqa: F401
    except ImportError:
        return (f"This torch ({torch.__version__.split('+')[0]}) is older than 2.5, the first to "
                "make torch.distributed.tensor public, so this section is skipped.")
    return None


def run_parallelized(module, x, plan, n_workers, backend=None, timeout_s=300.0):
    """Split `module` with PyTorch's parallelize_module over n_workers processes and run it on x.

    plan: {submodule name: 'colwise' or 'rowwise'}, e.g. {'c_fc': 'colwise', 'c_proj': 'rowwise'}.
    Each WorkerResult holds the output, the local shards' shapes and the collectives run.
    """
    n_workers = validate.positive_int(n_workers, "n_workers")
    missing = engine_missing()
    if missing:
        raise RuntimeError(missing.replace("so this section is skipped",
                                           "which run_parallelized needs"))
    for name, style in plan.items():
        if style not in ("colwise", "rowwise"):
            raise ValueError(f"plan[{name!r}] must be 'colwise' or 'rowwise', got {style!r}")
        if not isinstance(module.get_submodule(name), nn.Linear):
            raise ValueError(f"plan names {name!r}, which is not an nn.Linear of the module")
    payload = {"module": copy.deepcopy(module).cpu(), "plan": dict(plan), "x": x.detach().cpu()}
    # what the workers may rebuild
    modules = {type(m) for m in payload["module"].modules()}
    # one file, read by each
    return launch(_parallelized_task, [payload] * n_workers, backend, timeout_s,
                  allow=[WorkerResult, *sorted(modules, key=lambda c: c.__qualname__)])
