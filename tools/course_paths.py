"""Where the course's files are, worked out once for every tool and test.

The repository root, the numbered notebooks, what pyproject.toml says about the
package, the version of helpers (defined once, in helpers/__init__.py), and
whether a notebook holds changes that git does not have yet.

    python tools/course_paths.py              # the English notebooks, one a line (what nbval runs)
    python tools/course_paths.py --editions   # and each edition's (notebooks/ko/...) after them
"""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
# A course notebook is named NN_name.ipynb. JupyterLab's copies (03_ffn_forward-Copy1.ipynb),
# Untitled.ipynb and checkpoints do not match, so no tool runs or rewrites them.
NOTEBOOK_NAME = re.compile(r"[0-9]{2}_[a-z0-9_]+\.ipynb")


def check_modules():
    """The notebooks' check modules by name (nb03_ffn_forward, ...), in order: a module
    helpers/checks/nbNN_name.py, or a package helpers/checks/nbNN_name/ whose __init__.py imports
    the checks from its submodules."""
    checks = ROOT / "helpers" / "checks"
    return sorted(p.name.removesuffix(".py") for p in checks.glob("nb[0-9][0-9]_*")
                  if p.suffix == ".py" or (p / "__init__.py").is_file())


def check_files(name):
    """The source files of check module `name` (nb03_ffn_forward): its .py file, or every .py file
    of its package, __init__.py first."""
    checks = ROOT / "helpers" / "checks"
    if (checks / f"{name}.py").is_file():
        return [checks / f"{name}.py"]
    files = sorted((checks / name).glob("*.py"))
    return sorted(files, key=lambda p: p.name != "__init__.py")


def is_course_notebook(path):
    """True for NN_name.ipynb, False for a copy or any other file name."""
    return NOTEBOOK_NAME.fullmatch(Path(path).name) is not None


def notebook_paths(prefixes=(), folder=NOTEBOOK_DIR):
    """The numbered notebooks in `folder` (not its subfolders), in order; only those starting
    with a prefix if given. A prefix of one digit names one notebook: "3" is 03."""
    paths = sorted(p for p in Path(folder).glob("*.ipynb") if is_course_notebook(p))
    if prefixes:
        wanted = tuple(p.zfill(2) if p.isdigit() else p for p in prefixes)
        paths = [p for p in paths if p.name.startswith(wanted)]
    return paths


def all_notebook_paths(prefixes=()):
    """The numbered notebooks and those of each edition in a subfolder (notebooks/ko/...)."""
    editions = sorted(d for d in NOTEBOOK_DIR.iterdir() if d.is_dir() and not d.name.startswith("."))
    return notebook_paths(prefixes) + [p for d in editions for p in notebook_paths(prefixes, d)]


def uncommitted(path):
    """git's status of `path` in two letters ("M ", "??", ...), "" if it matches the last commit,
    or a sentence when git cannot say (not a checkout, no git)."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--", str(path)], cwd=ROOT,
                              capture_output=True, text=True)
    except FileNotFoundError:
        return "git is not installed, so its changes cannot be told"
    if done.returncode != 0:
        return "this is not a git checkout, so its changes cannot be told"
    return done.stdout[:2]


def refuse_uncommitted(paths):
    """One line for each notebook in `paths` that has uncommitted changes (none with FORCE=1)."""
    if os.environ.get("FORCE") == "1":
        return []
    lines = []
    for path in paths:
        status = uncommitted(path)
        if status:
            why = f"git status {status.strip()}" if len(status) == 2 else status
            lines.append(f"{Path(path).relative_to(ROOT)} is left as it is: it has changes that are "
                         f"not committed ({why}). Commit them, discard them with `make reset "
                         f"NB={Path(path).name[:2]}`, or set FORCE=1 to rewrite it anyway.")
    return lines


def project():
    """pyproject.toml's [project] table."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
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


if __name__ == "__main__":
    for path in all_notebook_paths() if "--editions" in sys.argv[1:] else notebook_paths():
        print(path.relative_to(ROOT))
    sys.exit(0)
