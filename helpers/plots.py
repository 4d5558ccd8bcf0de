"""Plot style, a colour-blind-safe palette, and a `show` that insists every
figure is titled, labelled and readable.

Colours come from Okabe and Ito's palette, which stays distinguishable for the
one man in twelve who is red-green colour-blind; where lines may cross, the
course also varies the line style (LINESTYLES). Figures are sent as PNGs at
twice their size on screen (sharp on a retina display or a projector), with
the figure's titles as alt text.
"""

import io
import struct
import textwrap
import zlib

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.text import Text

from helpers import validate

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
NEUTRAL = "#555555"  # a dark grey for "everything else"; a light one fails beside purple

COLORS = {
    # activations (notebooks 02-05)
    "relu": OKABE_ITO["vermillion"],
    "gelu": OKABE_ITO["blue"],
    "gelu_tanh": OKABE_ITO["sky_blue"],
    "silu": OKABE_ITO["bluish_green"],
    # the parts of a model (notebooks 06-12)
    "attention": OKABE_ITO["reddish_purple"],
    "mlp": OKABE_ITO["orange"],
    "embedding": OKABE_ITO["sky_blue"],
    "kv": OKABE_ITO["blue"],
    # where code runs (notebooks 01, 03, 09)
    "cpu": NEUTRAL,
    "gpu": OKABE_ITO["bluish_green"],
    "reference": OKABE_ITO["blue"],
    "neutral": NEUTRAL,
}
LINESTYLES = {"relu": "-", "gelu": "-", "gelu_tanh": "--", "silu": "-."}

# Colours drawn in one figure together; tests/test_palette.py keeps each group apart
# under deuteranopia and protanopia.
GROUPS = {
    "activations": ["relu", "gelu", "gelu_tanh", "silu", "neutral"],
    "parts": ["attention", "mlp", "embedding", "neutral"],
    "decode": ["mlp", "kv", "attention", "neutral"],
    "devices": ["cpu", "gpu", "reference", "mlp"],
}

MIN_FONT_PT = 9
RETINA = 2  # PNG pixels per screen pixel
STYLE = {
    "figure.figsize": (7.0, 4.0),
    "figure.dpi": 90,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=[OKABE_ITO[c] for c in (
        "blue", "orange", "bluish_green", "vermillion", "reddish_purple", "sky_blue", "black")]),
    "font.size": 10,
    "legend.fontsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "svg.hashsalt": "course",
}
_PROJECTOR_DPI = {False: 90, True: 135}


def use_course_style():
    """Apply the course's matplotlib settings."""
    matplotlib.rcParams.update(STYLE)


# Hangul in figures (the Korean edition): NanumGothic (SIL Open Font License), shipped by the
# package
# koreanize-matplotlib, whose font files are registered from the install; that package is never
# imported (its import sets every font to NanumGothic and warns on Python 3.12).
HANGUL_FONT = "NanumGothic"
HANGUL_FONT_PACKAGE = "koreanize-matplotlib"


def hangul_font_files():
    """The .ttf files of the Hangul font, from the installed package (no network); [] without it."""
    from importlib import metadata

    try:
        files = metadata.files(HANGUL_FONT_PACKAGE) or []
    except metadata.PackageNotFoundError:
        return []
    return sorted(str(f.locate()) for f in files if f.name.startswith(HANGUL_FONT)
                  and f.suffix == ".ttf")


def use_hangul_font():
    """Figures draw Hangul: the course's Latin font first (letters and digits as in the English
    edition), NanumGothic for the glyphs it lacks. Returns the font family list now in use."""
    from matplotlib import font_manager

    files = hangul_font_files()
    if not files:
        raise FileNotFoundError("the Korean edition's figures need the package "
                                f"{HANGUL_FONT_PACKAGE} (its {HANGUL_FONT} font): pip install "
                                f"{HANGUL_FONT_PACKAGE}")
    known = {font.fname for font in font_manager.fontManager.ttflist}
    for path in files:
        if path not in known:
            font_manager.fontManager.addfont(path)
    family = [f for f in matplotlib.rcParams["font.family"] if f != HANGUL_FONT]
    latin = font_manager.FontProperties(
        fname=font_manager.findfont(font_manager.FontProperties(family=family)))
    matplotlib.rcParams["font.family"] = [latin.get_name(), HANGUL_FONT]
    return matplotlib.rcParams["font.family"]


class _Mode(str):
    """What presentation() returns: its message, and in a notebook also the mark that the slides'
    style sheet (notebooks/rise.css) looks for to switch RISE's slides to projector mode."""

    def _repr_html_(self):
        mark = (f'<span class="{PROJECTOR_MARK}" hidden></span>'
                if self.startswith("projector mode on") else "")
        return f"{mark}<pre>{self}</pre>"


PROJECTOR_MARK = "course-projector-on"   # notebooks/rise.css: projector mode while a cell shows it


def presentation(on=True):
    """Projector mode: every figure and demo drawn 1.5x larger on screen (text included), and the
    demos' controls enlarged with them (20 px text instead of 13 px). In RISE's slides (the cell
    that calls it shown as its output) body text grows to 24 px and code and printed output to 18
    px, and no code cell is shrunk to fit: a slide taller than the screen scrolls at full size."""
    on = validate.boolean(on, "on")
    matplotlib.rcParams["figure.dpi"] = _PROJECTOR_DPI[on]
    return _Mode("projector mode on: figures 1.5x larger, demo controls too, slide text 24 px"
                 if on else "projector mode off")


