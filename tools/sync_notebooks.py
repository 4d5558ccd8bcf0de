"""Write the Open-in-Colab badge and the shared setup cell into every notebook.

The repository URL and the package name come from pyproject.toml, the version from
helpers/__init__.py (its only definition); this script writes them into the badge
links and into the setup cell, which installs exactly that version in Colab.

    python tools/sync_notebooks.py          # rewrite notebooks in place
    python tools/sync_notebooks.py --check  # exit 1 if any notebook is out of date
"""

import re
import sys
from string import Template

import nbformat

from course_paths import notebook_paths, project, repo_url, version

BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
BADGE_RE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)")
SETUP_TAG = "setup"
# What a learner reads first. In Colab: pip install the notebook's version from PyPI, else
# from its git tag. Everywhere: stop with two sentences (what went wrong, what to do) when
# the course package is missing or another version. SetupError's _render_traceback_ makes
# Jupyter and Colab show those sentences instead of a traceback.
SETUP_CELL = Template('''\
# Setup (the same in every notebook). In Colab it installs the course package first.
import subprocess
import sys

VERSION = "$version"  # the course package version this notebook was checked with
PACKAGE = "$package"
REPO = "$repo"


class SetupError(Exception):
    def _render_traceback_(self):  # Jupyter shows these lines instead of a traceback
        return str(self).splitlines()


def pip_install(spec):
    """True if pip installed `spec` (its own output stays hidden)."""
    pip = [sys.executable, "-m", "pip", "install", "-q", spec]
    return subprocess.run(pip, capture_output=True).returncode == 0


if "google.colab" in sys.modules and not pip_install(f"{PACKAGE}=={VERSION}"):
    if not pip_install(f"{PACKAGE} @ git+{REPO}@v{VERSION}"):  # the release's git tag
        raise SetupError(
            f"Could not install {PACKAGE} {VERSION} from PyPI or from {REPO}.\\n"
            "Check that the runtime is online, then run this cell again."
        )

try:
    import helpers
except ModuleNotFoundError:
    helpers = None
found = getattr(helpers, "__version__", "none")
if found != VERSION:
    raise SetupError(
        f"This notebook needs the course package {VERSION}; this kernel has {found}.\\n"
        f"Run `pip install {PACKAGE}=={VERSION}` (in a clone of the course:"
        " `pip install -e .`), then restart the kernel."
    )

device = helpers.setup_notebook()''')


def badge(notebook_name):
    """The markdown badge that opens this notebook in Colab."""
    owner_repo = repo_url().removeprefix("https://github.com/")
    link = f"https://colab.research.google.com/github/{owner_repo}/blob/main/notebooks/{notebook_name}"
    return f"[![Open In Colab]({BADGE_IMAGE})]({link})"


def setup_cell_source():
    """The setup cell, identical in every notebook."""
    return SETUP_CELL.substitute(version=version(), package=project()["name"], repo=repo_url())


def sync(nb, name):
    """Update badge and setup cell of one notebook; return True if it changed."""
    changed = False
    title = nb.cells[0]
    if title.cell_type != "markdown":
        raise ValueError(f"{name}: the first cell must be the markdown title cell")
    new_badge = badge(name)
    if BADGE_RE.search(title.source):
        text = BADGE_RE.sub(lambda _: new_badge, title.source)
    else:
        text = title.source.rstrip() + "\n\n" + new_badge
    if text != title.source:
        title.source, changed = text, True
    setup = [c for c in nb.cells if SETUP_TAG in c.metadata.get("tags", [])]
    if len(setup) != 1:
        raise ValueError(f"{name}: expected exactly one code cell tagged {SETUP_TAG!r}, found {len(setup)}")
    if setup[0].source != setup_cell_source():
        setup[0].source, changed = setup_cell_source(), True
    return changed


def main(argv):
    check = "--check" in argv
    stale = []
    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        if sync(nb, path.name):
            stale.append(path.name)
            if not check:
                nbformat.write(nb, path)
    if check and stale:
        print("out of date (run `make sync`): " + ", ".join(stale))
        return 1
    print(("stale: " if check else "updated: ") + (", ".join(stale) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
