"""Start N workers joined by torch.distributed, collect what each returns, leave nothing behind.

    results = launch(task, payloads)   # task(rank, world_size, payloads[rank],
                                       # device) in each worker

Each worker is a fresh Python process that joins a process group on 127.0.0.1 (backend gloo on
the CPU, NCCL with one GPU per worker), loads its own payload, runs `task` and saves what it
returns. Payloads and results go through files that `torch.load(weights_only=True)` reads, which
runs no code: tensors, numbers, strings, lists and dicts, and the classes a caller names in `allow`.
A function written in a notebook cell has no module a worker could import, so
`portable` describes it by its source code, and `load_portable` runs that source in the worker
with `torch`, `F` and `nn` in scope.

Ending cleanly matters as much as starting (helpers.workers does the parent's side). On a
timeout, an interrupt or a failed worker, the parent stops every worker's process group, reaps
each process, says in one sentence how each worker ended, and removes the run's folder. A worker
also ends when its parent dies: on Linux the system kills it (helpers.workers.die_with_parent),
elsewhere it quits when its stdin closes. The folder a killed kernel left behind is removed when the
next run starts.
"""

import importlib
import importlib.util
import inspect
import json
import os
import pickle
import re
import shutil
import site
import socket
import sys
import tempfile
import textwrap
import threading
import time
import traceback
import warnings
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from helpers import workers as _workers
from helpers.device import pick_device
from helpers.workers import WorkerError, remove_stale_runs, runs_dir  # noqa: F401 - this API

HOST = "127.0.0.1"
PARENT_GONE = _workers.PARENT_GONE     # the exit code of a worker whose parent went away
# The parent-death signal first, before the seconds of importing torch.
_CHILD = ("from helpers.workers import die_with_parent; die_with_parent(); "
          "from helpers.launch import _child_main; _child_main()")


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
    """How a worker finds fn: {'module', 'name', 'file'} if it lives in a module, else {'source',
    'name'}."""
    if not callable(fn) or getattr(fn, "__name__", "<lambda>") == "<lambda>":
        raise TypeError(f"the worker function must be written with def, got {fn!r}")
    module, name = getattr(fn, "__module__", None), fn.__name__
    if module not in (None, "__main__") and "<locals>" not in fn.__qualname__:
        return {"module": module, "name": name,
                "file": getattr(sys.modules.get(module), "__file__", None)}
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as err:
        raise TypeError(f"the worker function must be written with def in a cell or a module; "
                        f"its source code is needed to run it in the workers ({err})") from None
    return {"source": source, "name": name}


def load_portable(spec):
    """The function `portable` described, in this process."""
    if "module" in spec:
        try:
            module = importlib.import_module(spec["module"])
        # a module found where the parent looked (a test's folder, say)
        except ModuleNotFoundError:
            if not spec.get("file"):
                raise
            found = importlib.util.spec_from_file_location(spec["module"], spec["file"])
            module = importlib.util.module_from_spec(found)
            found.loader.exec_module(module)
        return getattr(module, spec["name"])
    namespace = {"torch": torch, "F": F, "nn": nn}
    # the learner's own cell
    exec(compile(spec["source"], f"<{spec['name']}>", "exec"), namespace)  # noqa: S102
    return namespace[spec["name"]]


def class_specs(classes):
    """How a worker imports each class that payloads or results may hold (`portable` for
    classes)."""
    specs = []
    for cls in dict.fromkeys(classes):
        if not isinstance(cls, type):
            raise TypeError(f"allow must list classes, got {cls!r}")
        if cls.__module__ in (None, "__main__") or "<locals>" in cls.__qualname__:
            raise TypeError(f"the class {cls.__qualname__} is defined in a notebook cell or a "
                            "function: the workers can only load classes from a module they can "
                            "import")
        specs.append({"module": cls.__module__, "name": cls.__qualname__,
                      "file": getattr(sys.modules.get(cls.__module__), "__file__", None)})
    return specs


def safe_load(path, classes, what="a payload"):
    """torch.load that runs no code (weights_only=True), allowing `classes` besides tensors and
    containers."""
    try:
        with torch.serialization.safe_globals(list(classes)):
            return torch.load(path, weights_only=True)
    except pickle.UnpicklingError as err:
        found = re.search(r"GLOBAL ([\w.]+)", str(err))
        name = found.group(1) if found else "an object"
        raise TypeError(f"{what} holds {name}, which the workers do not load: files between the "
                        "kernel and its workers hold tensors, numbers, strings, lists and dicts, "
                        "and the classes named in launch(..., allow=[...])") from None


def peak_memory_bytes():
    """This process's peak resident memory in bytes, or None where the system does not say."""
    # Linux: the high-water mark of this program alone (ru_maxrss would count the parent's too)
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import resource
    except ImportError:            # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024     # macOS counts bytes, others KiB


# ---- in each worker -------------------------------------------------------------------------

def _exit_when_parent_goes():
    """Block on stdin, a pipe from the parent; it closes when the parent dies, even by SIGKILL."""
    try:
        while sys.stdin.buffer.read(1 << 16):
            pass
    finally:
        os._exit(PARENT_GONE)


