"""Timings never fail a notebook on a busy laptop.

A learner's laptop runs a browser and a video call beside the course. Every notebook that times
something (it imports helpers.timing, or calls benchmark / fastest) must pass strict nbval with
two CPU-bound processes running beside it for the whole run: an assert on a measured time keeps
a margin such a machine keeps, and the text beside a timing holds there too.

The two busy processes are bounded: each stops by itself after HOG_SECONDS, or as soon as the
process that started it is gone, so a killed or timed-out test leaves nothing running.
"""

import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager

import nbformat
import pytest

from course_paths import ROOT, notebook_paths

TIMES = re.compile(r"helpers\.timing|\b(benchmark|fastest)\(")
RUN_SECONDS = 600  # an nbval run that takes longer fails as timed out
HOG_SECONDS = RUN_SECONDS + 60
# Busy on one core until the deadline (argument 1) or until its parent (argument 2: the test's
# process id, passed because that parent may be gone before this starts) is gone.
HOG = """
import os, sys, time
deadline, parent = time.monotonic() + float(sys.argv[1]), int(sys.argv[2])
while time.monotonic() < deadline and os.getppid() == parent:
    sum(i * i for i in range(20_000))
"""


def timing_notebooks():
    """The numbered notebooks with a code cell that times something."""
    def times(path):
        cells = nbformat.read(path, as_version=4).cells
        return any(c.cell_type == "code" and TIMES.search(c.source) for c in cells)
    return [p for p in notebook_paths() if times(p)]


@contextmanager
def cpu_hogs(n=2, seconds=HOG_SECONDS):
    """n processes, each keeping one core busy, for the length of the `with` block."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG, str(seconds), str(os.getpid())])
            for _ in range(n)]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


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


def test_a_hog_stops_at_its_deadline():
    with cpu_hogs(n=1, seconds=0.5) as (hog,):
        assert hog.wait(timeout=10) == 0


def test_a_hog_stops_when_the_test_that_started_it_is_killed():
    starter = subprocess.Popen(
        [sys.executable, "-c", "import os, subprocess, sys, time\n"
         f"hog = subprocess.Popen([sys.executable, '-c', {HOG!r}, '60', str(os.getpid())])\n"
         "print(hog.pid, flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    pid = int(starter.stdout.readline())
    assert running(pid)
    starter.kill()
    starter.wait()
    assert wait_until_gone(pid), f"the hog {pid} outlived the process that started it"


def test_the_timing_notebooks_are_found():
    names = [p.name[:2] for p in timing_notebooks()]
    assert {"01", "03", "09"} <= set(names), names


@pytest.mark.parametrize("path", timing_notebooks(), ids=lambda p: p.stem)
def test_nbval_passes_beside_two_cpu_hogs(path):
    with cpu_hogs() as hogs:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
             "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/sanitize.cfg",
             str(path.relative_to(ROOT))],
            cwd=ROOT, env=dict(os.environ, COURSE_DEVICE="cpu", PYTHONHASHSEED="0"),
            capture_output=True, text=True, timeout=RUN_SECONDS,
        )
        busy = [hog.poll() is None for hog in hogs]
    assert all(busy), "a busy process stopped before the run ended: the machine was not busy throughout"
    assert result.returncode == 0, f"nbval beside two CPU hogs:\n{result.stdout[-6000:]}"
