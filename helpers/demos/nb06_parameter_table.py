"""Notebook 06's demo: pick a model, scale its width, depth and MLP, see where the parameters are."""

from ipywidgets import Dropdown, FloatSlider

from helpers.config_params import count_params, human, load_config, shipped_configs
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

SAMPLE = {"model": "llama-2-7b", "d_scale": 2.0, "layer_scale": 0.5, "ff_scale": 1.5}

# Field names of each family: (d_model, n_layers, d_ff, n_heads).
_FIELDS = {
    "gpt2": ("n_embd", "n_layer", "n_inner", "n_head"),
    "gpt3": ("n_embd", "n_layer", "n_inner", "n_head"),
}
_LLAMA_FIELDS = ("hidden_size", "num_hidden_layers", "intermediate_size", "num_attention_heads")
_EXPERT_FIELDS = ("moe_intermediate_size", "shared_expert_intermediate_size")
_COLORS = {"embedding": COLORS["embedding"], "position_embedding": COLORS["embedding"],
           "unembedding": COLORS["embedding"], "attention": COLORS["attention"], "mlp": COLORS["mlp"],
           "mlp per token": COLORS["mlp"], "router": COLORS["neutral"], "norms": COLORS["neutral"]}


def scaled_config(model, d_scale=1.0, layer_scale=1.0, ff_scale=1.0):
    """A shipped config with d_model, n_layers and d_ff / d_model multiplied by the given factors.

    d_model stays a multiple of the number of heads; a head_dim given in the config and every
    MLP width (dense, expert, shared expert) keep their ratio to d_model (times ff_scale).
    """
    config = load_config(model)
    d_key, layer_key, ff_key, head_key = _FIELDS.get(config["model_type"], _LLAMA_FIELDS)
    d, heads = config[d_key], config[head_key]
    new_d = max(heads, round(d * d_scale / heads) * heads)
    if config.get("head_dim") is not None:
        config["head_dim"] = max(1, round(config["head_dim"] * new_d / d))
    for key in (ff_key, *_EXPERT_FIELDS):
        if key == ff_key or config.get(key):
            d_ff = config.get(key) or 4 * d
            config[key] = max(1, round(d_ff * new_d / d * ff_scale))
    config[d_key] = new_d
    config[layer_key] = max(1, round(config[layer_key] * layer_scale))
    return config


def draw(fig, model, d_scale, layer_scale, ff_scale):
    """Horizontal bars: parameters per component, with each one's share of the total."""
    b = count_params(scaled_config(model, d_scale, layer_scale, ff_scale))
    counts = {}
    for name, count in b.components.items():   # no bar for a part the model lacks (a tied lm_head shows 0)
        if count or name == "unembedding":
            counts[name] = count
        if name == "mlp" and b.active != b.total:   # an MoE: the MLP weights one token runs through
            counts["mlp per token"] = b.mlp_active
    names = list(counts)[::-1]
    unit, size = ("billions", 1e9) if b.total >= 1e9 else ("millions", 1e6)
    ax = fig.add_subplot(1, 1, 1)
    ax.barh(names, [counts[n] / size for n in names], color=[_COLORS[n] for n in names])
    for y, name in enumerate(names):
        share = "" if name == "mlp per token" else f" ({counts[name] / b.total:.1%})"
        ax.text(counts[name] / size, y, f" {human(counts[name])}{share}", va="center", fontsize=9)
    ax.set_xlim(0, max(counts.values()) / size * 1.4)
    ax.set_xticks([])          # every bar carries its value: no tick labels to draw
    ax.grid(False)
    ax.set_xlabel(f"parameters ({unit}), and share of the total")
    ax.set_ylabel("component")
    per_token = (f"; per token {human(b.active)}, MLP share {b.mlp_active_share:.1%}"
                 if b.active != b.total else "")
    ax.set_title(f"{model}: d_model={b.d_model:,}, n_layers={b.n_layers}, d_ff={b.d_ff:,}\n"
                 f"total {human(b.total)}, MLP share {b.mlp_share:.1%}{per_token}",
                 y=1.0)  # a fixed position: matplotlib skips measuring the axes for the title
    fig.subplots_adjust(left=0.25, right=0.97, top=0.84, bottom=0.1)  # no tight_layout: it draws twice


def make():
    names = shipped_configs()
    controls = {
        "model": Dropdown(options=names, value="gpt3-175b", description="model"),
        "d_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25, description="d_model x",
                               continuous_update=False),
        "layer_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25, description="n_layers x",
                                   continuous_update=False),
        "ff_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25, description="d_ff x",
                                continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 4.0), title="Where the parameters are")
