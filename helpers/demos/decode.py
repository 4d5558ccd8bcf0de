"""Notebook 09's demo: pick a model, a batch and a context; see what one decode step reads.

Computed, not measured (so a redraw is quick): the bytes of weights and KV cache one
step reads, the MLP's share, and the roofline's time per step over batch sizes.
"""

from functools import cache

from ipywidgets import Dropdown, SelectionSlider
from matplotlib.ticker import FormatStrFormatter

from helpers.bandwidth import decode_weight_bytes, kv_cache_bytes, roofline_seconds
from helpers.config_params import count_params
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
PARTS = [("mlp", "MLP", "#ff7f0e"), ("attention", "attention", "#9467bd"),
         ("other", "embed, norms", "#7f7f7f"), ("kv", "KV cache", "#1f77b4")]


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
    bandwidth, peak = HARDWARE[hardware]
    parts = step_bytes(model, batch, context)
    weights = parts["mlp"] + parts["attention"] + parts["other"]
    ax_bytes, ax_time = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.3]})
    # One bar per part, named on the y axis (a legend would double the redraw time).
    ax_bytes.barh([label for _, label, _ in PARTS][::-1],
                  [parts[key] / 1e9 for key, _, _ in PARTS][::-1],
                  color=[color for _, _, color in PARTS][::-1])
    ax_bytes.set_xlabel(f"GB read per decode step (bf16), batch {batch}")
    ax_bytes.set_ylabel("part")
    ax_bytes.set_title(f"{model}: MLP {parts['mlp'] / weights:.0%} of weight bytes,\n"
                       f"KV cache {parts['kv'] / sum(parts.values()):.0%} of all bytes", fontsize=9)

    with_kv = [step_seconds(model, b, context, bandwidth, peak) * 1e3 for b in BATCHES]
    no_kv = [step_seconds(model, b, None, bandwidth, peak) * 1e3 for b in BATCHES]
    ax_time.loglog(BATCHES, no_kv, "-", color=PARTS[0][2])
    ax_time.loglog(BATCHES, with_kv, "o-", color=PARTS[3][2], markersize=3)
    ax_time.text(BATCHES[-1], no_kv[-1], " weights", color=PARTS[0][2], fontsize=8, va="center")
    ax_time.text(BATCHES[-1], with_kv[-1], " + KV", color=PARTS[3][2], fontsize=8, va="center")
    knee = peak * BYTES_PER_PARAM / (2 * bandwidth)
    ax_time.axvline(knee, color="gray", linestyle=":")
    ax_time.text(knee, no_kv[0], f" knee {knee:.0f}", color="gray", fontsize=8, va="bottom")
    now = with_kv[BATCHES.index(batch)]
    ax_time.plot([batch], [now], "o", color="black", markersize=7)
    ax_time.set_xlim(0.7, BATCHES[-1] * 4)
    ax_time.set_xlabel(f"batch (sequences), context {context} tokens")
    ax_time.set_ylabel("ms per decode step (roofline)")
    ax_time.set_title(f"{now:.1f} ms per step: {batch / now * 1e3:,.0f} tokens/s in all",
                      fontsize=9)
    ax_time.minorticks_off()  # minor ticks and math-text labels of log axes are slow to draw
    for axis in (ax_time.xaxis, ax_time.yaxis):
        axis.set_major_formatter(FormatStrFormatter("%g"))
    fig.subplots_adjust(left=0.15, right=0.97, bottom=0.15, wspace=0.35)


def make():
    controls = {
        "model": Dropdown(options=list(MODELS), value="gpt3-175b", description="model"),
        "batch": SelectionSlider(options=BATCHES, value=1, description="batch"),
        "context": SelectionSlider(options=CONTEXTS, value=2048, description="context"),
        "hardware": Dropdown(options=list(HARDWARE), value=list(HARDWARE)[0],
                             description="hardware"),
    }
    return LiveFigure(draw, controls, figsize=(9.0, 3.8), title="What one decode step reads")
