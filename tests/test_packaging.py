"""The install: pyproject and environment.yml agree; the wheel ships the data."""

import pkgutil
import re
import subprocess
import sys
import zipfile

import pytest

import helpers
from course_paths import ROOT
from course_paths import project as pyproject
from helpers import data

CONDA_NAMES = {"torch": "pytorch", "build": "python-build"}
COLAB = {"torch": "2.11", "numpy": "2.1.3", "scipy": "1.16", "matplotlib": "3.10",
         "ipywidgets": "7.7.1", "tqdm": "4.67"}


def requirement(spec):
    """(name, lower bound) of `name>=X`, or of `name>=X,<Y` (an upper bound: lab extra only)."""
    name, bound = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9.]+)(?:,\s*<\s*[0-9.]+)?", spec.strip()).groups()
    return name.lower(), bound


def test_dependencies_have_lower_bounds_only():
    """Upper bounds only in the lab extra (Colab installs none): RISE's slideshow needs
    jupyterlab_widgets below 3.0.11 and the ipywidgets that goes with it."""
    project = pyproject()
    specs = project["dependencies"] + [s for extra in project["optional-dependencies"].values() for s in extra]
    for spec in specs:
        assert requirement(spec), spec
    capped = {requirement(s)[0] for s in specs if "<" in s}
    assert capped == {"ipywidgets", "jupyterlab_widgets"}, capped
    assert not any("<" in s for s in project["dependencies"] + project["optional-dependencies"]["test"])


def version_tuple(v):
    return tuple(int(p) for p in v.split("."))


def test_lower_bounds_admit_colab():
    bounds = dict(requirement(s) for s in pyproject()["dependencies"])
    for name, colab_version in COLAB.items():
        assert version_tuple(bounds[name]) <= version_tuple(colab_version), name


def test_environment_yml_lists_the_same_dependencies():
    """Core and both extras, each package once at its highest lower bound."""
    project = pyproject()
    specs = project["dependencies"] + [s for extra in project["optional-dependencies"].values()
                                       for s in extra]
    bounds = {}
    for name, bound in map(requirement, specs):
        if name not in bounds or version_tuple(bound) > version_tuple(bounds[name]):
            bounds[name] = bound
    wanted = {(CONDA_NAMES.get(n, n), b) for n, b in bounds.items()}
    listed = set()
    for line in (ROOT / "environment.yml").read_text().splitlines():
        m = re.fullmatch(r"\s+- ([A-Za-z0-9_.-]+)>=([0-9.]+)(?:,<[0-9.]+)?", line)
        if m and m.group(1) != "python":
            listed.add((m.group(1).lower(), m.group(2)))
    assert listed == wanted


def test_make_lab_installs_what_the_course_runs_on_and_make_test_the_test_stack():
    extras = {name: dict(map(requirement, specs))
              for name, specs in pyproject()["optional-dependencies"].items()}
    assert {"jupyterlab", "jupyterlab-rise", "transformers", "tokenizers"} <= set(extras["lab"])
    assert not {"pytest", "playwright", "nbval", "ruff"} & set(extras["lab"])
    assert {"pytest", "nbval", "playwright", "threadpoolctl"} <= set(extras["test"])
    # Colab preinstalls transformers 4.x: the lab's bound stays within it (GPT-2's current
    # API is there from 4.40); the calculator's tests need the model types of 4.51.
    assert version_tuple("4.40") <= version_tuple(extras["lab"]["transformers"]) < (5,)
    assert extras["test"]["transformers"] == "4.51"


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
    for path in sorted((ROOT / "helpers").rglob("*.py")):   # subpackages too (a notebook's checks)
        assert path.relative_to(ROOT).as_posix() in names, path
    for name in data.list_data():
        assert f"helpers/_data/{name}" in names, name
    for path in sorted((ROOT / "helpers").rglob("*.py")):   # a check package's submodules too
        if "__pycache__" not in path.parts:
            assert path.relative_to(ROOT).as_posix() in names, path


def test_helpers_is_self_contained():
    """What learners install never edits sys.path or reaches into the repository's tools/."""
    for path in sorted((ROOT / "helpers").rglob("*.py")):
        text = path.read_text()
        assert "sys.path" not in text, f"{path.relative_to(ROOT)} edits sys.path"
        assert not re.search(r"^\s*(import|from) (tools|run_notebooks|course_paths)\b", text, re.M), path


def test_every_module_of_helpers_is_an_attribute_of_the_package():
    names = {info.name for info in pkgutil.iter_modules(helpers.__path__)} - {"__main__"}
    assert {"workers", "checks", "demos", "params", "ffn"} <= names
    for name in sorted(names):
        assert getattr(helpers, name).__name__ == f"helpers.{name}", name
        assert name in dir(helpers)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_module'"):
        getattr(helpers, "no_such_module")  # noqa: B009
