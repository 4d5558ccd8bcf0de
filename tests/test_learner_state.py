"""No check and no demo changes the learner's state.

A learner's next `torch.randn` gives the same numbers whether or not a check or a demo
ran in between, and torch keeps the learner's default dtype, thread count and grad mode.
Tested three ways, each naming the module that changed what:
- importing every module of helpers.checks and helpers.demos in a fresh interpreter that has
  loaded no helper yet (this file is not imported there: collecting it loads every check), and
  each notebook's check module alone, first thing, as its notebook's setup cell does;
- calling every check (not attempted, a wrong answer, the right answer);
- making every demo and redrawing it at its SAMPLE values.

The state is snapshotted here, independently of helpers.checks.state, and set to values
no helper would choose (a seed of 1234, three threads) so that a helper that sets its
own is seen.
"""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LEARNER_THREADS = 3


def learner_state():
    """The learner's global state: a seed, a thread count, a dtype and a grad mode no helper would pick."""
    torch.manual_seed(1234)
    np.random.seed(1234)
    random.seed(1234)
    torch.set_num_threads(LEARNER_THREADS)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


def snapshot():
    state = {
        "torch's random state (CPU)": torch.get_rng_state().tolist(),
        "numpy's global random state": [np.random.get_state()[1].tolist(), *np.random.get_state()[2:]],
        "Python's random state": list(random.getstate()[1]),
        "torch's default dtype": str(torch.get_default_dtype()),
        "torch's thread count": torch.get_num_threads(),
        "torch's grad mode": torch.is_grad_enabled(),
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["torch's random state (CUDA)"] = [s.tolist() for s in torch.cuda.get_rng_state_all()]
    return state


def changed(before, after):
    return [what for what in before if before[what] != after.get(what)]


def helper_modules():
    """Every module of helpers.checks and helpers.demos, by import name."""
    names = []
    for package in ("checks", "demos"):
        for path in sorted((ROOT / "helpers" / package).glob("*.py")):
            names.append(f"helpers.{package}" if path.stem == "__init__" else f"helpers.{package}.{path.stem}")
    return names


# Run in a fresh interpreter: importing this test file would import every helpers module (the checks'
# table is built at collection), so the imports measured must happen before anything else loads them.
IMPORT_ONE = """
import json, random, sys
import numpy as np, torch
LEARNER_THREADS = {threads}
{functions}
assert not [m for m in sys.modules if m == "helpers" or m.startswith("helpers.")], "a helper is already loaded"
import matplotlib
matplotlib.use("Agg")
learner_state()
report = {{}}
for name in {names!r}:
    before = snapshot()
    __import__(name)
    report[name] = changed(before, snapshot())
    learner_state()
print(json.dumps(report))
"""


def _import_script(names):
    """The script a fresh interpreter runs: this file's learner_state, snapshot and changed, then the imports."""
    import inspect

    functions = "\n".join(inspect.getsource(f) for f in (learner_state, snapshot, changed))
    return IMPORT_ONE.format(threads=LEARNER_THREADS, functions=functions, names=list(names))


def import_report(names, *paths):
    """{module: [what its import changed]}, importing names in turn in a fresh interpreter, helpers untouched
    before the first (`paths`: where else to find them)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE), *map(str, paths)])}
    code = _import_script(names)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600,
                         check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_importing_a_check_or_demo_module_changes_nothing():
    """Every module imported in turn in one fresh interpreter, the package first: nothing changes."""
    names = ["helpers", *helper_modules()]
    report = import_report(names)
    assert set(report) == set(names), "every module was imported"
    bad = {name: what for name, what in report.items() if what}
    assert not bad, f"importing these changed the learner's state: {bad}"


CHECK_NOTEBOOK_MODULES = [f"helpers.checks.{p.stem}" for p in sorted((ROOT / "helpers" / "checks").glob("nb*"))
                          if p.suffix == ".py" or (p / "__init__.py").exists()]   # a module or a package

# Each module alone, first thing: one fresh interpreter loads what every notebook's setup cell has
# loaded before a check module (numpy, torch, matplotlib, no helper), then forks a copy of itself
# for each module (where the system can fork), each copy as fresh as a new interpreter would be:
# a second's start instead of torch's import for every module.
IMPORT_EACH_FIRST = """
import json, os, random, sys, traceback
import numpy as np, torch
LEARNER_THREADS = {threads}
{functions}
assert not [m for m in sys.modules if m == "helpers" or m.startswith("helpers.")], "a helper is already loaded"
import matplotlib
matplotlib.use("Agg")
report = {{}}
for name in {names!r}:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            learner_state()
            before = snapshot()
            __import__(name)
            said = {{"changed": changed(before, snapshot())}}
        except BaseException:
            said = {{"error": traceback.format_exc()}}
        os.write(write, json.dumps(said).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = json.loads(pipe.read() or b'{{"error": "the copy that imported it ended without a word"}}')
    os.waitpid(pid, 0)
    if "error" in said:
        sys.exit(f"importing {{name}} raised:\\n{{said['error']}}")
    report[name] = said["changed"]
print(json.dumps(report))
"""


def import_each_first(names, *paths):
    """{module: [what its import changed]}, each of `names` imported first thing (`paths`: where
    else to find them)."""
    if not hasattr(os, "fork"):
        return {name: import_report([name], *paths)[name] for name in names}
    import inspect

    functions = "\n".join(inspect.getsource(f) for f in (learner_state, snapshot, changed))
    code = IMPORT_EACH_FIRST.format(threads=LEARNER_THREADS, functions=functions, names=list(names))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE), *map(str, paths)])}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600,
                         check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def each_imported_first():
    return import_each_first(CHECK_NOTEBOOK_MODULES)


@pytest.mark.parametrize("name", CHECK_NOTEBOOK_MODULES)
def test_importing_one_check_module_first_changes_nothing(name, each_imported_first):
    """A notebook's check module imported first thing in a fresh interpreter, as its notebook's setup cell does:
    torch's and numpy's random states, the default dtype, the thread count and the grad mode are as the
    learner left them (an import that builds a module with torch's default init draws from the learner's
    generator)."""
    changes = each_imported_first[name]
    assert not changes, f"importing {name} changed the learner's state: {changes}"


def test_the_import_reports_see_a_module_that_draws(tmp_path):
    """The import tests can fail: a module that draws from torch's generator at import is reported, in
    turn after others and first thing alone."""
    (tmp_path / "draws_at_import.py").write_text("import torch\ntorch.nn.Linear(3, 4)\n")
    (tmp_path / "draws_nothing.py").write_text("import torch\n")
    drawn = ["torch's random state (CPU)"]
    assert import_report(["draws_nothing", "draws_at_import"], tmp_path)["draws_at_import"] == drawn
    assert import_each_first(["draws_nothing", "draws_at_import"], tmp_path) == {"draws_nothing": [],
                                                                                  "draws_at_import": drawn}


@pytest.fixture
def learner():
    """The learner's state before each test; torch's own settings put back after it."""
    threads = torch.get_num_threads()
    learner_state()
    yield
    torch.set_num_threads(threads)


# ---- checks ---------------------------------------------------------------------------------------


def _entries():
    from check_catalog import all_entries
    return all_entries()


def _wrong_module(solution):
    class Twice(solution):
        def forward(self, x):
            return 2 * super().forward(x)
    return Twice


def _wrong_guess(entry, guess):
    choices = getattr(entry.check, "choices", None)
    if choices is not None:
        return next(c for c in choices if c != guess)
    if isinstance(guess, list):
        return guess[:1]
    return 3 * guess + 1


def _stub(*args):
    """The exercise's stub."""
    return None


def calls(entry):
    """(what, arguments) for the untouched stub, a wrong answer and the right one."""
    if entry.kind == "prediction":
        guess, actual = entry.right
        return [("not attempted", (None, actual)), ("wrong", (_wrong_guess(entry, guess), actual)),
                ("right", entry.right)]
    if entry.kind == "module":
        (solution,) = entry.right
        return [("not attempted", (None,)), ("wrong", (_wrong_module(solution),)), ("right", entry.right)]

    def learner(fn, answer):
        return answer if callable(fn) and not isinstance(fn, type) else fn

    if any(isinstance(a, type) for a in entry.right):   # a class answer (an autograd.Function): None is its stub
        return [("not attempted", tuple(None if isinstance(a, type) else learner(a, _stub) for a in entry.right)),
                ("right", entry.right)]
    return [("not attempted", tuple(learner(a, _stub) for a in entry.right)),
            ("wrong", tuple(learner(a, lambda *args: 7919) for a in entry.right)),
            ("right", entry.right)]


@pytest.mark.parametrize("module", sorted({e.module for e in _entries()}))
def test_calling_a_check_changes_nothing(module, learner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COURSE_RECORD", "1")   # each verdict recorded too, as in a learner's notebook
    for entry in [e for e in _entries() if e.module == module]:
        for what, args in calls(entry):
            before = snapshot()
            fb = entry.check(*args)
            after = snapshot()
            assert not changed(before, after), \
                f"{entry.id} with {what} answer changed {changed(before, after)}"
            expected = {"not attempted": "not attempted", "right": "correct"}.get(what, "wrong")
            assert fb.status == expected, f"{entry.id} with the {what} answer: {fb}"
    assert (tmp_path / "course-progress.jsonl").stat().st_size, "the verdicts were recorded"


# ---- demos ----------------------------------------------------------------------------------------


def _demo_names():
    from helpers import demos
    return list(demos.DEMOS)


@pytest.mark.parametrize("name", _demo_names())
def test_making_and_redrawing_a_demo_changes_nothing(name, learner):
    import matplotlib

    matplotlib.use("Agg")
    from helpers import demos

    module = demos.load(name)
    before = snapshot()
    demo = module.make()
    after_make = snapshot()
    assert not changed(before, after_make), f"{module.__name__}.make() changed {changed(before, after_make)}"
    demo.render(**module.SAMPLE)
    after_redraw = snapshot()
    assert not changed(before, after_redraw), \
        f"{module.__name__}: a redraw at SAMPLE changed {changed(before, after_redraw)}"


def test_the_snapshot_sees_each_change(learner):
    """The test above can fail: each kind of change a helper could make shows in the snapshot."""
    learner_state()
    for what, change in [("torch's random state (CPU)", lambda: torch.manual_seed(0)),
                         ("torch's random state (CPU)", lambda: torch.randn(1)),
                         ("numpy's global random state", lambda: np.random.rand()),
                         ("Python's random state", lambda: random.random()),
                         ("torch's default dtype", lambda: torch.set_default_dtype(torch.float64)),
                         ("torch's thread count", lambda: torch.set_num_threads(1)),
                         ("torch's grad mode", lambda: torch.set_grad_enabled(False))]:
        before = snapshot()
        change()
        assert what in changed(before, snapshot()), what
        learner_state()
