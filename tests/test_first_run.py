"""`make lab` on a laptop without an NVIDIA GPU installs the CPU build of PyTorch, not PyPI's
CUDA build (gigabytes more), and leaves a torch that is already installed alone.

The choice is read from the commands make would run (`make -n`), with and without an
`nvidia-smi` on the PATH and with TORCH=cpu|cuda. The install itself runs the Makefile's torch
step into a fresh virtual environment in a temporary folder, with TORCH_CPU_INDEX pointed at a
package index made there from a CPU build of torch found in a local folder (pip's find-links),
and pip's own settings off, so that nothing else could have supplied it.
"""

import os
import platform
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from course_paths import ROOT


def make(*args, path=None, **variables):
    env = dict(os.environ, PATH=path or os.environ["PATH"])
    command = ["make", "-s", *args, *(f"{k}={v}" for k, v in variables.items())]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


def torch_build(tmp_path, nvidia_smi, exit_status=0, **variables):
    """The build the torch step picks: "cpu", "cuda" or "macos"."""
    path = os.environ["PATH"]
    if nvidia_smi:
        (tmp_path / "bin").mkdir(exist_ok=True)
        fake = tmp_path / "bin" / "nvidia-smi"
        fake.write_text(f"#!/bin/sh\nexit {exit_status}\n")
        fake.chmod(0o755)
        path = f"{tmp_path / 'bin'}{os.pathsep}{path}"
    venv_dir = tmp_path / "venv"
    done = make("-n", f"{venv_dir}/.torch-installed", path=path, VENV=venv_dir, **variables)
    return re.search(r'\[ "(\w+)" = cpu \]', done.stdout).group(1)


def test_the_cpu_build_where_there_is_no_nvidia_gpu(tmp_path):
    here = "macos" if platform.system() == "Darwin" else "cpu"
    assert torch_build(tmp_path, nvidia_smi=False) == here
    assert torch_build(tmp_path, nvidia_smi=True) == ("macos" if here == "macos" else "cuda")
    assert torch_build(tmp_path, nvidia_smi=True, TORCH="cpu") == "cpu"
    assert torch_build(tmp_path, nvidia_smi=False, TORCH="cuda") == "cuda"


def test_an_nvidia_smi_that_fails_picks_the_cpu_build(tmp_path):
    # NVIDIA's tools without a working driver: nvidia-smi is there and exits with an error.
    here = "macos" if platform.system() == "Darwin" else "cpu"
    assert torch_build(tmp_path, nvidia_smi=True, exit_status=9) == here


@pytest.mark.parametrize("asked", ["gpu", "CUDA", "rocm"])
def test_a_torch_value_make_does_not_install_stops_in_one_sentence(asked):
    done = make("-n", "lab", TORCH=asked)
    assert done.returncode != 0 and done.stdout == ""
    said = done.stderr.strip()
    assert f"TORCH={asked} is not a build make installs: TORCH=cpu, TORCH=cuda or TORCH=auto" in said
    assert said.count("\n") == 0 and "pip install torch into .venv first, and make keeps it" in said


def test_make_lab_installs_the_lab_extra_and_make_test_the_test_stack():
    lab = make("-n", "-B", "lab").stdout  # -B: as on a fresh clone
    test = make("-n", "-B", "test").stdout
    assert 'pip install -q -e ".[lab]"' in lab and "[test" not in lab
    assert 'pip install -q -e ".[test,lab]"' in test


def local_cpu_torch():
    """A CPU build of torch for this Python and machine in one of pip's find-links folders."""
    config = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                            text=True).stdout
    folders = os.environ.get("PIP_FIND_LINKS", "").split()
    folders += [f for value in re.findall(r"find-links='([^']*)'", config) for f in value.split()]
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    for folder in dict.fromkeys(folders):
        for wheel in sorted(Path(folder).glob(f"torch-*+cpu-{tag}-*{platform.machine()}*.whl")):
            return wheel
    return None


