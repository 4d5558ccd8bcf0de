"""Benchmarking: warm up, synchronise the GPU, report the median of several runs."""

import statistics
import time
from dataclasses import dataclass

from helpers import validate
from helpers.device import synchronize


@dataclass
class Timing:
    """Seconds per call: the median and the spread of `repeat` runs."""

    median: float
    best: float
    worst: float
    runs: int

    def per_second(self, amount):
        """amount / median: e.g. FLOPs -> FLOP/s."""
        return amount / self.median

    def __str__(self):
        return f"{format_seconds(self.median)} (median of {self.runs})"


def benchmark(fn, *, device="cpu", warmup=2, repeat=7, min_time=0.0):
    """Time fn() on device: `warmup` calls, then the median of `repeat` timed calls.

    With min_time > 0 each timed run repeats fn until it lasts at least min_time
    seconds, which steadies the timing of very short calls.
    """
    warmup = int(warmup)
    repeat = validate.positive_int(repeat, "repeat")
    for _ in range(warmup):
        fn()
    synchronize(device)
    samples = []
    for _ in range(repeat):
        calls = 0
        start = time.perf_counter()
        while True:
            fn()
            calls += 1
            synchronize(device)
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        samples.append(elapsed / calls)
    return Timing(statistics.median(samples), min(samples), max(samples), repeat)


def format_seconds(seconds):
    """A duration in the unit that reads best: 12.3 ms, 45.6 us, 1.23 s."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"
