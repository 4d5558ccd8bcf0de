"""`make reset` loses nothing: both editions of a notebook keep their copies, a `git add`-ed or a
deleted notebook is restored, a new one is left alone, and it says how to keep JupyterLab from
saving the old work back.

Each case runs `make reset` as a learner does, in the small course repository of
test_notebook_tools.py, with a Korean edition of notebook 01 added.
"""

import nbformat
from test_notebook_tools import course, edit, git, run, tiny_notebook  # noqa: F401 - course is a fixture


def with_korean(course):  # noqa: F811 - the fixture's value
    korean = course / "notebooks" / "ko" / "01_first.ipynb"
    korean.parent.mkdir()
    nbformat.write(tiny_notebook("01 · 첫 노트북"), korean)
    git(course, "add", "-A")
    git(course, "commit", "-q", "-m", "the Korean edition")
    return course / "notebooks" / "01_first.ipynb", korean


def reset(course, *nb):  # noqa: F811
    done = run(course, "make", "-s", "reset", *nb)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done.stdout


def test_both_editions_of_one_number_keep_their_own_copy(course):  # noqa: F811
    english, korean = with_korean(course)
    committed = english.read_bytes(), korean.read_bytes()
    mine = edit(english), edit(korean)
    assert mine[0] != mine[1]
    said = reset(course, "NB=01")
    assert "01_first.ipynb, ko/01_first.ipynb." in said, said
    assert (english.read_bytes(), korean.read_bytes()) == committed
    (backup,) = (course / "build" / "reset").iterdir()
    assert (backup / "notebooks" / "01_first.ipynb").read_bytes() == mine[0]
    assert (backup / "notebooks" / "ko" / "01_first.ipynb").read_bytes() == mine[1]
    assert "Close any of them still open in JupyterLab" in said and "File > Reload Notebook from Disk" in said
    assert '"Overwrite" by default' in said


def test_a_second_reset_in_the_same_second_keeps_the_first_copies(course):  # noqa: F811
    english, _ = with_korean(course)
    first = edit(english)
    reset(course, "NB=01")
    second = edit(english)
    reset(course, "NB=01")
    copies = sorted(p.read_bytes() for p in (course / "build" / "reset").rglob("01_first.ipynb"))
    assert copies == sorted([first, second])


def test_a_git_added_notebook_is_reset_in_the_index_and_the_file(course):  # noqa: F811
    english = course / "notebooks" / "01_first.ipynb"
    committed = english.read_bytes()
    edit(english)
    git(course, "add", "notebooks/01_first.ipynb")
    edit(english)                                          # staged, then changed again
    said = reset(course, "NB=01")
    assert "Discarding what was changed or saved in 1 notebook(s)" in said, said
    assert english.read_bytes() == committed and git(course, "status", "--porcelain", "notebooks") == ""


def test_a_new_notebook_that_was_git_added_is_left_alone(course):  # noqa: F811
    new = course / "notebooks" / "03_mine.ipynb"
    nbformat.write(tiny_notebook("03 mine"), new)
    mine = new.read_bytes()
    git(course, "add", "notebooks/03_mine.ipynb")
    said = reset(course)
    assert "Left alone (not in the last commit): notebooks/03_mine.ipynb." in said, said
    assert "nothing to reset" in said and new.read_bytes() == mine


def test_a_deleted_notebook_is_restored_and_said(course):  # noqa: F811
    english, korean = with_korean(course)
    committed = korean.read_bytes()
    korean.unlink()
    git(course, "rm", "-q", "notebooks/01_first.ipynb")    # deleted through git too
    said = reset(course)
    assert "Restored from the last commit (they had been deleted): 01_first.ipynb, ko/01_first.ipynb." in said, said
    assert korean.read_bytes() == committed and english.exists()
    assert git(course, "status", "--porcelain", "notebooks") == ""
    assert "nothing to reset" in reset(course)
