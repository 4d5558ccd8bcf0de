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


def test_summary_and_solutions_sections(nb):
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert any(s.startswith("## Summary") for s in md)
    assert any(s.startswith("## Solutions") for s in md)


def test_no_progress_bar_is_stored_frozen(nb):
    for cell in code_cells(nb):
        text = text_of(cell)
        assert not re.search(r"(^|\s)\d+%\|", text), f"a stored progress bar in: {cell.source[:60]}"
        for out in cell.outputs:
            assert "application/vnd.jupyter.widget-view+json" not in out.get("data", {}) or \
                "HBox" not in out.get("data", {}).get("text/plain", ""), "a progress widget was stored"


def test_no_printed_rounding_noise(nb):
    # A difference such as 3e-16 depends on the CPU, its vector unit and the thread count:
    # print a bound ("below 1e-12") instead.
    for cell in code_cells(nb):
        noise = re.search(r"\b([2-9](\.\d+)?|1\.\d*[1-9]\d*)e-(1\d|[5-9])\b", text_of(cell))
        assert not noise, f"prints {noise.group(0)} in: {cell.source[:60]}"


def test_figures_are_sharp_and_described(nb):
    for cell in code_cells(nb):
        for out in cell.outputs:
            if "image/png" not in out.get("data", {}):
                continue
            meta = out.get("metadata", {}).get("image/png", {})
            assert meta.get("alt", "").startswith("Figure: "), f"no alt text in: {cell.source[:60]}"
            assert "width" in meta, f"a figure without its display size (not retina) in: {cell.source[:60]}"


def test_demo_controls_are_stored_with_the_notebook(nb):
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    shown = [o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
             for c in code_cells(nb) if ".show()" in c.source for o in c.outputs
             if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert shown, "the demo cell stores its controls' view"
    assert all(m in state.get("state", {}) for m in shown), "the controls' widget state is not stored"


def test_has_a_live_demo(nb):
    name = nb.metadata["path"].stem
    assert name in demos.DEMOS, f"{name} has no demo module helpers/demos/nb{name}.py"
    shown = [c for c in code_cells(nb) if ".show()" in c.source]
    assert shown and any("image/png" in o.get("data", {}) for c in shown for o in c.outputs), (
        "the demo cell stores a static figure")


def test_badges_and_setup_cells_are_in_sync():
    assert sync_notebooks.main(["--check"]) == 0
