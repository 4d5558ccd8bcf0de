"""Notebook 09's demo: pick a model, a batch and a context; see what one decode step reads.

Computed, not measured (so a redraw is quick): the bytes of weights and KV cache one
step reads (bfloat16), the MLP's share, and the roofline's time per step over batch
sizes, from the model's config and the GPU's published bandwidth and peak FLOP/s.
"""

from functools import cache

from ipywidgets import Dropdown, SelectionSlider
from matplotlib.ticker import FormatStrFormatter

from helpers.bandwidth import decode_weight_bytes, kv_cache_bytes, roofline_seconds
from helpers.config_params import count_params
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

MODELS = ("gpt2", "gpt2-xl", "tinyllama-1.1b", "llama-2-7b", "llama-3-8b", "mixtral-8x7b",
          "gpt3-175b")
# Published peak figures (datasheets): memory bytes/s and dense bf16/fp16 FLOP/s.
HARDWARE = {
    "H100 SXM: 3.35 TB/s, 989 TFLOP/s": (3.35e12, 989e12),
    "A100 80GB SXM: 2.04 TB/s, 312 TFLOP/s": (2.039e12, 312e12),
    "laptop CPU: about 60 GB/s, 1 TFLOP/s": (60e9, 1e12),
}
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
    ax.axvline(knee, color="gray", linestyle=":")
    ax.text(knee, no_kv[0], f" knee: batch {knee:.0f}", color="gray", fontsize=9, va="bottom")
    now = with_kv[BATCHES.index(batch)]
    ax.plot([batch], [now], "o", color="black", markersize=7)
    table = "\n".join(f"{label:<10}{parts[key] / 1e9:>8.1f} GB" for key, label in LABELS.items())
    ax.text(0.02, 0.97, f"one step, batch {batch}:\n{table}", transform=ax.transAxes,
            family="monospace", fontsize=9, va="top")
    ax.set_xlim(0.7, BATCHES[-1] * 6)
    ax.set_xlabel(f"batch (sequences decoding together), context {context} tokens")
    ax.set_ylabel("ms per decode step (roofline)")
    ax.set_title(f"{model}: MLP {parts['mlp'] / weights:.0%} of weight bytes, KV cache "
                 f"{parts['kv'] / sum(parts.values()):.0%} of all bytes read\n"
                 f"{now:.1f} ms per step at batch {batch}: {batch / now * 1e3:,.0f} tokens/s",
                 fontsize=9)
    ax.minorticks_off()  # minor ticks and math-text labels of log axes are slow to draw
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FormatStrFormatter("%g"))


def make():
    controls = {
        "model": Dropdown(options=list(MODELS), value="gpt3-175b", description="model"),
        "batch": SelectionSlider(options=BATCHES, value=1, description="batch"),
        "context": SelectionSlider(options=CONTEXTS, value=2048, description="context"),
        "hardware": Dropdown(options=list(HARDWARE), value=list(HARDWARE)[0],
                             description="hardware"),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 4.0), title="What one decode step reads")
