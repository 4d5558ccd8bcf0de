"""Device choice, the one-line description, and the benchmark helper's bookkeeping."""

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


def test_benchmark_warms_up_and_repeats():
    calls = []
    result = timing.benchmark(lambda: calls.append(1), warmup=3, repeat=5)
    assert len(calls) == 8
    assert result.runs == 5 and result.best <= result.median <= result.worst


def test_min_time_repeats_short_calls():
    calls = []
    timing.benchmark(lambda: calls.append(1), warmup=0, repeat=2, min_time=0.002)
    assert len(calls) > 2


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
