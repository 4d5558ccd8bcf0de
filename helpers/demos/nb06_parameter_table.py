"""Notebook 06's demo: pick a model, scale its width, depth and MLP, see where the parameters are.

A move changes the bars, their labels, the grid over them and the title that `draw` made and
repaints only those: the axes, the 0-100% ticks and the axis labels stay as they are drawn once.
The changing text is drawn from images of its strings (helpers.demos.stamps), made for every model
when the figure shows, so that a first look at a model is as quick as a repeat.
"""

from functools import cache

import matplotlib
from ipywidgets import Dropdown, FloatSlider
from matplotlib.collections import LineCollection
from matplotlib.lines import TICKLEFT, Line2D
from matplotlib.patches import Rectangle
from matplotlib.transforms import offset_copy

from helpers.config_params import count_params, human, load_config, shipped_configs
from helpers.demos.stamps import Label, in_place
from helpers.language import Text, said, say, translate
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
# Each component's name as drawn (a row's, or one of the parts the "other" row lists), and its
# colour.
_PARTS = {
    "embedding": ("token embedding", COLORS["embedding"]),
    "position_embedding": ("position embedding", COLORS["embedding"]),
    "attention": ("attention layers", COLORS["attention"]),
    "mlp": ("MLP", COLORS["mlp"]),
    "router": ("MoE router", COLORS["neutral"]),
    "norms": ("norm weights", COLORS["neutral"]),
    "unembedding": ("unembedding matrix", COLORS["embedding"]),
}
TINY = 0.01          # parts under 1% of the total share one "other" row
PER_TOKEN = "MLP, per token"
OTHER = "other (< 1% each)"
PHRASES = {label: say(label) for label in [name for name, _ in _PARTS.values()
                                           if name != "MLP"] + [OTHER, PER_TOKEN]}
MAX_ROWS = len(_PARTS) + 1          # every part, or all but one and "other"; and the MLP per token
BAR = 0.8                           # a bar's height, in rows
TICKS = [0, 25, 50, 75, 100]        # the share axis, in %
LABEL_GAP = 7                       # points from the axis to a row's name: a tick and its pad
# the y label's place, in axes widths: left of "position embedding"
YLABEL_X = -0.25


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
    """[(label, share in %, parameters, note, colour)] of a Breakdown: a row for each part of at
    least TINY of the total, one "other" row for the smaller ones (its note: their names, a tuple),
    and for an MoE the MLP's share of the parameters one token uses (its note: a Text)."""
    found, small = [], []
    for name, count in b.components.items():
        label, color = _PARTS[name]
        if count >= TINY * b.total:
            found.append((label, 100 * count / b.total, count, "", color))
        elif count:
            small.append((label, count))
    if small:
        count = sum(c for _, c in small)
        found.append((OTHER, 100 * count / b.total, count, tuple(label for label, _ in small),
                      COLORS["neutral"]))
    if b.active != b.total:
        found.append((PER_TOKEN, 100 * b.mlp_active_share, b.mlp_active,
                      say("of {active}", active=human(b.active)), COLORS["mlp"]))
    return found


@cache
def breakdown(model, d_scale, layer_scale, ff_scale):
    """The parameter count of a model scaled by these factors, and its rows (the first part on
    top)."""
    b = count_params(scaled_config(model, d_scale, layer_scale, ff_scale))
    return b, rows(b)[::-1]


def title(model, b, scaled):
    """The model's size and MLP share, what one token uses (an MoE: the hatched bar), its shape."""
    size = ("{model}, scaled: {total} parameters, {share:.0%} of them in the MLP" if scaled
            else "{model}: {total} parameters, {share:.0%} of them in the MLP")
    lines = [said(size, model=model, total=human(b.total), share=b.mlp_share)]
    if b.active != b.total:
        lines.append(said("one token uses {active}, {share:.0%} of them in the MLP (hatched)",
                          active=human(b.active), share=b.mlp_active_share))
    lines.append(said("d_model {d_model:,}, {n_layers} layers, d_ff {d_ff:,}", d_model=b.d_model,
                      n_layers=b.n_layers, d_ff=b.d_ff))
    return "\n".join(lines)


def _add_rows(fig, artists, n):
    """Room for n rows: a bar, its value and its name (a figure text: the axes' texts are the
    values)."""
    ax = artists["ax"]
    name_at = offset_copy(ax.get_yaxis_transform(), fig=fig, x=-LABEL_GAP, units="points")
    for _ in range(len(artists["bars"]), n):
        artists["bars"].append(ax.add_patch(Rectangle((0, 0), 0, BAR, edgecolor="white",
                                                      visible=False)))
        artists["values"].append(ax.add_artist(Label(0, 0, "", va="center", fontsize=9,
                                                     visible=False)))
        artists["names"].append(fig.add_artist(Label(
            0, 0, "", transform=name_at, ha="right", va="center_baseline",
            fontsize=matplotlib.rcParams["ytick.labelsize"], visible=False)))


