"""The course's benchmark: ratios a reader can trust, from one run.

    python -m helpers.bench                  # the CPU, then the GPU if there is one, and the demos
    python -m helpers.bench --smoke          # tiny sizes: checks that every row prints
    python -m helpers.bench --threads 1      # fix torch's thread count (a busy machine)

Compared variants run interleaved (A, B, B, A, ...) so that a slow moment of
the machine hits both; times are medians over rounds, and each ratio is the
median of the per-round ratios (the two samples of a round are moments apart).
It prints a markdown table; `make bench` adds the time to re-execute every
notebook (tools/bench_all.py), which gives the table in docs/BENCHMARKS.md.
"""

import argparse
import itertools
import statistics
from functools import partial

import torch
import torch.nn.functional as F

from helpers import bandwidth, gated
from helpers.bench_demos import demo_rows
from helpers.bench_table import machine, row, spread, table
from helpers.device import gpu_or_none, half_dtype
from helpers.ffn import FFN
from helpers.timing import benchmark, format_seconds

SIZES = {  # (d_model, d_ff) of the FFN, (d_model, d_ff) of the decode check, rounds, min_time
    "full": {"ffn": (768, 3072), "decode": (1024, 4096), "rounds": 21, "min_time": 0.05},
    "smoke": {"ffn": (32, 128), "decode": (64, 256), "rounds": 2, "min_time": 0.0},
}


def interleaved(variants, rounds, min_time=0.0, device="cpu"):
    """Seconds per call of each variant, one sample per round, timed in alternating order."""
    names = list(variants)
    samples = {name: [] for name in names}
    for fn in variants.values():
        fn()  # warm up every variant before any is timed
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            timing = benchmark(variants[name], device=device, warmup=0, repeat=1, min_time=min_time)
            samples[name].append(timing.median)
    return samples


def compare(variants, rounds, min_time=0.0, device="cpu"):
    """(median seconds of each variant, the per-round ratios first / second, sorted).

    Samples of the same round were taken moments apart, so their ratio cancels most of
    the machine's slow and fast phases; the median of the ratios drops the rounds a
    hiccup hit, and their quartiles show how much noise is left.
    """
    samples = interleaved(variants, rounds, min_time, device)
    first, second = (samples[name] for name in list(variants)[:2])
    ratios = sorted(a / b for a, b in zip(first, second, strict=True))
    return {name: statistics.median(s) for name, s in samples.items()}, ratios


def plain_ffn(ffn):
    """The same FFN written with torch.nn.functional only (the baseline)."""
    W1, b1 = ffn.c_fc.weight, ffn.c_fc.bias
    W2, b2 = ffn.c_proj.weight, ffn.c_proj.bias
    return lambda x: F.linear(F.gelu(F.linear(x, W1, b1)), W2, b2)


class _Unchecked(torch.nn.Module):
    """The FFN's own submodules called in the same order, with no input check around them."""

    def __init__(self, ffn):
        super().__init__()
        self.c_fc, self.act, self.c_proj = ffn.c_fc, ffn.act, ffn.c_proj

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


def unchecked_ffn(ffn):
    """The same FFN as nn.Modules with no input checks: helpers' FFN against it is what the checks
    cost (against plain_ffn it is also what calling nn.Modules costs, which hooks need)."""
    return _Unchecked(ffn)


def where(device, dtype):
    """A row's device and dtype: 'cpu' for float32, else e.g. 'cuda, bfloat16'."""
    name = str(torch.device(device))
    return name if dtype == torch.float32 else f"{name}, {str(dtype).removeprefix('torch.')}"


