"""Every stored notebook: executed in order, clean, and built like the others."""

import re

import nbformat
import pytest

import sync_notebooks
from course_paths import notebook_paths
from helpers import demos

NOTEBOOKS = notebook_paths()
IDS = [p.stem for p in NOTEBOOKS]


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def text_of(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif "data" in out:
            parts.append(out.data.get("text/plain", ""))
    return "".join(parts)


@pytest.fixture(params=NOTEBOOKS, ids=IDS)
def nb(request):
    notebook = nbformat.read(request.param, as_version=4)
    notebook.metadata["path"] = request.param
    return notebook


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found"
    assert [p.name[:2] for p in NOTEBOOKS] == [f"{i:02d}" for i in range(1, len(NOTEBOOKS) + 1)]


def test_executed_top_to_bottom(nb):
    counts = [c.execution_count for c in code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1))


def test_no_errors_and_no_stderr(nb):
    for cell in code_cells(nb):
        for out in cell.outputs:
            assert out.output_type != "error", f"stored error in: {cell.source[:60]}"
            assert not (out.output_type == "stream" and out.name == "stderr"), (
                f"stored stderr in: {cell.source[:60]}: {out.text[:200]}")


def test_at_most_15_percent_of_cells_ignore_their_output(nb):
    cells = code_cells(nb)
    ignored = [c for c in cells if "nbval-ignore-output" in c.metadata.get("tags", [])]
    assert len(ignored) <= 0.15 * len(cells)
    skipped = [c for c in cells if "nbval-skip" in c.metadata.get("tags", [])]
    assert all("online" in c.source.lower() for c in skipped), "only online-only cells may skip nbval"


def test_title_cell(nb):
    title = nb.cells[0].source
    assert title.startswith("# "), "first cell is the title"
    for words in ["What you will learn", "You need", "Time", "Open In Colab"]:
        assert words in title, f"title cell lacks {words!r}"
    assert sync_notebooks.badge(nb.metadata["path"].name) in title


def test_setup_cell_is_the_shared_one(nb):
    setup = [c for c in nb.cells if "setup" in c.metadata.get("tags", [])]
    assert len(setup) == 1 and setup[0].source == sync_notebooks.setup_cell_source()
    assert code_cells(nb)[0] is setup[0], "the setup cell is the first code cell"
    assert text_of(setup[0]).startswith("Device: ")


def test_claims_are_checked_in_visible_cells(nb):
    asserting = [c for c in code_cells(nb) if re.search(r"^\s*assert ", c.source, re.M)]
    assert len(asserting) >= 3


def test_exercises_checks_solutions_and_summary(nb):
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    exercises = [s for s in md if re.search(r"^### Exercise \d", s, re.M)]
    assert 2 <= len(exercises) <= 4
    outputs = [text_of(c) for c in code_cells(nb)]
    not_yet = sum(o.count("[not attempted yet]") for o in outputs)
    right = sum(o.count("[correct]") for o in outputs)
    assert not_yet == right == len(exercises), (not_yet, right, len(exercises))
    assert "[not yet]" not in "".join(outputs)
    assert any(s.startswith("## Summary") for s in md)
    assert any(s.startswith("## Solutions") for s in md)
    solutions = [c for c in code_cells(nb) if c.metadata.get("jupyter", {}).get("source_hidden")]
    assert len(solutions) >= len(exercises), "solutions are collapsed (source_hidden)"


def test_has_a_live_demo(nb):
    name = nb.metadata["path"].stem
    assert name in demos.DEMOS, f"{name} has no demo in helpers.demos.DEMOS"
    shown = [c for c in code_cells(nb) if ".show()" in c.source]
    assert shown and any("image/png" in o.get("data", {}) for c in shown for o in c.outputs), (
        "the demo cell stores a static figure")


def test_badges_and_setup_cells_are_in_sync():
    assert sync_notebooks.main(["--check"]) == 0