def _grid(ax):
    """Grid lines over the bars, as an axes draws them: at the share ticks and at every row."""
    rc = matplotlib.rcParams
    return ax.add_collection(LineCollection([], colors=rc["grid.color"],
                                            linewidths=rc["grid.linewidth"],
                                            linestyles=rc["grid.linestyle"], alpha=rc["grid.alpha"],
                                            zorder=1.5))


def draw(fig, model, d_scale, layer_scale, ff_scale):
    """Horizontal bars: each part's share of the parameters, 0-100%, with its count.
    Returns the artists that `update` changes."""
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xlim(0, 100)
    ax.set_xticks(TICKS, [f"{t}%" for t in TICKS])
    ax.set_yticks([])
    ax.grid(False)
    ax.set_xlabel(said("share of all parameters"))
    ax.set_ylabel(said("part of the model"))
    ax.yaxis.set_label_coords(YLABEL_X, 0.5)
    # no tight_layout: it draws twice
    fig.subplots_adjust(left=0.245, right=0.97, top=0.79, bottom=0.14)
    artists = {"ax": ax, "bars": [], "values": [], "names": [], "grid": _grid(ax),
               "ticks": ax.add_line(Line2D([], [], transform=ax.get_yaxis_transform(),
                                           marker=TICKLEFT,
                                           linestyle="", color=matplotlib.rcParams["ytick.color"],
                                           markersize=matplotlib.rcParams["ytick.major.size"],
                                           markeredgewidth=matplotlib.rcParams["ytick.major.width"],
                                           clip_on=False, zorder=1.5))}
    _add_rows(fig, artists, len(breakdown(model, d_scale, layer_scale, ff_scale)[1]))
    _fill(artists, model, d_scale, layer_scale, ff_scale)
    # drawn from an image of each title (every model's: `ahead`)
    artists["title"] = in_place(ax.title)
    return artists


def _fill(artists, model, d_scale, layer_scale, ff_scale):
    """Set the bars, values, names, ticks, grid and title of a setting; hide the rows it does not
    use."""
    b, found = breakdown(model, d_scale, layer_scale, ff_scale)
    n, ax = len(found), artists["ax"]
    for y, (bar, value, name) in enumerate(zip(artists["bars"], artists["values"], artists["names"],
                                               strict=True)):
        for artist in (bar, value, name):
            artist.set_visible(y < n)
        if y < n:
            _row(bar, value, name, y, *found[y])
    pad = matplotlib.rcParams["axes.ymargin"] * (n - 1 + BAR)
    bottom, top = -BAR / 2 - pad, n - 1 + BAR / 2 + pad         # as autoscaling would fit n bars
    ax.set_ylim(bottom, top)
    artists["ticks"].set_data([0] * n, range(n))
    artists["grid"].set_segments([[(x, bottom), (x, top)] for x in TICKS]
                                 + [[(0, y), (100, y)] for y in range(n)])
    ax.set_title(title(model, b, (d_scale, layer_scale, ff_scale) != (1.0, 1.0, 1.0)), y=1.0)
    if "title" in artists:
        artists["title"].set_text(ax.get_title())


def _row(bar, value, name, y, label, share, count, note, color):
    """One row: its bar (hatched for the MLP per token), its share and count, its name."""
    bar.set(y=y - BAR / 2, width=share, facecolor=color, hatch="//" if label == PER_TOKEN else None)
    inside = share > 70                                      # a long bar carries its label inside
    percent = f"{share:.1f}%" if share >= 0.05 else "< 0.1%"
    if isinstance(note, Text):   # "of 12.9B"
        note = translate(note)
    elif isinstance(note, tuple):   # the small parts, each named as a row would be
        note = ", ".join(map(_name, note))
    value.set(x=share - 1 if inside else share + 1, y=y, ha="right" if inside else "left",
              text=f"{percent}  ({human(count)}{', ' + note if note else ''})")
    name.set(y=y, text=_name(label))


def _name(label):
    """A row's or a small part's name as drawn: said ("MLP" is a name)."""
    return translate(PHRASES[label]) if label in PHRASES else label


def update(fig, artists, model, d_scale, layer_scale, ff_scale):
    """Redraw the rows and the title for a new setting, in place; return what changed (the spines
    too: the bars are painted over their place, and the axes draws its spines over the bars)."""
    _add_rows(fig, artists, MAX_ROWS)        # once: every later move repaints the same artists
    _fill(artists, model, d_scale, layer_scale, ff_scale)
    ax = artists["ax"]
    return [*artists["bars"], *artists["values"], *artists["names"], artists["grid"],
            artists["ticks"], ax.spines["left"], ax.spines["bottom"], artists["title"]]


def make():
    names = shipped_configs()
    controls = {
        "model": Dropdown(options=names, value="gpt3-175b", description=said("model name")),
        "d_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25,
                               description=said("width (d_model) x"), continuous_update=False),
        "layer_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25,
                                   description=said("depth (layers) x"), continuous_update=False),
        "ff_scale": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25,
                                description=said("MLP width (d_ff) x"), continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(8.0, 4.0), title=said("Where the parameters are"),
                      update=update,
                      ahead=[{"model": name} for name in names])   # every model at the scales shown
