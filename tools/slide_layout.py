"""Set every cell's slide type from its content, so that each slide fits a 1280x720 screen.

    python tools/slide_layout.py              # rewrite the slide metadata of every notebook
    python tools/slide_layout.py 05 12        # notebooks whose name starts with 05 or 12
    python tools/slide_layout.py --check      # change nothing; exit 1 if a notebook is out of date

RISE (live slides in JupyterLab) and the reveal.js decks (`make slides`) both read the cells'
`slideshow` metadata. The rules, applied the same way every time (running the tool twice changes
nothing):

- the title cell and each section heading (`## ...`) open a slide;
- each exercise (`### Exercise ...`) opens a sub-slide (one step down in the slide);
- the setup cell is skipped: it is plumbing, not a slide;
- the solutions (`## Solutions` and the cells after it) become speaker notes: folded answers
  stay out of the room's sight;
- any other cell stays on the current slide while the slide's estimated height fits, and
  opens a sub-slide when it would not.

The height of a cell is estimated from its text and stored outputs (lines of text, lines of code
wrapped at the slide's width, each figure's size as stored, capped as the slides' style sheets
cap it), erring on the tall side. A cell estimated taller than a whole slide is named: the slides
shrink it to fit (its figure first), and one far taller than a slide is better split in the notebook.
"""

import argparse
import math
import re
import sys

import nbformat

from course_paths import notebook_paths

# The slide, in CSS pixels at 1280x720 (RISE: the slide area inside its 10% margin).
SLIDE_HEIGHT = 640
FIGURE_MAX_HEIGHT = 430    # the style sheets cap a figure's height (tools/offline_slides.html.j2, rise.css)
FIGURE_MAX_WIDTH = 1100
# Characters per line and pixels per line at the slides' font sizes.
TEXT_CHARS, TEXT_LINE = 118, 27
CODE_CHARS, CODE_LINE = 125, 20
CELL_GAP = 14              # padding and margins around a cell
WIDGET_ROW = 36            # one control of a demo
# A code cell of this many lines or more that draws a figure shows its code beside the figure.
SIDE_MIN_LINES = 10
SIDE_BY_SIDE = "slide-side-by-side"   # the deck's tag for such a cell (RISE's style sheet counts lines)
SIDE_CODE_CHARS, SIDE_CODE_LINE, SIDE_FIGURE = 62, 18, (620, 600)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SLIDE, SUBSLIDE, CONTINUE, SKIP, NOTES = "slide", "subslide", "-", "skip", "notes"


def wrapped(lines, chars):
    """How many screen lines `lines` take when each wraps at `chars` characters."""
    return sum(max(1, math.ceil(len(line) / chars)) for line in lines)


def markdown_height(source):
    """Estimated height of a rendered markdown cell: headings, paragraphs, lists, tables,
    code blocks, display formulas; a <details> block shows only its summary."""
    height, in_code, in_details, in_math = 0, False, False, False
    for line in source.splitlines():
        stripped = line.strip()
        if in_details:
            in_details = "</details>" not in stripped
            continue
        if stripped.startswith("```"):
            in_code = not in_code
            height += 10
            continue
        if in_code:
            height += wrapped([line], CODE_CHARS) * CODE_LINE
        elif stripped.startswith("$$"):
            if not (in_math and stripped == "$$"):
                height += 0 if in_math else 56
            in_math = not in_math if stripped.count("$$") == 1 else in_math
        elif in_math:
            continue
        elif stripped.startswith("<details"):
            height += TEXT_LINE + 8
            in_details = "</details>" not in stripped
        elif stripped.startswith("# "):
            height += 2 * TEXT_LINE + 24 * wrapped([stripped], 50)
        elif stripped.startswith("## "):
            height += TEXT_LINE + 22 * wrapped([stripped], 70)
        elif stripped.startswith("### "):
            height += 36 * wrapped([stripped], 90)
        elif stripped.startswith("|"):
            height += 0 if set(stripped) <= set("|-: ") else 34
        elif not stripped:
            height += 12
        else:
            height += wrapped([stripped], TEXT_CHARS) * TEXT_LINE
    return height


def figure_height(metadata):
    """A stored figure's height on the slide: its display size, scaled into the caps."""
    width, height = metadata.get("width"), metadata.get("height")
    if not (width and height):
        return FIGURE_MAX_HEIGHT
    scale = min(1.0, FIGURE_MAX_WIDTH / width, FIGURE_MAX_HEIGHT / height)
    return height * scale + 12


def output_height(output, n_controls):
    """Estimated height of one stored output of a code cell."""
    kind = output.get("output_type")
    if kind == "stream":
        return wrapped(output.get("text", "").splitlines(), CODE_CHARS) * CODE_LINE + 8
    if kind == "error":
        return wrapped(output.get("traceback", []), CODE_CHARS) * CODE_LINE
    data = output.get("data", {})
    if WIDGET_VIEW in data:   # the controls, and the note above them (helpers.widgets.NEEDS_KERNEL)
        return WIDGET_ROW * (max(1, n_controls) + 1) + 12
    if "image/png" in data:
        return figure_height(output.get("metadata", {}).get("image/png", {}))
    if "text/html" in data:
        return wrapped(str(data["text/html"]).count("<tr") * ["row"], TEXT_CHARS) * 34 + 20
    if "text/markdown" in data:
        return markdown_height(str(data["text/markdown"]))
    if "text/plain" in data:
        return wrapped(str(data["text/plain"]).splitlines(), CODE_CHARS) * CODE_LINE + 8
    return 0


