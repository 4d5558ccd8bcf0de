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

Projector mode (`make slides` builds a projector deck of each notebook too; PROJECTOR below) lays out
a copy of the notebook for body text at 24 px and code at 18 px: nothing is shrunk there, so
`split_for_projector` first cuts a code cell longer than a slide into pieces, each on its own
sub-slide and each after the first marked as continued, and puts outputs too tall to share a slide
with their code on a sub-slide of their own. The notebooks' own metadata keeps the normal layout.
"""

import argparse
import copy
import dataclasses
import math
import re
import sys

import nbformat

from course_paths import notebook_paths
from helpers.language import say, translate

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
CONTINUED = "slide-continued"        # a piece of a split code cell after the first (projector decks)
OUTPUT_ONLY = "slide-output-only"    # the outputs of a code cell, on a sub-slide of their own


@dataclasses.dataclass(frozen=True)
class Metrics:
    """The sizes a layout assumes, in CSS pixels of a 1280x720 slide."""

    slide_height: int = SLIDE_HEIGHT
    figure_max_height: int = FIGURE_MAX_HEIGHT
    figure_max_width: int = FIGURE_MAX_WIDTH
    text_chars: int = TEXT_CHARS
    text_line: int = TEXT_LINE
    code_chars: int = CODE_CHARS
    code_line: int = CODE_LINE
    cell_gap: int = CELL_GAP
    widget_row: int = WIDGET_ROW
    side_by_side: bool = True     # long code cells that draw a figure sit beside it

    @property
    def heading_scale(self):
        return self.text_line / TEXT_LINE


NORMAL = Metrics()
# Projector decks (tools/offline_slides.html.j2 with projector=True): body text 24 px (lines of
# 32 px, about 88 characters across 1240 px), code and printed output 18 px (lines of 24 px, about
# 110 characters), headings 1.5x larger, the whole 720 px slide with a 16 px margin, figures up to
# 560 px tall, no code beside its figure (at 18 px half a slide's width holds 55 characters).
PROJECTOR = Metrics(slide_height=688, figure_max_height=560, figure_max_width=1240, text_chars=88,
                    text_line=34, code_chars=108, code_line=24, cell_gap=16, widget_row=48,
                    side_by_side=False)


def wrapped(lines, chars):
    """How many screen lines `lines` take when each wraps at `chars` characters."""
    return sum(max(1, math.ceil(len(line) / chars)) for line in lines)


def markdown_height(source, m=NORMAL):
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
            height += wrapped([line], m.code_chars) * m.code_line
        elif stripped.startswith("$$"):
            if not (in_math and stripped == "$$"):
                height += 0 if in_math else round(56 * m.heading_scale)
            in_math = not in_math if stripped.count("$$") == 1 else in_math
        elif in_math:
            continue
        elif stripped.startswith("<details"):
            height += m.text_line + 8
            in_details = "</details>" not in stripped
        elif stripped.startswith("# "):
            height += 2 * m.text_line + round(24 * m.heading_scale) * wrapped([stripped], round(50 / m.heading_scale))
        elif stripped.startswith("## "):
            height += m.text_line + round(22 * m.heading_scale) * wrapped([stripped], round(70 / m.heading_scale))
        elif stripped.startswith("### "):
            height += round(36 * m.heading_scale) * wrapped([stripped], round(90 / m.heading_scale))
        elif stripped.startswith("|"):
            height += 0 if set(stripped) <= set("|-: ") else round(34 * m.heading_scale)
        elif not stripped:
            height += 12
        else:
            height += wrapped([stripped], m.text_chars) * m.text_line
    return height


def figure_height(metadata, m=NORMAL):
    """A stored figure's height on the slide: its display size, scaled into the caps."""
    width, height = metadata.get("width"), metadata.get("height")
    if not (width and height):
        return m.figure_max_height
    scale = min(1.0, m.figure_max_width / width, m.figure_max_height / height)
    return height * scale + 12


def output_height(output, n_controls, m=NORMAL):
    """Estimated height of one stored output of a code cell."""
    kind = output.get("output_type")
    if kind == "stream":
        return wrapped(output.get("text", "").splitlines(), m.code_chars) * m.code_line + 8
    if kind == "error":
        return wrapped(output.get("traceback", []), m.code_chars) * m.code_line
    data = output.get("data", {})
    if WIDGET_VIEW in data:   # the controls, and the note above them (helpers.widgets.NEEDS_KERNEL)
        return m.widget_row * (max(1, n_controls) + 1) + 12
    if "image/png" in data:
        return figure_height(output.get("metadata", {}).get("image/png", {}), m)
    if "text/html" in data:
        return wrapped(str(data["text/html"]).count("<tr") * ["row"], m.text_chars) * round(34 * m.heading_scale) + 20
    if "text/markdown" in data:
        return markdown_height(str(data["text/markdown"]), m)
    if "text/plain" in data:
        return wrapped(str(data["text/plain"]).splitlines(), m.code_chars) * m.code_line + 8
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


