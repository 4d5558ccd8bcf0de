"""The setup cell as a learner meets it when something is wrong.

In Colab: no reachable package index or git host; a version that was never published; another
pip failure; a half-finished install, which the cell reinstalls once. Locally: the course
package missing, at another version, with files missing, or with a dependency missing.

Each failure stops the cell with two sentences (what went wrong, what to do) and no traceback,
and the cells after it do not run. The cell is the one tools/sync_notebooks.py writes into
every notebook, run in a real kernel. Offline and unpublished use the real pip and git against
closed ports and empty local indexes; the other Colab cases put a stand-in `pip` first on the
kernel's path, which records each call and plays one part.
"""

import os
import shutil
import textwrap

import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell, new_notebook

import helpers
from course_paths import ROOT, project, repo_url, version
from sync_notebooks import setup_cell_source

FAKE_COLAB = 'import sys, types\nsys.modules["google.colab"] = types.ModuleType("google.colab")'
LATER = 'print("a later cell ran")'
# A development environment's editable install (`pip install -e .`) would find a file missing
# from the half-installed copy in the checkout; Colab has none.
NO_EDITABLE = ('sys.meta_path[:] = [f for f in sys.meta_path'
               ' if "__editable__" not in getattr(f, "__module__", "")]')
PACKAGE, VERSION = project()["name"], version()
PIN = f"{PACKAGE}=={VERSION}"

# A stand-in for `python -m pip`: logs its arguments; FAKE_PIP picks what it does.
FAKE_PIP = textwrap.dedent('''
    import os, shutil, sys
    with open(os.environ["FAKE_PIP_LOG"], "a") as log:
        log.write(" ".join(sys.argv[1:]) + "\\n")
    part = os.environ["FAKE_PIP"]
    if part == "conflict":
        print("ERROR: Cannot install inside-transformer-mlp because these package versions have"
              " conflicting dependencies.", file=sys.stderr)
        sys.exit(1)
    if part == "repair" and "--force-reinstall" in sys.argv:
        shutil.copy(os.environ["FAKE_PIP_FROM"], os.environ["FAKE_PIP_TO"])
''')


def run_setup(before, env, fails=True, cwd=ROOT):
    """Run `before`, the setup cell and one later cell, as Run All does; return the cells."""
    nb = new_notebook(cells=[new_code_cell(before), new_code_cell(setup_cell_source()),
                             new_code_cell(LATER)])
    client = NotebookClient(nb, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(cwd)}})
    if fails:
        with pytest.raises(CellExecutionError):
            client.execute(env=env)
    else:
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
    assert all(s.endswith(".") and "\n" not in s for s in sentences)
    assert later.outputs == [] and later.execution_count is None


