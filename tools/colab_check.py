"""The Colab simulation: install a built wheel where Colab's packages already are, check that it
changes none of them, then run every notebook with nbval against it, outside the checkout.

    python tools/colab_check.py dist/inside_transformer_mlp-0.1.0-py3-none-any.whl

A fresh virtual environment gets Colab's versions (torch: the CPU build), the wheel is installed
into it, `pip freeze` before and after must agree on every package that was there, and nbval runs
on a copy of the notebooks in a folder with no repository around it. That also proves that the
data ships in the wheel and that every widget works on ipywidgets 7.7. `make release-check` runs
it on the wheel it builds; tests/test_colab_install.py on one built from the checkout.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from course_paths import NOTEBOOK_DIR, ROOT, all_notebook_paths

COLAB_STACK = ["torch==2.13.0", "numpy==2.1.3", "scipy==1.16.*", "matplotlib==3.10.*",
               "ipywidgets==7.7.1", "tqdm==4.67.*",
               # preinstalled (scikit-learn needs it): reads the OpenBLAS core a CPU profile asks for
               "threadpoolctl>=3.1",
               # notebook 13: the oldest transformers the course supports (Colab preinstalls a 4.x or newer)
               "transformers==4.51.*", "tokenizers==0.21.*"]
# What runs the notebooks; Colab runs an ipykernel 6 kernel.
RUNNERS = ["ipykernel>=6.17,<7", "pytest>=7.4", "nbval>=0.11", "pytest-xdist>=3.3"]


class CheckFailed(Exception):
    """The wheel changed Colab's packages, or a notebook failed against it."""


def run(cmd, **kwargs):
    """Run cmd; its stdout, or CheckFailed with the end of its output.

    By default in an empty folder and without PYTHONPATH: `python -m pip` reads the current folder
    too, and the checkout's `*.egg-info` (left by an editable install) would pass for the course
    being installed already, so pip would install nothing."""
    kwargs.setdefault("cwd", tempfile.mkdtemp(prefix="colab-run-"))
    kwargs.setdefault("env", {k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, cmd[:4]))} ... failed:\n"
                          f"{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def freeze(python):
    """{name: version} of every package installed for `python`."""
    lines = run([str(python), "-m", "pip", "freeze", "--all"]).splitlines()
    return dict(line.split("==", 1) for line in lines if "==" in line)


def colab_python(venv):
    """A fresh virtual environment at `venv` with Colab's versions; its python."""
    run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    # --no-compile: no bytecode for the thousands of files nothing imports (half the install's time)
    run([str(python), "-m", "pip", "install", "-q", "--no-compile", *COLAB_STACK, *RUNNERS])
    return python


def install_changes_nothing(python, wheel):
    """pip install the wheel; CheckFailed if that changed or replaced a package already there."""
    before = freeze(python)
    if before.get("ipywidgets") != "7.7.1" or before.get("numpy") != "2.1.3":
        raise CheckFailed(f"the environment does not hold Colab's versions: {before}")
    log = run([str(python), "-m", "pip", "install", "--no-compile", str(wheel)])
    after = freeze(python)
    changed = {n: (v, after.get(n)) for n, v in before.items() if after.get(n) != v}
    if changed:
        raise CheckFailed(f"installing the course changed Colab's packages: {changed}")
    installed = re.search(r"Successfully installed (.*)", log)
    names = {n.lower() for n in before}
    replaced = [n for n in (installed.group(1).split() if installed else [])
                if n.rsplit("-", 1)[0].lower() in names]
    if replaced:
        raise CheckFailed(f"installing the course reinstalled {replaced}")


def notebooks_pass(python, work, jobs=2, editions=None, profile=None):
    """nbval (strict) on a copy of the notebooks in `work`, importing the installed course: every
    edition's, or those of `editions` ("en", "ko"). `profile(python)`, if given, returns the
    (environment variables, command before pytest's arguments) of a CPU profile to run them as
    (tests/test_portability.py's older CPU)."""
    for path in all_notebook_paths():  # the course's notebooks, not copies a session left
        edition = path.parent.name if path.parent != NOTEBOOK_DIR else "en"
        if editions is not None and edition not in editions:
            continue
        copy = work / "notebooks" / path.relative_to(NOTEBOOK_DIR)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy)
    shutil.copy(ROOT / "tests" / "sanitize.cfg", work / "sanitize.cfg")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["COURSE_DEVICE"] = "cpu"
    env["COURSE_GPT2"] = "tiny"   # the offline GPT-2 the stored outputs come from
    # torch.compile's kernels of its own: a cache shared with runs on another CPU profile would hand
    # this one C++ written for vector units the profile turns off (ATEN_CPU_CAPABILITY)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(Path(work).resolve() / "inductor-cache")
    where = run([str(python), "-c", "import helpers; print(helpers.__file__)"], cwd=work, env=env)
    if str(ROOT) in where or str(python.parent.parent) not in where:
        raise CheckFailed(f"the notebooks would import helpers from {where.strip()}")
    command = [str(python), "-m", "pytest"]
    if profile is not None:
        variables, command = profile(python)
        env.update(variables)
        env = {k: v for k, v in env.items() if v is not None}   # None: the profile unsets it
    out = run([*command, "-q", "-p", "no:cacheprovider", "-n", str(jobs),
               "--dist", "loadscope", "--nbval", "--nbval-current-env",
               "--nbval-sanitize-with", "sanitize.cfg", "notebooks"], cwd=work, env=env)
    if profile is not None and "paths: as asked" not in out:   # tests/cpu_paths.py's word that it checked
        raise CheckFailed(f"the notebooks ran, but not as the CPU profile asked:\n{out[-3000:]}")


def check_wheel(wheel, work, editions=None, profile=None):
    """The whole simulation for `wheel`, in the empty folder `work`; CheckFailed if it fails.
    `editions` ("en", "ko"): only their notebooks run; every edition's by default. `profile`: as
    notebooks_pass takes it."""
    work = Path(work)
    python = colab_python(work / "colab")
    install_changes_nothing(python, wheel)
    (work / "run").mkdir()
    notebooks_pass(python, work / "run", editions=editions, profile=profile)


def main(argv):
    if len(argv) != 1 or not argv[0].endswith(".whl"):
        print("usage: python tools/colab_check.py WHEEL.whl")
        return 2
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        try:
            check_wheel(Path(argv[0]).resolve(), work)
        except CheckFailed as failed:
            print(f"Colab simulation FAILED for {argv[0]}: {failed}")
            return 1
    print(f"Colab simulation passed for {argv[0]}: Colab's packages unchanged, every notebook "
          f"passes nbval against the installed wheel ({time.perf_counter() - start:.0f} s).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