@torch.no_grad()
def ffn_rows(d_model, d_ff, rounds, min_time, device, dtype=torch.float32):
    ffn = FFN(d_model, d_ff).to(device=device, dtype=dtype).eval()
    plain = plain_ffn(ffn)
    at = where(device, dtype)
    rows = []
    for T in (1, 64, 512):
        x = torch.randn(T, d_model, device=device, dtype=dtype)
        t, ratios = compare({"helpers": partial(ffn, x), "plain": partial(plain, x)},
                            rounds, min_time, device)
        rows.append(row(f"FFN {d_model}->{d_ff} T={T} ({at}, one copy reused): helpers / "
                        "torch.nn.functional",
                        f"{spread(ratios)}; {format_seconds(t['helpers'])} vs "
                        f"{format_seconds(t['plain'])}",
                        "<= 1.05", statistics.median(ratios) <= 1.05))
    unchecked = unchecked_ffn(ffn)
    for T in (1, 512):
        x = torch.randn(T, d_model, device=device, dtype=dtype)
        _, ratios = compare({"helpers": partial(ffn, x), "unchecked": partial(unchecked, x)},
                            rounds, min_time, device)
        rows.append(row(f"FFN T={T} ({at}): helpers / the same nn.Modules unchecked "
                        "(the input checks' cost)",
                        spread(ratios), "<= 1.02", statistics.median(ratios) <= 1.02))
    # The same function against itself: how far from 1.000 this machine's noise moves a ratio.
    _, control = compare({"a": partial(plain, x), "b": partial(plain, x)}, rounds, min_time, device)
    rows.append(row(f"control: plain FFN T=512 ({at}) / itself (the noise floor)",
                    spread(control), "1.000"))
    return rows


@torch.no_grad()
def fused_rows(d_model, rounds, min_time, device, dtype=torch.float32):
    torch.manual_seed(0)
    mlp = gated.GatedMLP(d_model, gated.llama_d_ff(d_model)).to(device=device, dtype=dtype).eval()
    fused = gated.fuse_gate_up(mlp)  # gate_proj and up_proj as one matrix: one GEMM
    at = where(device, dtype)
    rows = []
    for T in (1, 64):
        x = torch.randn(T, d_model, device=device, dtype=dtype)
        torch.testing.assert_close(fused(x), mlp(x), rtol=1e-2, atol=1e-3)
        t, ratios = compare({"fused": partial(fused, x), "separate": partial(mlp, x)},
                            rounds, min_time, device)
        ratio = statistics.median(ratios)
        on_cpu = torch.device(device).type == "cpu"
        rows.append(row(f"SwiGLU {d_model}->{mlp.d_ff} T={T} ({at}): fused / separate gate, up",
                        f"{spread(ratios)}; {format_seconds(t['fused'])} vs "
                        f"{format_seconds(t['separate'])}",
                        "<= 1.02" if on_cpu else "report", ratio <= 1.02 if on_cpu else None))
    return rows


def decode_bytes(smoke=False):
    """Weight bytes a decode row cycles through: twice the largest cache, 256 MiB at least."""
    if smoke:
        return 0   # one copy: the smoke run only checks that the rows print
    return 2 * max(bandwidth.last_level_cache_bytes() or 0, 128 * 2**20)


