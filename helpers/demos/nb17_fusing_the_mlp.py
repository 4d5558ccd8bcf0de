"""Notebook 17's demo: the bytes of an MLP's weights against the bytes its hidden activation moves
between the two matmuls, eager and fused, as the tokens T grow.

Three bars on a fixed log axis: the weights (read once per call), the activation's traffic when each
op is its own kernel, and when the activation is computed in the first matmul's epilogue
(helpers.fused.PASSES, with GELU as one kernel). The title says the ratio, and, where the notebook
measured this setting (GPT-2 small, float32), the times eager and compiled took, each with the GELU
it ran: section 2 writes GELU out as GPT-2 does, eight elementwise kernels eagerly (more crossings
than any bar counts), which the compiler makes one kernel between the library's matmuls (the middle
bar's four crossings). A move only resizes the bars and rewrites the title: a redraw takes well
under 150 ms.
"""

from ipywidgets import Dropdown, SelectionSlider

from helpers.demos.stamps import in_place
from helpers.fused import between_bytes, weight_bytes
from helpers.language import said, say
from helpers.plots import COLORS
from helpers.timing import format_seconds
from helpers.widgets import LiveFigure

# (kind, d_model, d_ff) from the models' configs: GPT-2 small (n_embd 768, 4 x 768) and Llama-2-7B.
MODELS = {"GPT-2 small (GELU)": ("gelu", 768, 3072), "Llama-2-7B (gated)": ("gated", 4096, 11008)}
TOKENS = [2**i for i in range(13)]          # 1 ... 4096 tokens in one call
DTYPES = {"float32": 4, "bfloat16": 2}
ROWS = (say("weights, read once"), say("between,\none kernel per op"),
        say("between, fused\nin the matmul"))
# section 2's GELU written out (gelu_gpt2): the elementwise kernels it runs eagerly
GELU_KERNELS = 8
# What each measured time ran: eager, GELU in eight kernels; compiled, in one kernel between the
# matmuls,
# the crossings of the middle bar (one kernel per op); no measurement has the fused bar's.
MEASURED = {"eager": say("measured here, eager: {time}, GELU in {kernels} kernels (more crossings "
                         "than any bar)"),
            "compiled": say("measured here, compiled: {time}, GELU in 1 kernel (the middle bar's "
                            "crossings)")}
SAMPLE = {"model": "Llama-2-7B (gated)", "T": 512, "dtype": "bfloat16"}


def _bytes(model, T, dtype):
    kind, d_model, d_ff = MODELS[model]
    b = DTYPES[dtype]
    return (weight_bytes(d_model, d_ff, b, kind), between_bytes(T, d_ff, b, kind, "eager"),
            between_bytes(T, d_ff, b, kind, "fused"))


def _title(model, T, dtype, measured):
    weights, eager, fused = _bytes(model, T, dtype)
    text = said("T = {T:,}, {dtype}: between the matmuls, one kernel per op moves\n"
                "{eager:.2g}x the weights' bytes, fused {fused:.2g}x",
                T=T, dtype=dtype, eager=eager / weights, fused=fused / weights)
    times = measured.get(T) if model.startswith("GPT-2") and dtype == "float32" else None
    if times:
        text += "".join("\n" + said(str(MEASURED[name]), time=format_seconds(s),
                                    kernels=GELU_KERNELS)
                        for name, s in times.items())
    return text


def make(measured=None):
    """The demo; measured: {T: {"eager": seconds, "compiled": seconds}} for GPT-2 small in
    float32."""
    measured = dict(measured or {})

    def draw(fig, model, T, dtype):
        ax = fig.subplots()
        values = _bytes(model, T, dtype)
        bars = ax.barh(range(3), values, color=[COLORS["mlp"], COLORS["kv"], COLORS["silu"]],
                       height=0.6)
        ax.set_yticks(range(3), [said(row) for row in ROWS])
        ax.invert_yaxis()
        ax.set_axisbelow(True)                 # the grid under the bars, as a repaint draws them
        ax.set_xscale("log")
        ax.set_xlim(1e3, 1e10)
        ax.set_xlabel(said("bytes per MLP call (log scale)"))
        ax.set_ylabel(said("what is read or written"))
        ax.set_title(" ", y=1.0, fontsize=10)
        fig.subplots_adjust(left=0.24, right=0.97, bottom=0.2, top=0.72)
        title = in_place(ax.title)
        state = {"bars": bars, "title": title}
        update(fig, state, model, T, dtype)
        return state

    def update(fig, state, model, T, dtype):
        for bar, value in zip(state["bars"], _bytes(model, T, dtype), strict=True):
            bar.set_width(value)
        state["title"].set_text(_title(model, T, dtype, measured))
        return [*state["bars"], state["title"]]

    controls = {"model": Dropdown(options=list(MODELS), value="GPT-2 small (GELU)",
                                  description="MLP"),
                "T": SelectionSlider(options=TOKENS, value=64, description=said("tokens T")),
                "dtype": Dropdown(options=list(DTYPES), value="float32", description="dtype")}
    return LiveFigure(draw, controls, figsize=(8.0, 3.2),
                      title=said("Weights are read once; the activations between the matmuls "
                                 "grow with T"),
                      update=update)
