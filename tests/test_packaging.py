"""The install: pyproject and environment.yml agree; the wheel ships the data."""

import re
import subprocess
import sys
import zipfile

import helpers
from course_paths import ROOT
from course_paths import project as pyproject
from helpers import data

CONDA_NAMES = {"torch": "pytorch", "build": "python-build"}
COLAB = {"torch": "2.11", "numpy": "2.1.3", "scipy": "1.16", "matplotlib": "3.10",
         "ipywidgets": "7.7.1", "tqdm": "4.67"}


def requirement(spec):
    name, bound = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9.]+)", spec.strip()).groups()
    return name.lower(), bound


def test_dependencies_have_lower_bounds_only():
    project = pyproject()
    specs = project["dependencies"] + [s for extra in project["optional-dependencies"].values() for s in extra]
    for spec in specs:
        assert requirement(spec), spec


def version_tuple(v):
    return tuple(int(p) for p in v.split("."))


def test_lower_bounds_admit_colab():
    bounds = dict(requirement(s) for s in pyproject()["dependencies"])
    for name, colab_version in COLAB.items():
        assert version_tuple(bounds[name]) <= version_tuple(colab_version), name


def test_environment_yml_lists_the_same_dependencies():
    project = pyproject()
    wanted = {requirement(s) for s in project["dependencies"]}
    for extra in project["optional-dependencies"].values():
        wanted |= {requirement(s) for s in extra}
    wanted = {(CONDA_NAMES.get(n, n), b) for n, b in wanted}
    listed = set()
    for line in (ROOT / "environment.yml").read_text().splitlines():
        m = re.fullmatch(r"\s+- ([A-Za-z0-9_.-]+)>=([0-9.]+)", line)
        if m and m.group(1) != "python":
            listed.add((m.group(1).lower(), m.group(2)))
    assert listed == wanted


def test_data_is_found_in_the_checkout():
    assert data.data_dir().name in {"data", "_data"}
    assert data.list_data()


def test_wheel_ships_the_package_and_the_data(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name.startswith(f"inside_transformer_mlp-{helpers.__version__}-"), wheel.name
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "helpers/ffn.py" in names
    for name in data.list_data():
        assert f"helpers/_data/{name}" in names, name


def test_helpers_is_self_contained():
    """What learners install never edits sys.path or reaches into the repository's tools/."""
    for path in sorted((ROOT / "helpers").rglob("*.py")):
        text = path.read_text()
        assert "sys.path" not in text, f"{path.relative_to(ROOT)} edits sys.path"
        assert not re.search(r"^\s*(import|from) (tools|run_notebooks|course_paths)\b", text, re.M), path
