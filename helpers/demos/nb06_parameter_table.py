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
_COMPONENT_COLORS = {"attention": COLORS["attention"], "mlp": COLORS["mlp"], "router": "#8c564b"}


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
    names = [n for n, count in b.components.items() if count or n != "router"]
    counts = [b.components[n] for n in names]
    ax = fig.add_subplot(1, 1, 1)
    colors = [_COMPONENT_COLORS.get(n, "#9ecae1") for n in names]
    unit, size = ("billions", 1e9) if b.total >= 1e9 else ("millions", 1e6)
    ax.barh(names[::-1], [c / size for c in counts[::-1]], color=colors[::-1])
    for y, count in enumerate(counts[::-1]):
        ax.text(count / size, y, f" {human(count)} ({count / b.total:.1%})", va="center", fontsize=9)
    ax.set_xlim(0, max(counts) / size * 1.35)
    ax.set_xlabel(f"parameters ({unit})")
    ax.set_ylabel("component")
    active = f", active {human(b.active)}" if b.active != b.total else ""
    ax.set_title(f"{model}: d_model={b.d_model:,}, n_layers={b.n_layers}, d_ff={b.d_ff:,}\n"
                 f"total {human(b.total)}{active}, MLP share {b.mlp_share:.1%}")
    fig.subplots_adjust(left=0.25, right=0.97, top=0.84, bottom=0.13)  # no tight_layout: it draws twice


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
