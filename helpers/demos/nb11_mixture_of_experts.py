"""Notebook 11's demo: pick E experts, top-k, a router temperature and a skew; see each expert's
load.

The router logits of 2048 tokens are drawn once; a move re-routes them and repaints the bars, the
dots, the two lines and the title over the rest of the figure. Text is what Agg draws slowly, so
the axes, whose tick labels follow E and the height of the bars, are drawn from images of them
(helpers.demos.stamps), made for every E and every height once the figure shows.
"""

from functools import lru_cache

import numpy as np
import torch
from ipywidgets import FloatSlider, IntSlider
from matplotlib.collections import PolyCollection

from helpers.capacity import one_thread
from helpers.demos.stamps import Stamp, nice_top, nice_tops
from helpers.language import said
from helpers.moe import route
from helpers.plots import COLORS
from helpers.widgets import LiveFigure

SAMPLE = {"n_experts": 16, "top_k": 4, "temperature": 0.5, "skew": 2.0}
N_TOKENS, MAX_EXPERTS, MAX_K, CAPACITY_FACTOR = 2048, 16, 4, 1.25
LOGITS = torch.randn(N_TOKENS, MAX_EXPERTS, generator=torch.Generator().manual_seed(0))
HEADROOM = 1.35   # the y axis reaches past the highest bar, dot or line, to a nice number
# Every top it can have: from the capacity of 16 experts with k = 1 to all the router weight x k =
# 4.
Y_TOPS = nice_tops(HEADROOM * int(CAPACITY_FACTOR * N_TOKENS / MAX_EXPERTS),
                   HEADROOM * N_TOKENS * MAX_K)


@lru_cache(maxsize=256)
def _routing(n_experts, top_k, temperature, skew):
    """Tokens per expert, router weight x k per expert (numpy arrays), fair share and capacity."""
    logits = LOGITS[:, :n_experts].clone()
    logits[:, 0] += skew                                      # a router that favours expert 0
    # 2048 x 16: a second thread only waits
    with one_thread():
        routing = route(logits / temperature, top_k)
        weight = torch.bincount(routing.experts.flatten(), weights=routing.weights.flatten(),
                                minlength=n_experts)          # (E,) total router weight per expert
    fair = N_TOKENS * top_k / n_experts
    return routing.counts.numpy(), (weight * top_k).numpy(), fair, int(CAPACITY_FACTOR * fair)


def _title(n_experts, top_k, counts, fair, capacity):
    dropped = int(np.clip(counts - capacity, 0, None).sum())
    return said("top-{k} of {n_experts}: busiest expert {busiest:.2f}x fair; {dropped:,} of "
                "{assigned:,} assignments past capacity", k=top_k, n_experts=n_experts,
                busiest=counts.max() / fair, dropped=dropped, assigned=N_TOKENS * top_k)


def _bars(counts):
    """The corners of one bar per expert, 0.8 wide, as ax.bar draws them."""
    return [[(i - 0.4, 0), (i - 0.4, c), (i + 0.4, c), (i + 0.4, 0)] for i, c in enumerate(counts)]


def _set_x_axis(ax, n_experts):
    """The x limits ax.bar gives E bars, and a tick per expert."""
    margin = 0.05 * (n_experts - 0.2)
    ax.set_xlim(-0.4 - margin, n_experts - 0.6 + margin)
    ax.set_xticks(range(n_experts))


def draw(fig, n_experts, top_k, temperature, skew):
    """Tokens per expert (bars), the router weight each expert gets (dots), fair share and capacity.
    Returns the artists that `update` changes."""
    ax = fig.add_subplot(1, 1, 1)
    ax.grid(False)
    artists = {
        "ax": ax,
        "dots": ax.plot([0], [0], "o", color=COLORS["kv"], label=said("router weight x k"))[0],
        "fair": ax.axhline(1, color="black", ls="--", label=said("fair share")),
        "capacity": ax.axhline(1, color=COLORS["attention"], ls=":",
                               label=said("capacity (x{factor})", factor=CAPACITY_FACTOR)),
        "bars": ax.add_collection(PolyCollection([], facecolors=COLORS["mlp"], edgecolors="none",
                                                 label=said("tokens routed")), autolim=False),
        "x axis": ax.add_artist(Stamp([ax.xaxis])),
        "y axis": ax.add_artist(Stamp([ax.yaxis])),
        "title": ax.add_artist(Stamp([ax.title], keep=64)),
    }
    ax.set_xlabel(said("expert index"))
    ax.set_ylabel(said("tokens (of {n:,}, k each)", n=N_TOKENS))
    legend = ax.legend(loc="upper center", ncol=4, fontsize=9, columnspacing=1.0, handletextpad=0.4)
    # the same image on every move, over the bars
    artists["legend"] = ax.add_artist(Stamp([legend]))
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.14, top=0.9)
    _show(artists, n_experts, top_k, temperature, skew)
    return artists


def _store_axes(fig, artists):
    """Make the images of the x axis for every E and of the y axis for every height, so that the
    first look at a setting is as quick as the next (once, after the figure shows)."""
    ax, renderer = artists["ax"], fig.canvas.get_renderer()
    for n_experts in range(2, MAX_EXPERTS + 1):
        _set_x_axis(ax, n_experts)
        artists["x axis"].key = n_experts
        artists["x axis"].store(renderer)
    for top in Y_TOPS:
        ax.set_ylim(0, top)
        artists["y axis"].key = top
        artists["y axis"].store(renderer)
    artists["axes stored"] = True


def _show(artists, n_experts, top_k, temperature, skew):
    """Re-route, set the bars, dots and lines, the limits and the title; return what changed."""
    top_k = min(top_k, n_experts)
    counts, weight, fair, capacity = _routing(n_experts, top_k, temperature, skew)
    ax = artists["ax"]
    artists["bars"].set_verts(_bars(counts))
    artists["dots"].set_data(range(n_experts), weight)
    artists["fair"].set_ydata([fair, fair])
    artists["capacity"].set_ydata([capacity, capacity])
    _set_x_axis(ax, n_experts)
    top = nice_top(HEADROOM * max(counts.max(), weight.max(), capacity))
    ax.set_ylim(0, top)
    ax.set_title(_title(n_experts, top_k, counts, fair, capacity), y=1.0)   # y: a stamped title
    artists["x axis"].key, artists["y axis"].key = n_experts, top
    artists["title"].key = ax.get_title()
    return [*(artists[name] for name in ("bars", "dots", "fair", "capacity", "x axis", "y axis",
                                         "title", "legend")),
            ax.spines["left"], ax.spines["bottom"]]   # drawn over the lines and the bars' feet


def update(fig, artists, n_experts, top_k, temperature, skew):
    """Show the new setting (the first update, which show() makes, stores the axes' images first);
    return what changed, so that a move repaints only these."""
    if not artists.get("axes stored"):
        _store_axes(fig, artists)
    return _show(artists, n_experts, top_k, temperature, skew)


def make():
    controls = {
        "n_experts": IntSlider(value=8, min=2, max=MAX_EXPERTS, description=said("E experts"),
                               continuous_update=False),
        "top_k": IntSlider(value=2, min=1, max=MAX_K, description=said("top k"),
                           continuous_update=False),
        "temperature": FloatSlider(value=1.0, min=0.25, max=4.0, step=0.25,
                                   description=said("router temperature"), continuous_update=False),
        "skew": FloatSlider(value=0.0, min=0.0, max=3.0, step=0.25, description=said("skew to 0"),
                            continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(7.5, 3.4), title=said("Expert load"), update=update)