@torch.no_grad()
def decode_rows(d_model, d_ff, rounds, min_time, device, dtype=torch.float32, weight_bytes=0):
    """Decode (T=1) FFN weight bytes per second vs a plain matvec and a plain sum of the same bytes.

    Each variant cycles through copies of its weights that hold weight_bytes together, one copy
    a call, so that (with weight_bytes past the last-level cache) every call reads from memory.
    """
    n_weights = 2 * d_model * d_ff
    n_bytes = n_weights * bandwidth.element_bytes(dtype)
    n_copies = max(1, -(-weight_bytes // n_bytes))
    copies = {"ffn": [], "plain": [], "matvec": [], "stream": []}
    for seed in range(n_copies):
        copies["ffn"].append(FFN(d_model, d_ff, bias=False).to(device=device, dtype=dtype).eval())
        copies["plain"].append(plain_ffn(copies["ffn"][-1]))   # the same weights, as functions
        W = bandwidth.filled(n_weights, dtype, device, seed=3 * seed)  # the same bytes, one matrix
        copies["matvec"].append(partial(torch.mv, W.reshape(2 * d_ff, d_model)))
        copies["stream"].append(bandwidth.filled(n_weights, dtype, device, seed=3 * seed + 1).sum)
    x = torch.randn(1, d_model, device=device, dtype=dtype)
    v = bandwidth.filled(d_model, dtype, device, seed=2)
    args = {"ffn": (x,), "plain": (x,), "matvec": (v,), "stream": ()}

    def cycled(name):   # each call takes the next copy
        turn = itertools.cycle(copies[name])
        return lambda: next(turn)(*args[name])

    samples = interleaved({name: cycled(name) for name in copies}, rounds, min_time, device)
    gbs = {name: n_bytes / statistics.median(s) / 1e9 for name, s in samples.items()}
    # bandwidth ratio ffn / other = time ratio other / ffn, paired round by round
    of_matvec, of_stream = (
        sorted(o / f for o, f in zip(samples[other], samples["ffn"], strict=True))
        for other in ("matvec", "stream"))
    over_plain = sorted(f / o for f, o in zip(samples["ffn"], samples["plain"], strict=True))
    at = where(device, dtype)
    mib = n_bytes / 2**20
    read = f"{mib:g} MiB a call, {n_copies} copies cycled: {n_copies * mib:g} MiB"
    return [
        row(f"decode FFN {d_model}->{d_ff} ({read}, {at}) GB/s", f"{gbs['ffn']:.1f} GB/s"),
        row("decode FFN, weights from memory: helpers / torch.nn.functional (time)",
            spread(over_plain), "<= 1.05", statistics.median(over_plain) <= 1.05),
        row("plain matvec (the same bytes) GB/s", f"{gbs['matvec']:.1f} GB/s"),
        row("streaming read, sum (the same bytes) GB/s", f"{gbs['stream']:.1f} GB/s"),
        row("decode FFN bandwidth / matvec bandwidth", spread(of_matvec), ">= 0.9",
            statistics.median(of_matvec) >= 0.9),
        row("decode FFN bandwidth / streaming read bandwidth", spread(of_stream)),
    ]


def run(smoke=False, rounds=None, threads=None, device=None, more=(), out=print):
    """Run the benchmark, printing the table row by row; return the rows.

    device: where the timed rows run (default: the CPU, then the GPU if there is one), in
    float32 on the CPU and in the GPU's 16-bit dtype on a GPU. more: functions that return
    further rows, run last (tools/bench_all.py adds the notebooks).
    """
    import matplotlib

    matplotlib.use("Agg")  # demos draw off-screen
    from helpers import plots

    plots.use_course_style()
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(0)
    size = SIZES["smoke" if smoke else "full"]
    rounds, min_time = rounds or size["rounds"], size["min_time"]
    gpu = gpu_or_none()
    if device is not None:
        devices = [torch.device(device)]
    else:
        devices = [torch.device("cpu")] + ([gpu] if gpu is not None else [])
    out(f"Machine: {machine()}")
    out("")
    out(table([]))
    rows = []

    def emit(new_rows):
        for r in new_rows:
            out(table([r]).splitlines()[-1])
        rows.extend(new_rows)

    for dev in devices:
        dtype = torch.float32 if dev.type == "cpu" else half_dtype(dev)
        emit(ffn_rows(*size["ffn"], rounds, min_time, dev, dtype))
        emit(fused_rows(size["ffn"][0], rounds, min_time, dev, dtype))
        emit(decode_rows(*size["decode"], rounds, min_time, dev, dtype, decode_bytes(smoke)))
    if device is None and gpu is None:
        emit([row("GPU rows", "skipped: no GPU on this machine")])
    emit(demo_rows(repeat=1 if smoke else 5))
    for more_rows in more:
        emit(more_rows())
    missed = [r for r in rows if r[3] == "MISSED"]
    out("")
    out(f"{len(rows)} rows, {len(missed)} missed their target"
        + "".join(f"{';' if i else ':'} {r[0]}" for i, r in enumerate(missed)) + ".")
    return rows


def parser():
    """The command line of `python -m helpers.bench` (tools/bench_all.py adds to it)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="tiny sizes, one quick pass")
    p.add_argument("--rounds", type=int, help="interleaved rounds per comparison (default 21)")
    p.add_argument("--threads", type=int, help="torch threads (default: torch's choice)")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    run(smoke=args.smoke, rounds=args.rounds, threads=args.threads)


if __name__ == "__main__":
    main()
