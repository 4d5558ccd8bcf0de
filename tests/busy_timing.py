"""`make test`'s nbval run checks the notebooks that time something as a busy laptop runs them.

A learner's laptop runs a browser and a video call beside the course. Every notebook that times
something (a code cell imports helpers.timing, or calls benchmark / fastest) runs its cells beside
CPU-bound processes: an assert on a measured time keeps a margin such a machine keeps, and the text
beside a timing holds there too. `make test` sets COURSE_BUSY=2 (the number of processes), and
tests/conftest.py then registers BusyWhileTiming: the processes start before a timing notebook's
first cell and stop after its last, so that notebook runs once, busy, in the main run.

The busy processes are bounded: each stops by itself after HOG_SECONDS, or as soon as the process
that started it is gone, so a killed or timed-out run leaves nothing running.
"""

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

TIMES = re.compile(r"helpers\.timing|\b(benchmark|fastest)\(")
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
def times_something(path):
    """True if a code cell of the notebook at `path` times something."""
    cells = nbformat.read(path, as_version=4).cells
    return any(c.cell_type == "code" and TIMES.search(c.source) for c in cells)


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
    """A pytest plugin: `n` CPU-bound processes run while the cells of a notebook that times
    something run (nbval's items), from its first cell to its last."""

    def __init__(self, n):
        self.n, self.notebook, self.hogs = n, None, []

    def stop(self):
        stop_hogs(self.hogs)
        self.notebook, self.hogs = None, []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        path = Path(str(item.path))
        if path.suffix != ".ipynb" or not times_something(path):
            self.stop()
        elif path != self.notebook:
            self.stop()
            self.notebook, self.hogs = path, start_hogs(self.n)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item, nextitem):
        if self.hogs and any(hog.poll() is not None for hog in self.hogs):
            self.stop()
            raise RuntimeError(f"{item.path.name}: a busy process stopped before this cell ended, so "
                               "the machine was not busy throughout its run")
        if nextitem is None or Path(str(nextitem.path)) != self.notebook:
            self.stop()

    def pytest_sessionfinish(self):
        self.stop()
