"""Notebook 09's figures: the measured roofline beside the GPUs', and a demo of one decode step.

`roofline_figure(measured, gpus)` draws the notebook's two panels: time per FFN call over the
tokens in the batch, with the fitted roofline and its knee, and the classic roofline (FLOP/s
over FLOPs per byte) with this machine's points beside published GPU rooflines.

The demo is computed, not measured (so a redraw is quick): the bytes of weights and KV cache
one step reads (bfloat16), the MLP's share, and the roofline's time per step over batch
sizes, from the model's config and the GPU's published bandwidth and peak FLOP/s.
"""

from functools import cache

import numpy as np
from ipywidgets import Dropdown, SelectionSlider
from matplotlib.figure import Figure
from matplotlib.ticker import FormatStrFormatter

from helpers.bandwidth import (
    GPUS,
    decode_weight_bytes,
    knee_batch,
    kv_cache_bytes,
    roofline_seconds,
)
from helpers.config_params import count_params
from helpers.plots import COLORS, NEUTRAL
from helpers.widgets import LiveFigure

GPU_STYLES = {"T4": ":", "A100 40GB SXM": "--", "A100 80GB SXM": "-.", "H100 SXM": "-"}


def _fitted(series, tokens):
    """The roofline's seconds per call for each T: max(bytes / bandwidth, FLOPs / peak)."""
    flops = 2 * np.asarray(tokens, dtype=float) * series["n_weights"]
    return np.maximum(series["weight_bytes"] / series["bandwidth"], flops / series["peak"])


def roofline_figure(measured, gpus=(), device_name="this CPU"):
    """Two panels: time per call over T with the fitted roofline, and FLOP/s over FLOPs per byte.

    measured: {label: {"tokens", "seconds", "n_weights", "weight_bytes", "bandwidth" (B/s),
    "peak" (FLOP/s), "color"}}; gpus: helpers.bandwidth.GPU entries drawn for reference.
    """
    fig = Figure(figsize=(12.0, 4.6))
    ax_t, ax_r = fig.subplots(1, 2)
    grid = np.geomspace(0.2, 4000, 80)                      # FLOPs per byte, for the rooflines
    for label, s in measured.items():
        tokens = np.asarray(s["tokens"], dtype=float)
        bytes_per_weight = s["weight_bytes"] / s["n_weights"]
        knee = s["peak"] * bytes_per_weight / (2 * s["bandwidth"])
        dense = np.geomspace(tokens[0], tokens[-1], 60)
        ax_t.loglog(tokens, np.asarray(s["seconds"]) * 1e3, "o", color=s["color"], label=label)
        ax_t.loglog(dense, _fitted(s, dense) * 1e3, "--", color=s["color"])
        at = _fitted(s, [knee])[0] * 1e3
        ax_t.plot([knee], [at], "D", color="black", markersize=6)
        ax_t.annotate(f"knee T = {knee:.0f}", (knee, at), textcoords="offset points",
                      xytext=(8, -18), fontsize=10, color=s["color"])
        ax_r.loglog(2 * tokens / bytes_per_weight, 2 * tokens * s["n_weights"] / np.asarray(s["seconds"]),
                    "o", color=s["color"])
        ax_r.loglog(grid, np.minimum(s["peak"], s["bandwidth"] * grid), "--", color=s["color"])
    roofs = {}                                              # peak FLOP/s -> the GPUs that share it
    for gpu in gpus:
        ax_r.loglog(grid, np.minimum(gpu.peak_flops, gpu.bandwidth * grid), GPU_STYLES.get(gpu.name, "-"),
                    color=COLORS["gpu"], linewidth=1.5, label=f"{gpu.name}: knee {gpu.knee:.0f}")
        ax_r.plot([gpu.knee], [gpu.peak_flops], "o", color=COLORS["gpu"], markersize=4)
        roofs.setdefault(gpu.peak_flops, []).append(gpu.name)
    for peak, names in roofs.items():
        families = {name.split()[0] for name in names}        # "A100 40GB SXM", "A100 80GB SXM" -> "A100"
        ax_r.text(grid[-1], peak * 1.15, families.pop() if len(families) == 1 else " / ".join(names),
                  ha="right", va="bottom", fontsize=9, color=COLORS["gpu"])
    last = measured[list(measured)[-1]]
    knee_t = last["peak"] * last["weight_bytes"] / last["n_weights"] / (2 * last["bandwidth"])
    ax_t.set_xlabel("tokens T in the batch (one FFN call)")
    ax_t.set_ylabel("ms per FFN call")
    ax_t.plot([], [], "--", color=NEUTRAL, label="roofline fit")
    ax_t.plot([], [], "D", color="black", label="its knee")
    ax_t.legend(loc="lower right", fontsize=9)
    low, high = ax_t.get_ylim()
    ax_t.set_ylim(low / 2, high)                            # room for the knee's label
    ax_t.set_title(f"{device_name}: time grows slowly up to the knee (T = {knee_t:.0f}), then with T",
                   fontsize=10)
    ax_r.set_xlabel("arithmetic intensity (FLOPs per byte of weights)")
    ax_r.set_ylabel("FLOP/s")
    ax_r.set_xlim(grid[0], grid[-1])
    ax_r.set_ylim(1e9, 5e15)
    title = f"Roofline: the knee is at {last['peak'] / last['bandwidth']:.0f} FLOP/byte here"
    if gpus:
        ax_r.legend(loc="upper left", fontsize=9, title="GPUs (datasheets)", title_fontsize=9)
        title += f", {min(g.knee for g in gpus):.0f}-{max(g.knee for g in gpus):.0f} on the GPUs"
    ax_r.set_title(title, fontsize=10)
    fig.subplots_adjust(left=0.06, right=0.98, bottom=0.12, top=0.91, wspace=0.22)
    return fig


