"""The checks record each verdict, and `python -m helpers progress` reads the records back.

Recording (helpers.checks.recording): one line per check call, for every kind of verdict; off with
COURSE_RECORD=0 or record(False) (and under pytest, unless COURSE_RECORD=1, which these tests set);
a folder that cannot be written or a full disk is said once and the check says what it always says.
The tests run as root, for whom chmod does not stop a write: an unwritable folder is a path under a
regular file, a full disk is a write monkeypatched to fail as /dev/full does.

Reading (helpers.study, study_group, study_page): a learner's table, a group's merge over odd files,
the HTML page in headless Chromium with the network blocked, and notebook 01 run with its worked
solutions leaving a file whose table says every exercise is done.
"""

import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path

import nbformat
import numpy as np
import pytest
from exercise_cells import exercises as notebook_exercises

import helpers
from helpers import study, study_command, study_group, study_page
from helpers.checks import nb01_matrix_multiply as nb01
from helpers.checks import recording

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def right_matmul(X, W):
    """Exercise 2's answer, written as the exercise asks: dot products in loops, no @."""
    (T, d), m = X.shape, W.shape[1]
    Z = np.zeros((T, m))
    for t in range(T):
        for j in range(m):
            Z[t, j] = sum(X[t, i] * W[i, j] for i in range(d))
    return Z, 2 * T * d * m


def transposed(X, W):
    return (X @ W).T, 0


def stub(X, W):
    return None


