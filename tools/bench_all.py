"""`make bench`: the course's benchmark (helpers.bench), the demos in a browser, and the time to
re-execute every notebook.

    python tools/bench_all.py                 # everything (the browser and the notebooks take minutes)
    python tools/bench_all.py --no-notebooks  # no re-execution of the notebooks
    python tools/bench_all.py --no-browser    # no JupyterLab and Chromium (tools/bench_browser.py)
    python tools/bench_all.py --threads 1     # fix torch's thread count (a busy machine)
    python tools/bench_all.py --write docs/BENCHMARKS.md   # and put the table in its "Latest run"

Notebooks run as copies, so their stored outputs stay as they are. The first line says the
machine's load average: a busy machine's times are not an idle one's.
"""

import datetime
import sys
from pathlib import Path

import bench_browser
from course_paths import notebook_paths
from helpers import bench
from helpers.timing import format_seconds
from run_notebooks import timed_copies

LIMIT_SECONDS = 60  # a notebook runs in well under a minute on 2 CPU cores


def notebook_rows(results):
    """Table rows from timed_copies' (path, seconds, error) results, then their total."""
    rows, total = [], 0.0
    for path, seconds, error in results:
        if error is not None:
            rows.append(bench.row(f"execute {path.stem}", f"failed: {error}",
                                  f"< {LIMIT_SECONDS} s", False))
            continue
        total += seconds
        rows.append(bench.row(f"execute {path.stem}", format_seconds(seconds),
                              f"< {LIMIT_SECONDS} s", seconds < LIMIT_SECONDS))
    rows.append(bench.row("re-execute all notebooks (total)", format_seconds(total)))
    return rows


BEGIN = "<!-- The latest run: written by `python tools/bench_all.py --write docs/BENCHMARKS.md`. -->"
END = "<!-- The end of the latest run. -->"


def write_section(path, lines, command):
    """Put what a run printed between BEGIN and END in the markdown file at path."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"{path} must hold the line {BEGIN!r} once, and after it the line {END!r} once")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    day = datetime.date.today().isoformat()
    body = [f"`{command}`, {day}:", "", *lines]
    path.write_text(head + BEGIN + "\n\n" + "\n".join(body).strip() + "\n\n" + END + tail, encoding="utf-8")


def main(argv=None):
    parser = bench.parser()
    parser.add_argument("--no-notebooks", action="store_true", help="skip re-executing notebooks")
    parser.add_argument("--no-browser", action="store_true", help="skip the demos in JupyterLab and Chromium")
    parser.add_argument("--write", metavar="MARKDOWN", help="put the table in this file's latest-run section")
    args = parser.parse_args(argv)
    more = []
    if args.no_browser or args.smoke:
        more.append(lambda: [bench.row("browser redraws", "skipped (--no-browser or --smoke)")])
    else:
        more.append(bench_browser.rows)
    if args.no_notebooks or args.smoke:
        more.append(lambda: [bench.row("re-execute all notebooks", "skipped (--no-notebooks or --smoke)")])
    else:
        more.append(lambda: notebook_rows(timed_copies(notebook_paths(), device="cpu")))
    printed = []

    def out(line):
        print(line, flush=True)
        printed.append(line)

    bench.run(smoke=args.smoke, rounds=args.rounds, threads=args.threads, more=more, out=out)
    if args.write:
        command = " ".join(["python tools/bench_all.py", *(argv if argv is not None else sys.argv[1:])])
        write_section(args.write, printed, command)


if __name__ == "__main__":
    main()
