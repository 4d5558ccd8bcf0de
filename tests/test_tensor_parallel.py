"""The Megatron-split FFN: the per-worker math, and a real two-process run with torch.distributed."""

import socket

import pytest
import torch
import torch.nn.functional as F

from helpers import launch, tensor_parallel
from helpers.ffn import FFN


def split(ffn, n):
    """Shards of an FFN: W1 (c_fc) by columns, W2 (c_proj) by rows, b2 whole."""
    W1, b1 = ffn.c_fc.weight.detach().T, ffn.c_fc.bias.detach()
    W2, b2 = ffn.c_proj.weight.detach().T, ffn.c_proj.bias.detach()
    w = ffn.d_ff // n
    return [{"W1": W1[:, r * w:(r + 1) * w], "b1": b1[r * w:(r + 1) * w],
             "W2": W2[r * w:(r + 1) * w], "b2": b2} for r in range(n)]


@pytest.fixture
def small():
    torch.manual_seed(0)
    ffn = FFN(8, 32).double()
    x = torch.randn(5, 8, dtype=torch.float64)
    with torch.no_grad():
        return ffn, x, ffn(x)


def test_worker_forward_sums_to_the_ffn_in_one_process(small):
    ffn, x, reference = small
    shards = split(ffn, 4)
    partials = []

    def collect(partial):          # stands in for the all-reduce: remember, return the total later
        partials.append(partial)
        return partial

    outs = [tensor_parallel.worker_forward(x, s, collect) for s in shards]
    total = sum(partials) + shards[0]["b2"]
    torch.testing.assert_close(total, reference, rtol=0, atol=1e-12)
    # without the sum, each worker's output is wrong
    assert all((o - reference).abs().max() > 1e-3 for o in outs)


def test_real_two_process_run_equals_one_process(small):
    ffn, x, reference = small
    results = tensor_parallel.run(split(ffn, 2), x, backend="gloo")
    assert [r.rank for r in results] == [0, 1]
    for r in results:
        torch.testing.assert_close(r.output, reference, rtol=0, atol=1e-12)
        assert r.sent_bytes == [5 * 8 * 8]                 # T * d_model * float64
        assert r.n_params == (8 * 32 * 2 + 32) // 2 + 8   # half of W1, b1, W2; all of b2
        assert r.shard_shapes == {"W1": (8, 16), "b1": (16,), "W2": (16, 8), "b2": (8,)}


def test_a_failing_worker_raises_with_its_message(small):
    ffn, x, _ = small
    shards = split(ffn, 2)
    shards[1] = {**shards[1], "W1": shards[1]["W1"].float()}   # float32 shard, float64 x
    with pytest.raises(RuntimeError, match="worker 1 error"):
        tensor_parallel.run(shards, x, backend="gloo", timeout_s=120)


def test_bad_shards_are_refused_before_starting(small):
    ffn, x, _ = small
    shards = split(ffn, 2)
    with pytest.raises(ValueError, match=r"x must have shape \(T, 8\)"):
        tensor_parallel.run(shards, x[:, :4])
    with pytest.raises(ValueError, match=r"shards\[1\]\['W2'\] has shape \(32, 8\)"):
        tensor_parallel.run([shards[0], {**shards[1], "W2": shards[1]["W2"].repeat(2, 1)}], x)
    with pytest.raises(ValueError, match=r"shards\[0\] lacks \['b2'\]"):
        tensor_parallel.run([{k: v for k, v in shards[0].items() if k != "b2"}], x)
    with pytest.raises(ValueError, match="non-empty list"):
        tensor_parallel.run([], x)
    with pytest.raises(ValueError, match="unknown backend 'mpi'"):
        tensor_parallel.run(shards, x, backend="mpi")


def test_free_port_is_free_and_backend_is_gloo_on_cpu(monkeypatch):
    port = launch.free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))       # would raise if something held it
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    assert launch.pick_backend(2) == "gloo"



def test_ring_bytes():
    assert tensor_parallel.ring_bytes(49_152, 1) == 0
    assert tensor_parallel.ring_bytes(49_152, 2) == 49_152            # 48 KiB
    assert tensor_parallel.ring_bytes(49_152, 4) == 73_728            # 72 KiB
    with pytest.raises(ValueError, match="n_workers"):
        tensor_parallel.ring_bytes(8, 0)


def test_split_gated_sums_to_the_gated_mlp_in_one_process():
    from helpers.gated import GatedMLP

    torch.manual_seed(0)
    mlp = GatedMLP(8, 24).double()
    x = torch.randn(3, 8, dtype=torch.float64)
    shards = tensor_parallel.split_gated(mlp, 3)
    assert [tuple(s["W_gate"].shape) for s in shards] == [(8, 8)] * 3
    assert tuple(shards[0]["W_down"].shape) == (8, 8)
    partials = []
    for s in shards:
        tensor_parallel.gated_worker_forward(x, s, lambda p: partials.append(p) or p)
    with torch.no_grad():
        torch.testing.assert_close(sum(partials), mlp(x), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="must divide d_ff = 24"):
        tensor_parallel.split_gated(mlp, 5)


