"""Timing code the way PyTorch's developers do, with torch.utils.benchmark.Timer.

The Timer runs blocks of many calls between two clock reads and synchronises a
GPU once per block, so a kernel's launch latency is spread over the block
instead of passing for work; it also fixes torch's thread count while it
measures. `benchmark` times one function; `fastest` times several variants in
interleaved rounds and keeps each one's fastest block, so one busy moment of
the machine cannot flip which is faster.
"""

import math
import statistics
import time
from dataclasses import dataclass

import torch
from torch.utils.benchmark import Timer

from helpers import validate
from helpers.device import check_available, synchronize


@dataclass
class Timing:
    """Seconds per call: the median, best and worst of `runs` blocks."""

    median: float
    best: float
    worst: float
    runs: int

    def per_second(self, amount):
        """amount / median: e.g. FLOPs -> FLOP/s."""
        return validate.non_negative_number(amount, "amount") / self.median

    def __str__(self):
        return f"{format_seconds(self.median)} (median of {self.runs})"


def _clock(device):
    """A clock that first waits for the device's queued work (cuda, mps); plain on a cpu."""
    if device.type == "cpu":
        return time.perf_counter

    def clock():
        synchronize(device)
        return time.perf_counter()

    return clock


def benchmark(fn, *, device="cpu", warmup=2, repeat=7, min_time=0.0, threads=None):
    """Seconds per call of fn() on device: `warmup` calls, then about `repeat` timed blocks.

    The Timer times for max(min_time, one call) * repeat seconds in all, in blocks of
    as many calls as make the clock's own cost negligible (one call for anything over
    a millisecond), each synchronised once. threads: torch's CPU threads while timing
    (default: the current number).
    """
    validate.function(fn, "fn")
    device = check_available(device)
    warmup = validate.non_negative_int(warmup, "warmup")
    repeat = validate.positive_int(repeat, "repeat")
    min_time = validate.non_negative_number(min_time, "min_time")
    threads = torch.get_num_threads() if threads is None else validate.positive_int(threads, "threads")
    for _ in range(warmup):
        fn()
    clock = _clock(device)
    start = clock()
    fn()
    one_call = max(clock() - start, 1e-9)
    timer = Timer(stmt="fn()", globals={"fn": fn}, timer=clock, num_threads=threads)
    measurement = timer.blocked_autorange(min_run_time=max(min_time, one_call) * repeat)
    times = measurement.times
    return Timing(statistics.median(times), min(times), max(times), len(times))


def fastest(variants, *, rounds=5, device="cpu", warmup=2, min_time=0.0, threads=None):
    """{name: best seconds per call} for each fn in `variants`, timed in interleaved rounds.

    Round r times the variants in order, round r + 1 in reverse, so that a slow
    moment of the machine hits them alike; each keeps its fastest block.
    """
    if not hasattr(variants, "items"):
        raise TypeError(f"variants must be a dict {{name: function}}, got {type(variants).__name__}")
    if not variants:
        raise ValueError("variants must name at least one function, e.g. {'fused': f, 'separate': g}")
    for name, fn in variants.items():
        validate.function(fn, f"variants[{name!r}]")
    rounds = validate.positive_int(rounds, "rounds")
    names = list(variants)
    for name in names:  # warm up every variant before any is timed
        benchmark(variants[name], device=device, warmup=warmup, repeat=1, min_time=0.0, threads=threads)
    best = dict.fromkeys(names, math.inf)
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            timing = benchmark(variants[name], device=device, warmup=0, repeat=1,
                               min_time=min_time, threads=threads)
            best[name] = min(best[name], timing.best)
    return best


def format_seconds(seconds):
    """A duration in the unit that reads best: 12.3 ms, 45.6 us, 1.23 s."""
    seconds = validate.non_negative_number(seconds, "seconds")
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"
