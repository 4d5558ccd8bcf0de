"""Run a Megatron-split FFN for real: N processes, torch.distributed, one all-reduce.

The notebook cuts the weights into shards (W1 by columns, W2 by rows); `run`
starts one process per shard, each loads only its own shard and computes
`worker_forward`, and the partial outputs are summed by an all-reduce. Worker
code lives here, in an importable module, because the "spawn" start method
pickles the function by its module name (a function defined in a notebook
cannot be found by a child).

A shard is a dict of float tensors in the math layout `x @ W1`:
    W1 (d_model, d_ff / N), b1 (d_ff / N,), W2 (d_ff / N, d_model), b2 (d_model,)
"""

import os
import socket
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

from helpers.device import pick_device

SHARD_KEYS = ("W1", "b1", "W2", "b2")
HOST = "127.0.0.1"


def worker_forward(x, shard, all_reduce):
    """One worker's share of the FFN. x: (T, d_model) -> (T, d_model), the full output."""
    h = F.gelu(x @ shard["W1"] + shard["b1"])   # (T, d_ff / N): only this worker's hidden units
    partial = h @ shard["W2"]                   # (T, d_model): this worker's part of the sum
    out = all_reduce(partial)                   # the one communication: sum over workers
    return out + shard["b2"]                    # b2 once, after the sum (not N times)


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
    n_params: int                 # numbers in this worker's shard
    shard_shapes: dict            # name -> shape of each tensor it holds
    sent_bytes: list              # bytes of each all-reduce, in order
    seconds: float                # wall time of the forward, all-reduce included


def free_port():
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def pick_backend(world_size):
    """'nccl' when the course runs on CUDA with one GPU per worker, else 'gloo' (CPU)."""
    if pick_device().type == "cuda" and torch.cuda.device_count() >= world_size:
        return "nccl"
    return "gloo"


def check_shards(shards, x):
    """Refuse shards that do not fit together or do not fit x (T, d_model)."""
    if not isinstance(shards, (list, tuple)) or not shards:
        raise ValueError(f"shards must be a non-empty list of dicts, got {type(shards).__name__}")
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


def _worker(rank, world_size, port, backend, outdir, timeout_s):
    """Entry point of each spawned process (rank 0 .. world_size-1)."""
    # Anything the process group prints (gloo, NCCL) goes to a file; the parent
    # shows it only when something failed.
    err = os.open(Path(outdir) / f"stderr{rank}.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(err, 2)
    try:
        torch.set_num_threads(1)
        os.environ.update(MASTER_ADDR=HOST, MASTER_PORT=str(port))
        dev = torch.device(f"cuda:{rank}") if backend == "nccl" else torch.device("cpu")
        if dev.type == "cuda":
            torch.cuda.set_device(dev)
        dist.init_process_group(backend, rank=rank, world_size=world_size,
                                timeout=timedelta(seconds=timeout_s))
        try:
            # Each process loads its own shard only: nothing else of the weights reaches it.
            shard = torch.load(Path(outdir) / f"shard{rank}.pt", map_location=dev)
            x = torch.load(Path(outdir) / "x.pt", map_location=dev)
            reduce = CountingAllReduce()
            start = time.perf_counter()
            out = worker_forward(x, shard, reduce)
            seconds = time.perf_counter() - start
            result = WorkerResult(
                rank=rank,
                output=out.cpu(),
                n_params=sum(v.numel() for v in shard.values()),
                shard_shapes={k: tuple(v.shape) for k, v in shard.items()},
                sent_bytes=reduce.sent_bytes,
                seconds=seconds,
            )
            torch.save(result, Path(outdir) / f"result{rank}.pt")
            dist.barrier()
        finally:
            dist.destroy_process_group()
    except Exception:
        with open(Path(outdir) / f"error{rank}.txt", "w") as f:
            f.write(traceback.format_exc())
        raise
    # The result is saved and the process group destroyed: leave now, skipping the
    # interpreter's teardown of torch, which takes seconds on a busy machine.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _report(outdir, world_size):
    """The worker error(s) and captured stderr, as one message."""
    parts = []
    for rank in range(world_size):
        for kind in ("error", "stderr"):
            path = Path(outdir) / f"{kind}{rank}.txt"
            if path.exists() and path.read_text().strip():
                parts.append(f"--- worker {rank} {kind} ---\n{path.read_text().strip()}")
    return "\n".join(parts) or "no worker left a message"


def run(shards, x, backend=None, timeout_s=300.0):
    """Run worker_forward in len(shards) processes; a list of WorkerResult, by rank.

    x: (T, d_model). Raises RuntimeError with the workers' messages if one fails
    or if they take longer than timeout_s seconds.
    """
    check_shards(shards, x)
    world_size = len(shards)
    backend = pick_backend(world_size) if backend is None else backend
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"unknown backend {backend!r}; choose 'gloo' or 'nccl'")
    with tempfile.TemporaryDirectory(prefix="tensor_parallel_") as outdir:
        for rank, shard in enumerate(shards):
            torch.save({k: v.detach().cpu().clone() for k, v in shard.items()},
                       Path(outdir) / f"shard{rank}.pt")
        torch.save(x.detach().cpu(), Path(outdir) / "x.pt")
        args = (world_size, free_port(), backend, outdir, timeout_s)
        context = mp.start_processes(_worker, args=args, nprocs=world_size, join=False,
                                     start_method="spawn")
        deadline = time.monotonic() + timeout_s
        try:
            while not context.join(timeout=0.05):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"workers did not finish within {timeout_s} s")
        except Exception as err:
            for process in context.processes:
                if process.is_alive():
                    process.terminate()
            raise RuntimeError(
                f"tensor-parallel run with {world_size} workers failed: "
                f"{type(err).__name__}\n{_report(outdir, world_size)}") from None
        return [torch.load(Path(outdir) / f"result{r}.pt", weights_only=False)
                for r in range(world_size)]
