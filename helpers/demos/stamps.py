"""Parts of a live demo's figure drawn from images of them, made once: text is what Agg draws
slowly (on a 2-core laptop about 0.2 ms a letter, 1 ms more a label), and an image is copied in
well under a millisecond.

    x_axis = ax.add_artist(Stamp([ax.xaxis]))    # the x axis is drawn by the stamp from now on
    x_axis.key = n_experts                       # what decides how it looks: set it on each move

A demo's update returns the stamp among the artists it changed. A stamp draws its parts itself the
first time it sees a key (and a resolution) and keeps that image; `store` makes one ahead of time.
A `Label` is a Text drawn the same way, from an image of its string that every Label shares;
`tick_labels` and `y_label` put Labels where an axis draws its tick labels and its label, for
labels that change with every setting. `nice_top` rounds an axis end up, so that few axes (and few
images of them) cover every setting.
"""

import math
from functools import lru_cache

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.colors import to_rgba
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform, ScaledTranslation

NICE = (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8)   # x 10^n: the ends nice_top rounds up to
LABEL_IMAGES = 4096                             # how many images of strings the Labels keep
LABEL_CANVAS = 400                              # pixels: the side of the canvas they are drawn on


def nice_tops(low, high):
    """The nice axis ends from the first at or above `low` to the first at or above `high`."""
    tops = [float(f"{m}e{p}") for p in range(math.floor(math.log10(low)),
                                             math.ceil(math.log10(high)) + 1)
            for m in NICE]
    first = next(i for i, t in enumerate(tops) if t >= low)
    last = next(i for i, t in enumerate(tops) if t >= high)
    return tops[first:last + 1]


def nice_top(value):
    """The first nice axis end at or above value (> 0): 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 x
    10^n."""
    return nice_tops(value, value)[0]


@lru_cache(maxsize=4)
def _scratch(width, height, dpi):
    """A canvas the size of the figure to draw parts on alone (the same one each time: matplotlib
    keeps what text measured per canvas). Screen and sharp images of two figures fit."""
    return RendererAgg(width, height, dpi)


@lru_cache(maxsize=4)
def _label_canvas(dpi):
    """A canvas to draw one Label's string on (the same one each time, as for _scratch)."""
    return RendererAgg(LABEL_CANVAS, LABEL_CANVAS, dpi)


