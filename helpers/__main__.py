"""Command-line tools of the course: `python -m helpers COMMAND [ARGS]`.

Each command is a module with `main(argv)`; add one by adding a line to COMMANDS.
"""

import importlib
import sys

COMMANDS = {
    "params": ("helpers.config_params", "parameters by component, from a config.json"),
    "progress": ("helpers.study", "your exercises done, or (--merge) a study group's report"),
}


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
    module = importlib.import_module(COMMANDS[argv[0]][0])
    return module.main(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
