"""Every check's verdict, one JSON line each, in a file beside the learner's notebooks.

`core.judge` hands each verdict here. The file, `course-progress.jsonl` in the kernel's working
folder (the notebook's folder; /content in Colab), holds one line per check call:

    {"v": 1, "course": "0.1.0", "lang": "en", "learner": "5f0c9a2e",
     "notebook": "01_matrix_multiply", "exercise": 2, "attempt": 3, "verdict": "mistake",
     "mistake": "your-z-is-transposed-entry-t-j", "time": "2026-12-03T14:20:05Z"}

verdict is "correct", "mistake" or "not attempted"; attempt counts the exercise's judged tries in
this file (0 for a not-attempted call); learner is a random tag made with the file, so that a
leader can see two files from one member. No code, no answers, no sentence from the learner.
A "not attempted" line is written once per exercise, while the file holds no line of that
exercise yet: it says a notebook was opened, and a Run All after Run All adds nothing that would
bury the real attempts. The Korean edition (notebooks/ko/ beside the English notebooks) writes to
the English edition's file, so that one learner keeps one file in both languages.

A mistake's id is a slug of the first six words of the sentence's template (its {values} left
out), then six hex digits of the template (`mistake_id`): the digits find the exact sentence again,
and the words find it after its end was reworded. Where a template is only values
("{call} {problem}."), the sentence inside it names the mistake. `python -m helpers progress` finds
the sentence again from the id (helpers.study), in English or Korean.

COURSE_RECORD=0 in the environment, or `helpers.checks.record(False)`, turns recording off; under
pytest (the course's tests, and the notebooks nbval runs) it is off unless COURSE_RECORD=1. A
folder that cannot be written, a full disk or a damaged file is said once, in words; the check
says what it always says. A file that cannot be read (a damaged line, even one nested too deep
for Python) is said as such: its good lines count, and recording goes on.
"""

import hashlib
import json
import os
import re
import stat
import sys
import time
import uuid
from pathlib import Path

from helpers import __version__, language
from helpers.checks.show import Text, say

FILE_NAME = "course-progress.jsonl"
FORMAT = 1
VERDICTS = ("correct", "mistake", "not attempted")
# 32 MiB: a verdict is a line of about 250 bytes, a year of daily checks about a megabyte
MAX_READ = 2**25
_on = [None]          # None: follow COURSE_RECORD; True or False: record() decided
_state = {"file": None, "learner": None, "tries": {}, "seen": set(), "said": set(), "failed": False}
_index = {"modules": None, "count": 0, "exercises": {}}

CANNOT_WRITE = ("could not write your progress to {path} ({reason}). Your checks work as before; "
                "recording stops for this session.")
DAMAGED = ("{path} has {n} lines that are not progress records (lines {lines}): they are skipped, "
           "and recording goes on after them.")
CANNOT_READ = ("could not read your progress so far in {path} ({reason}). Your checks work as "
               "before, and recording goes on; tries are counted from now.")
NO_FILE = "no progress recorded yet: {path} appears after your first exercise check."
SEND_FILE = "your progress file is {path}: send it to your study group's leader."


def record(on=True):
    """Turn recording of check verdicts on or off for this session (COURSE_RECORD=0 sets it off)."""
    _on[0] = bool(on)


def forget():
    """Start afresh: the next verdict reads the progress file again, and a problem is said again."""
    _state.update(file=None, learner=None, tries={}, seen=set(), said=set(), failed=False)


def recording():
    """True when verdicts are recorded: record(), else COURSE_RECORD, else on (off under tests)."""
    if _on[0] is not None:
        return _on[0]
    setting = os.environ.get("COURSE_RECORD", "").strip().lower()
    if setting:
        return setting not in ("0", "off", "no", "false")
    # pytest (and the kernels nbval starts) write no records
    return "PYTEST_CURRENT_TEST" not in os.environ