def cell_height(cell, m=NORMAL):
    """Estimated height of a cell on a slide, in CSS pixels at 1280x720."""
    if cell.cell_type == "markdown":
        return markdown_height(cell.source, m) + m.cell_gap
    if cell.cell_type != "code":
        return 0
    outputs = cell.get("outputs", [])
    if m.side_by_side and side_by_side(cell):
        code = wrapped(cell.source.splitlines(), SIDE_CODE_CHARS) * SIDE_CODE_LINE
        figures = []
        for o in outputs:
            md = o.get("metadata", {}).get("image/png", {})
            if "image/png" in o.get("data", {}) and md.get("width") and md.get("height"):
                figures.append(md["height"] * min(1.0, SIDE_FIGURE[0] / md["width"], SIDE_FIGURE[1] / md["height"]))
        rest = sum(output_height(o, 1) for o in outputs if "image/png" not in o.get("data", {}))
        return max(code, sum(figures) + rest) + m.cell_gap
    code = 0 if OUTPUT_ONLY in cell.metadata.get("tags", []) else wrapped(cell.source.splitlines(), m.code_chars) * m.code_line
    n_controls = max((controls_shown(o) for o in outputs), default=1)
    return code + m.cell_gap + sum(output_height(o, n_controls, m) for o in outputs)


def heading(cell):
    return cell.source.lstrip().splitlines()[0] if cell.cell_type == "markdown" and cell.source.strip() else ""


def slide_types(nb, m=NORMAL):
    """The slide type of every cell of nb, and the cells estimated taller than a slide."""
    types, too_tall, used, in_solutions = [], [], 0, False
    for index, cell in enumerate(nb.cells):
        title = heading(cell)
        height = cell_height(cell, m)
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
        elif (title.startswith("### Exercise") or used + height > m.slide_height
              or CONTINUED in cell.metadata.get("tags", [])):
            kind, used = SUBSLIDE, height
        else:
            kind, used = CONTINUE, used + height
        if kind in (SLIDE, SUBSLIDE, CONTINUE) and height > m.slide_height:
            too_tall.append((index, round(height)))
        types.append(kind)
    return types, too_tall


def apply(nb, m=NORMAL):
    """Write each cell's slide type into its metadata (none for a cell that continues its slide,
    which is what no slide type means); return how many cells changed."""
    types, _ = slide_types(nb, m)
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