def controls_shown(output):
    """The number of controls a stored demo shows, from its plain-text stand-in ('controls a, b')."""
    text = str(output.get("data", {}).get("text/plain", ""))
    match = re.search(r"controls ([^()]*) \(", text)
    return len(match.group(1).split(",")) if match else 1


def has_figure(cell):
    return any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))


def side_by_side(cell):
    """True for a long code cell that draws a figure and no demo: the slides put its code beside it."""
    return (cell.cell_type == "code" and len(cell.source.splitlines()) >= SIDE_MIN_LINES and has_figure(cell)
            and not any(WIDGET_VIEW in o.get("data", {}) for o in cell.get("outputs", [])))


def cell_height(cell):
    """Estimated height of a cell on a slide, in CSS pixels at 1280x720."""
    if cell.cell_type == "markdown":
        return markdown_height(cell.source) + CELL_GAP
    if cell.cell_type != "code":
        return 0
    outputs = cell.get("outputs", [])
    if side_by_side(cell):
        code = wrapped(cell.source.splitlines(), SIDE_CODE_CHARS) * SIDE_CODE_LINE
        figures = []
        for o in outputs:
            md = o.get("metadata", {}).get("image/png", {})
            if "image/png" in o.get("data", {}) and md.get("width") and md.get("height"):
                figures.append(md["height"] * min(1.0, SIDE_FIGURE[0] / md["width"], SIDE_FIGURE[1] / md["height"]))
        rest = sum(output_height(o, 1) for o in outputs if "image/png" not in o.get("data", {}))
        return max(code, sum(figures) + rest) + CELL_GAP
    height = wrapped(cell.source.splitlines(), CODE_CHARS) * CODE_LINE + CELL_GAP
    n_controls = max((controls_shown(o) for o in outputs), default=1)
    return height + sum(output_height(o, n_controls) for o in outputs)


def heading(cell):
    return cell.source.lstrip().splitlines()[0] if cell.cell_type == "markdown" and cell.source.strip() else ""


def slide_types(nb):
    """The slide type of every cell of nb, and the cells estimated taller than a slide."""
    types, too_tall, used, in_solutions = [], [], 0, False
    for index, cell in enumerate(nb.cells):
        title = heading(cell)
        height = cell_height(cell)
        if title.startswith("## Solutions"):
            in_solutions = True
        if index == 0:
            kind, used = SLIDE, height
        elif "setup" in cell.metadata.get("tags", []):
            kind = SKIP
        elif in_solutions:
            kind = NOTES
        elif title.startswith("## "):
            kind, used = SLIDE, height
        elif title.startswith("### Exercise") or used + height > SLIDE_HEIGHT:
            kind, used = SUBSLIDE, height
        else:
            kind, used = CONTINUE, used + height
        if kind in (SLIDE, SUBSLIDE, CONTINUE) and height > SLIDE_HEIGHT:
            too_tall.append((index, round(height)))
        types.append(kind)
    return types, too_tall


def apply(nb):
    """Write each cell's slide type into its metadata (none for a cell that continues its slide,
    which is what no slide type means); return how many cells changed."""
    types, _ = slide_types(nb)
    changed = 0
    for cell, kind in zip(nb.cells, types, strict=True):
        if cell.metadata.get("slideshow", {}).get("slide_type", CONTINUE) == kind:
            continue
        if kind == CONTINUE:
            del cell.metadata["slideshow"]
        else:
            cell.metadata["slideshow"] = {"slide_type": kind}
        changed += 1
    return changed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="only notebooks whose name starts with these")
    parser.add_argument("--check", action="store_true", help="change nothing; fail if out of date")
    args = parser.parse_args(argv)
    paths = [p for p in notebook_paths() if not args.prefixes or p.name.startswith(tuple(args.prefixes))]
    stale = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        changed = apply(nb)
        types, too_tall = slide_types(nb)
        counts = {k: types.count(k) for k in (SLIDE, SUBSLIDE)}
        note = "".join(f"; cell {i} may be taller than a slide (estimated {h} px of {SLIDE_HEIGHT})"
                       for i, h in too_tall)
        print(f"{path.name}: {counts[SLIDE]} slides, {counts[SUBSLIDE]} sub-slides, "
              f"{changed} cells {'to change' if args.check else 'changed'}{note}")
        if changed and args.check:
            stale.append(path.name)
        elif changed:
            nbformat.write(nb, path)
    if stale:
        print(f"out of date: {', '.join(stale)}; run python tools/slide_layout.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
