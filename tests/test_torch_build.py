"""After make's torch step, the build that arrived is said in one line, and a CUDA build where the
CPU build was asked for (a pip configuration that adds another index) stops the step with the fix.

The step runs as make runs it, in a stand-in virtual environment whose python is the real one
reading a folder of its own (no site-packages) and whose pip writes the metadata a wheel would
leave: PyPI's CUDA wheel when PIP_EXTRA_INDEX_URL names another index, the CPU index's wheel
otherwise. Nothing is downloaded.
"""

import os
import subprocess
import sys

import pytest

from course_paths import ROOT
from torch_build import build_of

CUDA_REQUIRES = ['nvidia-cublas-cu12==12.8.4.1; platform_system == "Linux" and platform_machine == "x86_64"',
                 "filelock", "typing-extensions>=4.10.0"]


@pytest.mark.parametrize("version, requires, build", [
    ("2.5.1+cpu", ["filelock"], "cpu"), ("2.5.1+cu124", CUDA_REQUIRES, "cuda"),
    ("2.5.1", CUDA_REQUIRES, "cuda"), ("2.5.1", ["filelock", "sympy"], "cpu"),
    ("2.5.1+rocm6.2", [], "rocm"), ("2.11.0", None, "cpu")])
def test_the_build_is_read_from_the_version_and_the_requirements(version, requires, build):
    assert build_of(version, requires) == build


FAKE_PYTHON = """#!/bin/sh
# A stand-in venv's python: pip "installs" torch's metadata; anything else is the real python.
if [ "$1" = -m ] && [ "$2" = pip ]; then
    echo "$@" > "{site}/pip-args"
    if [ -n "$PIP_EXTRA_INDEX_URL" ]; then version=2.13.0; needs="Requires-Dist: nvidia-cublas-cu12==12.8.4.1"
    else version=2.13.0+cpu; needs="Requires-Dist: filelock"; fi
    mkdir -p "{site}/torch-$version.dist-info"
    printf 'Metadata-Version: 2.1\\nName: torch\\nVersion: %s\\n%s\\n' "$version" "$needs" \\
        > "{site}/torch-$version.dist-info/METADATA"
    exit 0
fi
PYTHONPATH="{site}" exec "{real}" -S "$@"
"""


def torch_step(tmp_path, **env):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (tmp_path / "site").mkdir()
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON.format(site=tmp_path / "site", real=sys.executable))
    python.chmod(0o755)
    done = subprocess.run(["make", "-s", f"{venv}/.torch-installed", f"VENV={venv}", "TORCH=cpu"], cwd=ROOT,
                          env={k: v for k, v in dict(os.environ, **env).items() if v is not None},
                          capture_output=True, text=True, timeout=120)
    return done, (venv / ".torch-installed").exists()


def test_the_cpu_build_is_said_in_one_line(tmp_path):
    done, stamped = torch_step(tmp_path, PIP_EXTRA_INDEX_URL=None)
    assert done.returncode == 0 and stamped, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "PyTorch installed: torch 2.13.0+cpu, the CPU build."
    assert "--index-url https://download.pytorch.org/whl/cpu" in (tmp_path / "site" / "pip-args").read_text()


def test_a_cuda_build_from_an_extra_index_stops_the_step_with_the_fix(tmp_path):
    index = tmp_path / "another-index"
    index.mkdir()
    done, stamped = torch_step(tmp_path, PIP_EXTRA_INDEX_URL=index.as_uri())
    assert done.returncode != 0 and not stamped, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("PyTorch: the CPU build, from https://download.pytorch.org/whl/cpu")
    assert lines[1] == "PyTorch installed: torch 2.13.0, the CUDA build."
    assert lines[2].startswith("The CPU build was asked for, and the CUDA build arrived: your pip configuration "
                               "adds another index (PIP_EXTRA_INDEX_URL")
    assert (".venv/bin/pip uninstall -y torch, then .venv/bin/pip install --no-deps \"torch==2.13.0+cpu\" "
            "--index-url https://download.pytorch.org/whl/cpu") in lines[2]