def code_pieces(source, lines_per_piece, chars):
    """`source` cut at line ends into pieces of at most lines_per_piece screen lines (lines wrap at
    `chars` characters), each cut at a blank line or a line back at the left margin where one is near
    the end of a piece (a function or loop is not cut in its middle if it can be helped)."""
    lines = source.splitlines()
    pieces, start = [], 0
    while start < len(lines):
        end, used = start, 0
        while end < len(lines) and used + wrapped([lines[end]], chars) <= lines_per_piece:
            used += wrapped([lines[end]], chars)
            end += 1
        end = max(end, start + 1)
        if end < len(lines):
            floor = start + max(1, (end - start) * 2 // 3)
            for cut in range(end, floor - 1, -1):   # the last good cut in the piece's final third
                if not lines[cut].strip() or not lines[cut][:1].isspace():
                    end = cut
                    break
        pieces.append("\n".join(lines[start:end]).strip("\n"))
        start = end
        while start < len(lines) and not lines[start].strip():
            start += 1
    return [p for p in pieces if p]


def markdown_pieces(source, m=PROJECTOR, language="en"):
    """`source` cut at blank lines (outside code blocks, formulas and <details>), and a list too tall
    for a slide between its items, into pieces that each fit a slide under a heading, or [source]
    where it fits already or cannot be cut (`language`: the one a continued item is marked in)."""
    budget = m.slide_height - 2 * m.text_line - 2 * m.cell_gap
    if markdown_height(source, m) <= budget:
        return [source]
    blocks, current, fence = [], [], 0
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped and not fence and current:
            blocks.append("\n".join(current))
            current = []
            continue
        current.append(line)
        fence ^= stripped.startswith("```")
        fence ^= stripped.count("$$") % 2
        fence ^= ("<details" in stripped) ^ ("</details>" in stripped)
    if current:
        blocks.append("\n".join(current))
    parts = [(item, i > 0) for block in blocks for i, item in enumerate(list_items(block, m, budget, language))]
    pieces = []
    for part, same_list in parts:
        joined = pieces[-1] + ("\n" if same_list else "\n\n") + part if pieces else part
        if pieces and markdown_height(joined, m) <= budget:
            pieces[-1] = joined
        else:
            pieces.append(part)
    return pieces


def list_items(block, m, budget, language="en"):
    """A block too tall for a slide cut before each of its top-level list items (`- `, `* `, `1. `),
    or [block] where it fits or is no list."""
    if markdown_height(block, m) <= budget:
        return [block]
    items = []
    for line in block.splitlines():
        if re.match(r"(?:[-*]|\d+\.) ", line) or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    return [piece for item in items for piece in sentences(item, m, budget, language)]


def sentences(item, m, budget, language="en"):
    """A list item too tall for a slide cut at the ends of its sentences (the next one opening with a
    capital, a bracket or Hangul) into items that fit, each after the first marked as continued in
    `language`; [item] where it fits."""
    if markdown_height(item, m) <= budget or not re.match(r"(?:[-*]|\d+\.) ", item):
        return [item]
    pieces = []
    mark = f"- *{translate(say('(continued from the previous slide)'), language)}* "   # on each piece after the first
    for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z(`*\uac00-\ud7a3])", " ".join(item.split())):
        if pieces and markdown_height(pieces[-1] + " " + sentence, m) <= budget:
            pieces[-1] += " " + sentence
        else:
            pieces.append(sentence if not pieces else mark + sentence)
    return pieces


def continued_mark(index, total, language="en"):
    """The line above a piece of a split code cell after the first, in `language` (checks.po holds the
    Korean, as for every sentence the course says)."""
    said = say("(continued from the previous slide: {index} of {total})", index=index, total=total)
    return f"*{translate(said, language)}*"


def split_for_projector(nb, m=PROJECTOR, language=None):
    """A copy of nb in which no code cell is taller than a projector slide: a long code cell is cut
    into pieces (code_pieces), each piece after the first on its own sub-slide under a "continued"
    mark, the outputs after the last piece; a long text cell is cut at its paragraphs (markdown_pieces),
    each piece on a sub-slide; outputs that do not fit on a slide with their code
    follow on a sub-slide of their own (the cell's code hidden there). Cells on no slide (skipped,
    speaker notes) stay as they are. The marks are in `language`, by default the notebook's
    (`course_language` in its metadata: "ko" in the Korean edition, else English)."""
    nb = nbformat.from_dict(copy.deepcopy(nb))
    language = language or nb.metadata.get("course_language", "en")
    types, _ = slide_types(nb, m)
    lines_per_piece = (m.slide_height - 2 * m.text_line - 3 * m.cell_gap) // m.code_line
    cells = []
    for cell, kind in zip(nb.cells, types, strict=True):
        if cell.cell_type == "markdown" and kind not in (SKIP, NOTES):
            for i, piece in enumerate(markdown_pieces(cell.source, m, language)):
                part = nbformat.from_dict(copy.deepcopy(cell))
                part.source = piece
                if i:
                    part.metadata.pop("slideshow", None)
                    part.metadata["tags"] = [*part.metadata.get("tags", []), CONTINUED]
                    if "id" in cell:
                        part.id = f"{cell.id}-part{i}"
                cells.append(part)
            continue
        if cell.cell_type != "code" or kind in (SKIP, NOTES):
            cells.append(cell)
            continue
        pieces = code_pieces(cell.source, lines_per_piece, m.code_chars)
        outputs = cell.get("outputs", [])
        for i, piece in enumerate(pieces):
            part = nbformat.from_dict(copy.deepcopy(cell))
            part.source, part.outputs = piece, outputs if i == len(pieces) - 1 else []
            if i:
                mark = nbformat.v4.new_markdown_cell(continued_mark(i + 1, len(pieces), language))
                mark.metadata["tags"] = [CONTINUED]
                part.metadata.pop("slideshow", None)
                if "id" in cell:   # ids stay unique and the same on every build
                    mark.id, part.id = f"{cell.id}-mark{i}", f"{cell.id}-part{i}"
                cells += [mark, part]
            else:
                cells.append(part)
        last = cells[-1]
        if outputs and cell_height(last, m) > m.slide_height:
            alone = nbformat.from_dict(copy.deepcopy(last))
            alone.metadata["tags"] = [*alone.metadata.get("tags", []), OUTPUT_ONLY]
            alone.metadata.pop("slideshow", None)
            if "id" in alone:
                alone.id = f"{cell.id}-outputs"
            last.outputs = []
            cells.append(alone)
    nb.cells = cells
    return nb


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
