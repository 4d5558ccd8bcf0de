"""Find the course's data files, in a checkout or in an installed wheel.

In a checkout they live in `data/` at the top of the repository; the wheel
ships the same files as `helpers/_data/`. Notebooks call `data_path(name)` and
never build a path relative to the repository.
"""

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir():
    """The folder holding the course's data files."""
    candidates = [_PACKAGE_DIR / "_data", _PACKAGE_DIR.parent / "data"]
    for folder in candidates:
        if folder.is_dir() and any(folder.iterdir()):
            return folder
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"the course's data folder was not found (looked in: {tried})")


def data_path(name):
    """Path of data file `name` (e.g. 'configs/gpt2.json'); a clear error if it is missing."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty file name, got {name!r}")
    path = data_dir() / name
    if not path.is_file():
        available = ", ".join(list_data()) or "none"
        raise FileNotFoundError(f"no data file {name!r}; available: {available}")
    return path


def list_data():
    """Names of all data files, relative to the data folder."""
    root = data_dir()
    return sorted(
        str(p.relative_to(root)).replace("\\", "/")
        for p in root.rglob("*")
        if p.is_file() and p.name != "__init__.py" and "__pycache__" not in p.parts
    )
