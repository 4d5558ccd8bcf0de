"""How big a demo's figure is on screen: its height in pixels, the dpi it is drawn at, and the
style that lets it fill the room its window gives it (normal mode and projector mode).

helpers.widgets (which names these too) draws every LiveFigure with them.
"""

import matplotlib

from helpers.plots import projector_mode

MAX_HEIGHT_PX = 400     # the figure's height on screen: controls and figure fit a 1280x720 screen
# In projector mode the style below sizes the figure to the window; drawn this tall, a 1080p
# screen shows the sharp image at about its own resolution.
PROJECTOR_MAX_HEIGHT_PX = 640
# The demo's style: its figure takes the room its window gives it. In normal mode it is drawn as
# tall as the window's width allows at the 1280 px layout's scale (400 px at 1280 wide, 600 px at
# 1920), never taller than the height left under the controls; in projector mode
# (helpers.presentation()) it takes that whole height, and the controls grow with it.
DEMO_CSS = """<style>
.jp-OutputArea:has(.course-demo) .jp-OutputArea-output img {
  height: min(calc(100vh - 210px - var(--course-controls, 3) * 46px), calc(400 * 100vw / 1280));
  max-height: none; width: auto; max-width: 100%; object-fit: contain; object-position: left top; }
.course-projector { --jp-widgets-font-size: 20px; --jp-widgets-inline-height: 40px;
  --jp-widgets-inline-width: 520px; --jp-widgets-inline-label-width: 200px;
  --jp-widgets-slider-handle-size: 22px; font-size: 20px; }
.course-projector .widget-readout, .course-projector .widget-label, .course-projector select,
.course-projector .widget-html-content { font-size: 20px; line-height: 1.3; }
.course-projector .widget-inline-hbox { max-width: 100%; box-sizing: border-box; }
.course-projector select, .course-projector .slider-container { min-width: 0; }
.jp-OutputArea:has(.course-projector) .jp-OutputArea-output img {
  height: calc(100vh - 210px - var(--course-controls, 3) * 46px); }
""" + "".join(f".jp-OutputArea:has(.course-controls-{n}) {{ --course-controls: {n}; }}\n"
              for n in range(1, 7)) + """
</style>"""


def figure_max_height():
    """The tallest a demo's figure is drawn, in pixels: more in projector mode."""
    return PROJECTOR_MAX_HEIGHT_PX if projector_mode() else MAX_HEIGHT_PX


def screen_dpi(figsize, max_height=None):
    """The dpi a demo's figure is drawn at: the course's (figure.dpi, larger in projector mode), or
    less where that would make it taller than max_height pixels (figure_max_height() by default).
    Its draft then has as many pixels as it shows, and the sharp image twice as many each way."""
    limit = figure_max_height() if max_height is None else max_height
    return min(matplotlib.rcParams["figure.dpi"], limit / figsize[1])


def fit_on_screen(metadata, max_height=None):
    """Scale a PNG's display size (width, height) down so it is at most max_height tall."""
    size = metadata["image/png"]
    max_height = figure_max_height() if max_height is None else max_height
    if size["height"] > max_height:
        scale = max_height / size["height"]
        size["width"], size["height"] = round(size["width"] * scale), max_height
    return metadata
