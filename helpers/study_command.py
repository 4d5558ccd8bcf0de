"""`python -m helpers progress`: a learner's table, or (--merge) a study group's report and page.

    python -m helpers progress                      # your table: this folder's
                                                    # course-progress.jsonl, or notebooks/'
                                                    # when run from the course's folder
    python -m helpers progress --json               # the same, as data
    python -m helpers progress --merge alice.jsonl bob.jsonl   # (or a folder) the group's leader
    python -m helpers progress --merge members/ --html report.html

The command sits above the modules it uses, so that imports run one way: study_command ->
study_page -> study_group -> study_files -> study. Whatever goes wrong ends in one sentence and
status 1: a path that is not a progress file (helpers.study_files), a page that cannot be written,
an output that cannot take the report (`> /dev/full`).
"""

import argparse
import json
import os
import sys
from pathlib import Path

from helpers import language, study, study_files, study_group, study_page
from helpers.checks import recording
from helpers.language import say
from helpers.study import shown


class _Unwritable(Exception):
    """stdout refused the report (a full disk, a closed pipe)."""


def _out(text):
    """Print text; an output that refuses it raises _Unwritable, said by main."""
    try:
        print(text, flush=True)
    except OSError as err:
        raise _Unwritable(err) from err


def _parser():
    parser = argparse.ArgumentParser(prog="python -m helpers progress",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*",
                        help="progress files (or folders of them); default ./course-progress.jsonl")
    parser.add_argument("--merge", action="store_true",
                        help="merge the members' files into the group's report")
    parser.add_argument("--html", metavar="FILE",
                        help="with --merge: also write the report as one web page")
    parser.add_argument("--json", action="store_true", help="print the same as data (JSON)")
    parser.add_argument("--lang", choices=sorted(language.LANGUAGES),
                        help="en or ko (default: the records')")
    return parser


def main(argv=None):
    """The command: status 0 with a table or a report, 1 with a sentence that says why not."""
    args = _parser().parse_args(argv)
    try:
        return merge(args) if args.merge or args.html else table(args)
    except _Unwritable as err:
        cause = err.__cause__
        # Python's flush at exit finds nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        # the reader has gone (`| head -1`): end quietly, as cat does
        if isinstance(cause, BrokenPipeError):
            return 141
        print(language.translate(say("The report could not be written to the output ({reason}).",
                                     reason=cause.strerror or type(cause).__name__), args.lang
                                 or "en"),
              file=sys.stderr)
        return 1


def default_paths(folder=None):
    """The learner's progress files: this folder's (the Korean edition's: the English one's), else
    notebooks/'."""
    folder = Path.cwd() if folder is None else Path(folder)
    own = recording.progress_path(folder)
    if own.exists():
        return [own]
    below = [folder / "notebooks" / recording.FILE_NAME,
             folder / "notebooks" / "ko" / recording.FILE_NAME]
    return [p for p in below if p.exists()] or [below[0] if below[0].parent.is_dir() else own]


def table(args):
    """The learner's own table, from every file named (each read whole, or said in one sentence)."""
    paths = [Path(p) for p in args.paths] or default_paths()
    records, notes, unreadable = [], [], 0
    for path in paths:
        if not args.paths and not path.exists():   # no check has run here yet: said below, as such
            continue
        raw, problem = study_files.read(path)
        if problem is not None:   # a folder, a pipe, a device: said as what it is
            notes.append(say("{problem}.", problem=problem))
            unreadable += 1
            continue
        placed, said, _ = study_files.records(raw, shown(path, 200))
        records += placed
        notes += said
    lang = study.language_of(records, args.lang)
    where = ", ".join(shown(p, 200) for p in paths)
    for note in notes:
        _out(language.translate(note, lang))
    if not records and unreadable == len(paths):
        return 1
    if not records:
        _out(language.translate(say("No progress recorded in {path} yet: run an exercise's check "
                                    "in a notebook, then ask again.", path=where), lang))
        return 1
    records.sort(key=lambda r: str(r.get("time", "")))
    data = study.table(records)
    if args.json:
        _out(json.dumps({"file": where, "lang": lang, **data}, ensure_ascii=False, indent=1))
    else:
        _out(study.show_table(data, where, lang))
    return 0


def merge(args):
    """The study group's report, from `--merge PATHS [--html FILE] [--json] [--lang ko]`."""
    paths = study_group.files(args.paths)
    members, notes = study_group.load(args.paths)
    lang = study.language_of([r for rs in members.values() for r in rs], args.lang)
    if not members:
        for note in notes:
            _out(language.translate(note, lang))
        _out(language.translate(say("no progress files to merge: give each member's "
                                    "course-progress.jsonl, or a folder that holds them."), lang))
        return 1
    data = {**study_group.report(members, notes, lang), "files": len(paths)}
    _out(json.dumps(data, ensure_ascii=False, indent=1) if args.json
         else study_group.show_report(data))
    if not args.html:
        return 0
    try:
        Path(args.html).write_text(study_page.page(data), encoding="utf-8")
    except OSError as err:
        _out(language.translate(say("The page could not be written to {path} ({reason}); the "
                                    "report above is all there is.", path=shown(args.html, 200),
                                    reason=err.strerror or type(err).__name__), lang))
        return 1
    if not args.json:
        _out(language.translate(say("The page is in {path}.", path=shown(args.html, 200)), lang))
    return 0
