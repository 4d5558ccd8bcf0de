"""The GitHub workflows: CI runs the README's test command through .ci/run; a version tag builds,
tests the built wheel as `make release-check` does, and publishes with trusted publishing."""

import re

import yaml

from course_paths import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"


def workflow(name):
    doc = yaml.safe_load((WORKFLOWS / name).read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    return doc


def runs(job):
    return [step["run"] for step in job["steps"] if "run" in step]


def uses(job):
    return [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]


def test_ci_runs_dot_ci_run_on_ubuntu_on_every_push_and_pull_request():
    ci = workflow("ci.yml")
    assert "push" in ci["on"] and "pull_request" in ci["on"]
    (job,) = ci["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest" and job["timeout-minutes"] <= 90
    assert uses(job) == ["actions/checkout"] and runs(job) == [".ci/run"]
    assert job["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"


def test_dot_ci_run_installs_cpu_torch_then_chromium_then_runs_the_readme_command():
    script = (ROOT / ".ci" / "run").read_text()
    torch = script.index("pip install -q torch==")
    chromium = script.index('MISSING="$MISSING chromium"')
    assert "apt-get install -y -qq $MISSING" in script
    make = script.index('make "$TARGET"')
    assert torch < chromium < make and script.rstrip().endswith('make "$TARGET"')
    assert 'TARGET="${1:-test}"' in script  # with no argument: `make test`, as in the README
    readme = (ROOT / "README.md").read_text()
    assert re.findall(r"^    (make \w+)$", readme, re.M)[:2] == ["make lab", "make test"]
    assert (ROOT / ".ci" / "run").stat().st_mode & 0o111, ".ci/run is executable"


def test_release_builds_tests_the_wheel_and_publishes_on_a_version_tag():
    release = workflow("release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}
    build = release["jobs"]["build"]
    assert build["runs-on"] == "ubuntu-latest"
    assert ".ci/run release-check" in runs(build)
    assert any("GITHUB_REF_NAME#v" in r and "helpers/__init__.py" in r for r in runs(build))
    assert "actions/upload-artifact" in uses(build)
    makefile = (ROOT / "Makefile").read_text()
    target = re.search(r"^release-check:.*?(?=^\S|\Z)", makefile, re.M | re.S).group(0)
    assert "-m build" in target and "tools/colab_check.py dist/*.whl" in target


def test_publishing_uses_trusted_publishing_and_no_token():
    release = workflow("release.yml")
    publish = release["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert uses(publish) == ["actions/download-artifact", "pypa/gh-action-pypi-publish"]
    step = next(s for s in publish["steps"] if s["uses"].startswith("pypa/"))
    assert "with" not in step, "no password or token: PyPI trusts the workflow itself"
    assert "secrets." not in (WORKFLOWS / "release.yml").read_text()