def progress_path(folder=None):
    """The progress file of this session: course-progress.jsonl in the working folder (`folder`).

    In the Korean edition's folder of a checkout (notebooks/ko/, beside the English notebooks), the
    English edition's file: one learner, one file, whichever edition a check ran in.
    """
    folder = Path.cwd() if folder is None else Path(folder)
    if folder.name == "ko" and next(folder.parent.glob("[0-9][0-9]_*.ipynb"), None) is not None:
        return folder.parent / FILE_NAME
    return folder / FILE_NAME


def _tell(template, **values):
    """Say a recording problem once per session, in the checks' language, on stdout (no error)."""
    if template in _state["said"]:
        return
    _state["said"].add(template)
    print("[progress]", language.translate(say(template, **values)), flush=True)


def words(template):
    """The words of a template, lower case, its {values} left out: the stuff of a mistake's id."""
    return re.findall(r"[a-z0-9]+", re.sub(r"\{[^{}]*\}", " ", template).lower())


def named(message):
    """The template that names the mistake: the message's own, or inside a frame such as "{call}
    {problem}."."""
    template = message.template if isinstance(message, Text) else str(message)
    if len(words(template)) < 3 and isinstance(message, Text):
        inner = [v for v in (*message.args, *message.values.values()) if isinstance(v, Text)
                 and words(v.template)]
        if inner:
            return named(inner[0])
    return template


def digest(template):
    return hashlib.sha1(template.encode("utf-8")).hexdigest()[:6]


def mistake_id(message, n_words=6):
    """A stable id for the mistake a sentence names: its first words as a slug, then 6 hex digits of
    its template.

    "your-z-is-transposed-entry-t-4c1a9e": the words say which mistake it is and survive a rewording
    of the sentence's end (the report then finds the sentence by them); the digits tell apart two
    sentences that begin alike. A frame's words ("you predicted ...") come before those of the
    sentence inside it.
    """
    template = message.template if isinstance(message, Text) else str(message)
    inner = named(message)
    found = words(template) if inner == template else words(template) + words(inner)
    return "-".join(found[:n_words] or ["unnamed"]) + "-" + digest(inner)


def _exercises_of(module):
    """{exercise sentence: its number} for the checks a notebook's check module defines."""
    found = {}
    for value in vars(module).values():
        names = [getattr(value, "exercise", None), value]
        code = getattr(value, "__code__", None)
        if code is not None and "exercise" in code.co_freevars and value.__closure__:
            names.append(value.__closure__[code.co_freevars.index("exercise")].cell_contents)
        for name in names:
            match = isinstance(name, str) and re.match(r"Exercise (\d+) \(", name)
            if match:
                found[name] = int(match.group(1))
    return found


def notebook_of(exercise):
    """(notebook, exercise number) of an exercise sentence, from the loaded checks; else None."""
    if len(sys.modules) != _index["count"] or exercise not in _index["exercises"]:
        # modules come and go rarely: look again when their number changes
        _index["count"] = len(sys.modules)
        loaded = tuple(name for name in sys.modules if name.startswith("helpers.checks.nb"))
        if loaded == _index["modules"]:
            return _index["exercises"].get(exercise)
        _index["modules"], _index["exercises"] = loaded, {}
        for name in loaded:
            notebook = name.split(".")[2].removeprefix("nb")   # a check package's submodules too
            for sentence, number in _exercises_of(sys.modules[name]).items():
                _index["exercises"][sentence] = (notebook, number)
    return _index["exercises"].get(exercise)


def is_record(entry):
    """True for a dict that reads as a verdict: a notebook, an exercise number, a known verdict."""
    exercise = entry.get("exercise") if isinstance(entry, dict) else None
    return (type(exercise) is int and 0 < exercise < 1000 and isinstance(entry.get("notebook"), str)
            and entry.get("verdict") in VERDICTS)   # `true` is no exercise number


def parse(lines, where=None):
    """(records, number of lines that are not records) from a progress file's lines; `where` gets
    their numbers."""
    records, bad = [], 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):   # not JSON, or JSON nested too deep for Python
            entry = None
        if is_record(entry):
            records.append(entry)
            continue
        bad += 1
        if where is not None:
            where.append(number)
    return records, bad


def line_numbers(numbers, most=5):
    """'3, 7, 9' or '3, 7, 9, 12, 15, ...': which lines, said briefly."""
    return ", ".join(str(n) for n in numbers[:most]) + (", ..." if len(numbers) > most else "")


