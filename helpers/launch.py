"""Start N worker processes joined by torch.distributed, and collect what each one returns.

    results = launch(task, payload, world_size)   # task(rank, world_size, payload, device) in each

Each worker is a fresh Python process (start method "spawn", which works the same on Linux,
macOS, Windows and in Colab) that joins a process group on 127.0.0.1 (backend gloo on CPU,
NCCL with one GPU per worker), loads the payload, runs `task` and saves what it returns.

"spawn" finds a function by its module and name. A function written in a notebook cell has
no module a child could import, so `portable` describes it by its source code instead, and
`load_portable` runs that source in the child with `torch`, `F` and `nn` in scope.
"""

import importlib
import inspect
import os
import socket
import tempfile
import textwrap
import time
import traceback
import warnings
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn

from helpers.device import pick_device

HOST = "127.0.0.1"


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


def portable(fn):
    """How a spawned child finds fn: {'module', 'name'} if importable, else {'source', 'name'}."""
    if not callable(fn) or getattr(fn, "__name__", "<lambda>") == "<lambda>":
        raise TypeError(f"the worker function must be written with def, got {fn!r}")
    module, name = getattr(fn, "__module__", None), fn.__name__
    if module not in (None, "__main__") and "<locals>" not in fn.__qualname__:
        return {"module": module, "name": name}
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as err:
        raise TypeError(f"the worker function must be written with def in a cell or a module; "
                        f"its source code is needed to run it in the workers ({err})") from None
    return {"source": source, "name": name}


def load_portable(spec):
    """The function `portable` described, in this process."""
    if "module" in spec:
        return getattr(importlib.import_module(spec["module"]), spec["name"])
    namespace = {"torch": torch, "F": F, "nn": nn}
    exec(compile(spec["source"], f"<{spec['name']}>", "exec"), namespace)  # noqa: S102 - the learner's own cell
    return namespace[spec["name"]]


def _worker(rank, world_size, port, backend, outdir, timeout_s, task):
    """Entry point of each spawned process (rank 0 .. world_size-1)."""
    # What the process writes to stderr goes to a file: the parent puts it into the
    # error when a worker fails, and repeats it as a warning when all succeed.
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
            payload = torch.load(Path(outdir) / "payload.pt", weights_only=False)
            torch.save(task(rank, world_size, payload, dev), Path(outdir) / f"result{rank}.pt")
            dist.barrier()
        finally:
            dist.destroy_process_group()
    except Exception:
        with open(Path(outdir) / f"error{rank}.txt", "w") as f:
            f.write(traceback.format_exc())
        raise
    # The result is saved and the process group destroyed: leave now, skipping the
    # interpreter's teardown of torch, which takes seconds on a busy machine.
    os._exit(0)


def _messages(outdir, world_size, kinds):
    """The workers' messages of the given kinds ('error', 'stderr'), one block each."""
    parts = []
    for rank in range(world_size):
        for kind in kinds:
            path = Path(outdir) / f"{kind}{rank}.txt"
            if path.exists() and path.read_text().strip():
                parts.append(f"--- worker {rank} {kind} ---\n{path.read_text().strip()}")
    return "\n".join(parts)


def launch(task, payload, world_size, backend=None, timeout_s=300.0):
    """task(rank, world_size, payload, device) in world_size processes; their results, by rank.

    task: a module-level function (spawn imports it by name). Raises RuntimeError with the
    workers' messages if one fails or they take longer than timeout_s seconds.
    """
    backend = pick_backend(world_size) if backend is None else backend
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"unknown backend {backend!r}; choose 'gloo' or 'nccl'")
    with tempfile.TemporaryDirectory(prefix="course_workers_") as outdir:
        torch.save(payload, Path(outdir) / "payload.pt")
        args = (world_size, free_port(), backend, outdir, timeout_s, task)
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
            said = _messages(outdir, world_size, ("error", "stderr")) or "no worker left a message"
            raise RuntimeError(f"run with {world_size} workers failed: {type(err).__name__}\n{said}") from None
        printed = _messages(outdir, world_size, ("stderr",))
        if printed:
            warnings.warn(f"the workers wrote to stderr:\n{printed}", RuntimeWarning, stacklevel=3)
        return [torch.load(Path(outdir) / f"result{r}.pt", weights_only=False) for r in range(world_size)]
