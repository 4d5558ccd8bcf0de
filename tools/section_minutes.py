"""Minutes per section for each session plan in docs/INSTRUCTOR.md (and its Korean edition).

A plan's heading gives the session's length ("### 05 · The SwiGLU gate (about 40 minutes; ...)").
This splits that time over the notebook's sections (its `## ` headings; the solutions take none)
in proportion to what each section asks of the room:

- reading and explaining its markdown: a minute per 110 words;
- running its code cells: 0.6 minutes each, and 1.5 more for each figure one draws;
- a live demo: 3 minutes;
- its exercises: 2 minutes for a prediction, 5 for a core exercise to build, 2 for a stretch one
  (most rooms leave those for later).

The minutes are whole, at least 1 per section, and add up to the session's length. The line goes
right under the heading:

    python tools/section_minutes.py            # rewrite the lines in both guides
    python tools/section_minutes.py --check    # exit 1, naming each plan whose line is out of step
"""

import re
import sys

import nbformat

from course_paths import ROOT, notebook_paths

GUIDES = {"en": ROOT / "docs" / "INSTRUCTOR.md", "ko": ROOT / "docs" / "INSTRUCTOR.ko.md"}
HEADING = re.compile(r"^### (\d{2}) · .*?(?:about|약) (\d+)(?: minutes|분)", re.M)
LINE = {"en": ("- **Minutes per section** (of about {total}): {parts}.", "- **Minutes per section**"),
        "ko": ("- **절마다의 분** (약 {total}분 중): {parts}.", "- **절마다의 분**")}
LABELS = {"en": {"demo": "demo", "exercises": "exercises", "summary": "summary"},
          "ko": {"demo": "데모", "exercises": "연습", "summary": "요약"}}
WORDS_PER_MINUTE = 110
PER_CELL, PER_FIGURE, DEMO = 0.6, 1.5, 3.0
EXERCISE = {"predict": 2.0, "core": 5.0, "stretch": 2.0}


def sections(path):
    """[(kind, number, weight)] for a notebook's `## ` sections, in order; kind is 'section',
    'demo', 'exercises' or 'summary' (the solutions and the title cell are left out)."""
    nb = nbformat.read(path, as_version=4)
    found, current = [], None
    for cell in nb.cells:
        first = cell.source.lstrip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "markdown" and first.startswith("## "):
            title = first[3:].strip()
            number = re.match(r"(\d+)\.", title)
            kind = ("summary" if title.lower().startswith("summary") else
                    None if title.lower().startswith("solutions") else
                    "demo" if "demo" in title.lower() else
                    "exercises" if "exercises" in title.lower() else "section")
            current = None if kind is None else [kind, number.group(1) if number else "", 0.0]
            if current:
                found.append(current)
        if current is None:
            continue
        current[2] += _weight(cell, current[0])
    return [tuple(s) for s in found]


def _weight(cell, kind):
    tags = set(cell.metadata.get("tags", []))
    if cell.cell_type == "markdown":
        text = re.sub(r"```.*?```", "", cell.source, flags=re.S)
        stretch = len(re.findall(r"^### Exercise \d+ \(stretch\)", cell.source, re.M))  # core: at their code cell
        return len(text.split()) / WORDS_PER_MINUTE + EXERCISE["stretch"] * stretch
    minutes = PER_CELL + PER_FIGURE * sum(
        "image/png" in out.get("data", {}) for out in cell.get("outputs", []))
    if kind == "demo":
        minutes += DEMO
    if any(t.startswith("exercise-") for t in tags):
        minutes += EXERCISE["predict"] if "predict" in tags else EXERCISE["core"] if "build" in tags else 0.0
    return minutes


def split(weights, total):
    """Whole minutes, at least 1 each, in proportion to weights, adding up to total (largest remainder)."""
    if total < len(weights):
        raise ValueError(f"total must give each of the {len(weights)} sections a minute, got {total}")
    spare = total - len(weights)
    scale = spare / sum(weights)
    shares = [w * scale for w in weights]
    minutes = [1 + int(s) for s in shares]
    by_remainder = sorted(range(len(weights)), key=lambda i: shares[i] - int(shares[i]), reverse=True)
    for i in by_remainder[: total - sum(minutes)]:
        minutes[i] += 1
    return minutes


def line(path, total, language="en"):
    """The plan's minutes line for the notebook at path, for a session of `total` minutes."""
    found = sections(path)
    minutes = split([w for _, _, w in found], total)
    labels = LABELS[language]
    parts = []
    for (kind, number, _), m in zip(found, minutes, strict=True):
        if kind == "summary":
            parts.append(f"{labels['summary']} {m}")
        elif kind in ("demo", "exercises") and number:
            parts.append(f"§{number} ({labels[kind]}) {m}")
        else:
            parts.append(f"§{number} {m}" if number else f"{labels.get(kind, kind)} {m}")
    template, _ = LINE[language]
    return template.format(total=total, parts=", ".join(parts))


def updated(text, language="en"):
    """The guide's text with every plan's minutes line made anew (inserted under the heading)."""
    paths = {p.name[:2]: p for p in notebook_paths()}
    _, start = LINE[language]
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        out.append(lines[i])
        heading = HEADING.match(lines[i])
        if heading and heading.group(1) in paths:
            out.append(line(paths[heading.group(1)], int(heading.group(2)), language))
            if i + 1 < len(lines) and lines[i + 1].startswith(start):
                i += 1                                   # the old line, replaced
        i += 1
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def main(argv):
    stale = []
    for language, guide in GUIDES.items():
        if not guide.exists():
            continue
        text = guide.read_text(encoding="utf-8")
        new = updated(text, language)
        if new != text:
            if "--check" in argv:
                stale.append(guide.relative_to(ROOT).as_posix())
            else:
                guide.write_text(new, encoding="utf-8")
                print(f"{guide.relative_to(ROOT)}: minutes per section rewritten")
    if stale:
        print(f"minutes per section out of step in {stale}: run `python tools/section_minutes.py`")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
