"""The stored outputs hold on every learner's machine, not only on the one that made them.

A study group's laptops differ in CPU vendor, vector unit (AVX2, AVX-512, none, ARM) and thread
count, and each picks other kernels and summation orders: torch its own (ATEN_CPU_CAPABILITY),
numpy its SIMD loops (NPY_DISABLE_CPU_FEATURES) and the OpenBLAS that numpy and scipy bundle its
core (OPENBLAS_CORETYPE). Two real machines, each a profile where torch, numpy and OpenBLAS agree
on the CPU, as they do on one laptop:
- an AVX2 laptop: torch's AVX2 kernels, numpy without its AVX-512 loops, OpenBLAS's Haswell core,
  two threads. `make test` runs everything as this laptop where the CPU can be one
  (`cpu_paths.py --laptop-env`), so its main nbval run is this profile; on a CPU that cannot be
  one, the English notebooks run under it here;
- an older CPU without AVX2, on one thread: torch's plain kernels, numpy without its AVX2 loops
  either, OpenBLAS's Sandybridge core. The Colab simulation (tests/test_colab_install.py) runs the
  Korean notebooks as this CPU, so that each notebook's code runs once on each profile: their code
  cells and outputs are the English ones (tests/test_korean_edition.py).
Before nbval, the process checks that numpy and OpenBLAS really take those paths
(tests/cpu_paths.py). A failure names the cell that printed a digit which depends on the machine.
"""

import os
import platform
import subprocess
import sys

import nbformat
import pytest
import torch
from cpu_paths import AVX2, AVX512, ONEDNN_ISA, X86, check, numpy_off, onednn_isa
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from course_paths import ROOT, notebook_paths

# profile: (environment variables, the families of numpy features turned off, the OpenBLAS core);
# ONEDNN_MAX_CPU_ISA limits the oneDNN kernels (torch._int_mm) that ATEN_CPU_CAPABILITY does not reach
PROFILES = {
    "AVX2 laptop": ({"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}, AVX512, "Haswell"),
    "older CPU, one thread": ({"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41",
                               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}, AVX2, "Sandybridge"),
}
# the same, with the features this interpreter's numpy dispatches
CONDITIONS = {name: (variables, numpy_off(*families), core) for name, (variables, families, core) in PROFILES.items()}
OLDER_CPU = "older CPU, one thread"
TORCH_CAPABILITY = torch.backends.cpu.get_cpu_capability()  # "AVX512", "AVX2", "DEFAULT", ...


def profile_variables(condition, off):
    """The variables a process runs `condition` under, with `off` its numpy's features to turn off,
    as `make test` runs the notebooks (the offline GPT-2 the stored outputs come from, no progress
    file); None: unset."""
    variables, _, openblas = PROFILES[condition]
    return dict(variables, COURSE_DEVICE="cpu", COURSE_GPT2="tiny", COURSE_RECORD="0", PYTHONHASHSEED="0",
                OPENBLAS_CORETYPE=openblas, NPY_DISABLE_CPU_FEATURES=" ".join(off) or None)


def environment(condition):
    env = dict(os.environ, **profile_variables(condition, CONDITIONS[condition][1]))
    return {k: v for k, v in env.items() if v is not None}


def paths_args(condition):
    variables, off, openblas = CONDITIONS[condition]
    return ["--off", ",".join(off), "--openblas", openblas, "--onednn", variables["ONEDNN_MAX_CPU_ISA"]]


def profile(condition):
    """`condition` for another interpreter (the Colab simulation's, with its own numpy): a function
    of that python giving (environment variables, the command that checks the paths, then runs
    pytest with the arguments that follow it), as tools/colab_check.py takes it; None where the
    profile cannot run here (not an x86 CPU)."""
    if not X86:
        return None
    variables, families, openblas = PROFILES[condition]

    def for_python(python):
        probe = (f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); from cpu_paths import numpy_off; "
                 f"print(','.join(numpy_off(*{families!r})))")
        clean = {k: v for k, v in os.environ.items() if k not in {"NPY_DISABLE_CPU_FEATURES", "PYTHONPATH"}}
        off = subprocess.run([str(python), "-c", probe], env=clean, capture_output=True, text=True,
                             check=True).stdout.strip()
        env = profile_variables(condition, [f for f in off.split(",") if f])
        return env, [str(python), str(ROOT / "tests" / "cpu_paths.py"), "--off", off, "--openblas", openblas,
                     "--onednn", variables["ONEDNN_MAX_CPU_ISA"], "--"]
    return for_python


def skip_reason(condition):
    """Why this profile cannot run here, or is what this machine runs anyway; None if neither."""
    variables, off, openblas = CONDITIONS[condition]
    if not X86:
        return f"{platform.machine()} is not an x86 CPU: these profiles are x86 vector units"
    if "OMP_NUM_THREADS" in variables or variables["ATEN_CPU_CAPABILITY"].upper() != TORCH_CAPABILITY:
        return None  # torch takes other kernels, or another thread count, than here
    problems, notes = check(off, openblas, variables["ONEDNN_MAX_CPU_ISA"])  # this process: this machine's own paths
    if not problems and not notes:
        return f"this machine is an {condition} already: the main nbval run is it"
    return None


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_the_condition_takes_its_paths(condition):
    if reason := skip_reason(condition):
        pytest.skip(reason)
    done = subprocess.run([sys.executable, "tests/cpu_paths.py", *paths_args(condition)],
                          cwd=ROOT, env=environment(condition), capture_output=True, text=True)
    assert done.returncode == 0, f"{condition}: {done.stdout}{done.stderr[-2000:]}"
    if "not checked:" in done.stdout:
        pytest.skip(f"numpy takes the {condition} paths; " + done.stdout.split("not checked: ")[1])


def nbval_under(condition, notebooks, cwd=ROOT):
    """pytest --nbval (strict) on `notebooks` in a process under `condition`'s profile."""
    return subprocess.run(
        [sys.executable, str(ROOT / "tests" / "cpu_paths.py"), *paths_args(condition), "--",
         "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--rootdir", str(cwd),
         "--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(ROOT / "tests" / "sanitize.cfg"),
         *map(str, notebooks)],
        cwd=cwd, env=environment(condition), capture_output=True, text=True, timeout=1800,
    )


# The notebooks in groups of four, one test each: the workers share them out, and none of them
# is left running one long test at the end of the suite.
GROUP = 4
GROUPS = [notebook_paths()[i:i + GROUP] for i in range(0, len(notebook_paths()), GROUP)]


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: f"{g[0].name[:2]}-{g[-1].name[:2]}")
@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_notebooks_pass_nbval_under(condition, group):
    if condition == OLDER_CPU and profile(condition) is not None:
        pytest.skip("the Colab simulation runs the notebooks as this CPU (tests/test_colab_install.py)")
    if reason := skip_reason(condition):
        pytest.skip(reason)
    result = nbval_under(condition, [p.relative_to(ROOT) for p in group])
    assert result.returncode == 0, (
        f"nbval under {condition} ({CONDITIONS[condition]}):\n{result.stdout[-6000:]}"
        f"{result.stderr[-2000:]}")


