"""Live figures for demos: controls that redraw a figure in place.

A `LiveFigure` shows ipywidgets controls (works with ipywidgets 7.7 and 8) and
a figure below them. Moving a control redraws the figure through an IPython
display handle, so the stored notebook (GitHub, nbval) keeps a static figure of
the default settings, and a live kernel updates it.

A redraw answers quickly: a demo may give `update(fig, state, **values)`, which
changes the artists that `draw` made (set_data, set_text) instead of building the
figure again. If update returns the artists it changed, a move repaints only those
over a stored image of everything else (blitting: the axes, ticks and legend are
drawn once, not on every move). The first image after a move is a draft at screen
resolution, and the sharp (retina) image follows once the controls rest. How tall it is drawn,
and the style that sizes it to the window, are in helpers.widget_screen.
"""

import asyncio
import contextlib
import time

from IPython.display import HTML, display
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers.plots import RETINA, canvas_png, png_output, projector_mode
from helpers.widget_screen import (  # noqa: F401 - exported
    DEMO_CSS,
    MAX_HEIGHT_PX,
    PROJECTOR_MAX_HEIGHT_PX,
    figure_max_height,
    fit_on_screen,
    screen_dpi,
)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# Shown above the controls until a redraw happens: a stored notebook's sliders move without a
# kernel.
NEEDS_KERNEL = ("These controls need a running kernel: run this cell (Shift+Enter), then move "
                "them. Until then they move and the figure stays as it was stored.")
SHARP_AFTER_S = 0.4     # after the last move, the draft is replaced by the sharp image


def changed_artists(fig, changed):
    """The artists an update returned, checked: each is drawn by an Axes or by the figure itself,
    so that it can be left out of the stored background and painted over it."""
    artists = list(changed)
    for artist in artists:
        if not isinstance(artist, Artist):
            raise TypeError(f"update must return the artists it changed (or None to redraw "
                            f"everything), got {type(artist).__name__} {artist!r}")
        parent = artist.figure if isinstance(artist, Axes) or artist.axes is None else artist.axes
        if parent is None or parent.figure is not fig \
                or not any(artist is c for c in parent.get_children()):
            raise ValueError(f"update returned {artist!r}, which is drawn as part of another "
                             "artist (a legend's text, a tick label) or not in this figure: "
                             "return artists of an Axes (ax.lines, ax.texts, ax.title) or of the "
                             "figure, or None to redraw everything")
    return sorted(artists, key=lambda a: a.get_zorder())


