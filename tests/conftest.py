"""How `make test` spreads the tests over pytest-xdist's workers (`--dist loadscope`).

loadscope runs the tests of one module (or class) on one worker, in order: module fixtures start
once, and nbval runs a notebook's cells in order in one kernel. The modules in SPREAD are the
exception: each of their tests runs whole notebooks in processes of its own, and together they
are the longest part of the suite, so each test goes to whichever worker is free.
"""

SPREAD = {"tests/test_portability.py", "tests/test_busy_machine.py", "tests/test_exercises.py"}


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SpreadSome(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            if nodeid.split("::")[0] in SPREAD:
                return nodeid
            return super()._split_scope(nodeid)

    return SpreadSome(config, log)
