"""Write the Open-in-Colab badge and the shared setup cell into every notebook.

The repository URL and the package name come from pyproject.toml, the version from
helpers/__init__.py (its only definition); this script writes them into the badge
links and into the setup cell, which installs exactly that version in Colab. The Korean
notebooks (notebooks/ko/) get theirs too: the setup cell made from locale/ko/.../setup.po, so
a change to the setup cell needs no `make ko` (the cell prints the same when it runs).

    python tools/sync_notebooks.py          # rewrite notebooks in place
    python tools/sync_notebooks.py 03       # only notebooks whose name starts with 03
    python tools/sync_notebooks.py --check  # exit 1 if any notebook is out of date

Only the numbered notebooks (NN_name.ipynb) are touched, and one with uncommitted changes is
left alone unless FORCE=1 (a learner may have edited its setup cell).
"""

import re
import sys
from string import Template

import nbformat

import course_paths
from course_paths import notebook_paths, project, refuse_uncommitted, repo_url, version

BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
BADGE_RE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)")
SETUP_TAG = "setup"
# What a learner reads first. In Colab: pip install the notebook's version from PyPI, else
# from its git tag; pip's logs tell "offline" from "not published" and say which of the two
# (PyPI's release, the git tag) is missing, each with its own advice.
# Then helpers.setup.start checks the version and that the install is whole (in Colab it
# reinstalls a half-finished one once), each failure in two sentences (what went wrong, what to
# do); SetupError's _render_traceback_ makes Jupyter and Colab show them instead of a traceback.
SETUP_CELL = Template('''\
# Setup (the same in every notebook). In Colab it installs the course package first.
import re
import subprocess
import sys

VERSION = "$version"  # the course package version this notebook was checked with
PACKAGE = "$package"
REPO = "$repo"
PIN = f"{PACKAGE}=={VERSION}"


class SetupError(Exception):
    def _render_traceback_(self):  # Jupyter shows these lines instead of a traceback
        return str(self).splitlines()


def pip_install(*args):
    """"" if pip installed, else its log, which tells "offline" from "not published"."""
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-vv", *args],
                         capture_output=True, text=True)
    return "" if pip.returncode == 0 else pip.stdout + pip.stderr


if "google.colab" in sys.modules and (log := pip_install(PIN)) and (git_log := pip_install(
        f"{PACKAGE} @ git+{REPO}@v{VERSION}")):
    if re.search("connection error|Failed to establish|Could not resolve", log):
        raise SetupError(f"Could not install {PIN}: this runtime cannot reach PyPI.\\n"
                         "Check that the runtime is online, then run this cell again.")
    if "No matching distribution" in log:
        why = "".join(re.findall(r"^ERROR: (.*?)\\.?$$", git_log, re.M)[-1:]) or "see its log"
        tag = (f"the git tag v{VERSION} is missing from {REPO} too" if "Did not find branch or tag"
               in git_log else f"pip could not install the git tag v{VERSION} either: {why}")
        raise SetupError(f"PyPI has no {PIN}, and {tag}.\\n"
                         f"Run `!pip install git+{REPO}` in a new cell (the course's main branch),"
                         " then run this cell again.")
    error = "".join(re.findall(r"^ERROR: (.*?)\\.?$$", log, re.M)[-1:]) or "see its log"
    raise SetupError(f"pip could not install {PIN}: {error}.\\n"
                     f"Run `!pip install {PIN}` in a new cell to read pip's whole log.")
try:
    import helpers.setup
except ImportError:
    raise SetupError(f"This notebook needs the course package {VERSION}; this kernel has none.\\n"
                     f"Run `pip install {PIN}` (in a clone of the course: `pip install -e .`),"
                     " then restart the kernel.") from None
device = helpers.setup.start(VERSION)  # the version, a whole install; seeds, style, device''')


def badge(notebook_name):
    """The markdown badge that opens this notebook in Colab."""
    owner_repo = repo_url().removeprefix("https://github.com/")
    link = f"https://colab.research.google.com/github/{owner_repo}/blob/main/notebooks/{notebook_name}"
    return f"[![Open In Colab]({BADGE_IMAGE})]({link})"


def setup_cell_source():
    """The setup cell, identical in every notebook."""
    return SETUP_CELL.substitute(version=version(), package=project()["name"], repo=repo_url())


def edition_setup_cell_source(edition):
    """The setup cell of the edition in notebooks/<edition>/ (its catalog's pieces put in)."""
    import translations  # it builds on this module

    assert edition == translations.LANGUAGE, edition
    return translations.setup_cell_source()


def sync(nb, name, edition=None):
    """Update badge and setup cell of one notebook (of an edition: notebooks/<edition>/name);
    return True if it changed."""
    changed = False
    title = nb.cells[0]
    if title.cell_type != "markdown":
        raise ValueError(f"{name}: the first cell must be the markdown title cell")
    new_badge = badge(f"{edition}/{name}" if edition else name)
    if BADGE_RE.search(title.source):
        text = BADGE_RE.sub(lambda _: new_badge, title.source)
    else:
        text = title.source.rstrip() + "\n\n" + new_badge
    if text != title.source:
        title.source, changed = text, True
    setup = [c for c in nb.cells if SETUP_TAG in c.metadata.get("tags", [])]
    if len(setup) != 1:
        raise ValueError(f"{name}: expected exactly one code cell tagged {SETUP_TAG!r}, found {len(setup)}")
    source = edition_setup_cell_source(edition) if edition else setup_cell_source()
    if setup[0].source != source:
        setup[0].source, changed = source, True
    return changed


def editions(prefixes):
    """[(path, edition)] of the Korean notebooks (notebooks/ko/) whose English ones are named."""
    folder = course_paths.NOTEBOOK_DIR / "ko"
    return [(p, "ko") for p in notebook_paths(prefixes, folder)] if folder.is_dir() else []


def main(argv):
    check = "--check" in argv
    prefixes = [a for a in argv if a != "--check"]
    paths = notebook_paths(prefixes)
    if not paths:
        print(f"no notebook matches {prefixes}")
        return 2
    stale = {}
    for path, edition in [(p, None) for p in paths] + editions(prefixes):
        nb = nbformat.read(path, as_version=4)
        if sync(nb, path.name, edition):
            stale[path] = nb
    names = ", ".join(str(p.relative_to(course_paths.NOTEBOOK_DIR)) for p in stale) or "none"
    if check:
        if stale:
            print(f"out of date (run `make sync`): {names}")
            return 1
        print("stale: none")
        return 0
    refused = refuse_uncommitted(stale)
    if refused:
        print("\n".join(refused))
        return 1
    for path, nb in stale.items():
        nbformat.write(nb, path)
    print(f"updated: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
