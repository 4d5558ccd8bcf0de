"""Timings never fail a notebook on a busy laptop.

`make test`'s nbval run runs every cell that times something beside two CPU-bound processes
(tests/busy_timing.py, turned on by COURSE_BUSY=2): those cells run once, busy, and the rest
idle. Here: the busy processes are bounded, the timing notebooks are found, and the plugin really
keeps two of them running through every cell that times something (a cell that calls a function
such a cell defined too) and none through the other cells of that notebook or another.
"""

import os
import subprocess
import sys

import nbformat
import pytest
from busy_timing import HOG, cpu_hogs, running, times_something, wait_until_gone
from nbformat.v4 import new_code_cell, new_notebook

from course_paths import ROOT, notebook_paths


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
    names = [p.name[:2] for p in notebook_paths() if times_something(p)]
    assert {"01", "03", "09"} <= set(names), names


# Prints how many busy processes the process that started this kernel (nbval's) is running now.
COUNT_HOGS = """import os
def busy_beside():
    n = 0
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                hog = b'deadline, parent' in f.read()
            with open(f'/proc/{pid}/stat') as f:
                parent = int(f.read().rsplit(')', 1)[1].split()[1])
        except OSError:
            continue
        n += hog and parent == os.getppid()
    return n
print(busy_beside())"""


def test_a_timing_cell_runs_busy_and_the_other_cells_idle(tmp_path):
    if not os.path.isdir("/proc"):
        pytest.skip("counts the busy processes in /proc")
    timing = new_notebook(cells=[
        new_code_cell(COUNT_HOGS),                                                          # idle
        new_code_cell("from helpers.timing import benchmark\n\ndef measure():\n    return busy_beside()\n\n"
                      "print(measure())"),                                                    # busy
        new_code_cell("print(busy_beside())"),                                               # idle
        new_code_cell("print(measure())")])                         # busy: it calls a timing cell's function
    plain = new_notebook(cells=[new_code_cell(COUNT_HOGS)])
    for name, nb, busy in (("a_timing.ipynb", timing, [0, 2, 0, 2]), ("b_plain.ipynb", plain, [0])):
        for cell, n in zip(nb.cells, busy, strict=True):   # the stored output nbval compares with
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{n}\n")]
            cell.execution_count = 1
        nbformat.write(nb, tmp_path / name)
    assert times_something(tmp_path / "a_timing.ipynb") and not times_something(tmp_path / "b_plain.ipynb")
    run = ("import sys, pytest; sys.path.insert(0, sys.argv[1]); from busy_timing import BusyWhileTiming; "
           "sys.exit(pytest.main(sys.argv[2:], plugins=[BusyWhileTiming(2)]))")
    done = subprocess.run([sys.executable, "-c", run, str(ROOT / "tests"), "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--rootdir", str(tmp_path), "--nbval", "--nbval-current-env",
                           "a_timing.ipynb", "b_plain.ipynb"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path])))
    assert done.returncode == 0 and "5 passed" in done.stdout, done.stdout[-4000:] + done.stderr[-2000:]
    # and the same check fails where nothing ran beside the timing notebook
    idle = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--rootdir", str(tmp_path), "--nbval", "--nbval-current-env", "a_timing.ipynb"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path])))
    assert idle.returncode != 0, idle.stdout[-3000:]


def test_make_test_runs_the_timing_notebooks_busy(pytestconfig):
    """`make test` sets COURSE_BUSY=2, and tests/conftest.py then registers the plugin."""
    makefile = (ROOT / "Makefile").read_text()
    test_target = makefile[makefile.index("\ntest:"):makefile.index("\n\n", makefile.index("\ntest:"))]
    assert "COURSE_BUSY=2" in test_target and "--nbval" in makefile, test_target
    if os.environ.get("COURSE_BUSY") == "2":
        plugin = pytestconfig.pluginmanager.get_plugin("busy-while-timing")
        assert plugin is not None and plugin.n == 2