@pytest.fixture
def here(tmp_path, monkeypatch):
    """Recording on, into a fresh folder that is the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COURSE_RECORD", "1")
    recording.forget()
    yield tmp_path
    recording.forget()
    recording._on[0] = None


def records(folder):
    return [json.loads(line) for line in (folder / recording.FILE_NAME).read_text().splitlines()]


def said(call):
    out = io.StringIO()
    with redirect_stdout(out):
        result = call()
    return result, out.getvalue()


# ---- recording ------------------------------------------------------------------------------------


def test_every_kind_of_verdict_is_recorded(here):
    nb01.check_matmul_by_dots(stub)
    nb01.check_matmul_by_dots(transposed)
    nb01.check_matmul_by_dots(lambda X, W: 1 / 0)
    nb01.check_matmul_by_dots(right_matmul)
    nb01.check_rows_moved(3, 1)
    lines = records(here)
    assert [(r["exercise"], r["verdict"], r["attempt"]) for r in lines] == [
        (2, "not attempted", 0), (2, "mistake", 1), (2, "mistake", 2), (2, "correct", 3), (1, "mistake", 1)]
    assert lines[1]["mistake"].startswith("your-z-is-transposed-entry-t-")   # a Mistake row's sentence
    assert lines[2]["mistake"].startswith("raised-")                          # the runner's own sentence
    assert lines[4]["mistake"].startswith("you-predicted-")
    assert {r["notebook"] for r in lines} == {"01_matrix_multiply"}
    assert {r["course"] for r in lines} == {helpers.__version__}
    assert len({r["learner"] for r in lines}) == 1
    keys = {"v", "course", "lang", "learner", "notebook", "exercise", "attempt", "verdict", "mistake", "time"}
    assert all(set(r) <= keys for r in lines), "only verdicts: no code, no answer"
    assert "1 / 0" not in (here / recording.FILE_NAME).read_text()


def test_tries_go_on_in_a_later_session_and_a_deleted_file_starts_afresh(here):
    nb01.check_matmul_by_dots(transposed)
    recording.forget()   # a new kernel
    nb01.check_matmul_by_dots(transposed)
    first = records(here)
    assert [r["attempt"] for r in first] == [1, 2] and first[0]["learner"] == first[1]["learner"]
    (here / recording.FILE_NAME).unlink()
    nb01.check_matmul_by_dots(transposed)
    (again,) = records(here)
    assert again["attempt"] == 1 and again["learner"] != first[0]["learner"]


def test_recording_off(here, monkeypatch):
    monkeypatch.setenv("COURSE_RECORD", "0")
    assert str(nb01.check_rows_moved(1, 1)).startswith("[correct]")
    assert not (here / recording.FILE_NAME).exists()
    monkeypatch.setenv("COURSE_RECORD", "1")
    helpers.checks.record(False)
    nb01.check_rows_moved(1, 1)
    assert not (here / recording.FILE_NAME).exists()
    helpers.checks.record(True)
    nb01.check_rows_moved(1, 1)
    assert len(records(here)) == 1


def test_off_under_pytest_unless_asked(monkeypatch):
    monkeypatch.delenv("COURSE_RECORD", raising=False)
    assert os.environ.get("PYTEST_CURRENT_TEST") and not recording.recording()


def test_a_folder_that_cannot_be_written_is_said_once_and_the_check_goes_on(here, monkeypatch):
    expected = str(nb01.check_rows_moved(1, 1))
    (here / "a-file").write_text("")
    monkeypatch.setattr(recording, "FILE_NAME", "a-file/course-progress.jsonl")   # under a file: root cannot
    feedback, out = said(lambda: nb01.check_rows_moved(1, 1))
    assert str(feedback) == expected and feedback.status == "correct"
    assert out.count("[progress]") == 1 and "NotADirectoryError" in out and "as before" in out
    _, out = said(lambda: nb01.check_matmul_by_dots(transposed))
    assert out == "", "said once"


def test_a_full_disk_is_said_once(here, monkeypatch):
    monkeypatch.setattr(recording, "FILE_NAME", "/dev/full")   # every write fails with ENOSPC
    feedback, out = said(lambda: nb01.check_rows_moved(3, 1))
    assert feedback.status == "wrong" and "No space left on device" in out and out.count("\n") == 1
    assert said(lambda: nb01.check_rows_moved(3, 1))[1] == ""


def test_a_damaged_file_is_said_once_and_recording_goes_on(here):
    (here / recording.FILE_NAME).write_text('{"notebook": "01_matrix_multiply", "exercise": 1, "verdict"\nxx\n')
    _, out = said(lambda: nb01.check_rows_moved(1, 1))
    assert "2 lines that are not progress records" in out
    _, out = said(lambda: nb01.check_rows_moved(1, 1))
    assert out == ""
    good, bad = recording.read_records(here / recording.FILE_NAME)
    assert (len(good), bad) == (2, 2)


def test_recording_costs_no_visible_time(here):
    import time

    feedback = nb01.check_rows_moved(1, 1)
    start = time.perf_counter()
    for _ in range(200):
        recording.note("Exercise 1 (which rows move?)", feedback)
    per_call = (time.perf_counter() - start) / 200
    assert per_call < 0.005, f"{per_call * 1e6:.0f} µs per recorded verdict"


def test_every_check_finds_its_notebook():
    for notebook in study.exercises():
        module = __import__(f"helpers.checks.nb{notebook}", fromlist=["x"])
        for sentence, number in recording._exercises_of(module).items():
            assert recording.notebook_of(sentence) == (notebook, number), sentence


def test_a_check_packages_submodule_names_its_notebook_not_itself(monkeypatch):
    import sys

    name = "helpers.checks.nb01_matrix_multiply.ex1_rows"
    module = sys.modules[name]
    monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, name, module)   # loaded after its package: listed last
    monkeypatch.setitem(recording._index, "count", -1)
    assert recording.notebook_of("Exercise 1 (which rows move?)") == ("01_matrix_multiply", 1)


def test_the_exercise_list_from_the_check_modules_matches_the_notebooks():
    """What an installed package knows (helpers/checks) agrees with the notebooks' headings and tags."""
    listed = study.exercises()
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        expected = sorted((e.number, e.level) for e in notebook_exercises(nb))
        assert [(e.number, e.kind) for e in listed[path.stem]] == expected, path.name


