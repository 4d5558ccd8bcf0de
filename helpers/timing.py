"""Timing code the way PyTorch's own torch.utils.benchmark.Timer does it.

A block of many calls runs between two clock reads, and a GPU is synchronised once
per block, so a kernel's launch latency is spread over the block instead of passing
for work; torch's thread count is fixed while it measures. Unlike the Timer's
blocked_autorange, which times blocks until a time budget is spent, `benchmark` always
times exactly `repeat` blocks, so a busy moment of the machine changes the times but
never how many there are. `fastest` times several variants in interleaved rounds and
keeps each one's fastest block, so one busy moment cannot flip which is faster.
"""

import math
import statistics
import time
from dataclasses import dataclass

import torch

from helpers import validate
from helpers.device import check_available, cpu_threads, synchronize


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


# A block lasts at least this long: the clock's own cost (well under a microsecond; a GPU
# synchronisation, some microseconds) is then under 1% of what a block measures.
BLOCK_SECONDS = 1e-3


def _block(fn, number, clock):
    """Seconds that `number` calls of fn() take, between two reads of clock."""
    start = clock()
    for _ in range(number):
        fn()
    return clock() - start


def _calls_per_block(fn, clock, block_seconds):
    """How many calls make a block of at least block_seconds: one call if one lasts that long."""
    number = 1
    seconds = _block(fn, number, clock)
    while seconds < block_seconds:  # grow the block, at most tenfold at a step
        number = min(number * 10, math.ceil(1.2 * number * block_seconds / max(seconds, 1e-9)))
        seconds = _block(fn, number, clock)
    return number


def benchmark(fn, *, device="cpu", warmup=2, repeat=7, min_time=0.0, threads=None):
    """Seconds per call of fn() on device: `warmup` calls, then exactly `repeat` timed blocks.

    Each block is as many calls as last at least max(min_time, 1 ms) (one call for anything
    longer), read off one clock synchronised with the device. threads: torch's CPU threads
    for all the calls (default: the current number), restored afterwards.
    """
    validate.function(fn, "fn")
    device = check_available(device)
    warmup = validate.non_negative_int(warmup, "warmup")
    repeat = validate.positive_int(repeat, "repeat")
    min_time = validate.non_negative_number(min_time, "min_time")
    threads = (torch.get_num_threads() if threads is None
               else validate.positive_int(threads, "threads"))
    clock = _clock(device)
    with cpu_threads(threads):
        for _ in range(warmup):
            fn()
        number = _calls_per_block(fn, clock, max(min_time, BLOCK_SECONDS))
        times = [_block(fn, number, clock) / number for _ in range(repeat)]
    return Timing(statistics.median(times), min(times), max(times), len(times))


def fastest(variants, *, rounds=5, device="cpu", warmup=2, min_time=0.0, threads=None):
    """{name: best seconds per call} for each fn in `variants`, timed in interleaved rounds.

    Round r times the variants in order, round r + 1 in reverse, so that a slow
    moment of the machine hits them alike; each keeps its fastest block.
    """
    if not hasattr(variants, "items"):
        raise TypeError(
            f"variants must be a dict {{name: function}}, got {type(variants).__name__}")
    if not variants:
        raise ValueError("variants must name at least one function, e.g. {'fused': f, 'separate': "
                         "g}")
    for name, fn in variants.items():
        validate.function(fn, f"variants[{name!r}]")
    rounds = validate.positive_int(rounds, "rounds")
    names = list(variants)
    for name in names:  # warm up every variant before any is timed
        benchmark(variants[name], device=device, warmup=warmup, repeat=1, min_time=0.0,
                  threads=threads)
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
