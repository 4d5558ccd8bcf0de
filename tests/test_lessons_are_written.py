"""Nothing of a lesson is left as `make new-notebook` wrote it: each TODO the scaffold placed (in the
notebook, its check, demo and test modules, its README rows and its session plans) is named, one
line per notebook, with the files and places that still hold one."""

import re

import nbformat
import pytest

from course_paths import ROOT, notebook_paths

NOTEBOOKS = notebook_paths()


def todo_places(path):
    """['notebooks/14_x.ipynb (cells 0, 2)', 'README.md (its row)', ...] for notebook `path`."""
    number, stem = path.name[:2], path.stem
    places = []
    cells = [i for i, c in enumerate(nbformat.read(path, as_version=4).cells) if "TODO" in c.source]
    if cells:
        places.append(f"{path.relative_to(ROOT)} (cells {', '.join(map(str, cells))})")
    package = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / f"helpers/checks/nb{stem}").glob("*.py"))
    for module in [f"helpers/checks/nb{stem}.py", *package, f"helpers/demos/nb{stem}.py",
                   f"tests/test_checks_nb{stem}.py"]:
        lines = [n for n, line in enumerate((ROOT / module).read_text().splitlines(), 1) if "TODO" in line] \
            if (ROOT / module).exists() else []
        if lines:
            places.append(f"{module} (lines {', '.join(map(str, lines))})")
    for doc in ["README.md", "README.ko.md", "docs/SOURCES.md"]:
        row = [line for line in (ROOT / doc).read_text().splitlines() if f"notebooks/{stem}" in line
               or f"notebooks/ko/{stem}" in line]
        if any("TODO" in line for line in row):
            places.append(f"{doc} (its row)")
    for doc in ["docs/INSTRUCTOR.md", "docs/INSTRUCTOR.ko.md"]:
        plan = re.search(rf"^### {number} · .*?(?=^##|\Z)", (ROOT / doc).read_text(), re.M | re.S)
        if plan and "TODO" in plan.group(0):
            places.append(f"{doc} (its plan)")
    return places


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_todo_is_left(path):
    places = todo_places(path)
    if places:
        pytest.fail(f"write this: notebook {path.name[:2]} still has TODOs in {'; '.join(places)}",
                    pytrace=False)
