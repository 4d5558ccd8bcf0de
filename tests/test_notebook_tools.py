"""No work is lost: the notebook tools touch only the notebooks named, never JupyterLab's copies,
and leave a notebook with uncommitted changes alone unless FORCE=1; `make reset` says what it
discards and keeps a copy; `make train-model` writes beside the shipped weights.

Each tool runs as `make` runs it, in a copy of the course's tools made into a git repository of
its own in a temporary folder, with two small notebooks.
"""

import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course_paths import ROOT, is_course_notebook, notebook_paths

GIT = dict(GIT_AUTHOR_NAME="Course", GIT_AUTHOR_EMAIL="course@example.org",
           GIT_COMMITTER_NAME="Course", GIT_COMMITTER_EMAIL="course@example.org")


def tiny_notebook(title):
    return new_notebook(cells=[
        new_markdown_cell(f"# {title}"),
        new_code_cell("print('set up')", metadata={"tags": ["setup"]}),
        new_code_cell("print(6 * 7)"),
    ])


@pytest.fixture
def course(tmp_path):
    """A git repository holding the course's tools and two committed notebooks, 01 and 02."""
    for part in ["tools", "helpers/__init__.py", "tests/sanitize.cfg", "Makefile", "pyproject.toml"]:
        source, target = ROOT / part, tmp_path / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target)
    (tmp_path / "notebooks").mkdir()
    for name in ["01_first.ipynb", "02_second.ipynb"]:
        nbformat.write(tiny_notebook(name), tmp_path / "notebooks" / name)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "the course")
    return tmp_path


def git(where, *args):
    return subprocess.run(["git", *args], cwd=where, env=dict(os.environ, **GIT), check=True,
                          capture_output=True, text=True).stdout


def run(where, *command, **env):
    return subprocess.run(command, cwd=where, env=dict(os.environ, **GIT, **env),
                          capture_output=True, text=True)


def edit(path):
    """A learner's edit: a cell added and saved."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(new_code_cell("my_answer = 42"))
    nbformat.write(nb, path)
    return path.read_bytes()


def test_only_numbered_notebooks_count(tmp_path):
    for name in ["03_ffn_forward.ipynb", "12_kv_memory_editing.ipynb"]:
        assert is_course_notebook(name)
    for name in ["03_ffn_forward-Copy1.ipynb", "03_ffn_forward-Copy1 (2).ipynb", "Untitled.ipynb",
                 "03_ffn_forward.py", "3_ffn.ipynb", "03_ffn_forward-checkpoint.ipynb"]:
        assert not is_course_notebook(name), name
    for name in ["03_ffn_forward.ipynb", "03_ffn_forward-Copy1.ipynb", "Untitled.ipynb"]:
        (tmp_path / name).write_text("{}")
    assert [p.name for p in notebook_paths(folder=tmp_path)] == ["03_ffn_forward.ipynb"]
    assert [p.name for p in notebook_paths(["3"], folder=tmp_path)] == ["03_ffn_forward.ipynb"]
    assert notebook_paths(["1"], folder=tmp_path) == []  # "1" is notebook 01, not 10-12


def test_run_notebooks_leaves_an_edited_notebook_alone_unless_forced(course):
    path = course / "notebooks" / "01_first.ipynb"
    edited = edit(path)
    done = run(course, sys.executable, "tools/run_notebooks.py", "01")
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith("notebooks/01_first.ipynb is left as it is: it has changes that are not "
                           "committed (git status M).") and "FORCE=1" in line and "make reset NB=01" in line
    assert path.read_bytes() == edited
    done = run(course, sys.executable, "tools/run_notebooks.py", "01", FORCE="1")
    assert done.returncode == 0, done.stdout + done.stderr
    cells = nbformat.read(path, as_version=4).cells
    assert cells[2].outputs[0].text == "42\n" and cells[3].source == "my_answer = 42"


def test_sync_rewrites_only_the_notebooks_named_and_never_a_copy(course):
    copy = course / "notebooks" / "01_first-Copy1.ipynb"
    shutil.copy(course / "notebooks" / "01_first.ipynb", copy)
    before = {p.name: p.read_bytes() for p in (course / "notebooks").iterdir()}
    done = run(course, sys.executable, "tools/sync_notebooks.py", "01")
    assert done.returncode == 0 and done.stdout.strip() == "updated: 01_first.ipynb", done.stdout
    after = {p.name: p.read_bytes() for p in (course / "notebooks").iterdir()}
    assert [n for n in before if after[n] != before[n]] == ["01_first.ipynb"]
    git(course, "commit", "-q", "-am", "synced")
    edited = edit(course / "notebooks" / "02_second.ipynb")
    done = run(course, sys.executable, "tools/sync_notebooks.py")
    assert done.returncode == 1 and "02_second.ipynb is left as it is" in done.stdout
    assert (course / "notebooks" / "02_second.ipynb").read_bytes() == edited
    assert copy.read_bytes() == before["01_first-Copy1.ipynb"]


def test_make_notebooks_for_one_notebook_syncs_and_runs_only_that_one():
    done = subprocess.run(["make", "-n", "notebooks", "NB=03"], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    lines = [line for line in done.stdout.splitlines() if "tools/" in line]
    assert [line.split("tools/")[1] for line in lines[:2]] == ["sync_notebooks.py 03",
                                                               "run_notebooks.py 03"]


def test_make_reset_says_what_it_discards_keeps_a_copy_and_restores(course):
    first, second = course / "notebooks" / "01_first.ipynb", course / "notebooks" / "02_second.ipynb"
    committed = first.read_bytes()
    edited = edit(first)
    edit(second)
    copy = course / "notebooks" / "01_first-Copy1.ipynb"
    copy.write_bytes(edited)
    done = run(course, "make", "-s", "reset", "NB=01")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Left alone (not in the last commit): notebooks/01_first-Copy1.ipynb." in done.stdout
    assert ("Discarding what was changed or saved in 1 notebook(s) since the last commit "
            "(outputs, edits, answers): 01_first.ipynb.") in done.stdout
    assert first.read_bytes() == committed and copy.read_bytes() == edited
    assert second.read_bytes() != committed, "NB=01 leaves notebook 02 alone"
    (backup,) = (course / "build" / "reset").iterdir()
    assert (backup / "notebooks" / "01_first.ipynb").read_bytes() == edited
    done = run(course, "make", "-s", "reset")
    assert "02_second.ipynb" in done.stdout and git(course, "status", "--porcelain", "notebooks") == (
        "?? notebooks/01_first-Copy1.ipynb\n")
    assert "nothing to reset" in run(course, "make", "-s", "reset").stdout


def test_train_model_writes_beside_the_shipped_weights_unless_replace(monkeypatch):
    import train_fact_model

    monkeypatch.delenv("REPLACE", raising=False)
    assert train_fact_model.output_dir() == ROOT / "build" / "fact_model"
    monkeypatch.setenv("REPLACE", "1")
    assert train_fact_model.output_dir() == ROOT / "data" / "fact_model"
