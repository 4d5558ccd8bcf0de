"""The notebook setup: check the install, seed everything, pick the device, say which one.

Every notebook's setup cell installs the course package in Colab, imports this module and calls
`start(VERSION)`. This module imports only the standard library at the top, so that it loads
even from a half-finished install and can say what is wrong with it.
"""

import importlib
import random
import subprocess
import sys
from importlib import metadata
from pathlib import Path

SEED = 0
PACKAGE = "inside-transformer-mlp"


class SetupError(Exception):
    """A setup problem, shown as its sentences (what went wrong, what to do) without a traceback."""

    def _render_traceback_(self):  # Jupyter and Colab show these lines instead of a traceback
        return str(self).splitlines()


def _said(template, language, **values):
    """A setup sentence in the notebook's language (helpers.language: the standard library alone, so
    it speaks even from a half-finished install); in English if its catalog cannot load."""
    try:
        from helpers.language import say, translate

        return translate(say(template, **values), language)
    except (ImportError, OSError):   # the package itself is what is broken: say it in English
        return template.format(**values)


def start(version, language="en", package=PACKAGE):
    """The setup cell's last step: the course package at `version`, whole; then `setup_notebook`.

    Stops with a SetupError, in `language`, when the kernel has another version or an install
    that does not import (in Colab it reinstalls a half-finished install once first).
    """
    import helpers

    if not isinstance(version, str):
        raise TypeError("version must be the notebook's version as a string such as '0.1.0', got "
                        f"{version!r}")
    pin = f"{package}=={version}"
    if helpers.__version__ != version:
        raise SetupError(_said(
            "This notebook needs the course package {wanted}; this kernel has {found}.\n"
            "Run `pip install {pin}` (in a clone of the course: `pip install -e .`), then restart "
            "the kernel.", language, wanted=version, found=helpers.__version__, pin=pin))
    problem = _import_whole(package, pin)
    if problem is not None:
        culprit = getattr(problem, "name", None) or "helpers"
        fix = pin if culprit.startswith("helpers") else culprit.split(".")[0]
        raise SetupError(_said(
            "The course package {version} is installed but does not import: {problem}.\n"
            "Run `pip install --force-reinstall --no-deps {fix}`, then restart the kernel.",
            language, version=version, problem=str(problem).rstrip("."), fix=fix))
    return importlib.import_module("helpers.setup").setup_notebook(language=language)


def _import_whole(package, pin):
    """None if every part of the course imports; else the problem. In Colab a half-finished install
    is reinstalled once (pip's --force-reinstall --no-deps) and imported afresh."""
    for attempt in range(2):
        try:
            check_install(package)
            for part in ("helpers.plots", "helpers.device", "helpers.checks", "helpers.language"):
                importlib.import_module(part)
            return None
        except Exception as error:
            problem = error
        if attempt or "google.colab" not in sys.modules or subprocess.run(
                [sys.executable, "-m", "pip", "install", "-vv", "--force-reinstall", "--no-deps",
                 pin],
                capture_output=True).returncode:
            return problem
        for name in [name for name in sys.modules if name.split(".")[0] == "helpers"]:
            del sys.modules[name]  # import the reinstalled files afresh
        importlib.invalidate_caches()
    return problem


def seed_everything(seed=SEED):
    """Seed Python, numpy and torch (CPU and GPU)."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def versions():
    """One line of the versions in use."""
    import matplotlib
    import numpy as np
    import scipy
    import torch

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
    from helpers import language as course_language
    from helpers import plots
    from helpers.device import describe_device, pick_device
    from helpers.language import said

    course_language.use(language)
    seed_everything(seed)
    plots.use_course_style()
    if language == "ko":
        plots.use_hangul_font()   # Korean titles, labels and legends
    _sharp_inline_figures()
    dev = pick_device(device)
    print(said("Device: {device}", device=describe_device(dev)))
    print(said("Versions: {versions}", versions=versions()))
    return dev
