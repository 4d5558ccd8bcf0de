"""Device choice, the one-line description, and the benchmark helper's bookkeeping."""

import re
import time

import pytest
import torch

from helpers import device, timing


def test_environment_variable_overrides(monkeypatch):
    monkeypatch.setenv(device.ENV_VAR, "cpu")
    assert device.pick_device() == torch.device("cpu")
    assert device.gpu_or_none() is None


def test_argument_beats_environment(monkeypatch):
    monkeypatch.setenv(device.ENV_VAR, "cuda" if not torch.cuda.is_available() else "cpu")
    assert device.pick_device("cpu") == torch.device("cpu")


def test_default_prefers_cuda_then_mps_then_cpu(monkeypatch):
    monkeypatch.delenv(device.ENV_VAR, raising=False)
    expected = "cuda" if torch.cuda.is_available() else (
        "mps" if torch.backends.mps.is_available() else "cpu")
    assert device.pick_device().type == expected


def test_description_is_one_line():
    line = device.describe_device("cpu")
    assert line.startswith("cpu (") and "\n" not in line and "threads" in line


def test_benchmark_times_a_short_call_in_blocks_of_many():
    calls = []
    result = timing.benchmark(lambda: calls.append(1), warmup=3, repeat=5, min_time=0.001)
    assert result.runs >= 1 and result.best <= result.median <= result.worst
    assert len(calls) > 1000, "a block repeats a short call until the clock's cost is negligible"
    assert result.best < 1e-5


def test_benchmark_times_a_long_call_once_per_block():
    calls = []
    result = timing.benchmark(lambda: (calls.append(1), time.sleep(0.002)), warmup=1, repeat=3)
    assert result.best >= 0.002, "a call sleeps for 2 ms at least"
    assert result.runs == 3, "exactly `repeat` blocks, however busy the machine"
    assert len(calls) == 1 + 1 + 3, "one warm-up call, one that sizes the block, one call per block"


class _FakeClock:
    """A clock that moves 0.1 ms for each call of step(): a machine with exact timings."""

    def __init__(self):
        self.ticks = 0

    def step(self):
        self.ticks += 1

    def __call__(self):
        return self.ticks * 1e-4


def test_a_block_lasts_at_least_min_time(monkeypatch):
    clock = _FakeClock()
    monkeypatch.setattr(timing, "_clock", lambda device: clock)
    result = timing.benchmark(clock.step, warmup=0, repeat=4, min_time=0.002)
    assert result.runs == 4 and result.best == pytest.approx(1e-4) == result.worst
    number = timing._calls_per_block(clock.step, clock, 0.002)
    assert 20 <= number <= 30, f"2 ms of 0.1 ms calls is 20 calls, plus at most a fifth; got {number}"
    assert timing._calls_per_block(clock.step, clock, 1e-5) == 1, "one call when one call lasts long enough"


def test_benchmark_restores_the_thread_count():
    before = torch.get_num_threads()
    seen = []
    timing.benchmark(lambda: seen.append(torch.get_num_threads()), warmup=0, repeat=1, threads=1)
    assert set(seen[1:]) == {1}, "the timed calls ran on one thread"
    assert torch.get_num_threads() == before


def test_benchmark_leaves_the_thread_count_alone_unless_asked_to_change_it(monkeypatch):
    set_to = []
    real = torch.set_num_threads
    monkeypatch.setattr(torch, "set_num_threads", lambda n: (set_to.append(n), real(n)))
    current = torch.get_num_threads()
    timing.benchmark(lambda: None, warmup=0, repeat=2)
    timing.benchmark(lambda: None, warmup=0, repeat=2, threads=current)
    assert set_to == [], "the thread count was set again to the number it had"
    timing.benchmark(lambda: None, warmup=0, repeat=2, threads=current + 1)
    assert set_to == [current + 1, current], "set for the timing, then put back"


def test_fastest_interleaves_and_keeps_the_best():
    order = []
    best = timing.fastest({"slow": lambda: (order.append("slow"), time.sleep(0.003)),
                           "quick": lambda: order.append("quick")}, rounds=2, warmup=0)
    assert best["quick"] < best["slow"] and best["slow"] >= 0.003, "the slow one sleeps 3 ms a call"
    assert "quick" in order[: order.index("slow") + 50] and order[-1] == "slow"


@pytest.mark.parametrize("kwargs, message", [
    ({"warmup": "x"}, "warmup must be a whole number >= 0, got 'x'"),
    ({"warmup": -1}, "warmup must be a whole number >= 0, got -1"),
    ({"repeat": 0}, "repeat must be a positive integer, got 0"),
    ({"min_time": -0.5}, "min_time must be a finite number >= 0, got -0.5"),
    ({"threads": 0}, "threads must be a positive integer, got 0"),
    ({"device": "cpu:7"}, "there is no cpu device 7"),
    ({"device": "tpu"}, "unknown device 'tpu'"),
])
def test_benchmark_refuses_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        timing.benchmark(lambda: None, **kwargs)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_benchmark_on_a_missing_gpu_says_so():
    with pytest.raises(RuntimeError, match="'cuda' was asked for but is not available here"):
        timing.benchmark(lambda: None, device="cuda")
    with pytest.raises(ValueError, match="at least one function"):
        timing.fastest({})


@pytest.mark.parametrize("seconds, text", [(2.5, "2.50 s"), (0.0123, "12.30 ms"), (4.56e-5, "45.6 us")])
def test_format_seconds(seconds, text):
    assert timing.format_seconds(seconds) == text


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_ffn_matches_cpu():
    from helpers.ffn import FFN

    torch.manual_seed(0)
    ffn = FFN(64)
    x = torch.randn(4, 64)
    torch.testing.assert_close(ffn.to("cuda")(x.to("cuda")).cpu(), ffn.cpu()(x), rtol=1e-4, atol=1e-4)
    assert device.describe_device("cuda").startswith("cuda (")
