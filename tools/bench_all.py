"""`make bench`: the course's benchmark (helpers.bench), the demos in a browser, and the time to
re-execute every notebook.

    python tools/bench_all.py                 # everything (the browser and the notebooks take minutes)
    python tools/bench_all.py --no-notebooks  # no re-execution of the notebooks
    python tools/bench_all.py --no-browser    # no JupyterLab and Chromium (tools/bench_browser.py)
    python tools/bench_all.py --threads 1     # fix torch's thread count (a busy machine)

Notebooks run as copies, so their stored outputs stay as they are. The first line says the
machine's load average: a busy machine's times are not an idle one's.
"""

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


def main(argv=None):
    parser = bench.parser()
    parser.add_argument("--no-notebooks", action="store_true", help="skip re-executing notebooks")
    parser.add_argument("--no-browser", action="store_true", help="skip the demos in JupyterLab and Chromium")
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
    bench.run(smoke=args.smoke, rounds=args.rounds, threads=args.threads, more=more)


if __name__ == "__main__":
    main()
