"""The notebook setup: seed everything, pick the device, say which one; check the install."""

import random
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import torch

import helpers.plots as plots  # a half install without it says "No module named 'helpers.plots'"
from helpers.device import describe_device, pick_device

SEED = 0


def seed_everything(seed=SEED):
    """Seed Python, numpy and torch (CPU and GPU)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def versions():
    """One line of the versions in use."""
    import matplotlib
    import scipy

    python = ".".join(map(str, sys.version_info[:3]))
    return (
        f"python {python}, torch {torch.__version__}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, matplotlib {matplotlib.__version__}"
    )


def _sharp_inline_figures():
    """Figures shown by matplotlib's own inline backend come out at 2x too (retina)."""
    from IPython import get_ipython

    if get_ipython() is None:
        return
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # an IPython without Jupyter's inline backend
        return
    set_matplotlib_formats("retina")


def check_install(package="inside-transformer-mlp"):
    """Return the helpers package; FileNotFoundError if files of its pip install are missing.

    An interrupted or half-finished pip install leaves some files out while pip still reports
    the package as installed. Only an install that holds this very helpers folder is checked
    (a clone imported from its folder has nothing to check).
    """
    import helpers

    here = Path(helpers.__file__).resolve().parent
    try:
        files = metadata.files(package) or []
    except metadata.PackageNotFoundError:
        return helpers
    located = [Path(f.locate()).resolve() for f in files if "__pycache__" not in f.parts]
    ours = [path for path in located if path.is_relative_to(here)]
    missing = [path.relative_to(here.parent).as_posix() for path in ours if not path.exists()]
    if missing:
        more = f" and {len(missing) - 1} more files are" if len(missing) > 1 else " is"
        raise FileNotFoundError(f"{missing[0]}{more} missing from the install")
    return helpers


def setup_notebook(seed=SEED, device=None, language="en"):
    """Seed, apply the course's plot style, print the device and versions; return the device.

    language: the checks' language, "en" or "ko" (the Korean edition's setup cell passes "ko").
    """
    from helpers.checks import language as check_language

    check_language.use(language)
    seed_everything(seed)
    plots.use_course_style()
    _sharp_inline_figures()
    dev = pick_device(device)
    print(f"Device: {describe_device(dev)}")
    print(f"Versions: {versions()}")
    return dev
