"""The benchmark's table: rows of (measurement, measured, target, verdict), printed as markdown.

    row("FFN T=1: helpers / torch", "1.012 (quartiles 0.99-1.03)", "<= 1.05", True)
    spread(ratios)      # the median ratio of paired rounds and its quartiles
    table(rows)         # the markdown table docs/BENCHMARKS.md holds
    machine()           # which machine produced it
"""

import os
import platform
import statistics

import torch

from helpers.device import gpu_or_none


def spread(ratios):
    """'1.012 (quartiles 0.991-1.030)': the median ratio and the middle half of the rounds."""
    median = statistics.median(ratios)
    if len(ratios) < 4:
        return f"{median:.3f}"
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    return f"{median:.3f} (quartiles {q1:.3f}-{q3:.3f})"


def row(what, measured, target="report", ok=None):
    """A table row; its verdict is "ok" or "MISSED" when ok is given, else empty."""
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    return (what, measured, target, verdict)


def machine():
    """CPU model, cores, threads and torch version: say which machine produced the table."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip()
                         for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    line = (f"{model}, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads, "
            f"torch {torch.__version__}, python {platform.python_version()}")
    if hasattr(os, "getloadavg"):   # a busy machine's times are not an idle one's
        line += f", load average {os.getloadavg()[0]:.2f} at the start"
    gpu = gpu_or_none()
    if gpu is not None and gpu.type == "cuda":
        line += f", GPU {torch.cuda.get_device_name(gpu)}"
    return line


def table(rows):
    lines = ["| measurement | measured | target | |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in r) + " |" for r in rows]
    return "\n".join(lines)
