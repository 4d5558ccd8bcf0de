"""The setup cell as a learner meets it when something is wrong: in Colab with no reachable
package index or git host, and locally with the course package missing or at another version.

Each time the cell stops with two sentences (what went wrong, what to do) and no traceback,
and the cells after it do not run. The cell is the one tools/sync_notebooks.py writes into
every notebook, run in a real kernel.
"""

import os

import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell, new_notebook

import helpers
from course_paths import ROOT, project, repo_url, version
from sync_notebooks import setup_cell_source

FAKE_COLAB = 'import sys, types\nsys.modules["google.colab"] = types.ModuleType("google.colab")'
LATER = 'print("a later cell ran")'


def run_setup(before, env):
    """Run `before`, the setup cell and one later cell, as Run All does; return the cells."""
    nb = new_notebook(cells=[new_code_cell(before), new_code_cell(setup_cell_source()),
                             new_code_cell(LATER)])
    client = NotebookClient(nb, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(ROOT)}})
    with pytest.raises(CellExecutionError):
        client.execute(env=env)
    return nb.cells


def assert_stops_with(cells, sentences):
    """The setup cell shows exactly `sentences`, no traceback; the later cell never ran."""
    setup, later = cells[1], cells[2]
    assert [o.output_type for o in setup.outputs] == ["error"], setup.outputs  # nothing else
    (error,) = setup.outputs
    assert error.traceback == sentences
    shown = "\n".join(error.traceback)
    assert "Traceback" not in shown and 'File "' not in shown and "line " not in shown
    assert later.outputs == [] and later.execution_count is None


def offline_env(tmp_path):
    """This machine's environment with pip and git pointed at closed ports, like Colab offline."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "GIT_"))}
    env.update(
        PIP_CONFIG_FILE=os.devnull,              # no pip.conf: no local wheel folders or mirrors
        PIP_INDEX_URL="http://127.0.0.1:9/simple",
        PIP_RETRIES="0", PIP_TIMEOUT="3",
        PIP_TARGET=str(tmp_path / "target"),     # ignore the course installed here; touch no venv
        PIP_LOG=str(tmp_path / "pip.log"),
        GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0",
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="url.http://127.0.0.1:9/.insteadOf",
        GIT_CONFIG_VALUE_0="https://github.com/",
    )
    return env


def test_colab_without_network_stops_in_two_sentences(tmp_path):
    cells = run_setup(FAKE_COLAB, offline_env(tmp_path))
    package, v = project()["name"], version()
    assert_stops_with(cells, [
        f"Could not install {package} {v} from PyPI or from {repo_url()}.",
        "Check that the runtime is online, then run this cell again.",
    ])
    log = (tmp_path / "pip.log").read_text()
    assert f"{package}=={v}" in log and "127.0.0.1:9/simple" in log  # the package index,
    assert "git clone" in log and f"@v{v}" in log  # then the release's git tag
    assert not (tmp_path / "target").exists(), "nothing was installed"


def test_another_version_says_what_to_run():
    cells = run_setup('import helpers\nhelpers.__version__ = "0.0.1"', dict(os.environ))
    package, v = project()["name"], version()
    assert_stops_with(cells, [
        f"This notebook needs the course package {v}; this kernel has 0.0.1.",
        f"Run `pip install {package}=={v}` (in a clone of the course: `pip install -e .`),"
        " then restart the kernel.",
    ])


def test_missing_package_says_what_to_run():
    cells = run_setup('import sys\nsys.modules["helpers"] = None  # import helpers fails',
                      dict(os.environ))
    assert cells[1].outputs[0].traceback[0] == (
        f"This notebook needs the course package {version()}; this kernel has none.")


def test_the_cell_names_the_one_version_and_reads_well():
    source = setup_cell_source()
    assert helpers.__version__ == version()
    assert f'VERSION = "{helpers.__version__}"' in source
    assert f'PACKAGE = "{project()["name"]}"' in source and f'REPO = "{repo_url()}"' in source
    assert "version" not in project() and project()["dynamic"] == ["version"]
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'version = { attr = "helpers.__version__" }' in pyproject
    lines = source.splitlines()
    assert len(lines) <= 45 and max(len(line) for line in lines) <= 88