def test_a_function_without_a_module_runs_from_its_source(small):
    ffn, x, reference = small

    def doubled(x, shard, all_reduce):           # defined here: a child cannot import it
        h = F.gelu(x @ shard["W1"] + shard["b1"])
        return 2 * (all_reduce(h @ shard["W2"]) + shard["b2"])

    assert "source" in tensor_parallel.portable(doubled)
    spec = tensor_parallel.portable(tensor_parallel.worker_forward)
    assert spec["module"] == "helpers.tensor_parallel" and spec["name"] == "worker_forward"
    assert spec["file"] == tensor_parallel.__file__      # for a worker that cannot import it by name
    results = tensor_parallel.run(split(ffn, 2), x, forward=doubled)
    torch.testing.assert_close(results[1].output, 2 * reference, rtol=0, atol=1e-12)
    with pytest.raises(TypeError, match="must be written with def"):
        tensor_parallel.run(split(ffn, 2), x, forward=lambda x, s, r: x)
    with pytest.raises(ValueError, match=r"shards\[0\]\['W1'\] must be a tensor"):
        tensor_parallel.run([{"W1": 1.0}], x, forward=doubled)


def test_what_a_worker_writes_to_stderr_comes_back_as_a_warning(small):
    ffn, x, _ = small

    def noisy(x, shard, all_reduce):
        import sys

        print("careful", file=sys.stderr)
        return all_reduce(x)

    with pytest.warns(RuntimeWarning, match="worker 0 stderr ---\ncareful"):
        tensor_parallel.run(split(ffn, 2), x, forward=noisy)


def test_pytorchs_parallelize_module_does_the_same_split(small):
    ffn, x, reference = small
    results = tensor_parallel.run_parallelized(ffn, x, {"c_fc": "colwise", "c_proj": "rowwise"}, 2)
    for r in results:
        torch.testing.assert_close(r.output, reference, rtol=0, atol=1e-12)
        assert r.collectives == {"all_reduce": 1}
        assert r.sent_bytes == [5 * 8 * 8]                            # the same (T, d_model) buffer
        assert r.shard_shapes["c_fc.weight"] == (16, 8)               # nn.Linear (out, in): dim 0 split
        assert r.shard_shapes["c_proj.weight"] == (8, 16)             # dim 1 split
        assert r.shard_shapes["c_proj.bias"] == (8,)                  # whole on every worker
    with pytest.raises(ValueError, match="'colwise' or 'rowwise'"):
        tensor_parallel.run_parallelized(ffn, x, {"c_fc": "diagonal"}, 2)


def test_split_gated_refuses_a_module_of_the_wrong_kind():
    from helpers.gated import GatedMLP

    with pytest.raises(TypeError, match=r"mlp must be a helpers.gated.GatedMLP .*got FFN"):
        tensor_parallel.split_gated(FFN(8, 32), 2)
    with pytest.raises(ValueError, match="mlp must have no biases"):
        tensor_parallel.split_gated(GatedMLP(8, 24, bias=True), 2)
    with pytest.raises(ValueError, match="n_workers must be a positive integer"):
        tensor_parallel.split_gated(GatedMLP(8, 24), 0)


def test_the_engine_is_there_from_torch_2_5_and_said_missing_before(monkeypatch, small):
    major, minor = (int(p) for p in torch.__version__.split(".")[:2])
    assert (tensor_parallel.engine_missing() is None) == ((major, minor) >= (2, 5))
    import builtins

    real_import = builtins.__import__

    def old_torch(name, *args, **kwargs):   # as on torch 2.4 and older
        if name.startswith("torch.distributed.tensor"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", old_torch)
    said = tensor_parallel.engine_missing()
    assert said.endswith("is older than 2.5, the first to make torch.distributed.tensor public, "
                         "so this section is skipped.") and "\n" not in said
    ffn, x, _ = small
    with pytest.raises(RuntimeError, match="which run_parallelized needs"):
        tensor_parallel.run_parallelized(ffn, x, {"c_fc": "colwise"}, 2)


def test_the_peak_memory_clause_is_said_in_the_notebooks_language():
    from types import SimpleNamespace

    from helpers import language

    low, high = [SimpleNamespace(peak_memory=2e8)], [SimpleNamespace(peak_memory=7e8)]
    assert tensor_parallel.peak_memory_summary(low) == "each worker's memory peaked below 0.5 GB"
    before = language.current()
    try:
        language.use("ko")
        assert tensor_parallel.peak_memory_summary(low) == "워커마다 메모리 최대치가 0.5 GB 미만"
        assert tensor_parallel.peak_memory_summary(high).startswith("한 워커의 메모리 최대치가 0.70 GB로")
    finally:
        language.use(before)
