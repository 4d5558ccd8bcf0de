"""helpers.bench: the interleaved timer and a smoke run that prints every row (no timing asserts)."""

import time

import torch

from helpers import bench, demos


def test_interleaved_alternates_order_and_takes_one_sample_per_round():
    calls = []
    variants = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    samples = bench.interleaved(variants, rounds=4)
    assert calls == ["a", "b"] + ["a", "b", "b", "a", "a", "b", "b", "a"]  # warm-up, then rounds
    assert [len(s) for s in samples.values()] == [4, 4]


def test_compare_returns_medians_and_the_paired_ratio():
    def slow():
        time.sleep(0.004)

    def fast():
        time.sleep(0.001)

    medians, ratios = bench.compare({"slow": slow, "fast": fast}, rounds=5)
    assert set(medians) == {"slow", "fast"} and all(m > 0 for m in medians.values())
    assert len(ratios) == 5 and ratios == sorted(ratios)
    assert medians["slow"] >= 0.004  # sleeping never takes less than asked


def test_spread_gives_the_median_and_quartiles():
    assert bench.spread([1.0, 2.0, 3.0]) == "2.000"
    assert bench.spread([1.0, 1.0, 2.0, 2.0, 3.0]) == "2.000 (quartiles 1.000-2.500)"


def test_fused_gate_up_computes_the_same_mlp():
    torch.manual_seed(0)
    mlp = bench.gated.GatedMLP(16, 48)
    x = torch.randn(3, 16)
    torch.testing.assert_close(bench.fused_gate_up(mlp)(x), mlp(x))


def test_plain_ffn_matches_the_module():
    ffn = bench.FFN(16, 64)
    x = torch.randn(5, 16)
    torch.testing.assert_close(bench.plain_ffn(ffn)(x), ffn(x))


def test_smoke_run_prints_every_row():
    lines = []
    rows = bench.run(smoke=True, out=lines.append)
    text = "\n".join(lines)
    assert text.startswith("Machine: ") and "torch " in lines[0]
    for T in (1, 64, 512):
        assert f"T={T} (cpu): helpers / torch.nn.functional" in text
    for T in (1, 64):
        assert f"T={T} (cpu): fused / separate gate, up" in text
    for what in ("decode FFN bandwidth / matvec bandwidth",
                 "decode FFN bandwidth / streaming read bandwidth",
                 "re-execute all notebooks"):
        assert what in text
    for name in demos.DEMOS:
        assert f"demo redraw {name}" in text
    printed = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(printed) == 1 + len(rows)  # the header, then one line per row
    assert f"{len(rows)} rows" in lines[-1]