def test_download_outside_colab_says_where_the_file_is(here):
    assert said(recording.download_progress)[0] is None
    nb01.check_rows_moved(1, 1)
    path, out = said(recording.download_progress)
    assert path == here / recording.FILE_NAME and str(path) in out


# ---- reading: a learner's table, a group's merge --------------------------------------------------


def test_the_learners_table_and_the_next_exercise(here):
    nb01.check_rows_moved(1, 1)
    nb01.check_matmul_by_dots(transposed)
    data = study.table(recording.read_records(here / recording.FILE_NAME)[0])
    (notebook,) = data["notebooks"]
    status = {r["number"]: (r["status"], r["tries"], r["kind"]) for r in notebook["exercises"]}
    assert status == {1: ("done", 1, "core"), 2: ("attempted", 1, "core"), 3: ("not started", 0, "core"),
                      4: ("not started", 0, "stretch")}
    assert data["next"]["number"] == 2
    assert "Next: notebook 01, Exercise 2 (a matmul from dot products)." in said(lambda: study_command.main([]))[1]
    out = said(lambda: study_command.main(["--json"]))[1]
    assert json.loads(out)["next"]["number"] == 2
    out = said(lambda: study_command.main(["--lang", "ko"]))[1]
    assert "연습 1 (어느 행이 바뀔까요?)" in out and "다음: 노트북 01" in out


def _member(folder, calls):
    folder.mkdir()
    os.chdir(folder)
    recording.forget()
    for call in calls:
        call()
    return folder / recording.FILE_NAME


@pytest.fixture
def group(here):
    alice = _member(here / "alice", [lambda: nb01.check_rows_moved(3, 1), lambda: nb01.check_rows_moved(1, 1),
                                     lambda: nb01.check_matmul_by_dots(transposed),
                                     lambda: nb01.check_matmul_by_dots(right_matmul)])
    bob = _member(here / "bob", [lambda: nb01.check_matmul_by_dots(transposed),
                                 lambda: nb01.check_matmul_by_dots(transposed)])
    os.chdir(here)
    (here / "alice-again.jsonl").write_bytes(alice.read_bytes())               # a duplicate file
    (here / "bob-later.jsonl").write_text(bob.read_text() + "{not json\n")    # the same member, a bad line
    (here / "empty.jsonl").write_text("")
    old = alice.read_text().replace(helpers.__version__, "0.0.1").replace('"learner": "', '"learner": "x')
    (here / "carol.jsonl").write_text(old.replace('"exercise": 1,', '"exercise": 9,'))
    return here


def test_the_merge_of_odd_files(group):
    members, notes = study_group.load([group / "alice", group / "bob", group / "alice-again.jsonl",
                                       group / "bob-later.jsonl", group / "empty.jsonl", group / "carol.jsonl",
                                       group / "nobody.jsonl"])
    assert list(members) == ["alice", "bob", "carol"]
    said_ = [str(n) for n in notes]
    for words in ("the same file as", "an empty file", "1 line that is not a record",
                  "come from the same member", "course version 0.0.1", "this version does not have",
                  "no such file"):
        assert sum(words in n for n in said_) == 1, (words, said_)
    data = study_group.report(members, notes, "en")
    (nb,) = data["notebooks"]
    row = {r["number"]: r for r in nb["exercises"]}
    assert row[2]["members"]["bob"] == {"status": "attempted", "tries": 2}   # bob's two files count once
    assert row[2]["done"] == 2 and row[1]["done"] == 1                       # carol's exercise 1 became "9"
    top = nb["mistakes"][0]
    assert (top["exercise"], top["count"], top["members"]) == (2, 4, 3)
    assert top["sentence"].startswith("your Z is transposed: entry (t, j) landed at Z[j, t].")
    assert top["cell"] == {"tag": "exercise-2", "heading": "Exercise 2 (core)"}
    from helpers.checks import language

    language.MISSES.clear()
    in_korean = {**study_group.report(members, notes, "ko"), "files": 7}
    korean = in_korean["notebooks"][0]["mistakes"][0]
    assert korean["sentence"].startswith("Z가 전치되어 있습니다") and korean["cell"]["heading"] == "연습 2 (핵심)"
    study_group.show_report(in_korean), study_page.page(in_korean)
    assert not language.MISSES, f"said in English in the Korean report: {language.MISSES}"


