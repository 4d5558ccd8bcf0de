"""`make new-notebook` writes a whole lesson, or nothing.

Each run works in a copy of the course (its tools, package, notebooks, documents and catalogs) in a
temporary folder, as `make new-notebook` runs there; the notebook is not executed (--no-run), which
the stored-notebook tests cover for every notebook.
"""

import hashlib
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from course_paths import ROOT

PARTS = ["tools", "helpers", "tests", "notebooks", "docs", "locale", "data", "README.md", "README.ko.md",
         "pyproject.toml", "Makefile"]


def snapshot(root):
    """{relative path: sha256} of every file under root."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    for part in PARTS:
        source, target = ROOT / part, course / part
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(source, target)
    return course


@pytest.fixture
def course(pristine, tmp_path):
    copy = tmp_path / "course"
    shutil.copytree(pristine, copy)
    return copy


def new_notebook(course, *args):
    env = {**os.environ, "PYTHONPATH": str(course)}   # the copy's helpers, not the checkout's
    return subprocess.run([sys.executable, "tools/new_notebook.py", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_new_lesson_gets_every_file_and_entry_it_needs(course):
    done = new_notebook(course, "my_topic", "--title", "My topic", "--posts", "1,3", "--no-run")
    assert done.returncode == 0, done.stdout + done.stderr
    number = f"{int(sorted((ROOT / 'notebooks').glob('[0-9][0-9]_*.ipynb'))[-1].name[:2]) + 1:02d}"
    stem = f"{number}_my_topic"
    for path in [f"notebooks/{stem}.ipynb", f"helpers/checks/nb{stem}.py", f"helpers/demos/nb{stem}.py",
                 f"tests/test_checks_nb{stem}.py"]:
        assert (course / path).is_file(), path
    assert f"notebooks/{stem}.ipynb" in (course / "README.md").read_text()
    assert f"notebooks/ko/{stem}.ipynb" in (course / "README.ko.md").read_text()
    for guide in ["docs/INSTRUCTOR.md", "docs/INSTRUCTOR.ko.md"]:
        text = (course / guide).read_text()
        assert f"### {number} · " in text, guide
        plan = text.split(f"### {number} · ")[1]
        assert plan.split("\n")[1].startswith(("- **Minutes per section**", "- **절마다의 분**")), guide
    assert f"[{number}](../notebooks/{stem}.ipynb)" in (course / "docs" / "SOURCES.md").read_text()
    notebooks_po = (course / "locale" / "ko" / "LC_MESSAGES" / "notebooks.po").read_text()
    assert f'msgctxt "{stem}.ipynb#' in notebooks_po
    checks_po = (course / "locale" / "ko" / "LC_MESSAGES" / "checks.po").read_text()
    assert "you added factor instead of multiplying by it." in checks_po
    status = subprocess.run([sys.executable, "tools/translations.py", "status", number], cwd=course,
                            env={**os.environ, "PYTHONPATH": str(course)}, capture_output=True, text=True)
    assert status.returncode == 1 and stem in status.stdout, status.stdout + status.stderr
    assert "Next: replace every TODO" in done.stdout
    # The skeleton keeps the course's rules, so that its only failures are the TODOs and translations:
    # its exercise kinds read the same from the check module as from the notebook ...
    rules = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "tests/test_study_progress.py::"
                            "test_the_exercise_list_from_the_check_modules_matches_the_notebooks"],
                           cwd=course, env={**os.environ, "PYTHONPATH": str(course)},
                           capture_output=True, text=True, timeout=600)
    assert rules.returncode == 0, rules.stdout[-2000:] + rules.stderr[-2000:]
    # ... and no cell between its prediction and the check prints (it would show the answer).
    cells = nbformat.read(course / f"notebooks/{stem}.ipynb", as_version=4).cells
    start = next(i for i, c in enumerate(cells) if "predict" in c.metadata.get("tags", []))
    end = next(i for i, c in enumerate(cells) if "check_guess(my_guess" in c.source)
    assert not [i for i in range(start, end + 1) if "print(" in cells[i].source], \
        "a cell before the prediction's check prints, which shows the answer"


def test_a_failure_half_way_leaves_the_course_as_it_was(course):
    checks_po = course / "locale" / "ko" / "LC_MESSAGES" / "checks.po"
    checks_po.write_text(checks_po.read_text()[:-4000] + '\nmsgid "a damaged end', encoding="utf-8")
    before = snapshot(course)
    done = new_notebook(course, "my_topic", "--no-run")   # fails at its last step, the catalogs
    assert done.returncode != 0
    assert "every file written for notebook" in done.stdout, done.stdout
    assert snapshot(course) == before


def test_past_99_it_refuses_in_words_and_writes_nothing(course):
    shutil.copy(course / "notebooks" / "01_matrix_multiply.ipynb", course / "notebooks" / "99_last.ipynb")
    before = snapshot(course)
    done = new_notebook(course, "my_topic", "--no-run")
    assert done.returncode != 0 and "notebook 99 exists" in done.stderr, done.stdout + done.stderr
    assert "NAME=NN_my_topic" in done.stderr
    assert snapshot(course) == before
