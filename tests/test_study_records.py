"""Progress records a leader can trust, whatever the files hold: each case ends in words, within seconds.

The recorder (helpers.checks.recording) skips and names a damaged line, even one nested too deep for
Python, and goes on recording; a Run All writes "not attempted" once per exercise; both editions
write one file. The reader (`python -m helpers progress`, helpers.study_command and the modules it
uses) refuses folders, pipes, devices and huge files as the parameter calculator does, counts no
member from random bytes, escapes names, and ends a failed write in one sentence.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from test_study_progress import (
    here,  # noqa: F401 - the fixture: recording on, in a fresh folder
    said,
)

from helpers import study, study_command, study_files, study_group
from helpers.checks import nb01_matrix_multiply as nb01
from helpers.checks import recording

ROOT = Path(__file__).resolve().parent.parent
MISTAKE = {"notebook": "01_matrix_multiply", "exercise": 2, "verdict": "mistake", "mistake": "x"}


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


def command(*args, cwd, timeout=120):
    """`python -m helpers progress ARGS` in a fresh interpreter: (status, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "helpers", "progress", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


# ---- the recorder ---------------------------------------------------------------------------------


def test_a_line_nested_too_deep_is_named_and_recording_goes_on(here):  # noqa: F811 - the fixture
    path = here / recording.FILE_NAME
    path.write_text("[" * 100000 + "]" * 100000 + "\n" + json.dumps(MISTAKE) + "\n")
    _, out = said(lambda: nb01.check_matmul_by_dots(lambda X, W: (X @ W).T))
    assert "1 lines that are not progress records (lines 1)" in out and "could not write" not in out, out
    _, out = said(lambda: nb01.check_rows_moved(1, 1))
    assert out == ""
    tail = lines(path)[-2:]
    assert [(r["exercise"], r["verdict"], r["attempt"]) for r in tail] == [(2, "mistake", 2), (1, "correct", 1)]


def test_a_file_that_cannot_be_read_is_not_blamed_on_writing(here, monkeypatch):  # noqa: F811 - the fixture
    (here / recording.FILE_NAME).write_text(json.dumps(MISTAKE) + "\n")

    def broken(*args, **kwargs):
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as patched:
        patched.setattr(recording, "parse", broken)
        _, out = said(lambda: nb01.check_rows_moved(1, 1))
    assert "could not read" in out and "could not write" not in out and "recording goes on" in out, out
    nb01.check_rows_moved(3, 1)
    assert [r["verdict"] for r in lines(here / recording.FILE_NAME)][-2:] == ["correct", "mistake"]


def test_run_all_again_and_again_writes_not_attempted_once(here):  # noqa: F811 - the fixture
    for _ in range(3):   # three Run Alls of an untouched notebook
        nb01.check_matmul_by_dots(None)
        recording.forget()
    nb01.check_matmul_by_dots(lambda X, W: (X @ W).T)
    nb01.check_matmul_by_dots(None)   # a Run All after an attempt
    assert [r["verdict"] for r in lines(here / recording.FILE_NAME)] == ["not attempted", "mistake"]


def test_the_korean_edition_writes_the_english_editions_file(tmp_path, monkeypatch):
    (tmp_path / "01_matrix_multiply.ipynb").write_text("{}")
    (tmp_path / "ko").mkdir()
    assert recording.progress_path(tmp_path / "ko") == tmp_path / recording.FILE_NAME
    assert recording.progress_path(tmp_path) == tmp_path / recording.FILE_NAME
    (tmp_path / "elsewhere" / "ko").mkdir(parents=True)   # a folder named ko, without notebooks beside it
    assert recording.progress_path(tmp_path / "elsewhere" / "ko") == tmp_path / "elsewhere" / "ko" / recording.FILE_NAME


def test_exercise_true_is_not_a_record():
    good, bad = recording.parse([json.dumps({**MISTAKE, "exercise": True}), json.dumps(MISTAKE)])
    assert (len(good), bad) == (1, 1)


# ---- the reader -----------------------------------------------------------------------------------


def test_a_huge_mistake_id_costs_linear_time_and_is_never_printed_whole():
    study.sentence("a-b-000000")   # the index is built once, outside the timing
    timings = []
    for n in (20000, 80000):
        start = time.perf_counter()
        text = study.sentence("a-" * n + "abcdef")
        timings.append(time.perf_counter() - start)
        assert "no longer names" in text and len(text) < 200, len(text)
    assert timings[1] < 1.0, timings   # quadratic took seconds at 80,000 words


def test_pipes_devices_folders_and_huge_files_are_said_as_what_they_are(tmp_path):
    os.mkfifo(tmp_path / "pipe.jsonl")
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(study_files.MAX_BYTES + 1)
    for path, words in ((tmp_path / "pipe.jsonl", "a named pipe"), ("/dev/zero", "a character device"),
                        (tmp_path, "a folder"), (big, "too big"), (tmp_path / "none.jsonl", "no such file")):
        raw, problem = study_files.read(path)
        assert raw is None and words in str(problem), (path, problem)


def test_the_command_on_a_pipe_a_folder_or_dev_zero_says_what_it_is(tmp_path):
    os.mkfifo(tmp_path / "pipe.jsonl")
    for path, words in ((tmp_path / "pipe.jsonl", "is a named pipe (FIFO), not a progress file."),
                        (tmp_path, "is a folder, not a progress file."),
                        ("/dev/zero", "is a character device, not a progress file.")):
        rc, out = said(lambda: study_command.main([str(path)]))   # noqa: B023 - called at once
        assert rc == 1 and words in out and "No progress recorded" not in out, out
    rc, out = said(lambda: study_command.main(["--merge", str(tmp_path), "/dev/zero"]))
    assert rc == 1 and "a named pipe" in out and "a character device" in out, out


def test_the_learners_table_names_what_it_cannot_place(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (
        MISTAKE, {**MISTAKE, "exercise": 99}, {**MISTAKE, "notebook": "01_renamed"}, {**MISTAKE, "exercise": True},
        "[" * 50000 + "]" * 50000)) + "\n")
    rc, out = said(lambda: study_command.main([str(path)]))
    assert rc == 0 and "2 records of exercises this version does not have (01_matrix_multiply 99, 01_renamed 2)" \
        in out, out
    assert "2 lines that are not records (lines 4, 5)" in out
    assert "attempted, 1 try" in out


