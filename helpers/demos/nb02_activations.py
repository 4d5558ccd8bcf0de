"""Notebook 02's demo: pick activations and an x-range; see them and their slopes.

A move repaints the curves and the axes; the tick labels, which follow the range, are drawn from
images of their strings ("0", "2", made once: helpers.demos.stamps), and the legend from an image
of it for each choice of activations.
"""

import numpy as np
from ipywidgets import FloatRangeSlider, SelectMultiple
from matplotlib.artist import Artist
from matplotlib.legend import Legend

from helpers import activations
from helpers.demos.stamps import FollowingTickLabels, Stamp, in_place, place_y_label, y_label
from helpers.language import said
from helpers.plots import COLORS, LINESTYLES
from helpers.widgets import LiveFigure

NAMES = ("relu", "gelu", "gelu_tanh", "silu")
SAMPLE = {"names": ("relu", "gelu_tanh", "silu"), "x_range": (-8.0, 2.0)}
POINTS = 240   # enough for smooth curves at this size; fewer points draw faster


def _curves(x_range):
    """x (POINTS,) over the range, and {name: (f(x), f'(x))} for every activation."""
    lo, hi = x_range
    if hi - lo < 1e-3:
        hi = lo + 1e-3
    x = np.linspace(lo, hi, POINTS)
    return x, {name: tuple(g(x) for g in activations.ACTIVATIONS[name]) for name in NAMES}


def _fit(ax, x, drawn):
    """x: the chosen range; y: the curves drawn and the zero line, with autoscaling's margins
    (worked out from the data: the same limits after any earlier setting)."""
    x_margin, y_margin = ax.margins()
    span = x[-1] - x[0]
    ax.set_xlim(x[0] - x_margin * span, x[-1] + x_margin * span)
    lo, hi = min([0.0, *(y.min() for y in drawn)]), max([0.0, *(y.max() for y in drawn)])
    lo, hi = ax.yaxis.get_major_locator().nonsingular(lo, hi)
    ax.set_ylim(lo - y_margin * (hi - lo), hi + y_margin * (hi - lo))


class LegendSlot(Artist):
    """Draws the legend it holds, which may be replaced by another one: one artist of the
    Axes for the figure's whole life, so that a move can repaint whichever legend it holds."""

    def __init__(self, ax):
        super().__init__()
        self.legend = None
        self.set_zorder(5)    # where Axes.legend draws
        ax.add_artist(self)

    def hold(self, handles):
        """Hold a legend of these lines (none without lines)."""
        self.legend = Legend(self.axes, handles, [h.get_label() for h in handles],
                             loc="upper left") if handles else None

    def get_children(self):
        return [] if self.legend is None else [self.legend]

    def draw(self, renderer):
        if self.legend is not None and self.get_visible():
            self.legend.draw(renderer)


def _pin_xlabels(fig, axes):
    """Fix each x label where matplotlib puts it, below the tick labels (whose height does not
    change), so that drawing an axis need not measure its tick labels again."""
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        ax.xaxis.get_tightbbox(renderer)
        _, y = ax.transAxes.inverted().transform((0, ax.xaxis.label.get_position()[1]))
        ax.xaxis.set_label_coords(0.5, y)


def draw(fig, names, x_range):
    """Left: the chosen activations over x_range. Right: their derivatives.
    Returns the artists that `update` changes."""
    x, curves = _curves(x_range)
    ax_f, ax_d = fig.subplots(1, 2)
    lines = ({}, {})   # {name: its curve} in each panel
    for name in NAMES:
        style = dict(ls=LINESTYLES[name], color=COLORS[name], label=name, visible=name in names)
        for ax, panel, y in zip((ax_f, ax_d), lines, curves[name], strict=True):
            (panel[name],) = ax.plot(x, y, **style)
    zeros = [ax.axhline(0, color="black", lw=0.6) for ax in (ax_f, ax_d)]
    for ax in (ax_f, ax_d):
        ax.set_xlabel(said("x (pre-activation)"))
        ax.locator_params(nbins=4)  # few tick labels: each one is text to lay out and render
    for i, ax in enumerate((ax_f, ax_d)):
        _fit(ax, x, [curves[name][i] for name in names])
    slot = LegendSlot(ax_f)   # one legend serves both panels
    slot.hold([lines[0][name] for name in NAMES if name in names])
    ax_f.set(title=said("f(x) over the chosen range"), ylabel="f(x)")
    ax_d.set(title=said("f'(x): exactly 0 means no gradient"), ylabel="f'(x)")
    empty = ax_f.text(0.5, 0.5, said("pick at least one activation"), ha="center",
                      transform=ax_f.transAxes, visible=not names)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.9, wspace=0.22)  # fixed: fast
    _pin_xlabels(fig, (ax_f, ax_d))
    # The tick labels and y labels follow the limits on every move: drawn from images of their
    # strings.
    ticks = [FollowingTickLabels(axis) for ax in (ax_f, ax_d) for axis in (ax.xaxis, ax.yaxis)]
    artists = {"axes": (ax_f, ax_d), "lines": lines, "zeros": zeros, "names": tuple(names),
               "slot": slot,
               "legend": ax_f.add_artist(Stamp([slot])), "empty": empty, "ticks": ticks,
               "y labels": [y_label(ax.yaxis) for ax in (ax_f, ax_d)],
               "x labels": [in_place(ax.xaxis.label) for ax in (ax_f, ax_d)]}
    _follow(fig, artists)
    return artists


def _follow(fig, artists):
    """Ticks, tick labels and y labels for the limits now, the legend's image for the names shown;
    returns the Labels."""
    labels = [label for ticks in artists["ticks"] for label in ticks.follow()]
    renderer = fig.canvas.get_renderer()
    for y_ticks, label in zip(artists["ticks"][1::2], artists["y labels"], strict=True):
        place_y_label(label, y_ticks.shown, renderer)
    artists["legend"].key = artists["names"]
    return labels + artists["y labels"]   # the x labels stay where they are, in the background


def update(fig, artists, names, x_range):
    """Move the curves of the chosen activations, hide the others and fit the axes; return
    what changed (the curves, the axes with their ticks, the legend), not the titles."""
    x, curves = _curves(x_range)
    ax_f, ax_d = artists["axes"]
    for i, panel in enumerate(artists["lines"]):
        for name, line in panel.items():
            line.set_data(x, curves[name][i])
            line.set_visible(name in names)
    for i, ax in enumerate((ax_f, ax_d)):
        _fit(ax, x, [curves[name][i] for name in names])
    if tuple(names) != artists["names"]:
        artists["slot"].hold([artists["lines"][0][name] for name in NAMES if name in names])
        artists["names"] = tuple(names)
    artists["empty"].set_visible(not names)
    changed = [artists["legend"], artists["empty"], *_follow(fig, artists)]
    for ax, panel, zero in zip((ax_f, ax_d), artists["lines"], artists["zeros"], strict=True):
        changed += [ax.xaxis, ax.yaxis, *ax.spines.values(), *panel.values(), zero]
    return changed


def make():
    controls = {
        "names": SelectMultiple(options=NAMES, value=("relu", "gelu", "silu"), rows=4,
                                description="activations"),
        "x_range": FloatRangeSlider(value=(-4.0, 4.0), min=-10.0, max=10.0, step=0.5,
                                    description=said("x range"), continuous_update=False),
    }
    return LiveFigure(draw, controls, figsize=(9.0, 3.4), title=said("ReLU vs GELU vs SiLU"),
                      update=update)