MODELS = ("gpt2", "gpt2-xl", "tinyllama-1.1b", "llama-2-7b", "llama-3-8b", "mixtral-8x7b",
          "gpt3-175b")
# Published peak figures (helpers.bandwidth.GPUS, from NVIDIA's datasheets), and a laptop CPU.
HARDWARE = {f"{g.name}: {g.bandwidth / 1e12:.2f} TB/s, {g.peak_flops / 1e12:.0f} TFLOP/s": (g.bandwidth, g.peak_flops)
            for g in GPUS.values()}
HARDWARE["laptop CPU: about 60 GB/s, 1 TFLOP/s"] = (60e9, 1e12)
BATCHES = [2**i for i in range(11)]  # 1 ... 1024 sequences, one new token each
CONTEXTS = [128, 512, 2048, 8192, 32768]
BYTES_PER_PARAM = 2  # bfloat16 weights and cache
SAMPLE = {"model": "llama-3-8b", "batch": 64, "context": 8192,
          "hardware": "A100 80GB SXM: 2.04 TB/s, 312 TFLOP/s"}
LABELS = {"mlp": "MLP", "attention": "attention", "other": "rest", "kv": "KV cache"}


@cache
def _model(name):
    breakdown = count_params(name, weights_only=name == "gpt3-175b")
    weights = decode_weight_bytes(breakdown, BYTES_PER_PARAM)
    active = breakdown.active - breakdown.components["embedding"] + breakdown.d_model
    return breakdown, weights, active


def step_bytes(name, batch, context):
    """Bytes one decode step reads, by part: MLP, attention, other weights, KV cache (None: 0)."""
    breakdown, weights, _ = _model(name)
    other = sum(v for k, v in weights.items() if k not in ("mlp", "attention"))
    kv = 0 if context is None else batch * kv_cache_bytes(breakdown, context, BYTES_PER_PARAM)
    return {"mlp": weights["mlp"], "attention": weights["attention"], "other": other, "kv": kv}


def step_seconds(name, batch, context, bandwidth, peak_flops):
    """The roofline's time for one step: 2 FLOPs per active weight per sequence vs bytes read."""
    _, _, active = _model(name)
    n_bytes = sum(step_bytes(name, batch, context).values())
    return roofline_seconds(2 * active * batch, n_bytes, peak_flops, bandwidth)


def draw(fig, model, batch, context, hardware):
    """The roofline's time per decode step over batch sizes, with this step's bytes by part."""
    bandwidth, peak = HARDWARE[hardware]
    breakdown, _, active = _model(model)
    parts = step_bytes(model, batch, context)
    weights = parts["mlp"] + parts["attention"] + parts["other"]
    ax = fig.subplots()  # one axes: a second one (a bar chart) doubled the redraw time
    with_kv = [step_seconds(model, b, context, bandwidth, peak) * 1e3 for b in BATCHES]
    no_kv = [step_seconds(model, b, None, bandwidth, peak) * 1e3 for b in BATCHES]
    ax.loglog(BATCHES, no_kv, "-", color=COLORS["mlp"])
    ax.loglog(BATCHES, with_kv, "o-", color=COLORS["kv"], markersize=3)
    ax.text(BATCHES[-1], no_kv[-1], " weights only", color=COLORS["mlp"], fontsize=9, va="center")
    ax.text(BATCHES[-1], with_kv[-1], " + KV cache", color=COLORS["kv"], fontsize=9, va="center")
    knee = peak * BYTES_PER_PARAM / (2 * bandwidth)
    ax.axvline(knee, color=NEUTRAL, linestyle=":")
    ax.text(knee, no_kv[0], f" knee, weights only: batch {knee:.0f}", color=NEUTRAL, fontsize=9, va="bottom")
    kv_knee = knee_batch(active, kv_cache_bytes(breakdown, context, BYTES_PER_PARAM), peak, bandwidth,
                         BYTES_PER_PARAM)
    with_cache = "never" if kv_knee == float("inf") else f"batch {kv_knee:,.0f}"
    now = with_kv[BATCHES.index(batch)]
    ax.plot([batch], [now], "o", color="black", markersize=7)
    table = "\n".join(f"{label:<10}{parts[key] / 1e9:>8.1f} GB" for key, label in LABELS.items())
    ax.text(0.02, 0.97, f"one step, batch {batch}:\n{table}\nknee with cache: {with_cache}",
            transform=ax.transAxes, family="monospace", fontsize=9, va="top")
    ax.set_xlim(0.7, BATCHES[-1] * 6)
    ax.set_xlabel(f"batch (sequences decoding together), context {context} tokens")
    ax.set_ylabel("ms per decode step (roofline)")
    ax.set_title(f"{model}: MLP {parts['mlp'] / weights:.0%} of weight bytes, KV cache "
                 f"{parts['kv'] / sum(parts.values()):.0%} of all bytes read\n"
                 f"{now:.1f} ms per step at batch {batch}: {batch / now * 1e3:,.0f} tokens/s",
                 fontsize=10)
    ax.minorticks_off()  # minor ticks and math-text labels of log axes are slow to draw
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FormatStrFormatter("%g"))


def make():
    controls = {
        "model": Dropdown(options=list(MODELS), value="gpt3-175b", description="model"),
        "batch": SelectionSlider(options=BATCHES, value=1, description="batch"),
        "context": SelectionSlider(options=CONTEXTS, value=2048, description="context"),
        "hardware": Dropdown(options=list(HARDWARE), value=list(HARDWARE)[-2], description="hardware"),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 4.0), title="What one decode step reads")
