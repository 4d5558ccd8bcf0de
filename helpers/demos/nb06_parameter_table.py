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
# Each component's readable name, its short name in the "other" row, and its colour.
_PARTS = {
    "embedding": ("token embedding", "embedding", COLORS["embedding"]),
    "position_embedding": ("positions", "positions", COLORS["embedding"]),
    "attention": ("attention", "attention", COLORS["attention"]),
    "mlp": ("MLP", "MLP", COLORS["mlp"]),
    "router": ("MoE router", "router", COLORS["neutral"]),
    "norms": ("norms", "norms", COLORS["neutral"]),
    "unembedding": ("unembedding", "unembedding", COLORS["embedding"]),
}
TINY = 0.01          # parts under 1% of the total share one "other" row
PER_TOKEN = "MLP, per token"


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


def rows(b):
    """[(label, share in %, parameters, note, colour)] of a Breakdown: a row for each part of at least
    TINY of the total, one "other" row for the smaller ones, and for an MoE the MLP's share of the
    parameters one token uses."""
    found, small = [], []
    for name, count in b.components.items():
        label, short, color = _PARTS[name]
        if count >= TINY * b.total:
            found.append((label, 100 * count / b.total, count, "", color))
        elif count:
            small.append((short, count))
    if small:
        count = sum(c for _, c in small)
        found.append(("other (< 1% each)", 100 * count / b.total, count,
                      ", ".join(short for short, _ in small), COLORS["neutral"]))
    if b.active != b.total:
        found.append((PER_TOKEN, 100 * b.mlp_active_share, b.mlp_active, f"of {human(b.active)}", COLORS["mlp"]))
    return found


def draw(fig, model, d_scale, layer_scale, ff_scale):
    """Horizontal bars: each part's share of the parameters, 0-100%, with its count."""
    b = count_params(scaled_config(model, d_scale, layer_scale, ff_scale))
    found = rows(b)[::-1]                                   # the first part on top
    ax = fig.add_subplot(1, 1, 1)
    per_token = [label == PER_TOKEN for label, *_ in found]
    ax.barh([label for label, *_ in found], [share for _, share, *_ in found],
            color=[color for *_, color in found], hatch=["//" if p else "" for p in per_token],
            edgecolor="white")
    for y, (_, share, count, note, _) in enumerate(found):
        inside = share > 70                                  # a long bar carries its label inside
        percent = f"{share:.1f}%" if share >= 0.05 else "< 0.1%"
        text = f"{percent}  ({human(count)}{', ' + note if note else ''})"
        ax.text(share - 1 if inside else share + 1, y, text, ha="right" if inside else "left", va="center",
                fontsize=9)
    ax.set_xlim(0, 100)
    ax.set_xticks([0, 25, 50, 75, 100], ["0%", "25%", "50%", "75%", "100%"])
    ax.set_xlabel("share of all parameters" + ("; hatched: of those one token uses" if any(per_token) else ""))
    ax.set_ylabel("part of the model")
    scaled = "" if (d_scale, layer_scale, ff_scale) == (1.0, 1.0, 1.0) else ", scaled"
    lines = [f"{model}{scaled}: {human(b.total)} parameters, {b.mlp_share:.0%} of them in the MLP"]
    if b.active != b.total:
        lines.append(f"one token uses {human(b.active)}, {b.mlp_active_share:.0%} of them in the MLP")
    lines.append(f"d_model {b.d_model:,}, {b.n_layers} layers, d_ff {b.d_ff:,}")
    ax.set_title("\n".join(lines), y=1.0)  # a fixed position: matplotlib skips measuring the axes for the title
    top = 0.84 if len(lines) == 2 else 0.79
    fig.subplots_adjust(left=0.22, right=0.97, top=top, bottom=0.14)  # no tight_layout: it draws twice


def make():
    names = shipped_configs()
    controls = {
        "model": Dropdown(options=names, value="gpt3-175b", description="model"),
        "d_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25, description="width (d_model) x",
                               continuous_update=False),
        "layer_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25, description="depth (layers) x",
                                   continuous_update=False),
        "ff_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25, description="MLP width (d_ff) x",
                                continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 4.0), title="Where the parameters are")
