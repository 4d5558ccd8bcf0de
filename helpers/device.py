"""Which device runs the torch code: cuda, then mps, then cpu.

Set COURSE_DEVICE=cpu (or cuda, mps) to choose yourself.
"""

import os
import platform

import torch

ENV_VAR = "COURSE_DEVICE"
KNOWN = ("cuda", "mps", "cpu")


def _available(name):
    if name == "cuda":
        return torch.cuda.is_available()
    if name == "mps":
        return getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    return name == "cpu"


def pick_device(preferred=None):
    """torch.device to use: `preferred`, else $COURSE_DEVICE, else the best available."""
    wanted = preferred if preferred is not None else os.environ.get(ENV_VAR)
    if wanted is not None:
        name = str(wanted).split(":")[0]
        if name not in KNOWN:
            source = "device" if preferred is not None else ENV_VAR
            raise ValueError(f"unknown {source} {wanted!r}; choose one of {list(KNOWN)}")
        if not _available(name):
            raise RuntimeError(f"device {wanted!r} was asked for but is not available here")
        return torch.device(wanted)
    for name in KNOWN:
        if _available(name):
            return torch.device(name)
    return torch.device("cpu")


def describe_device(device=None):
    """One line naming the device, e.g. 'cuda (NVIDIA H100, 80 GiB)' or 'cpu (8 threads)'."""
    device = pick_device() if device is None else torch.device(device)
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        return f"cuda ({props.name}, {props.total_memory / 2**30:.0f} GiB)"
    if device.type == "mps":
        return f"mps (Apple GPU, {platform.machine()})"
    return f"cpu ({platform.machine()}, {torch.get_num_threads()} threads)"


def synchronize(device):
    """Wait for queued GPU work, so that a timer measures the work, not its launch."""
    device = torch.device(device)
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
    device = torch.device(device)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.get_device_capability(device)[0] >= 8 else torch.float16
    if device.type == "mps":
        return torch.float16
    return torch.bfloat16


def check_available(device, name="device"):
    """torch.device(device) when this machine has it; otherwise an error in the course's words."""
    try:
        device = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"{name} must be one of {list(KNOWN)}, got {device!r}") from err
    if device.type not in KNOWN:
        raise ValueError(f"{name} must be one of {list(KNOWN)}, got {str(device)!r}")
    if not _available(device.type):
        raise RuntimeError(f"{name} {str(device)!r} was asked for but this machine has no "
                           f"{device.type.upper()}; use 'cpu', or pick_device() for the best available")
    count = torch.cuda.device_count() if device.type == "cuda" else 1
    if device.index is not None and device.index >= count:
        raise ValueError(f"{name} {str(device)!r} does not exist: this machine has {count} "
                         f"{device.type} device(s), numbered from 0")
    return device