def read_records(path):
    """(records, number of lines that are not records) of a progress file."""
    with open(path, encoding="utf-8", errors="replace") as lines:
        return parse(lines)


def _load(path, info):
    """Read the file once per session (and again after it was deleted): learner tag and tries so
    far.

    Only a regular file of at most MAX_READ bytes is read (`info`: its stat; a device such as
    /dev/full reads without end). A file that cannot be read is said once; recording goes on from
    here, its tries counted afresh.
    """
    _state.update(learner=None, tries={}, seen=set())
    records, bad, where = [], 0, []
    if stat.S_ISREG(info.st_mode) and info.st_size > MAX_READ:
        _tell(CANNOT_READ, path=str(path), reason=say("{size:,} bytes, more than a progress file "
                                                      "holds ({most:,})",
                                                      size=info.st_size, most=MAX_READ))
    elif stat.S_ISREG(info.st_mode) and info.st_size:
        try:
            with open(path, encoding="utf-8", errors="replace") as lines:
                records, bad = parse(lines, where)
        except Exception as err:  # noqa: BLE001 - whatever stops the read, the recording goes on
            records, bad = [], 0
            _tell(CANNOT_READ, path=str(path), reason=type(err).__name__ + ": " + str(err)[:200])
    if bad:
        _tell(DAMAGED, path=str(path), n=bad, lines=line_numbers(where))
    for entry in records:
        learner = entry.get("learner")
        _state["learner"] = _state["learner"] or (learner if isinstance(learner, str) else None)
        key = (entry["notebook"], entry["exercise"])
        _state["seen"].add(key)
        if entry["verdict"] != "not attempted":
            _state["tries"][key] = _state["tries"].get(key, 0) + 1
    _state["learner"] = _state["learner"] or uuid.uuid4().hex[:8]


def note(exercise, feedback):
    """Append one check call's verdict to the progress file; never raise, never print but once."""
    if _state["failed"] or not recording():
        return
    try:
        found = notebook_of(exercise)
        if found is None:   # a check made outside the course's notebooks
            return
        path = progress_path()
        # without blocking: a named pipe there with no reader fails at once instead of hanging the
        # check
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0),
                     0o644)
        try:
            found_file = os.fstat(fd)
            which = (found_file.st_dev, found_file.st_ino)
            if which != _state["file"] or not found_file.st_size:   # a new session, folder or file
                _load(path, found_file)
                _state["file"] = which
            if feedback.status == "not attempted" and found in _state["seen"]:
                return   # said once per exercise: a Run All again adds nothing
            _state["seen"].add(found)
            os.write(fd, _line(found, feedback).encode("utf-8"))
        finally:
            os.close(fd)
    except Exception as err:  # noqa: BLE001 - recording never fails a check
        _state["failed"] = True
        _tell(CANNOT_WRITE, path=str(progress_path()), reason=type(err).__name__ + ": " + str(err))


def _line(found, feedback):
    """The JSON line for a verdict on exercise found = (notebook, number)."""
    entry = {"v": FORMAT, "course": __version__, "lang": language.current(),
             "learner": _state["learner"], "notebook": found[0], "exercise": found[1], "attempt": 0,
             "verdict": "not attempted"}
    if feedback.status != "not attempted":
        _state["tries"][found] = _state["tries"].get(found, 0) + 1
        entry["attempt"] = _state["tries"][found]
        entry["verdict"] = "correct" if feedback.status == "correct" else "mistake"
        if feedback.status != "correct":
            entry["mistake"] = mistake_id(feedback.message)
    entry["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return json.dumps(entry, ensure_ascii=False) + "\n"


def download_progress():
    """Download the progress file in Colab, else say where it is; return its path (None if none)."""
    path = progress_path()
    if not path.exists():
        print(language.translate(say(NO_FILE, path=str(path))))
        return None
    try:
        from google.colab import files
    except ImportError:
        print(language.translate(say(SEND_FILE, path=str(path))))
        return path
    files.download(str(path))
    return path