def test_a_digit_that_depends_on_the_cpu_fails_a_profile(tmp_path):
    """A planted rounding-noise digit: a float32 matrix-vector sum printed in full passes on this
    machine and fails as an older CPU on one thread computes it (another summation order)."""
    condition = "older CPU, one thread"
    if reason := skip_reason(condition):
        pytest.skip(reason)
    path = tmp_path / "01_planted.ipynb"
    nb = new_notebook(cells=[new_code_cell(
        "import torch\n"
        "g = torch.Generator().manual_seed(0)\n"
        "A, v = torch.randn(300, 300, generator=g), torch.randn(300, generator=g)\n"
        "print(float((A @ v).sum()))")])
    NotebookClient(nb, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.write(nb, path)
    here = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--rootdir", str(tmp_path), "--nbval", "--nbval-current-env", str(path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert here.returncode == 0, here.stdout[-3000:]
    there = nbval_under(condition, [path], cwd=tmp_path)
    assert there.returncode != 0 and "01_planted.ipynb::Cell 0" in there.stdout, there.stdout[-3000:]


def test_the_laptop_env_make_test_runs_under_is_the_avx2_laptop():
    """`make test` runs under `cpu_paths.py --laptop-env`: those variables must give the AVX2 laptop's
    paths (torch's AVX2 kernels, numpy's AVX-512 loops off, OpenBLAS's Haswell core), and the
    portability test must then see the main run as that laptop (and not run it twice)."""
    words = subprocess.run([sys.executable, "tests/cpu_paths.py", "--laptop-env"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    if not words:
        pytest.skip("this CPU cannot be an AVX2 laptop: tests/test_portability.py runs that profile itself")
    env = dict(os.environ, **dict(word.split("=", 1) for word in words))
    probe = ("import sys; sys.path[:0] = ['tests', 'tools']; import torch, test_portability as t; "
             "print(torch.backends.cpu.get_cpu_capability()); print(t.skip_reason('AVX2 laptop'))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    capability, reason = done.stdout.splitlines()[:2]
    assert capability == "AVX2" and "already" in reason, done.stdout


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_each_profile_limits_onednn_as_a_laptop_without_vnni_runs(condition):
    """torch._int_mm (notebook 14's int8 kernel) runs through oneDNN, which ATEN_CPU_CAPABILITY leaves at
    this CPU's best (VNNI, AMX): each profile names an ONEDNN_MAX_CPU_ISA, and oneDNN takes it."""
    if not X86:
        pytest.skip(f"{platform.machine()} is not an x86 CPU: ONEDNN_MAX_CPU_ISA names x86 instruction sets")
    wanted = CONDITIONS[condition][0]["ONEDNN_MAX_CPU_ISA"]
    assert onednn_isa(environment(condition)) == ONEDNN_ISA[wanted]
