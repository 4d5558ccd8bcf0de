"""helpers.bench and tools/bench_all.py (`make bench`): the interleaved timer, the notebook rows,
and a smoke run that prints every row (no timing asserts)."""

import time
from pathlib import Path

import pytest
import torch

import bench_all
from helpers import bench, demos, timing


def test_interleaved_alternates_order_and_takes_one_sample_per_round(monkeypatch):
    calls, timed = [], []
    variants = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}

    def fake_benchmark(fn, **kwargs):
        fn()
        timed.append(calls[-1])
        return timing.Timing(1.0, 1.0, 1.0, 1)

    monkeypatch.setattr(bench, "benchmark", fake_benchmark)
    samples = bench.interleaved(variants, rounds=4)
    assert calls[:2] == ["a", "b"]  # every variant warmed up before any is timed
    assert timed == ["a", "b", "b", "a", "a", "b", "b", "a"]
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


def test_plain_ffn_matches_the_module():
    ffn = bench.FFN(16, 64)
    x = torch.randn(5, 16)
    torch.testing.assert_close(bench.plain_ffn(ffn)(x), ffn(x))
    torch.testing.assert_close(bench.unchecked_ffn(ffn)(x), ffn(x), rtol=0, atol=0)


def test_where_names_the_dtype_only_when_it_is_not_float32():
    assert bench.where("cpu", torch.float32) == "cpu"
    assert bench.where("cuda", torch.bfloat16) == "cuda, bfloat16"


def test_notebook_rows_report_time_failure_and_total():
    results = [(Path("01_a.ipynb"), 2.0, None), (Path("02_b.ipynb"), 99.0, None),
               (Path("03_c.ipynb"), 1.0, "AssertionError: largest difference 0.5")]
    rows = bench_all.notebook_rows(results)
    assert rows == [
        ("execute 01_a", "2.00 s", "< 60 s", "ok"),
        ("execute 02_b", "99.00 s", "< 60 s", "MISSED"),
        ("execute 03_c", "failed: AssertionError: largest difference 0.5", "< 60 s", "MISSED"),
        ("re-execute all notebooks (total)", "101.00 s", "report", ""),
    ]


def test_smoke_run_prints_every_row(capsys):
    bench_all.main(["--smoke"])
    lines = capsys.readouterr().out.splitlines()
    text = "\n".join(lines)
    assert text.startswith("Machine: ") and "torch " in lines[0]
    for T in (1, 64, 512):
        assert f"T={T} (cpu, one copy reused): helpers / torch.nn.functional" in text
    for T in (1, 64):
        assert f"T={T} (cpu): fused / separate gate, up" in text
    for what in ("decode FFN bandwidth / matvec bandwidth",
                 "decode FFN bandwidth / streaming read bandwidth",
                 "| re-execute all notebooks | skipped (--no-notebooks or --smoke) |"):
        assert what in text
    for name in demos.DEMOS:
        assert f"demo redraw {name}" in text
    printed = [line for line in lines if line.startswith("| ")]
    n_rows = int(lines[-1].split()[0])
    assert len(printed) == 1 + n_rows  # the header, then one line per row
    missed = [line.split(" | ")[0].removeprefix("| ") for line in printed if line.endswith("| MISSED |")]
    assert lines[-1] == (f"{n_rows} rows, {len(missed)} missed their target"
                         + "".join(f"{'; ' if i else ': '}{what}" for i, what in enumerate(missed)) + ".")


def test_last_level_cache_is_the_largest_size_the_system_reports(tmp_path):
    from helpers import bandwidth

    for index, size in (("index0", "48K"), ("index2", "2048K"), ("index3", "491520K"), ("index4", "n/a")):
        (tmp_path / index).mkdir()
        (tmp_path / index / "size").write_text(size + "\n")
    assert bandwidth.last_level_cache_bytes(tmp_path) == 480 * 2**20
    assert bandwidth.last_level_cache_bytes(tmp_path / "absent") is None   # not Linux: unknown


def test_decode_rows_cycle_copies_past_the_cache(monkeypatch):
    """The decode row reads twice the last-level cache (256 MiB at least), a copy a call."""
    from helpers import bandwidth

    monkeypatch.setattr(bandwidth, "last_level_cache_bytes", lambda: 480 * 2**20)
    assert bench.decode_bytes() == 960 * 2**20
    monkeypatch.setattr(bandwidth, "last_level_cache_bytes", lambda: None)
    assert bench.decode_bytes() == 256 * 2**20
    assert bench.decode_bytes(smoke=True) == 0
    one_copy = 2 * 8 * 32 * 4
    rows = bench.decode_rows(8, 32, rounds=2, min_time=0.0, device="cpu", weight_bytes=3 * one_copy - 1)
    assert "3 copies cycled" in rows[0][0], rows[0]
    verdicts = {what: verdict for what, _, _, verdict in rows}
    assert verdicts["decode FFN, weights from memory: helpers / torch.nn.functional (time)"] in ("ok", "MISSED")
    assert verdicts["decode FFN bandwidth / matvec bandwidth"] in ("ok", "MISSED")


def test_write_puts_the_run_between_the_markers_and_keeps_the_rest(tmp_path):
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(f"# Benchmarks\n\n{bench_all.BEGIN}\nthe old table\n{bench_all.END}\n\n## After\n")
    bench_all.write_section(doc, ["Machine: x", "", "| a | b |"], "python tools/bench_all.py --write d")
    text = doc.read_text()
    assert "the old table" not in text and "| a | b |" in text and "Machine: x" in text
    assert text.startswith("# Benchmarks\n") and text.endswith(f"{bench_all.END}\n\n## After\n")
    bench_all.write_section(doc, ["Machine: y"], "python tools/bench_all.py --write d")
    assert "Machine: x" not in doc.read_text() and doc.read_text().count(bench_all.BEGIN) == 1
    doc.write_text("# no markers\n")
    with pytest.raises(ValueError, match="must hold the line"):
        bench_all.write_section(doc, ["Machine: y"], "python tools/bench_all.py")