def clean_env(tmp_path):
    """This machine's environment without its pip and git settings, logging pip to pip.log."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "GIT_"))}
    env.update(
        PIP_CONFIG_FILE=os.devnull,              # no pip.conf: no local wheel folders or mirrors
        PIP_RETRIES="0", PIP_TIMEOUT="3",
        PIP_TARGET=str(tmp_path / "target"),     # ignore the course installed here; touch no venv
        PIP_LOG=str(tmp_path / "pip.log"),
        GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0",
    )
    return env


def offline_env(tmp_path):
    """pip and git pointed at closed ports, like Colab without a network."""
    return clean_env(tmp_path) | dict(
        PIP_INDEX_URL="http://127.0.0.1:9/simple",
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="url.http://127.0.0.1:9/.insteadOf",
        GIT_CONFIG_VALUE_0="https://github.com/",
    )


def unpublished_env(tmp_path):
    """An index that answers but has no such package, and a git repository with no such tag."""
    (tmp_path / "index").mkdir()
    repo = tmp_path / "repo.git"
    os.system(f"git init -q --bare {repo}")
    return clean_env(tmp_path) | dict(
        PIP_INDEX_URL=(tmp_path / "index").as_uri(),
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0=f"url.{repo.as_uri()}.insteadOf",
        GIT_CONFIG_VALUE_0=repo_url(),
    )


def half_installed(tmp_path, part):
    """An environment whose `helpers` lacks plots.py and whose pip is the stand-in playing `part`.
    Run the kernel in tmp_path: the checkout's own helpers would come first on its path."""
    target = tmp_path / "target"
    shutil.copytree(ROOT / "helpers", target / "helpers",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (target / "helpers" / "plots.py").unlink()
    (tmp_path / "fake" / "pip").mkdir(parents=True)
    (tmp_path / "fake" / "pip" / "__init__.py").write_text("")
    (tmp_path / "fake" / "pip" / "__main__.py").write_text(FAKE_PIP)
    env = dict(os.environ, FAKE_PIP=part, FAKE_PIP_LOG=str(tmp_path / "fake-pip.log"),
               FAKE_PIP_FROM=str(ROOT / "helpers" / "plots.py"),
               FAKE_PIP_TO=str(target / "helpers" / "plots.py"),
               PYTHONPATH=os.pathsep.join([str(target), str(tmp_path / "fake")]))
    (tmp_path / "fake-pip.log").write_text("")
    return env


def pip_calls(tmp_path):
    return (tmp_path / "fake-pip.log").read_text().splitlines()


def test_colab_without_network_says_offline(tmp_path):
    cells = run_setup(FAKE_COLAB, offline_env(tmp_path))
    assert_stops_with(cells, [
        f"Could not install {PIN}: this runtime cannot reach PyPI.",
        "Check that the runtime is online, then run this cell again.",
    ])
    log = (tmp_path / "pip.log").read_text()
    assert PIN in log and "127.0.0.1:9/simple" in log  # the package index,
    assert "git clone" in log and f"@v{VERSION}" in log  # then the release's git tag
    assert not (tmp_path / "target").exists(), "nothing was installed"


def test_colab_with_an_unpublished_version_says_so(tmp_path):
    cells = run_setup(FAKE_COLAB, unpublished_env(tmp_path))
    assert_stops_with(cells, [
        f"PyPI has no {PIN}, and the git tag v{VERSION} is missing from {repo_url()} too.",
        f"Run `!pip install git+{repo_url()}` in a new cell (the course's main branch), then run this cell again.",
    ])
    log = (tmp_path / "pip.log").read_text()
    assert "git clone" in log and "connection error" not in log  # both answered, neither had it


def test_colab_with_the_git_tag_but_no_pypi_release_says_which_is_missing(tmp_path):
    env = unpublished_env(tmp_path)
    work = tmp_path / "work"
    os.system(f"git clone -q {tmp_path / 'repo.git'} {work} 2>/dev/null && cd {work} && "
              f"git -c user.name=c -c user.email=c@c commit -q --allow-empty -m release && "
              f"git tag v{VERSION} && git push -q origin HEAD v{VERSION} 2>/dev/null")
    cells = run_setup(FAKE_COLAB, env)
    said = cells[1].outputs[0].traceback
    assert said[0].startswith(f"PyPI has no {PIN}, and pip could not install the git tag v{VERSION} either: ")
    assert "missing from" not in said[0] and len(said) == 2


def test_colab_with_another_pip_failure_quotes_pip(tmp_path):
    env = half_installed(tmp_path, "conflict")
    cells = run_setup(FAKE_COLAB, env, cwd=tmp_path)
    assert_stops_with(cells, [
        f"pip could not install {PIN}: Cannot install {PACKAGE} because these package versions"
        " have conflicting dependencies.",
        f"Run `!pip install {PIN}` in a new cell to read pip's whole log.",
    ])
    assert pip_calls(tmp_path) == [f"install -vv {PIN}",
                                   f"install -vv {PACKAGE} @ git+{repo_url()}@v{VERSION}"]


def test_colab_reinstalls_a_half_finished_install_once_and_goes_on(tmp_path):
    cells = run_setup(f"{FAKE_COLAB}\n{NO_EDITABLE}", half_installed(tmp_path, "repair"),
                      fails=False, cwd=tmp_path)
    assert pip_calls(tmp_path) == [f"install -vv {PIN}",
                                   f"install -vv --force-reinstall --no-deps {PIN}"]
    assert {o.output_type for o in cells[1].outputs} == {"stream"}
    assert "".join(o.text for o in cells[1].outputs).startswith("Device: ")
    assert cells[2].outputs[0].text == "a later cell ran\n"


def test_colab_names_an_install_that_a_reinstall_does_not_mend(tmp_path):
    cells = run_setup(f"{FAKE_COLAB}\n{NO_EDITABLE}", half_installed(tmp_path, "no-repair"),
                      cwd=tmp_path)
    assert_stops_with(cells, [
        f"The course package {VERSION} is installed but does not import:"
        " No module named 'helpers.plots'.",
        f"Run `pip install --force-reinstall --no-deps {PIN}`, then restart the kernel.",
    ])
    assert pip_calls(tmp_path) == [f"install -vv {PIN}",
                                   f"install -vv --force-reinstall --no-deps {PIN}"]


def test_a_local_install_with_files_missing_is_named_and_pip_is_not_run(tmp_path):
    env = half_installed(tmp_path, "repair")
    target = tmp_path / "target"
    shutil.copy(ROOT / "helpers" / "plots.py", target / "helpers" / "plots.py")
    (target / "helpers" / "checks" / "nb04_network_3d.py").unlink()  # imported only later
    info = target / f"{PACKAGE.replace('-', '_')}-{VERSION}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: {VERSION}\n")
    record = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "helpers").rglob("*.py")
                    if "__pycache__" not in p.parts)
    (info / "RECORD").write_text("".join(f"{name},,\n" for name in record))
    cells = run_setup("", env, cwd=tmp_path)
    assert_stops_with(cells, [
        f"The course package {VERSION} is installed but does not import:"
        " helpers/checks/nb04_network_3d.py is missing from the install.",
        f"Run `pip install --force-reinstall --no-deps {PIN}`, then restart the kernel.",
    ])
    assert pip_calls(tmp_path) == [], "outside Colab the cell installs nothing"


