"""Every cell can be run again: an instructor re-runs cells in front of the room, a learner runs a
section again after an error. tools/rerun_check.py runs each code cell twice in a row, then the
whole notebook again, in one kernel; what each cell prints must not change (after
tests/sanitize.cfg), and no cell may leave torch's thread count, default dtype or grad mode
changed. Here the check itself, on small notebooks made here; tests/test_exercises.py runs it on
every numbered notebook, with the exercises' solutions in place.
"""

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from rerun_check import run_twice

SETUP = new_code_cell("import torch", metadata={"tags": ["setup"]})


def differences(tmp_path, *sources, tags=None):
    """run_twice on a notebook of a setup cell and `sources`; [(cell index, how)]."""
    cells = [SETUP] + [new_code_cell(s, metadata={"tags": tags or []}) for s in sources]
    path = tmp_path / "01_made_here.ipynb"
    nbformat.write(new_notebook(cells=cells), path)
    return [(index, how) for index, how, *_ in run_twice(path)]


def test_a_cell_that_counts_its_runs_is_found(tmp_path):
    found = differences(tmp_path, "runs = globals().get('runs', 0) + 1\nprint(runs)", "print('after')")
    assert found == [(1, "run again at once"), (1, "run again later")]


def test_a_cell_that_changes_what_follows_is_found(tmp_path):
    found = differences(tmp_path, "x = [1]", "x.append(2)", "print(len(x))")
    assert found == [(3, "run again later")]  # 3 after cell 2 ran twice, 2 after it ran once


def test_a_cell_that_leaves_the_thread_count_changed_is_found(tmp_path):
    found = differences(tmp_path, "torch.set_num_threads(torch.get_num_threads() + 1)",
                        "print('after')")
    assert found[0] == (1, "settings")


def test_a_cell_tagged_notebook_settings_may_set_them_for_the_notebook(tmp_path):
    assert differences(tmp_path, "torch.set_num_threads(1)", tags=["notebook-settings"]) == []


def test_lines_the_sanitize_file_covers_are_compared_as_nbval_compares_them(tmp_path):
    assert differences(tmp_path, "import time\nprint('Device:', time.perf_counter_ns())") == []
    assert differences(tmp_path, "import time\nprint('elsewhere:', time.perf_counter_ns())")


def test_a_cell_safe_to_rerun_passes_even_when_it_prints_in_pieces(tmp_path):
    found = differences(tmp_path, "import sys, time\nfor i in range(3):\n"
                        "    print(i, end=' ', flush=True)\n    time.sleep(0.05)\nprint()",
                        "torch.manual_seed(0)\nprint(torch.rand(1).item() < 1)")
    assert found == []


def test_cells_nbval_skips_are_not_run(tmp_path):
    counting = "runs = globals().get('runs', 0) + 1\nprint(runs)"  # found above when it runs
    assert differences(tmp_path, counting, tags=["nbval-skip"]) == []
