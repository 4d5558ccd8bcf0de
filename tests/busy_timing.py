"""`make test`'s nbval run checks the cells that time something as a busy laptop runs them.

A learner's laptop runs a browser and a video call beside the course. Every cell that times
something (it imports helpers.timing, calls benchmark, fastest or time.perf_counter, or calls a
function an earlier such cell defined) runs beside CPU-bound processes: an assert on a measured
time keeps a margin such a machine keeps, and the text beside a timing holds there too. The other
cells run as they would anyway: what they print does not depend on how busy the machine is, and
the busy processes would only slow the rest of the suite. `make test` sets COURSE_BUSY=2 (the
number of processes), and tests/conftest.py then registers BusyWhileTiming: the processes start
before the first of a run of timing cells and stop after its last, so each notebook runs once, in
the main run.

The busy processes are bounded: each stops by itself after HOG_SECONDS, or as soon as the process
that started it is gone, so a killed or timed-out run leaves nothing running.
"""

import ast
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import nbformat
import pytest

TIMES = re.compile(r"helpers\.timing|\b(benchmark|fastest)\(|\bperf_counter\b")
HOG_SECONDS = 660   # longer than any notebook's run
# Busy on one core until the deadline (argument 1) or until its parent (argument 2: the starting
# process's id, passed because that parent may be gone before this starts) is gone.
HOG = """
import os, sys, time
deadline, parent = time.monotonic() + float(sys.argv[1]), int(sys.argv[2])
while time.monotonic() < deadline and os.getppid() == parent:
    sum(i * i for i in range(20_000))
"""


@cache
def timing_cells(path):
    """The code cells (their sources) of the notebook at `path` that time something: those that
    match TIMES, and those that call a function one of those defines."""
    found, names = set(), set()
    for cell in nbformat.read(path, as_version=4).cells:
        calls = any(re.search(rf"\b{re.escape(name)}\(", cell.source) for name in names)
        if cell.cell_type == "code" and (TIMES.search(cell.source) or calls):
            found.add(cell.source)
            names |= defined_functions(cell.source)
    return frozenset(found)


def defined_functions(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def times_something(path):
    """True if a code cell of the notebook at `path` times something."""
    return bool(timing_cells(path))


def start_hogs(n, seconds=HOG_SECONDS):
    """n processes, each keeping one core busy."""
    return [subprocess.Popen([sys.executable, "-c", HOG, str(seconds), str(os.getpid())]) for _ in range(n)]


def stop_hogs(hogs):
    for hog in hogs:
        hog.kill()
    for hog in hogs:
        hog.wait()


@contextmanager
def cpu_hogs(n=2, seconds=HOG_SECONDS):
    """n processes, each keeping one core busy, for the length of the `with` block."""
    hogs = start_hogs(n, seconds)
    try:
        yield hogs
    finally:
        stop_hogs(hogs)


def running(pid):
    """True while process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in {"Z", "X"}
    except FileNotFoundError:
        return False
    except OSError:  # no /proc (macOS)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def wait_until_gone(pid, seconds=10):
    end = time.monotonic() + seconds
    while running(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return not running(pid)


class BusyWhileTiming:
    """A pytest plugin: `n` CPU-bound processes run while nbval runs a cell that times something,
    from the first of a run of such cells to its last."""

    def __init__(self, n):
        self.n, self.hogs = n, []

    @staticmethod
    def times(item):
        path = Path(str(item.path))
        cell = getattr(item, "cell", None)
        return path.suffix == ".ipynb" and cell is not None and cell.source in timing_cells(path)

    def stop(self):
        stop_hogs(self.hogs)
        self.hogs = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        if not self.times(item):
            self.stop()
        elif not self.hogs:
            self.hogs = start_hogs(self.n)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item, nextitem):
        if self.hogs and any(hog.poll() is not None for hog in self.hogs):
            self.stop()
            raise RuntimeError(f"{item.path.name}: a busy process stopped before this cell ended, so "
                               "the machine was not busy throughout its run")
        if nextitem is None or not self.times(nextitem):
            self.stop()

    def pytest_sessionfinish(self):
        self.stop()