def _child_main():
    """A worker's entry point: join the group, run the task on its payload, save the result."""
    rank, world_size, port, backend, outdir, timeout_s, task, payload_files, allow = json.loads(
        sys.argv[1])
    threading.Thread(target=_exit_when_parent_goes, daemon=True).start()
    outdir = Path(outdir)
    try:
        torch.set_num_threads(1)
        dev = torch.device(f"cuda:{rank}") if backend == "nccl" else torch.device("cpu")
        if dev.type == "cuda":
            torch.cuda.set_device(dev)
        dist.init_process_group(backend, init_method=f"tcp://{HOST}:{port}", rank=rank,
                                world_size=world_size, timeout=timedelta(seconds=timeout_s))
        try:
            payload = safe_load(outdir / payload_files[rank],
                                [load_portable(spec) for spec in allow])
            result = load_portable(task)(rank, world_size, payload, dev)
            torch.save(result, outdir / f"result{rank}.tmp")
            # whole, or not there
            os.replace(outdir / f"result{rank}.tmp", outdir / f"result{rank}.pt")
            dist.barrier()
        finally:
            dist.destroy_process_group()
    except BaseException as err:   # SystemExit and KeyboardInterrupt too: say what happened
        if isinstance(err, SystemExit):
            code = err.code if isinstance(err.code, int) else (0 if err.code is None else 1)
            said = f"its function called sys.exit({err.code!r})"
        else:
            code, said = 1, (f"raised {type(err).__name__}: "
                             + (str(err).strip().splitlines() or [""])[0])
        (outdir / f"error{rank}.txt").write_text(f"{said}\n{traceback.format_exc()}")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    # Saved and disconnected: leave now, skipping the interpreter's teardown of torch (seconds).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# ---- in the parent --------------------------------------------------------------------------

def _start(rank, args, outdir):
    """Start worker `rank`: a fresh Python that runs _child_main with the parent's import path."""
    env = dict(os.environ, OMP_NUM_THREADS="1")   # one thread each: the workers share the cores
    # to tell, once it asked to die with us, that we still live
    env[_workers.PARENT_VAR] = str(os.getpid())
    # the folder that holds this helpers package
    root = str(Path(__file__).resolve().parent.parent)
    if root not in {str(Path(p).resolve())
                    for p in [*site.getsitepackages(), site.getusersitepackages()]}:
        # A checkout (or a notebook's folder): let the worker import this same helpers, first.
        env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
    command = [sys.executable, "-c", _CHILD, json.dumps([rank, *args])]
    return _workers.start(rank, command, outdir, env)


def _save_payloads(payloads, outdir, classes=()):
    """Write each worker's payload; one object given to several workers is written once. File names.

    Each file is read back here as the workers will read it, so that a payload they could not load
    is refused before any worker starts."""
    names, written = [], {}
    for rank, payload in enumerate(payloads):
        if id(payload) not in written:
            written[id(payload)] = f"payload{rank}.pt"
            torch.save(payload, outdir / written[id(payload)])
            safe_load(outdir / written[id(payload)], classes, f"payloads[{rank}]")
        names.append(written[id(payload)])
    return names


def launch(task, payloads, backend=None, timeout_s=300.0, allow=()):
    """task(rank, world_size, payloads[rank], device) in len(payloads) processes; results by rank.

    task: a module-level function (workers import it by name). allow: classes (from modules) that
    payloads and results may hold besides tensors, numbers, strings, lists and dicts. Raises
    WorkerError, one sentence on how each worker ended and then what they wrote, if one fails or
    they take over timeout_s seconds; on an interrupt, stops them and raises KeyboardInterrupt with
    that sentence.
    """
    if not isinstance(payloads, (list, tuple)) or not payloads:
        raise ValueError("payloads must be a non-empty list, one per worker, got "
                         f"{type(payloads).__name__}")
    backend = pick_backend(len(payloads)) if backend is None else backend
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"unknown backend {backend!r}; choose 'gloo' or 'nccl'")
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
        raise ValueError(f"timeout_s must be a number of seconds > 0, got {timeout_s!r}")
    world_size, task, classes = len(payloads), portable(task), list(allow)
    allowed = class_specs(classes)
    remove_stale_runs()
    outdir = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=runs_dir()))
    workers, ended = [], None
    try:
        args = [world_size, free_port(), backend, str(outdir), timeout_s, task,
                _save_payloads(payloads, outdir, classes), allowed]
        workers = [_start(rank, args, outdir) for rank in range(world_size)]
        deadline = time.monotonic() + timeout_s
        while ended is None:
            if _workers.poll(workers):
                ended = "failed" if any(w.failed() for w in workers) else "finished"
            elif any(w.failed() for w in workers):
                # the others usually fail at once too, and say more
                _workers.wait(workers, _workers.GRACE_S)
                ended = "failed"
            elif time.monotonic() > deadline:
                ended = f"timed out after {timeout_s:g} s"
            else:
                time.sleep(0.02)
    except KeyboardInterrupt:
        ended = "was interrupted"
    finally:
        _workers.stop(workers)
        try:
            if ended == "finished":
                results = [safe_load(outdir / f"result{r}.pt", classes, f"the result of worker {r}")
                           for r in range(world_size)]
                printed, said = (_workers.messages(workers, ("stdout",)),
                                 _workers.messages(workers, ("stderr",)))
            elif ended is not None:
                sentence, details = (_workers.report(workers, ended),
                                     _workers.messages(workers, ("error", "stderr")))
        finally:
            shutil.rmtree(outdir, ignore_errors=True)
    if ended == "was interrupted":
        raise KeyboardInterrupt(sentence) from None
    if ended != "finished":
        raise WorkerError(sentence, details, [w.process.pid for w in workers]) from None
    if printed:
        print(printed)
    if said:
        warnings.warn(f"the workers wrote to stderr:\n{said}", RuntimeWarning, stacklevel=3)
    return results
