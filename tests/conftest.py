"""How `make test` spreads the tests over pytest-xdist's workers (`--dist loadscope`), and runs
the cells that time something on a busy machine (COURSE_BUSY).

loadscope runs the tests of one module (or class) on one worker, in order: module fixtures start
once, and nbval runs a notebook's cells in order in one kernel. The modules in SPREAD are the
exception: each of their tests runs whole notebooks in processes of its own, and together they
are the longest part of the suite, so each test goes to whichever worker is free. The longest
work starts first (FIRST, then SPREAD's tests), so that no worker is left running a long test
alone at the end while the other has nothing to do; then the modules in LONG, each a minute or
more on one worker (their browser or their processes), so that the many short tests fill the end.
"""

import os

SPREAD = {"tests/test_portability.py", "tests/test_exercises.py"}
FIRST = {"tests/test_colab_install.py"}   # one test of several minutes: the Colab simulation
LONG = {"tests/test_browser.py", "tests/test_slides_offline.py", "tests/test_slides_projector.py",
        "tests/test_widgets_plots.py", "tests/test_launch.py", "tests/test_fused.py"}


def pytest_configure(config):
    """COURSE_BUSY=n (`make test` sets 2): the cells that time something run
    beside n CPU-bound processes (tests/busy_timing.py)."""
    if int(os.environ.get("COURSE_BUSY", "0") or 0) > 0:
        from busy_timing import BusyWhileTiming

        config.pluginmanager.register(BusyWhileTiming(int(os.environ["COURSE_BUSY"])), "busy-while-timing")



def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SpreadSome(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            if nodeid.split("::")[0] in SPREAD:
                return nodeid
            return super()._split_scope(nodeid)

        def _assign_work_unit(self, node):
            # the next unit of work: FIRST's, then SPREAD's, then LONG's, then the rest in
            # loadscope's order
            for group in (FIRST, SPREAD, LONG):
                early = next((scope for scope in self.workqueue if scope.split("::")[0] in group), None)
                if early is not None:
                    self.workqueue.move_to_end(early, last=False)
                    break
            super()._assign_work_unit(node)

    return SpreadSome(config, log)
