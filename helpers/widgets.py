"""Live figures for demos: controls that redraw a figure in place.

A `LiveFigure` shows ipywidgets controls (works with ipywidgets 7.7 and 8) and
a figure below them. Moving a control redraws the figure through an IPython
display handle, so the stored notebook (GitHub, nbval) keeps a static figure of
the default settings, and a live kernel updates it.
"""

import time

import matplotlib
from IPython.display import display
from matplotlib.figure import Figure

from helpers.plots import png_output

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class LiveFigure:
    """draw(fig, **values) draws into a fresh figure whenever a control moves."""

    def __init__(self, draw, controls, figsize=(8.0, 4.0), title="Live demo"):
        if not callable(draw):
            raise TypeError(f"draw must be a function draw(fig, **values), got {type(draw).__name__}")
        if not controls:
            raise ValueError("controls must name at least one widget, e.g. {'T': IntSlider(...)}")
        self.draw = draw
        self.controls = dict(controls)
        self.figsize = figsize
        self.title = title
        self.figure = None
        self._handle = None
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
        """Set controls to `changes`, draw a new figure and return it (no display)."""
        for name in changes:
            if name not in self.controls:
                raise ValueError(f"unknown control {name!r}; this figure has {list(self.controls)}")
        for name, value in changes.items():
            w = self.controls[name]
            w.unobserve(self._on_change, names="value")
            w.value = value
            w.observe(self._on_change, names="value")
        # A Figure outside pyplot: quicker to make, and pyplot never shows it a second time.
        fig = Figure(figsize=self.figsize, dpi=matplotlib.rcParams["figure.dpi"])
        self.draw(fig, **self.values())
        self.figure = fig
        return fig

    def redraw_seconds(self, **changes):
        """Seconds to redraw and encode the figure as a PNG, as a live callback does."""
        start = time.perf_counter()
        png_output(self.render(**changes), fast=True)
        return time.perf_counter() - start

    def _on_change(self, _change):
        data, metadata = png_output(self.render(), fast=True)
        if self._handle is not None:
            self._handle.update(data, metadata=metadata, raw=True)

    def show(self):
        """Display the controls and the figure for their current values."""
        from ipywidgets import VBox

        box = VBox(list(self.controls.values()))
        names = ", ".join(self.controls)
        # A plain-text stand-in where widgets cannot render (GitHub, nbconvert).
        display(
            {
                WIDGET_VIEW: {"model_id": box.model_id, "version_major": 2, "version_minor": 0},
                "text/plain": f"{self.title}: controls {names} (run the notebook to move them)",
            },
            raw=True,
        )
        data, metadata = png_output(self.render())
        self._handle = display(data, metadata=metadata, raw=True, display_id=True)
