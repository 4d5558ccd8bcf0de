"""How `make test` spreads the tests over pytest-xdist's workers (`--dist loadgroup`).

The tests of one module (or class) run on one worker, in order, as with `--dist loadscope`:
module fixtures start once, and nbval runs a notebook's cells in order in one kernel. A module
that sets `SPREAD = True` has each of its tests run on whichever worker is free: each runs whole
notebooks in a process of its own, and together they are the longest part of the suite.
"""

import pytest


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if not getattr(getattr(item, "module", None), "SPREAD", False):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.rsplit("::", 1)[0]))