def test_the_torch_step_installs_the_cpu_build_from_the_cpu_index(tmp_path):
    wheel = local_cpu_torch()
    if wheel is None:
        pytest.skip("no CPU build of torch in a local folder (pip's find-links) to serve as the "
                    "CPU index here")
    index = tmp_path / "index" / "torch"
    index.mkdir(parents=True)
    (index / wheel.name).symlink_to(wheel)
    (index / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    venv_dir = tmp_path / "venv"
    venv.create(venv_dir, with_pip=True)  # the venv step (make would also upgrade pip from PyPI)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    step = ["make", "-s", f"{venv_dir}/.torch-installed", f"VENV={venv_dir}",
            f"TORCH_CPU_INDEX={(tmp_path / 'index').as_uri()}", "TORCH=auto"]
    path = ":".join(p for p in env["PATH"].split(":") if not (Path(p) / "nvidia-smi").exists())
    done = subprocess.run(step, cwd=ROOT, env=dict(env, PATH=path), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PyTorch: the CPU build" in done.stdout
    python = venv_dir / "bin" / "python"
    # torch/version.py alone: `import torch` needs the dependencies the course's install brings.
    probe = ("import importlib.metadata as m, importlib.util as u\n"
             "spec = u.spec_from_file_location('v', m.distribution('torch').locate_file('torch/version.py'))\n"
             "v = u.module_from_spec(spec); spec.loader.exec_module(v)\n"
             "print(v.__version__, v.cuda)")
    version, cuda = subprocess.run([str(python), "-c", probe], capture_output=True, text=True,
                                   check=True).stdout.split()
    assert cuda == "None" and version.endswith("+cpu"), (version, cuda)
    (venv_dir / ".torch-installed").unlink()
    again = subprocess.run(step, cwd=ROOT, env=dict(env, PATH=path), capture_output=True, text=True)
    assert again.stdout.strip() == f"torch {version} is installed already: left as it is."


def test_the_setup_guide_gives_the_manual_and_conda_paths_what_make_lab_has():
    makefile = (ROOT / "Makefile").read_text()
    cpu_index = re.search(r"^TORCH_CPU_INDEX \?= (\S+)$", makefile, re.M).group(1)
    lab = re.search(r"^lab:.*\n\t(.+)$", makefile, re.M).group(1)
    setup = (ROOT / "docs" / "SETUP.md").read_text()
    manual = setup[setup.index("## Without make"):setup.index("## Colab")]
    assert f"pip install torch --index-url {cpu_index}" in manual
    assert 'pip install -e ".[lab]"' in manual and "--LabApp.app_settings_dir=" in lab
    assert '--LabApp.app_settings_dir="$PWD/tools/lab_settings"' in manual
    assert "--allow-root" in lab and "--allow-root" in manual
    words = " ".join(manual.split())
    assert "conda env create -f environment.yml" in words and "the same `jupyter lab` line" in words


def test_the_setup_guide_gives_the_lines_make_test_runs():
    """docs/SETUP.md's "every test" lines are `make test`'s recipe, in an activated venv."""
    recipe = make("-n", "-o", ".venv/.test-installed", "test").stdout.replace("\\\n", " ")
    notebooks = subprocess.run([sys.executable, "tools/course_paths.py"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.split()
    recipe = recipe.replace(" ".join(notebooks), "$(python tools/course_paths.py)").replace(".venv/bin/", "")
    setup = (ROOT / "docs" / "SETUP.md").read_text()
    section = setup[setup.index("## Every test, as `make test` runs it"):]
    block = re.search(r"\n\n((?:    .*\n)+)", section).group(1).replace("\\\n", " ")
    assert [" ".join(line.split()) for line in block.splitlines()] == \
        [" ".join(line.split()) for line in recipe.splitlines()]
    assert "COURSE_GPT2=tiny COURSE_RECORD=0" in block