def _alone(draw, canvas, corner=None):
    """(x, y of the lower left corner, RGBA rows bottom first) of what draw(canvas) draws on the
    canvas (cleared first), cropped to what it covers, or None where it covers nothing. `corner`
    (width, height): look only there, at the lower left."""
    canvas.clear()
    draw(canvas)
    height = int(canvas.height)
    pixels = np.asarray(canvas.buffer_rgba())
    top = 0 if corner is None else height - corner[1]
    if corner is not None:
        pixels = pixels[top:, :corner[0]]
    rows = np.flatnonzero(pixels[..., 3].any(axis=1))
    cols = np.flatnonzero(pixels[..., 3].any(axis=0))
    if not len(rows):
        return None
    crop = pixels[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    return cols[0], height - top - rows[-1] - 1, crop[::-1].copy()


class Stamp(Artist):
    """Draws `parts` (an axis with its tick labels, a title) from an image of them made once for
    each `key`, keeping the images of the last `keep` keys (all of them by default).

    The parts are hidden: only the stamp draws them. A title it draws must be placed with
    set_title(..., y=1.0), as the axes move a title only by what they draw themselves.
    """

    def __init__(self, parts, keep=None):
        super().__init__()
        self.parts, self.keep, self.key, self._images = list(parts), keep, None, {}
        self.set_zorder(max(part.get_zorder() for part in self.parts))
        for part in self.parts:
            part.set_visible(False)

    def store(self, renderer):
        """The image of the parts as they are now, for the current key: made now if it is new."""
        key = (self.key, renderer.dpi, renderer.width, renderer.height)
        if key not in self._images:
            scratch = _scratch(renderer.width, renderer.height, renderer.dpi)
            self._images[key] = _alone(self._draw_parts, scratch)
            if self.keep is not None and len(self._images) > self.keep:
                del self._images[next(iter(self._images))]   # the oldest
        return self._images[key]

    def _draw_parts(self, renderer):
        for part in self.parts:
            part.set_visible(True)
            part.draw(renderer)
            part.set_visible(False)

    def draw(self, renderer):
        image = self.store(renderer) if self.get_visible() else None
        if image is not None:
            gc = renderer.new_gc()
            renderer.draw_image(gc, *image)
            gc.restore()
        self.stale = False


_LABELS = {}   # (string, font, colour, alignment, rotation, dpi) -> image


class Label(Text):
    """A Text drawn from an image of its string, made once and shared by every Label with the same
    font, colour, alignment and resolution: a label that comes back (a word, a neuron id) costs a
    copy. It is placed on the nearest whole pixel (a plain Text can sit between two)."""

    def _anchor(self):
        x, y = self.get_transform().transform(self.get_unitless_position())
        return round(x), round(y)

    def _drawn_at(self, canvas, anchor):
        """Draw as a plain Text would, with the anchor on the pixel `anchor` (unclipped: an Axes
        clips to where it is on the figure, not on this canvas)."""
        transform, position, clip_on = self.get_transform(), self.get_position(), self.get_clip_on()
        self.set_transform(IdentityTransform())
        self.set_position(anchor)
        self.set_clip_on(False)
        try:
            Text.draw(self, canvas)
        finally:
            self.set_transform(transform)
            self.set_position(position)
            self.set_clip_on(clip_on)

    def _stored(self, renderer):
        """(image: x, y from the anchor and RGBA rows, or None; how far left of the anchor the text
        starts, in pixels) of this string: made now if it is new, on a canvas just large enough."""
        key = (self.get_text(), hash(self.get_fontproperties()),
               to_rgba(self.get_color(), self.get_alpha()),
               self.get_ha(), self.get_va(), self.get_rotation(), self.get_rotation_mode(),
               renderer.dpi)
        if key not in _LABELS:
            canvas = _label_canvas(renderer.dpi)
            box = self.get_window_extent(canvas)   # measured where it is drawn: measured once
            (x, y), (exact_x, _) = (self._anchor(),
                                    self.get_transform().transform(self.get_unitless_position()))
            anchor = x - math.floor(box.x0) + 4, y - math.floor(box.y0) + 4   # 4 pixels all round
            corner = math.ceil(box.width) + 9, math.ceil(box.height) + 9
            if max(corner) > LABEL_CANVAS:    # a long string: a canvas of its own
                canvas = RendererAgg(*corner, renderer.dpi)
            image = _alone(lambda canvas: self._drawn_at(canvas, anchor), canvas, corner)
            _LABELS[key] = image and (image[0] - anchor[0], image[1] - anchor[1],
                                      image[2]), box.x0 - exact_x
            if len(_LABELS) > LABEL_IMAGES:
                del _LABELS[next(iter(_LABELS))]   # the oldest
        return _LABELS[key]

    def store(self, renderer):
        """Make the image of this string now, if it is new."""
        self._stored(renderer)

    def reach(self, renderer):
        """Pixels from the anchor to the left edge of the text (negative when it starts left of
        it)."""
        return self._stored(renderer)[1]

    def draw(self, renderer):
        image = self._stored(renderer)[0] if self.get_visible() and self.get_text() else None
        if image is not None:
            (column, row), (dx, dy, pixels) = self._anchor(), image
            gc = renderer.new_gc()
            renderer.draw_image(gc, column + dx, row + dy, pixels)
            gc.restore()
        self.stale = False


def tick_labels(axis, locs):
    """Ticks at `locs` and a Label for each, in the font, colour and place of the tick label; set
    each Label's text on a move. The tick labels stay, in no colour: give them the same strings
    (set_ticks), so that the axis label keeps its place beside them."""
    axis.set_ticks(locs, [""] * len(locs))
    labels = []
    for loc, tick in zip(locs, axis.get_major_ticks(len(locs)), strict=True):
        label = Label(*((loc, 0) if axis.axis_name == "x" else (0, loc)), "")
        label.update_from(tick.label1)
        axis.axes.add_artist(label).set_clip_on(False)
        labels.append(label)
    axis.set_tick_params(labelcolor="none")
    return labels


class FollowingTickLabels:
    """Labels in the place of an axis' tick labels, for an axis whose limits change on every move:
    after the limits are set, `follow()` puts the ticks (and grid lines) where the axis' own locator
    would and a Label with its own formatter's string at each. The axis then draws no text, and a
    tick label that comes back ("0", "2") is a copy. `most`: as many Labels as ticks can be
    shown."""

    def __init__(self, axis, most=12):
        self.axis, self.locator, self.formatter = (axis, axis.get_major_locator(),
                                                   axis.get_major_formatter())
        template = axis.get_major_ticks(1)[0].label1
        self.labels = []
        for _ in range(most):
            label = Label(0, 0, "")
            label.update_from(template)
            label.set_visible(False)
            axis.axes.add_artist(label).set_clip_on(False)
            self.labels.append(label)
        self.shown = []

    def follow(self):
        """Ticks and Labels for the axis' limits now; returns every Label (the ones to repaint)."""
        locs = list(self.locator())          # as the axis would place them, one past each end
        strings = self.formatter.format_ticks(locs)
        view = self.axis.get_view_interval()
        low, high = sorted(view)
        # as the axis keeps a tick that rounding put just outside
        close = 1e-10 * (high - low)
        kept = [(loc, text) for loc, text in zip(locs, strings, strict=True)
                if low - close <= loc <= high + close]
        if len(kept) > len(self.labels):
            raise ValueError(f"the axis shows {len(kept)} ticks, more than the {len(self.labels)} "
                             "Labels made for it: make FollowingTickLabels(axis, "
                             f"most={len(kept)})")
        self.axis.set_ticks([loc for loc, _ in kept], [""] * len(kept))
        self.axis.set_view_interval(*view, ignore=True)   # set_ticks may widen it by the rounding
        for label, (loc, text) in zip(self.labels[:len(kept)], kept, strict=True):
            label.set_position((loc, 0) if self.axis.axis_name == "x" else (0, loc))
            label.set_text(text)
            label.set_visible(True)
        for label in self.labels[len(kept):]:
            label.set_visible(False)
        self.shown = self.labels[:len(kept)]
        return self.labels


def y_label(axis):
    """A Label in the font and colour of the y axis' label, which place_y_label puts where the axis
    would put its own (the label itself stays, hidden, so that the axis draws no text for it)."""
    label = Label(0, 0.5, axis.label.get_text(), rotation_mode=axis.label.get_rotation_mode())
    label.update_from(axis.label)
    label.set_visible(True)
    axis.axes.add_artist(label).set_clip_on(False)
    axis.label.set_visible(False)
    return label


def in_place(text):
    """A Label that draws `text` where it stays (an axis label fixed with set_label_coords, a title
    set with y=1.0: places the axes no longer move), in its font and colour; set the Label's text on
    a move. The Text itself stays, hidden. A text the axes place themselves moves with what they
    measure (tick labels), and this Label would not."""
    label = Label(*text.get_position(), text.get_text(), rotation_mode=text.get_rotation_mode())
    label.update_from(text)
    label.set_visible(True)
    owner = text.axes or text.figure
    owner.add_artist(label).set_clip_on(False)
    text.set_visible(False)
    return label


def place_y_label(label, ticks, renderer):
    """Put the Label of a y axis' label left of the widest of its tick Labels, as the axis puts its
    own beside its tick labels."""
    ax = label.axes
    x, _ = ticks[0].get_transform().transform(ticks[0].get_unitless_position())
    left = min(min(x + tick.reach(renderer) for tick in ticks), ax.bbox.x0)
    points = (left - ax.bbox.x0) * 72 / renderer.dpi - ax.yaxis.labelpad
    label.set_transform(ax.transAxes + ScaledTranslation(points / 72, 0, ax.figure.dpi_scale_trans))
