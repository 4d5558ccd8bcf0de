"""Progress files read for `python -m helpers progress`: whatever a path names, its records or one
phrase.

A file is opened as the parameter calculator opens a config.json (helpers.params.files: without
blocking, judged by what was opened, read through its handle up to a cap), so a folder, a named
pipe, a device such as /dev/zero, a socket or a file over MAX_BYTES is said in words, never read.
Its lines are parsed by helpers.checks.recording: the damaged ones (not JSON, nested too deep,
not a verdict) are skipped and named by number. Records of exercises this version lacks (a
notebook renamed since, exercise 99) are named, not dropped in silence. A name from the file
system or from a record is shown with its control characters escaped, so that a file named with
terminal codes cannot colour the reader's terminal, and shortened when long.
"""

import os
import stat

from helpers import study
from helpers.checks import recording
from helpers.language import say
from helpers.params import files as guarded
from helpers.study import shown

MAX_BYTES = recording.MAX_READ   # what the recorder itself reads back
KIND_WORDS = {"a folder": say("a folder"), "a named pipe (FIFO)": say("a named pipe (FIFO)"),
              "a character device": say("a character device"),
              "a block device": say("a block device"), "a socket": say("a socket")}


def read(path, cap=MAX_BYTES):
    """(bytes, None) of a regular progress file of at most cap bytes, else (None, a phrase naming
    the file)."""
    name = shown(path, 200)
    try:
        fd = guarded._open(path)
    except FileNotFoundError:
        return None, say("{name}: no such file", name=name)
    except OSError as err:
        return None, say("{name}: could not be read ({reason})", name=name, reason=err.strerror
                         or type(err).__name__)
    try:
        info = os.fstat(fd)   # of what was opened, not of what the name pointed to
        kind = next((words for test, words in guarded._KINDS if test(info.st_mode)), None)
        if kind is not None or not stat.S_ISREG(info.st_mode):
            return None, say("{name} is {kind}, not a progress file", name=name,
                             kind=KIND_WORDS.get(kind, say("not a regular file")))
        if info.st_size > cap:
            return None, say("{name} is {size:,} bytes, too big for a progress file (at most "
                             "{cap:,})", name=name, size=info.st_size, cap=cap)
        with os.fdopen(fd, "rb") as handle:   # buffered: read(n) returns n bytes unless at the end
            fd = None
            raw = handle.read(cap + 1)   # at most one byte past the cap, whatever the size said
    except OSError as err:
        return None, say("{name}: could not be read ({reason})", name=name, reason=err.strerror
                         or type(err).__name__)
    finally:
        if fd is not None:
            os.close(fd)
    if len(raw) > cap:
        return None, say("{name} is over {cap:,} bytes, too big for a progress file", name=name,
                         cap=cap)
    return raw, None


def records(raw, name):
    """(records placed, [one phrase per oddity], records in all) of a progress file's bytes.

    The oddities: damaged lines, and records of exercises this version lacks (which are left out).
    """
    where, known = [], {(nb, ex.number) for nb, listed in study.exercises().items()
                        for ex in listed}
    found, bad = recording.parse(raw.decode("utf-8", errors="replace").split("\n"), where)
    notes, placed = [], [r for r in found if (r["notebook"], r["exercise"]) in known]
    if bad:
        lines = recording.line_numbers(where)
        notes.append(say("{name}: 1 line that is not a record (line {lines}), skipped.", name=name,
                         lines=lines) if bad == 1 else
                     say("{name}: {n} lines that are not records (lines {lines}), skipped.",
                         name=name, n=bad, lines=lines))
    unknown = sorted({f"{shown(r['notebook'], 40)} {r['exercise']}" for r in found
                      if (r["notebook"], r["exercise"]) not in known})
    if unknown:
        n = sum((r["notebook"], r["exercise"]) not in known for r in found)
        which = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        notes.append(say("{name}: 1 record of an exercise this version does not have ({which}), "
                         "left out.", name=name, which=which) if n == 1 else
                     say("{name}: {n} records of exercises this version does not have ({which}), "
                         "left out.", name=name, n=n, which=which))

    return placed, notes, len(found)
