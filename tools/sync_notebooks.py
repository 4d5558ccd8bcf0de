"""Write the Open-in-Colab badge and the shared setup cell into every notebook.

The repository URL is defined once, in pyproject.toml's [project.urls]; this
script derives the badge links and the Colab install line from it.

    python tools/sync_notebooks.py          # rewrite notebooks in place
    python tools/sync_notebooks.py --check  # exit 1 if any notebook is out of date
"""

import re
import sys
from pathlib import Path

import nbformat

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
BADGE_RE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)")
SETUP_TAG = "setup"


def project():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def repo_url():
    """https://github.com/OWNER/REPO, from [project.urls] Repository."""
    return project()["urls"]["Repository"].rstrip("/")


def badge(notebook_name):
    """The markdown badge that opens this notebook in Colab."""
    owner_repo = repo_url().removeprefix("https://github.com/")
    link = f"https://colab.research.google.com/github/{owner_repo}/blob/main/notebooks/{notebook_name}"
    return f"[![Open In Colab]({BADGE_IMAGE})]({link})"


def setup_cell_source():
    """The setup cell, identical in every notebook."""
    spec = f"{project()['name']} @ git+{repo_url()}"
    return (
        "# Setup (the same in every notebook). In Colab it installs the course package first.\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        "    import subprocess\n"
        "\n"
        f'    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "{spec}"], check=True)\n'
        "\n"
        "import helpers\n"
        "\n"
        "device = helpers.setup_notebook()"
    )


def notebook_paths():
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


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
