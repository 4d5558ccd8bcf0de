"""Every notebook's exercises make the learner build and predict, and the solutions work.

The stored notebook shows "not attempted yet" for every exercise and no hint
or answer; its worked solutions sit in collapsed markdown that Run All never
executes, so they cannot overwrite the learner's work. To prove the solutions,
each notebook is run again with every learner cell replaced by its solution,
and every check must then say "correct". That run is also the one that proves
every cell can be run twice (tools/rerun_check.py: each cell twice in a row,
then the whole notebook again, in one kernel), as a learner who has solved the
exercises runs them again, and the one that proves the checks record what they
judged: the progress file it leaves says every exercise is done.
"""

import re
from pathlib import Path

import nbformat
import pytest
from exercise_cells import HINT, defined_names, exercises, feedback, output_text, tags

from helpers import study
from helpers.checks import recording
from rerun_check import report, run_twice

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]


@pytest.fixture(params=NOTEBOOKS, ids=IDS)
def nb(request):
    return nbformat.read(request.param, as_version=4)


def test_exercises_are_numbered_core_and_stretch(nb):
    found = exercises(nb)
    assert 2 <= len(found) <= 6, f"{len(found)} exercises"
    assert [e.number for e in found] == list(range(1, len(found) + 1))
    stretch = [e for e in found if e.level == "stretch"]
    assert 1 <= len(stretch) <= 2, "mark one or two stretch exercises for the fast members of a group"


def test_each_notebook_has_a_build_and_a_predict_exercise(nb):
    kinds = {e.kind for e in exercises(nb)}
    assert {"build", "predict"} <= kinds, f"exercise kinds here: {sorted(kinds)}"


def test_five_notebooks_have_the_learner_write_a_module():
    with_module = []
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        if any(e.kind == "build" and "nn.Module" in notebook.cells[e.cell_index].source
               for e in exercises(notebook)):
            with_module.append(path.stem)
    assert len(with_module) >= 5, with_module


def test_hints_are_collapsed_and_never_printed(nb):
    for e in exercises(nb):
        assert HINT.search(e.heading), f"exercise {e.number}: give hints in <details><summary>Hint 1</summary>"
        assert "Hint" not in output_text(nb.cells[e.cell_index])
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not re.search(r"^\s*Hint", output_text(cell), re.M), "a hint is printed"


def test_stored_notebook_shows_not_attempted_and_no_answer(nb):
    found = exercises(nb)
    lines = feedback(nb)
    assert sorted(lines) == sorted(("not attempted yet", e.number) for e in found), lines
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.source.lstrip().startswith("# @title Solution"), "solutions are not code cells"


def test_solutions_are_collapsed_markdown(nb):
    md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Solutions" in md
    for e in exercises(nb):
        assert e.solution.strip(), f"exercise {e.number} has no '<details><summary>Solution to exercise " \
                                   f"{e.number}</summary>' block with a python code block"


def test_run_all_never_redefines_the_learners_names(nb):
    found = exercises(nb)
    learner_cells = {e.cell_index for e in found}
    for e in found:
        names = defined_names(nb.cells[e.cell_index].source)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and i not in learner_cells:
                again = names & defined_names(cell.source)
                assert not again, f"cell {i} redefines {sorted(again)} from exercise {e.number}"


def with_solutions(nb):
    """A copy of nb whose learner cells hold the worked solutions."""
    solved = nbformat.from_dict(nb)
    for e in exercises(solved):
        solved.cells[e.cell_index].source = e.solution
    for cell in solved.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return solved


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_solution_passes_its_check_and_every_cell_runs_twice(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    found = exercises(nb)
    assert all(e.solution for e in found)
    solved = with_solutions(nb)
    differences = run_twice(path, nb=solved, folder=tmp_path, record=True)
    assert not differences, report(path, differences)
    records, damaged = recording.read_records(tmp_path / recording.FILE_NAME)
    (table,) = study.table(records)["notebooks"]
    assert damaged == 0 and table["notebook"] == path.stem, table
    assert {r["number"]: r["status"] for r in table["exercises"]} == {e.number: "done" for e in found}
    lines = feedback(solved)
    assert sorted(lines) == sorted(("correct", e.number) for e in found), lines
    for e in found:
        assert "exercise-" + str(e.number) in tags(solved.cells[e.cell_index])
