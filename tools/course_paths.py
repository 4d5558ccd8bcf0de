"""Where the course's files are, worked out once for every tool and test.

The repository root, the numbered notebooks, what pyproject.toml says about the
package, and the version of helpers (defined once, in helpers/__init__.py).
"""

import re
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"


def notebook_paths(prefixes=()):
    """The numbered notebooks (NN_*.ipynb), in order; only those starting with a prefix if given."""
    paths = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
    if prefixes:
        paths = [p for p in paths if p.name.startswith(tuple(prefixes))]
    return paths


def project():
    """pyproject.toml's [project] table."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def repo_url():
    """https://github.com/OWNER/REPO, from [project.urls] Repository."""
    return project()["urls"]["Repository"].rstrip("/")


def version():
    """helpers.__version__ as written in this checkout (read, not imported)."""
    text = (ROOT / "helpers" / "__init__.py").read_text()
    found = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    if found is None:
        raise ValueError("helpers/__init__.py has no line __version__ = \"X.Y.Z\"")
    return found.group(1)
