"""Installing the course where Colab's packages already are changes none of them,
and every notebook then passes nbval from outside the checkout, importing the wheel.

A fresh virtual environment gets Colab's versions (torch: the CPU build available
here), the built wheel is installed into it, `pip freeze` before and after must
agree on every package that was there, and nbval runs on a copy of the notebooks
in a folder with no repository around it. That also proves that the data ships in
the wheel and that every widget works on ipywidgets 7.7.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLAB_STACK = ["torch==2.13.0", "numpy==2.1.3", "scipy==1.16.*", "matplotlib==3.10.*",
               "ipywidgets==7.7.1", "tqdm==4.67.*"]
# What runs the notebooks; Colab runs an ipykernel 6 kernel.
RUNNERS = ["ipykernel>=6.17,<7", "pytest>=7.4", "nbval>=0.11", "pytest-xdist>=3.3"]


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{cmd[:4]} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def freeze(python):
    lines = run([str(python), "-m", "pip", "freeze", "--all"]).splitlines()
    return dict(line.split("==", 1) for line in lines if "==" in line)


def test_colab_stack_is_untouched_and_notebooks_pass_from_the_wheel(tmp_path):
    venv = tmp_path / "colab"
    run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "-q", *COLAB_STACK, *RUNNERS])
    before = freeze(python)
    assert before["ipywidgets"] == "7.7.1" and before["numpy"] == "2.1.3"

    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(dist), str(ROOT)])
    (wheel,) = dist.glob("*.whl")
    log = run([str(python), "-m", "pip", "install", str(wheel)])
    after = freeze(python)

    changed = {n: (v, after.get(n)) for n, v in before.items() if after.get(n) != v}
    assert not changed, f"installing the course changed Colab's packages: {changed}"
    installed = re.search(r"Successfully installed (.*)", log)
    new = installed.group(1).split() if installed else []
    for name in new:
        assert name.rsplit("-", 1)[0].lower() not in {n.lower() for n in before}, name

    # Run the notebooks from a folder outside the checkout, against the installed wheel.
    work = tmp_path / "run"
    shutil.copytree(ROOT / "notebooks", work / "notebooks")
    shutil.copy(ROOT / "tests" / "sanitize.cfg", work / "sanitize.cfg")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["COURSE_DEVICE"] = "cpu"
    where = run([str(python), "-c", "import helpers; print(helpers.__file__)"], cwd=work, env=env)
    assert str(venv) in where and str(ROOT) not in where, where
    result = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadscope",
         "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "sanitize.cfg", "notebooks"],
        cwd=work, env=env, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