def test_a_missing_dependency_is_named():
    cells = run_setup('import sys\nsys.modules["matplotlib"] = None  # import matplotlib fails',
                      dict(os.environ))
    (error,) = cells[1].outputs
    assert error.traceback[0].startswith(
        f"The course package {VERSION} is installed but does not import: import of matplotlib")
    assert error.traceback[1] == (
        "Run `pip install --force-reinstall --no-deps matplotlib`, then restart the kernel.")


def test_another_version_says_what_to_run():
    cells = run_setup('import helpers\nhelpers.__version__ = "0.0.1"', dict(os.environ))
    assert_stops_with(cells, [
        f"This notebook needs the course package {VERSION}; this kernel has 0.0.1.",
        f"Run `pip install {PIN}` (in a clone of the course: `pip install -e .`),"
        " then restart the kernel.",
    ])


def test_missing_package_says_what_to_run():
    cells = run_setup('import sys\nsys.modules["helpers"] = None  # import helpers fails',
                      dict(os.environ))
    assert cells[1].outputs[0].traceback[0] == (
        f"This notebook needs the course package {VERSION}; this kernel has none.")


def test_the_cell_names_the_one_version_and_reads_well():
    source = setup_cell_source()
    assert helpers.__version__ == version()
    assert f'VERSION = "{helpers.__version__}"' in source
    assert f'PACKAGE = "{project()["name"]}"' in source and f'REPO = "{repo_url()}"' in source
    assert "version" not in project() and project()["dynamic"] == ["version"]
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'version = { attr = "helpers.__version__" }' in pyproject
    lines = source.splitlines()
    assert len(lines) <= 45 and max(len(line) for line in lines) <= 100
