"""Command-line tools of the course: `python -m helpers COMMAND [ARGS]`.

Each command is a module with `main(argv)`; add one by adding a line to COMMANDS.
"""

import gettext
import importlib
import os
import sys
from pathlib import Path

COMMANDS = {
    "params": ("helpers.config_params", "parameters by component, from a config.json"),
    "progress": ("helpers.study_command",
                 "your exercises done, or (--merge) a study group's report"),
}
# Said where this Python lacks what the course installs (torch, numpy): without them the checks'
# language layer cannot load, so the sentence is read from the same catalog with gettext alone
# (its entry in locale/ko/LC_MESSAGES/checks.po is flagged runtime: no `say` holds it).
NO_COURSE_PYTHON = ("This Python lacks {module}, which the course's commands need: run them with "
                    "the course's Python, .venv/bin/python -m helpers {command}, after `make lab` "
                    "in the course's folder.")


def _no_course_python(module, command):
    """The sentence for a Python without the course's packages, in Korean where the terminal speaks
    it."""
    text = NO_COURSE_PYTHON
    if any(os.environ.get(v, "").startswith("ko") for v in ("LC_ALL", "LC_MESSAGES", "LANG")):
        found = gettext.translation("checks", Path(__file__).parent / "locale", ["ko"],
                                    fallback=True)
        text = found.gettext(text)
    return text.format(module=module, command=command)


def usage():
    lines = ["usage: python -m helpers COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<10}{about}" for name, (_, about) in COMMANDS.items()]
    lines.append("\n`python -m helpers COMMAND --help` explains a command.")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _dispatch(argv)
    except BrokenPipeError:  # the reader of stdout has gone (`| head -1`): end quietly
        from helpers.config_params import closed_stdout

        return closed_stdout()


def _dispatch(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), flush=True)
        return 0
    if argv[0] not in COMMANDS:
        print(f"unknown command {argv[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(COMMANDS[argv[0]][0])
    except ModuleNotFoundError as err:
        if err.name not in ("torch", "numpy"):
            raise
        print(_no_course_python(err.name, argv[0]), file=sys.stderr)
        return 1
    return module.main(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
