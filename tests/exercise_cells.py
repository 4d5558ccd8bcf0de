"""Reading a notebook's exercises: headings, the learner's cells, hints and solutions.

The convention (docs/AUTHORING.md):
- a markdown heading `### Exercise N (core): ...` or `(stretch)`, with hints in
  collapsed `<details><summary>Hint 1</summary>` blocks;
- the learner's code cell, tagged `exercise-N` plus `build` or `predict`;
- in `## Solutions`, a collapsed `<details><summary>Solution to exercise N</summary>`
  block holding one ```python block: the learner's cell, filled in.
"""

import ast
import re
from dataclasses import dataclass

HEADING = re.compile(r"^### Exercise (\d+) \((core|stretch)(?:, [^)]*)?\): \S", re.M)
SOLUTION = re.compile(
    r"<details>\s*<summary>[^<]*Solution to exercise (\d+)[^<]*</summary>\s*```python\n(.*?)```\s*</details>",
    re.S)
HINT = re.compile(r"<details>\s*<summary>[^<]*Hint", re.S)
FEEDBACK = re.compile(r"^\[(correct|not yet|not attempted yet)\] Exercise (\d+)\b", re.M)


@dataclass
class Exercise:
    number: int
    level: str          # core or stretch
    heading: str        # the markdown cell's source
    cell_index: int     # index of the learner's code cell in nb.cells
    kind: str           # build, predict or other
    solution: str       # the solution's code ("" if missing)


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def exercises(nb):
    """The notebook's exercises in order; raises AssertionError when the convention is broken."""
    headings = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for m in HEADING.finditer(cell.source):
                headings[int(m.group(1))] = (m.group(2), cell.source)
    solutions = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for m in SOLUTION.finditer(cell.source):
                solutions[int(m.group(1))] = m.group(2)
    found = []
    for i, cell in enumerate(nb.cells):
        numbers = [int(t.split("-")[1]) for t in tags(cell) if re.fullmatch(r"exercise-\d+", t)]
        if cell.cell_type != "code" or not numbers:
            continue
        (n,) = numbers
        assert n in headings, f"cell {i} is tagged exercise-{n} but no '### Exercise {n} (core|stretch): ...' heading"
        kind = next((k for k in ("build", "predict") if k in tags(cell)), "other")
        level, heading = headings[n]
        found.append(Exercise(n, level, heading, i, kind, solutions.get(n, "")))
    return found


def defined_names(source):
    """Names a cell defines at its top level: functions, classes and assigned variables."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def output_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
    return "".join(parts)


def feedback(nb):
    """[(status, exercise number)] for every check line the notebook's outputs hold."""
    lines = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            lines += [(m.group(1), int(m.group(2))) for m in FEEDBACK.finditer(output_text(cell))]
    return lines