def test_the_merge_command_never_crashes(group):
    rc, out = said(lambda: study_command.main(["--merge", str(group)]))
    assert rc == 0 and "Study group: " in out and "your Z is transposed" in out
    rc, out = said(lambda: study_command.main(["--merge", str(group / "empty.jsonl")]))
    assert rc == 1 and "no progress files to merge" in out
    rc, out = said(lambda: study_command.main(["--merge", str(group), "--json"]))
    assert json.loads(out)["members"] == ["alice", "bob", "carol"]


# ---- the page -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    import chromium

    yield from chromium.launch()


def test_the_page_works_offline_with_its_chart(group, browser):
    import chromium

    rc, _ = said(lambda: study_command.main(["--merge", str(group), "--html", str(group / "report.html")]))
    html = (group / "report.html").read_text()
    assert rc == 0 and "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    attempted = chromium.block_network(page)
    try:
        page.goto((group / "report.html").as_uri())
        box = page.locator("svg").bounding_box()
        bars = page.evaluate("() => [...document.querySelectorAll('svg rect.done')].map(r => r.getBBox().width)")
        assert box["width"] > 300 and box["height"] > 50
        assert len(bars) == 4 and max(bars) > 100, bars   # 4 exercises; 2 of 3 members finished exercise 2
        assert "your Z is transposed" in page.inner_text("body")
    finally:
        page.close()
    assert not attempted, attempted


def test_the_page_in_korean(group):
    members, notes = study_group.load([group / "alice", group / "bob"])
    html = study_page.page({**study_group.report(members, notes, "ko"), "files": 2})
    assert 'lang="ko"' in html and "스터디 그룹 진행 상황" in html and "<svg" in html


# (tests/test_exercises.py runs every notebook with its worked solutions and checks that the file
# it leaves says every exercise is done)


def test_every_mistake_row_is_found_again_from_its_id():
    import sys

    from helpers.checks.show import say

    rows = [m.message for notebook in study.exercises() for value in vars(sys.modules[f"helpers.checks.nb{notebook}"])
            .values() for m in getattr(value, "mistakes", None) or () if hasattr(m, "message")]
    assert len(rows) > 100
    for message in rows:
        mistake = recording.mistake_id(say(message, got=1, call="f"))
        assert study._sentence_index()[0][mistake.rsplit("-", 1)[1]] == message, mistake
    # a sentence reworded after its sixth word is still found by its words
    assert study.sentence("your-z-is-transposed-entry-t-000000").startswith("your Z is transposed")
    assert "no longer names" in study.sentence("a-mistake-nobody-makes-any-more-000000")


def test_records_of_the_korean_edition_give_a_korean_table(here):
    from helpers.checks import language

    language.use("ko")
    try:
        nb01.check_rows_moved(1, 1)
    finally:
        language.use("en")
    assert records(here)[0]["lang"] == "ko"
    language.MISSES.clear()
    out = said(lambda: study_command.main([]))[1]
    assert "나의 진행 상황" in out and "연습 1 (어느 행이 바뀔까요?)" in out and "완료 (첫 시도)" in out
    assert not language.MISSES


def test_download_in_colab_hands_the_file_to_the_browser(here, monkeypatch):
    import sys
    import types

    asked = []
    colab = types.ModuleType("google.colab")
    colab.files = types.SimpleNamespace(download=asked.append)
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    nb01.check_rows_moved(1, 1)
    assert recording.download_progress() == here / recording.FILE_NAME
    assert asked == [str(here / recording.FILE_NAME)]
