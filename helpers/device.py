"""Which device runs the torch code: cuda, then mps, then cpu.

Set COURSE_DEVICE=cpu (or cuda, mps) to choose yourself.
"""

import os
import platform
from contextlib import contextmanager

import torch

from helpers.language import said

ENV_VAR = "COURSE_DEVICE"
KNOWN = ("cuda", "mps", "cpu")


def _available(name):
    if name == "cuda":
        return torch.cuda.is_available()
    if name == "mps":
        return getattr(torch.backends, "mps",
                       None) is not None and torch.backends.mps.is_available()
    return name == "cpu"


def _n_devices(name):
    """How many devices of a kind there are: cuda counts its GPUs; mps and cpu are one."""
    return torch.cuda.device_count() if name == "cuda" else 1


def _why_not(name):
    """Why a device is missing, in words: a CPU-only torch build has no CUDA at all."""
    if name == "cuda" and not torch.backends.cuda.is_built() and torch.version.hip is None:
        return f": this torch build has no CUDA (torch {torch.__version__} is CPU-only)"
    if name == "cuda":
        return ": torch has CUDA but finds no GPU (in Colab: Runtime > Change runtime type > GPU)"
    if name == "mps" and platform.system() != "Darwin":
        return ": mps is Apple's GPU, on macOS only"
    return ""


def _checked(wanted, source):
    """torch.device(wanted) if that device exists here; else an error naming who asked for it."""
    text = str(wanted)
    name, _, index = text.partition(":")
    if name not in KNOWN or (index and not index.isdigit()):
        raise ValueError(f"unknown {source} {wanted!r}; choose one of {list(KNOWN)}")
    asked = "was asked for" if source == "device" else f"was asked for by {ENV_VAR}"
    if not _available(name):
        fix = "" if source == "device" else f"; unset {ENV_VAR} or set it to one of {list(KNOWN)}"
        raise RuntimeError(
            f"device {text!r} {asked} but is not available here{_why_not(name)}{fix}")
    if index and int(index) >= _n_devices(name):
        raise ValueError(f"device {text!r} {asked} but there is no {name} device {index} "
                         f"({name} has {_n_devices(name)} here, numbered from 0)")
    return torch.device(text)


def pick_device(preferred=None):
    """torch.device to use: `preferred`, else $COURSE_DEVICE, else the best available."""
    if preferred is not None:
        return _checked(preferred, "device")
    if os.environ.get(ENV_VAR) is not None:
        return _checked(os.environ[ENV_VAR], ENV_VAR)
    for name in KNOWN:
        if _available(name):
            return torch.device(name)
    return torch.device("cpu")


def describe_device(device=None):
    """One line naming the device, e.g. 'cuda (NVIDIA H100, 80 GiB)' or 'cpu (x86_64, 8 threads)'
    (in the course's language, helpers.language)."""
    device = pick_device() if device is None else check_available(device)
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        return f"cuda ({props.name}, {props.total_memory / 2**30:.0f} GiB)"
    if device.type == "mps":
        return f"mps (Apple GPU, {platform.machine()})"
    return said("cpu ({machine}, {threads} threads)", machine=platform.machine(),
                threads=torch.get_num_threads())


def synchronize(device):
    """Wait for queued GPU work, so that a timer measures the work, not its launch."""
    if not isinstance(device, torch.device) or not _available(device.type):
        device = check_available(device)  # the course's message, not torch's AssertionError
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def gpu_or_none():
    """The GPU the course would use (cuda or mps), or None on a CPU-only run."""
    device = pick_device()
    return None if device.type == "cpu" else device


def half_dtype(device):
    """The 16-bit dtype a GPU runs fastest: bfloat16 from sm80 (A100) on, float16 before (T4)."""
    device = check_available(device)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.get_device_capability(device)[0] >= 8 else torch.float16
    if device.type == "mps":
        return torch.float16
    return torch.bfloat16


def check_available(device):
    """torch.device(device) when this machine has it; otherwise an error in the course's words."""
    return _checked(device, "device")


@contextmanager
def cpu_threads(n):
    """Run torch on n CPU threads inside the block, then put the count back (set only to change
    it)."""
    before = torch.get_num_threads()
    changed = n != before
    if changed:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if changed:
            torch.set_num_threads(before)