class LiveFigure:
    """draw(fig, **values) draws the figure; moving a control redraws it.

    update(fig, state, **values), if given, changes what draw made in place (draw returns
    `state`, e.g. a dict of its artists); without it every redraw draws a fresh figure.
    If update returns the artists it changed (a list), a move repaints only those over the rest,
    drawn once; returning None redraws the whole figure. Every other artist must then stay as it
    is (fixed axis limits, fixed ticks): tests/test_widgets_plots.py checks each demo's drafts
    against a fresh drawing.

    ahead: settings (dicts of some controls' values, the others as they are) to make the images of
    when the figure shows: the images of their text, which the returned artists keep
    (helpers.demos.stamps), so that a first look at one of them is as quick as a repeat.
    """

    def __init__(self, draw, controls, figsize=(8.0, 4.0), title="Live demo", update=None,
                 ahead=()):
        if not callable(draw):
            raise TypeError("draw must be a function draw(fig, **values), got "
                            f"{type(draw).__name__}")
        if update is not None and not callable(update):
            raise TypeError(f"update must be a function update(fig, state, **values) or None, "
                            f"got {type(update).__name__}")
        if not controls:
            raise ValueError("controls must name at least one widget, e.g. {'T': IntSlider(...)}")
        self.draw = draw
        self.update = update
        self.ahead = list(ahead)
        self.controls = dict(controls)
        self.figsize = figsize
        self.title = title
        self.figure = None
        self.note = None
        self._state = None
        self._handle = None
        self._sharp = None     # the pending sharp redraw (an asyncio timer)
        self._changed = None   # the artists the last update changed, or None: redraw everything
        self._animated = []    # the artists left out of the background
        self._background = None
        self._background_key = None
        self._touched = set()  # ids of the artists changed since the last repaint
        for widget in self.controls.values():
            if hasattr(widget, "continuous_update"):
                widget.continuous_update = False   # redraw once, on release: no queue of redraws
            if getattr(widget, "description", ""):
                widget.style.description_width = "initial"   # long labels are not clipped
            widget.observe(self._on_change, names="value")

    def values(self):
        """The current value of every control."""
        return {name: w.value for name, w in self.controls.items()}

    def render(self, **changes):
        """Set controls to `changes`, draw the figure and return it (no display)."""
        for name in changes:
            if name not in self.controls:
                raise ValueError(f"unknown control {name!r}; this figure has {list(self.controls)}")
        for name, value in changes.items():
            w = self.controls[name]
            w.unobserve(self._on_change, names="value")
            w.value = value
            w.observe(self._on_change, names="value")
        dpi = screen_dpi(self.figsize)
        if self.update is not None and self.figure is not None and self.figure.dpi == dpi:
            changed = self.update(self.figure, self._state, **self.values())
            if changed is None:            # anything may have changed: the background too
                self._changed, self._background_key = None, None
            else:
                self._changed = changed_artists(self.figure, changed)
                self._touched.update(id(a) for a in self._changed)
        else:
            # A Figure outside pyplot: quicker to make, and pyplot never shows it a second time.
            fig = Figure(figsize=self.figsize, dpi=dpi)
            FigureCanvasAgg(fig)
            self._state = self.draw(fig, **self.values())
            self.figure = fig
            self._changed, self._animated, self._background, self._background_key = (
                None, [], None, None)
            self._touched = set()
        return self.figure

    def _blit(self):
        """Paint the changed artists over the background (everything else, drawn once)."""
        fig, artists = self.figure, self._changed
        key = ([id(a) for a in artists], fig.dpi, fig.canvas.get_width_height())
        # An artist changed by an earlier move, with no image sent since, is stale in the
        # background.
        if key != self._background_key or not self._touched <= set(key[0]):
            for artist in self._animated:
                artist.set_animated(False)
            for artist in artists:
                artist.set_animated(True)    # left out of a plain draw
            self._animated = artists
            fig.canvas.draw()
            self._background = fig.canvas.copy_from_bbox(fig.bbox)
            self._background_key = key
        self._touched = set()
        fig.canvas.restore_region(self._background)
        for artist in artists:
            fig.draw_artist(artist)

    @contextlib.contextmanager
    def _everything_drawn(self):
        """The changed artists drawn again by a plain draw (a figure's own children are left out
        of every draw while they are animated, even a saved one)."""
        for artist in self._animated:
            artist.set_animated(False)
        try:
            yield
        finally:
            for artist in self._animated:
                artist.set_animated(True)

    def image(self, sharp=True):
        """(data, metadata) of the current figure: sharp (retina) or a draft at screen resolution.
        A draft after an update that named its artists repaints only those."""
        if not sharp and self._changed is not None:
            self._blit()
            data, metadata = canvas_png(self.figure)
        else:
            with self._everything_drawn():
                data, metadata = png_output(self.figure, fast=True, ratio=RETINA if sharp else 1)
        return data, fit_on_screen(metadata)

    def prepare(self):
        """Draw the background a move repaints over now, so that the first move is as quick as
        the next ones (show() calls it after the stored figure is sent)."""
        if self.update is not None and self.figure is not None:
            self.render()
            if self._changed is not None:
                self._blit()
            if self.ahead:
                self._store_ahead()

    def _store_ahead(self):
        """Make the images the returned artists keep for each setting of `ahead` (no drawing, no
        control moves), then set the figure back to the controls' values."""
        renderer, current = self.figure.canvas.get_renderer(), self.values()
        for setting in self.ahead:
            unknown = set(setting) - set(self.controls)
            if unknown:
                raise ValueError(f"ahead names {sorted(unknown)}, which are not controls of this "
                                 f"figure ({list(self.controls)})")
            for artist in self.update(self.figure, self._state, **{**current, **setting}) or []:
                if hasattr(artist, "store"):
                    artist.store(renderer)
        self.render()

    def redraw_seconds(self, sharp=False, **changes):
        """Seconds from a control's new value to the image a live callback sends (the draft by
        default; sharp=True: the retina image that follows)."""
        start = time.perf_counter()
        self.render(**changes)
        self.image(sharp=sharp)
        return time.perf_counter() - start

    def _send(self, sharp):
        if self._handle is not None:
            data, metadata = self.image(sharp=sharp)
            self._handle.update(data, metadata=metadata, raw=True)

    def _on_change(self, _change):
        if self._sharp is not None:
            self._sharp.cancel()
            self._sharp = None
        self._hide_note()
        self.render()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:   # no event loop (a script, a test): send the sharp image at once
            self._send(sharp=True)
            return
        self._send(sharp=False)
        self._sharp = loop.call_later(SHARP_AFTER_S, self._send, True)

    def _hide_note_once_seen(self):
        """Hide the note as soon as a browser shows these controls while this kernel runs.

        A link between two hidden values, made in the browser (jslink): when the browser creates
        it, it copies 1 into `seen` and sends that here, and the kernel hides the note. A headless
        run (nbclient, nbval) has no browser, so the stored notebook keeps the note; a stored
        notebook opened later has no kernel to answer, so it keeps it too."""
        from ipywidgets import IntText, jslink

        source, seen = IntText(value=1), IntText(value=0)
        seen.observe(lambda change: self._hide_note() if change["new"] == 1 else None,
                     names="value")
        self._seen_link = jslink((source, "value"), (seen, "value"))

    def _hide_note(self):
        if self.note is not None and self.note.layout.display != "none":
            self.note.layout.display = "none"   # the kernel answered: the note has done its job

    def show(self):
        """Display the controls and the figure for their current values."""
        from ipywidgets import HTML as NoteHTML
        from ipywidgets import VBox

        self.note = NoteHTML(value=f"<i>{NEEDS_KERNEL}</i>")
        box = VBox([self.note, *self.controls.values()])
        self._hide_note_once_seen()
        box.add_class("course-demo")
        box.add_class(f"course-controls-{min(len(self.controls), 6)}")
        if projector_mode():
            box.add_class("course-projector")
        self.box = box
        names = ", ".join(self.controls)
        # A plain-text stand-in where widgets cannot render (GitHub, nbconvert).
        display(
            {
                WIDGET_VIEW: {"model_id": box.model_id, "version_major": 2, "version_minor": 0},
                "text/plain": f"{self.title}: controls {names} (run the notebook to move them)",
            },
            raw=True,
        )
        display(HTML(DEMO_CSS))
        self.render()
        with self._everything_drawn():
            data, metadata = png_output(self.figure)
        self._handle = display(data, metadata=fit_on_screen(metadata), raw=True, display_id=True)
        self.prepare()
