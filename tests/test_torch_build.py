"""After make's torch step, the build that arrived is said in one line, and a CUDA build where the
CPU build was asked for (a pip configuration that adds another index) stops the step with the fix;
a CPU index that cannot be reached stops it saying so, with what works, and no step removes a torch.

The step runs as make runs it, in a stand-in virtual environment whose python is the real one
reading a folder of its own (no site-packages) and whose pip writes the metadata a wheel would
leave: PyPI's CUDA wheel when PIP_EXTRA_INDEX_URL names another index, the CPU index's wheel
otherwise, nothing when FAKE_OFFLINE is set (as pip leaves it when no index answers). The CPU index
that cannot be reached is a port on this machine that nothing listens on. Nothing is downloaded.
"""

import os
import socket
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
    if [ -n "$FAKE_OFFLINE" ] && [ -z "$PIP_EXTRA_INDEX_URL" ]; then
        echo "ERROR: Could not find a version that satisfies the requirement torch" >&2; exit 1; fi
    if [ -n "$PIP_EXTRA_INDEX_URL" ]; then version=2.13.0; needs="Requires-Dist: nvidia-cublas-cu12==12.8.4.1"
    else version=2.13.0+cpu; needs="Requires-Dist: filelock"; fi
    mkdir -p "{site}/torch-$version.dist-info"
    printf 'Metadata-Version: 2.1\\nName: torch\\nVersion: %s\\n%s\\n' "$version" "$needs" \\
        > "{site}/torch-$version.dist-info/METADATA"
    exit 0
fi
PYTHONPATH="{site}" exec "{real}" -S "$@"
"""


def torch_step(tmp_path, *variables, **env):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    (tmp_path / "site").mkdir(exist_ok=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON.format(site=tmp_path / "site", real=sys.executable))
    python.chmod(0o755)
    done = subprocess.run(["make", "-s", f"{venv}/.torch-installed", f"VENV={venv}", "TORCH=cpu", *variables],
                          cwd=ROOT, env={k: v for k, v in dict(os.environ, **env).items() if v is not None},
                          capture_output=True, text=True, timeout=120)
    return done, (venv / ".torch-installed").exists()


def closed_port_index():
    """An http index on this machine where nothing listens: a connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/whl/cpu"


def test_the_cpu_build_is_said_in_one_line(tmp_path):
    done, stamped = torch_step(tmp_path, PIP_EXTRA_INDEX_URL=None)
    assert done.returncode == 0 and stamped, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "PyTorch installed: torch 2.13.0+cpu, the CPU build."
    assert "--index-url https://download.pytorch.org/whl/cpu" in (tmp_path / "site" / "pip-args").read_text()


def test_a_cuda_build_from_an_extra_index_stops_the_step_with_the_fix(tmp_path):
    index, cpu_index = tmp_path / "another-index", tmp_path / "cpu-index"
    index.mkdir()
    (cpu_index / "torch").mkdir(parents=True)
    done, stamped = torch_step(tmp_path, f"TORCH_CPU_INDEX={cpu_index.as_uri()}", PIP_EXTRA_INDEX_URL=index.as_uri())
    assert done.returncode != 0 and not stamped, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"PyTorch: the CPU build, from {cpu_index.as_uri()}")
    assert lines[1] == "PyTorch installed: torch 2.13.0, the CUDA build."
    assert lines[2].startswith("The CPU build was asked for, and the CUDA build arrived: pip takes the highest "
                               "version on every index it knows, and your pip configuration adds another "
                               "index (PIP_EXTRA_INDEX_URL")
    assert "uninstall" not in lines[2] and "It stays installed, and `make lab` again keeps it" in lines[2]
    assert ('.venv/bin/pip install --no-deps "torch==2.13.0+cpu" --index-url <a CPU index pip can reach, '
            f"such as {cpu_index.as_uri()}>, which replaces this torch only once") in lines[2]


def test_an_unreachable_cpu_index_says_what_was_unreachable_and_what_works(tmp_path):
    index = closed_port_index()
    done, stamped = torch_step(tmp_path, f"TORCH_CPU_INDEX={index}", PIP_EXTRA_INDEX_URL=None,
                               FAKE_OFFLINE="1")
    assert done.returncode != 0 and not stamped, done.stdout + done.stderr
    said = done.stdout.splitlines()
    assert said[1].startswith(f"PyTorch: the CPU index {index} could not be reached (")
    assert "refused" in said[1].lower() and said[1].endswith("so no torch was installed.")
    assert "TORCH_CPU_INDEX=<a mirror" in said[2] and ".venv/bin/pip install torch==<version>" in said[2]
    assert "then `make lab` again: it keeps the torch it finds" in said[2]
    assert "uninstall" not in done.stdout


def test_a_cuda_build_taken_because_the_cpu_index_is_unreachable_is_kept_and_explained(tmp_path):
    index, other = closed_port_index(), tmp_path / "another-index"
    other.mkdir()
    done, stamped = torch_step(tmp_path, f"TORCH_CPU_INDEX={index}", PIP_EXTRA_INDEX_URL=other.as_uri())
    assert done.returncode != 0 and not stamped, done.stdout + done.stderr
    said = done.stdout.splitlines()[2]
    assert f"the CPU index {index} could not be reached (" in said and "It stays installed" in said
    assert "uninstall" not in said and f"--index-url {index}" not in said
    assert "--index-url <a CPU index pip can reach>" in said


def test_a_torch_already_installed_is_kept_without_asking_pip(tmp_path):
    meta = tmp_path / "site" / "torch-2.12.0+rocm6.4.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.12.0+rocm6.4\n")
    done, stamped = torch_step(tmp_path, f"TORCH_CPU_INDEX={closed_port_index()}", FAKE_OFFLINE="1")
    assert done.returncode == 0 and stamped, done.stdout + done.stderr
    assert done.stdout.strip() == "torch 2.12.0+rocm6.4 is installed already: left as it is."
    assert not (tmp_path / "site" / "pip-args").exists()