def test_random_bytes_are_no_member_and_escape_codes_are_shown_escaped(tmp_path):
    import random

    (tmp_path / "noise.jsonl").write_bytes(random.Random(0).randbytes(5000))
    (tmp_path / "\x1b[31mred.jsonl").write_text(json.dumps(MISTAKE) + "\n")
    (tmp_path / "bob.jsonl").write_text(json.dumps({**MISTAKE, "verdict": "correct"}) + "\n")
    members, notes = study_group.load([tmp_path])
    assert sorted(members) == ["\\x1b[31mred", "bob"]
    rc, out = said(lambda: study_command.main(["--merge", str(tmp_path)]))
    assert rc == 0 and "\x1b" not in out and "\\x1b[31mred" in out and "done by 1 of 2 members" in out
    assert "noise.jsonl: no progress records in it, so no member" in out


def test_a_members_two_editions_count_once(tmp_path):
    alice = tmp_path / "alice"
    (alice / "ko").mkdir(parents=True)
    (alice / recording.FILE_NAME).write_text(json.dumps({**MISTAKE, "learner": "aaaa"}) + "\n")
    (alice / "ko" / recording.FILE_NAME).write_text(json.dumps({**MISTAKE, "verdict": "correct", "lang": "ko",
                                                                "learner": "bbbb"}) + "\n")
    members, notes = study_group.load([tmp_path])
    assert list(members) == ["alice"] and len(members["alice"]) == 2
    assert any("come from the same member" in str(n) for n in notes)


def test_a_page_that_cannot_be_written_ends_in_one_sentence(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps(MISTAKE) + "\n")
    for target in (tmp_path / "missing" / "r.html", tmp_path):
        rc, out = said(lambda: study_command.main(["--merge", str(tmp_path / "a.jsonl"), "--html", str(target)]))  # noqa: B023
        assert rc == 1 and out.rstrip().splitlines()[-1].startswith("The page could not be written to"), out


def test_a_full_output_and_a_missing_torch_end_in_one_sentence(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps(MISTAKE) + "\n")
    rc, err = _to_full(tmp_path)
    assert rc == 1 and err.strip().count("\n") == 0 and "could not be written to the output" in err, err
    hidden = tmp_path / "no-torch"
    hidden.mkdir()
    (hidden / "torch.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    env = {**os.environ, "PYTHONPATH": f"{hidden}{os.pathsep}{ROOT}"}
    done = subprocess.run([sys.executable, "-m", "helpers", "progress"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "make lab" in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0
    korean = subprocess.run([sys.executable, "-m", "helpers", "progress"], cwd=tmp_path, env={**env, "LANG": "ko_KR.UTF-8"},
                            capture_output=True, text=True, timeout=120)
    assert "make lab" in korean.stderr and "패키지가 없습니다" in korean.stderr, korean.stderr


def _to_full(folder):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "helpers", "progress", "a.jsonl"], cwd=folder, env=env,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    return done.returncode, done.stderr


def test_from_the_courses_folder_progress_finds_the_notebooks_records(tmp_path):
    (tmp_path / "notebooks" / "ko").mkdir(parents=True)
    assert study_command.default_paths(tmp_path) == [tmp_path / "notebooks" / recording.FILE_NAME]   # the one to name
    (tmp_path / "notebooks" / recording.FILE_NAME).write_text(json.dumps(MISTAKE) + "\n")
    assert study_command.default_paths(tmp_path) == [tmp_path / "notebooks" / recording.FILE_NAME]
    assert study_command.default_paths(tmp_path / "notebooks") == [tmp_path / "notebooks" / recording.FILE_NAME]
    rc, out, _ = command(cwd=tmp_path)
    assert rc == 0 and "attempted, 1 try" in out, out


def test_both_readmes_say_that_verdicts_are_recorded_where_and_how_to_turn_it_off():
    for name in ("README.md", "README.ko.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        for words in ("notebooks/course-progress.jsonl", "COURSE_RECORD=0", "helpers.checks.record(False)",
                      "-m helpers progress"):
            assert words in text, (name, words)


def test_the_study_modules_import_one_way():
    import ast

    order = ["study", "study_files", "study_group", "study_page", "study_command"]   # each uses only those before it
    for i, name in enumerate(order):
        tree = ast.parse((ROOT / "helpers" / f"{name}.py").read_text(encoding="utf-8"))
        used = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "helpers"
                for alias in node.names}
        used |= {node.module.split(".")[1] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and (node.module or "").startswith("helpers.study")}
        assert not used & set(order[i:]), f"helpers/{name}.py imports {sorted(used & set(order[i:]))}"


def test_a_progress_file_too_big_to_read_back_is_said_and_recording_goes_on(here, monkeypatch):  # noqa: F811
    path = here / recording.FILE_NAME
    path.write_text(json.dumps(MISTAKE) + "\n")
    monkeypatch.setattr(recording, "MAX_READ", 10)
    _, out = said(lambda: nb01.check_rows_moved(1, 1))
    assert "could not read" in out and "more than a progress file holds" in out, out
    assert lines(path)[-1]["verdict"] == "correct"
