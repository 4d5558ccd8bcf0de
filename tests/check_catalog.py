"""Every exercise check of the course, found in helpers/checks, with a right answer for each.

Checks are found by type (the `Check`, `ModuleCheck` and `Prediction` instances a module
defines) and by name (its public `check_*` functions). The right answers are the notebooks'
worked solutions: each notebook's solutions run in a namespace of their own, statement by
statement (the check call itself is skipped, and so is a statement that needs the
notebook's earlier cells). The call `checks.NAME(...)` in a solution, or in the notebook
for a prediction, says which check takes which answer.
"""

import ast
import importlib
import inspect
import linecache
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import nbformat
import numpy as np
import scipy.special
import torch
import torch.nn.functional as F
from exercise_cells import defined_names, exercises
from torch import nn

from helpers.checks import Check, ModuleCheck, Prediction

ROOT = Path(__file__).resolve().parent.parent
# A notebook's checks: one module, or a package whose __init__ gathers its submodules' checks.
CHECK_MODULES = sorted(p.stem for p in (ROOT / "helpers" / "checks").glob("nb[0-9][0-9]_*")
                       if p.suffix == ".py" or (p / "__init__.py").exists())

# Names a solution takes from the notebook's earlier cells.
EARLIER_CELLS = {"09_decode_bandwidth": {"big": {"n_weights": 2 * 2048 * 8192}},   # the 128 MiB FFN
                 "13_real_gpt2": {"real": False}}                     # the offline tiny GPT-2


@dataclass
class Entry:
    """One check: where it lives, what it is, and the arguments that make it say [correct]."""

    module: str         # nb03_ffn_forward
    name: str           # check_mlp
    check: object       # the Check, ModuleCheck, Prediction or function
    kind: str           # "function", "module" or "prediction"
    right: tuple        # the arguments of a correct call

    @property
    def id(self):
        return f"{self.module}.{self.name}"


def notebook_path(module):
    return ROOT / "notebooks" / (module.removeprefix("nb") + ".ipynb")


def _check_calls(tree):
    """[(check name, [argument expressions])] for every checks.NAME(...) call in a syntax tree."""
    calls = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "checks"):
            calls.append((node.func.attr, node.args))
    return calls


def _is_check_call(statement):
    return isinstance(statement, ast.Expr) and bool(_check_calls(statement))


@cache
def solved(module):
    """(namespace after running the notebook's solutions, {check name: argument names}, prediction names)."""
    checks = importlib.import_module(f"helpers.checks.{module}")
    nb = nbformat.read(notebook_path(module), as_version=4)
    namespace = {"np": np, "torch": torch, "nn": nn, "F": F, "math": math, "scipy": scipy, "checks": checks,
                 **EARLIER_CELLS.get(module.removeprefix("nb"), {})}
    # The notebook's own imports and the functions its cells define (a solution may call them);
    # the exercise cells' stubs are left out, so that a solution's own definitions count.
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code" or "setup" in tags or any(t.startswith("exercise") for t in tags):
            continue
        for statement in ast.parse(cell.source).body:
            if isinstance(statement, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
                try:
                    exec(compile(ast.Module([statement], []), "<notebook cells>", "exec"), namespace)  # noqa: S102
                except NameError:   # a default argument from a cell that is not run here
                    pass
    calls, guesses = {}, set()
    for exercise in exercises(nb):
        if exercise.kind == "predict":
            guesses |= defined_names(exercise.solution)
        filename = f"<{module} solution {exercise.number}>"   # registered, so that inspect.getsource works
        linecache.cache[filename] = (len(exercise.solution), None, exercise.solution.splitlines(True), filename)
        for statement in ast.parse(exercise.solution).body:
            if _is_check_call(statement):
                continue
            try:
                exec(compile(ast.Module([statement], []), filename, "exec"), namespace)  # noqa: S102
            except NameError:   # it needs a cell of the notebook that is not run here
                pass
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for name, args in _check_calls(tree):
            if name.startswith("check_"):
                calls.setdefault(name, [a.id if isinstance(a, ast.Name) else None for a in args])
    return namespace, calls, guesses


def discover(module):
    """[(name, object)]: the public Check, ModuleCheck and Prediction instances and check_* functions."""
    checks = importlib.import_module(f"helpers.checks.{module}")
    found = []
    for name, obj in vars(checks).items():
        if name.startswith("_"):
            continue
        if isinstance(obj, (Check, ModuleCheck, Prediction)):
            found.append((name, obj))
        elif name.startswith("check_") and inspect.isfunction(obj) \
                and f"{obj.__module__}.".startswith(f"{checks.__name__}."):   # the package's own
            found.append((name, obj))
    return found


def _kind(check, args, guesses, right):
    if isinstance(check, Prediction) or (args and args[0] in guesses):
        return "prediction"
    if isinstance(check, ModuleCheck) or (right and all(isinstance(a, type) and issubclass(a, nn.Module)
                                                        for a in right)):
        return "module"
    return "function"


def entries(module):
    """Every check of one helpers.checks module, with its right answer (None where none was found)."""
    namespace, calls, guesses = solved(module)
    found = []
    for name, check in discover(module):
        args = calls.get(name)
        right = None
        if args and args[0] in guesses:            # a prediction: the solution's guess is the answer
            guess = namespace.get(args[0])
            right = None if guess is None else (guess, guess)
        elif args and all(a in namespace for a in args):
            right = tuple(namespace[a] for a in args)
        elif isinstance(check, Check):               # used inside another check: its reference is right
            right = (check.reference,)
        kind = _kind(check, args, guesses, right)
        found.append(Entry(module, name, check, kind, right))
    return found


@cache
def all_entries():
    return [e for module in CHECK_MODULES for e in entries(module)]
