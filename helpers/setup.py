"""The notebook setup: seed everything, pick the device, say which one."""

import random
import sys

import numpy as np
import torch

from helpers import plots
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


def setup_notebook(seed=SEED, device=None):
    """Seed, apply the course's plot style, print the device and versions; return the device."""
    seed_everything(seed)
    plots.use_course_style()
    _sharp_inline_figures()
    dev = pick_device(device)
    print(f"Device: {describe_device(dev)}")
    print(f"Versions: {versions()}")
    return dev