def projector_mode():
    """True while helpers.presentation() is on."""
    return matplotlib.rcParams["figure.dpi"] == _PROJECTOR_DPI[True]


def problems(fig):
    """What keeps fig from being shown: a missing title or axis label, text under 9 pt."""
    found = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or getattr(ax, "_colorbar", None) is not None:
            continue
        if ax.get_label() == "<colorbar>":
            continue
        if not (ax.get_title() or fig._suptitle is not None):
            found.append(f"axes {i} has no title")
        if ax.axison:
            for axis in ("x", "y") + (("z",) if hasattr(ax, "get_zlabel") else ()):
                if not getattr(ax, f"get_{axis}label")():
                    found.append(f"axes {i} has no {axis} label")
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text().strip() and text.get_fontsize() < MIN_FONT_PT:
            found.append(f"text {text.get_text()[:30]!r} is {text.get_fontsize():g} pt "
                         f"(at least {MIN_FONT_PT} pt is readable on a projector)")
    return found


unlabelled = problems  # the older name


def alt_text(fig):
    """The figure's titles, which state its finding: the text a screen reader says."""
    titles = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    titles += [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()]
    return "Figure: " + "; ".join(t.replace("\n", " ") for t in titles if t)


def png_output(fig, alt=None, fast=False, ratio=RETINA):
    """(data, metadata) for IPython's display: a 2x PNG shown at 1x, with alt text.

    fast=True compresses less (about 10% larger, 10-15 ms quicker): for a live redraw, which
    nobody stores. ratio: PNG pixels per screen pixel (1: a live demo's quick draft).
    """
    buffer = io.BytesIO()
    fig.canvas.print_figure(buffer, format="png", dpi=fig.dpi * ratio,
                            pil_kwargs={"compress_level": 1 if fast else 6})
    return _display_output(fig, buffer.getvalue(), alt)


def _display_output(fig, png, alt=None, size=None):
    """(data, metadata) for IPython's display of the PNG bytes `png` of fig, shown at fig's size
    (or at `size`, (width, height) in pixels)."""
    width, height = size or (round(v) for v in fig.get_size_inches() * fig.dpi)
    data = {"image/png": png,
            "text/plain": f"<Figure size {width}x{height} with {len(fig.axes)} Axes>"}
    metadata = {"image/png": {"width": width, "height": height, "alt": alt or alt_text(fig)}}
    return data, metadata


def _png_chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def quick_png(pixels):
    """PNG bytes of RGBA pixels (height, width, 4), every row filtered "Up" (minus the row above:
    a figure's rows repeat, so they compress well) and compressed quickly: 3 times quicker than
    PIL's choice of a filter per row, and about as small, for a live demo's draft."""
    height, width, _ = pixels.shape
    rows = np.empty((height, 1 + 4 * width), np.uint8)
    flat = pixels.reshape(height, 4 * width)
    rows[0, 0], rows[0, 1:] = 0, flat[0]                   # the first row as it is
    rows[1:, 0] = 2                                        # filter type 2: Up
    np.subtract(flat[1:], flat[:-1], out=rows[1:, 1:])     # modulo 256, as PNG adds it back
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)   # 8-bit RGBA, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + _png_chunk(b"IEND", b""))


def canvas_png(fig, alt=None):
    """(data, metadata) like png_output, of what fig's canvas drew last (no new drawing, quick
    compression): a live demo's draft after only its changed artists were painted."""
    pixels = np.asarray(fig.canvas.buffer_rgba())
    # one to one
    return _display_output(fig, quick_png(pixels), alt, size=(pixels.shape[1], pixels.shape[0]))


def fit_titles(fig):
    """Wrap each axes title that runs past the figure's edge onto more lines, so none is cut."""
    fig.draw_without_rendering()   # lay the figure out (constrained layout moves the axes)
    # any canvas: a bare Figure() has no Agg one
    renderer, right = fig._get_renderer(), fig.bbox.width
    for ax in fig.axes:
        title = ax.title
        if not (ax.get_visible() and title.get_visible() and title.get_text()):
            continue
        box = title.get_window_extent(renderer)
        room = 2 * min((box.x0 + box.x1) / 2, right - (box.x0 + box.x1) / 2) * 0.97   # centred
        if box.width > room:
            lines = title.get_text().split("\n")
            longest = max(map(len, lines))
            chars = max(20, int(longest * room / box.width))   # what fits on one line
            # the longest line in balanced pieces
            pieces = -(-longest // chars)
            chars = min(chars, -(-longest // pieces) + 8)
            title.set_text("\n".join(textwrap.fill(line, chars) for line in lines))


def show(fig=None, alt=None):
    """Check the figure is titled, labelled and readable, then show it sharp, with alt text."""
    from IPython.display import display

    fig = plt.gcf() if fig is None else validate.instance_of(
        fig, "fig", Figure, "(from plt.subplots())")
    found = problems(fig)
    if found:
        raise ValueError("figure is not ready to show: " + "; ".join(found))
    fit_titles(fig)
    data, metadata = png_output(fig, alt)
    display(data, metadata=metadata, raw=True)
    plt.close(fig)
