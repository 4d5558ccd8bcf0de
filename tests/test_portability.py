"""The stored outputs hold on every learner's machine, not only on the one that made them.

A study group's laptops differ in CPU vendor, vector unit (AVX2, AVX-512, none, ARM) and thread
count, and each picks other kernels and summation orders: torch its own (ATEN_CPU_CAPABILITY),
numpy its SIMD loops (NPY_DISABLE_CPU_FEATURES) and the OpenBLAS that numpy and scipy bundle its
core (OPENBLAS_CORETYPE). The main nbval run checks the notebooks as this machine runs them;
these runs check the numbered notebooks again:
- torch's plain kernels (as on a CPU without AVX2), one thread, and torch's AVX2 kernels where
  this CPU has AVX-512;
- an AVX2 laptop: numpy without its AVX-512 loops, OpenBLAS's Haswell core;
- a CPU without AVX2: numpy without AVX2 loops either, OpenBLAS's Sandybridge core.
Before nbval, the child process checks that numpy and OpenBLAS really take those paths
(tests/cpu_paths.py); a condition that is this machine's own is skipped. A failure names the
cell that printed a digit which depends on the machine.
"""

import os
import platform
import subprocess
import sys

import pytest
import torch
from cpu_paths import check, numpy_features

from course_paths import ROOT, notebook_paths


def numpy_off(*families):
    """The features numpy dispatches here whose names start with one of `families`: naming a
    baseline feature is an error, and numpy 1.x and 2.x name them differently."""
    dispatched, _ = numpy_features()
    return [name for name in dispatched if name.startswith(families)]


AVX512 = ("AVX512", "X86_V4")  # numpy 1.x: AVX512F, AVX512_SKX, ...; 2.x: X86_V4, AVX512_ICL, ...
AVX2 = (*AVX512, "AVX2", "FMA3", "X86_V3")
X86 = platform.machine().lower() in {"x86_64", "amd64"}

CONDITIONS = {
    "plain kernels": ({"ATEN_CPU_CAPABILITY": "default"}, [], ""),
    "one thread": ({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}, [], ""),
    "avx2 kernels": ({"ATEN_CPU_CAPABILITY": "avx2"}, [], ""),
    "AVX2 laptop": ({}, numpy_off(*AVX512), "Haswell"),
    "no AVX2": ({}, numpy_off(*AVX2), "Sandybridge"),
}


def environment(condition):
    variables, off, openblas = CONDITIONS[condition]
    env = dict(os.environ, COURSE_DEVICE="cpu", PYTHONHASHSEED="0", **variables)
    if off:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(off)
    if openblas:
        env["OPENBLAS_CORETYPE"] = openblas
    return env


def paths_args(condition):
    _, off, openblas = CONDITIONS[condition]
    return ["--off", ",".join(off), "--openblas", openblas]


def skip_reason(condition):
    """Why this condition cannot run here, or is what this machine runs anyway; None if neither."""
    _, off, openblas = CONDITIONS[condition]
    if condition == "avx2 kernels" and torch.backends.cpu.get_cpu_capability() != "AVX512":
        return f"this CPU runs torch's {torch.backends.cpu.get_cpu_capability()} kernels already"
    if openblas and not X86:
        return f"{platform.machine()} is not an x86 CPU: these are x86 vector units"
    if openblas and not off and condition == "no AVX2":
        return "numpy dispatches nothing above its baseline here"
    if openblas:
        problems, notes = check(off, openblas)  # this process: this machine's own paths
        if not problems and not notes:
            return f"this machine takes the {condition} paths already: the main nbval run is it"
    return None


@pytest.mark.parametrize("condition", [c for c in CONDITIONS if CONDITIONS[c][2]])
def test_the_condition_takes_its_paths(condition):
    if reason := skip_reason(condition):
        pytest.skip(reason)
    done = subprocess.run([sys.executable, "tests/cpu_paths.py", *paths_args(condition)],
                          cwd=ROOT, env=environment(condition), capture_output=True, text=True)
    assert done.returncode == 0, f"{condition}: {done.stdout}{done.stderr[-2000:]}"
    if "not checked:" in done.stdout:
        pytest.skip(f"numpy takes the {condition} paths; " + done.stdout.split("not checked: ")[1])


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_notebooks_pass_nbval_under(condition):
    if reason := skip_reason(condition):
        pytest.skip(reason)
    notebooks = [str(p.relative_to(ROOT)) for p in notebook_paths()]
    result = subprocess.run(
        [sys.executable, "tests/cpu_paths.py", *paths_args(condition), "--",
         "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/sanitize.cfg",
         *notebooks],
        cwd=ROOT, env=environment(condition), capture_output=True, text=True, timeout=1800,
    )
    assert result.returncode == 0, (
        f"nbval under {condition} ({CONDITIONS[condition]}):\n{result.stdout[-6000:]}"
        f"{result.stderr[-2000:]}")
