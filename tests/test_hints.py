"""Hints nudge, they never solve: a first hint points at the idea, a second names the next step
as a question or a fact to use. No hint holds a code block, a code statement or the formula the
check wants; a learner who needs more opens the Solutions section (docs/AUTHORING.md)."""

import ast
import re

import nbformat
import pytest
from exercise_cells import HEADING

from course_paths import notebook_paths

NOTEBOOKS = notebook_paths()
HINTS = re.compile(r"<details>\s*<summary>\s*Hint (\d)\s*</summary>(.*?)</details>", re.S)
INLINE = re.compile(r"`([^`\n]+)`")
STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.With, ast.Return,
              ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Try, ast.If)

# What a check wants, written as a learner would copy it: a hint that holds one of these gives the
# answer away. Keyed by notebook number and exercise number.
ANSWERS = {
    ("02", 3): ["all(dim=0)", ".all(0)"],
    ("03", 2): ["nn.Parameter(torch"],
    ("03", 3): ["zero_grad()"],
    ("05", 3): ["chunk(2", "F.silu(g) * u", "silu(gate) * up"],
    ("05", 6): ["a.T @ dy", "dy @ W.T", "sigmoid(z) · (1 + z", "dh times the other factor"],
    ("06", 1): ["what is left of the 37.6B"],
    ("08", 1): ["|a + b|² = |a|² + |b|²"],
    ("08", 2): ["torch.ones(d_model)", "root mean square of each token"],
    ("08", 3): ["with a comprehension"],
    ("09", 3): ["= N · bytes / bandwidth", "2 · N · B / peak = "],
    ("10", 2): ["r*w:(r+1)*w", "all_reduce(h @ W_down)"],
    ("10", 3): ["(r - s) % N", "(r + 1) % N"],
    ("11", 3): ["repeat_interleave(k)", "order.split(counts)"],
    ("11", 4): ["cumsum(0)", "1-based place"],
    ("12", 1): ["clone `output`", "set the chosen entries"],
    ("12", 4): ["linalg.solve(A, K)"],
    ("13", 1): ["each weight goes in transposed"],
    ("13", 3): ["(never `clean`)"],
}


def exercise_hints(path):
    """(exercise number, {hint number: text}) for each exercise heading of a notebook."""
    nb = nbformat.read(path, as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        heading = HEADING.search(cell.source)
        if heading:
            found.append((int(heading.group(1)), {int(n): text.strip() for n, text in HINTS.findall(cell.source)}))
    return found


def code_statement(span):
    """Why an inline code span is code a learner could paste, or None when it only names a thing."""
    try:
        tree = ast.parse(span.strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, STATEMENTS):
            return "a statement"
        if isinstance(node, ast.Call):
            args = [*node.args, *(k.value for k in node.keywords)]
            if any(not (isinstance(a, ast.Constant) and a.value is Ellipsis) for a in args):
                return "a call with its arguments"
        if isinstance(node, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
            return "a comprehension"
    return None


def problems(number, exercise, hints):
    where = f"notebook {number} exercise {exercise}"
    found = []
    if sorted(hints) != [1, 2]:
        found.append(f"{where}: has hints {sorted(hints)}; give exactly a Hint 1 and a Hint 2")
    for n, text in sorted(hints.items()):
        if "```" in text or "<pre" in text or re.search(r"^( {4}|\t)\S", text, re.M):
            found.append(f"{where} hint {n}: holds a code block")
        for span in INLINE.findall(text):
            why = code_statement(span)
            if why:
                found.append(f"{where} hint {n}: `{span}` is {why}; name the idea, not the code")
        for answer in ANSWERS.get((number, exercise), []):
            if answer.lower() in text.lower():
                found.append(f"{where} hint {n}: gives what the check wants ({answer!r})")
    if 2 in hints and "?" not in hints[2]:
        found.append(f"{where} hint 2: asks nothing; name the next step as a question")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_hints_nudge(path):
    hints = exercise_hints(path)
    assert hints, f"{path.name}: no exercise headings found"
    number = path.name[:2]
    found = [p for exercise, h in hints for p in problems(number, exercise, h)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("hint, why", [
    ("Evaluate `gelu(np.array([-1.0, -0.5]))` and compare.", "a call with its arguments"),
    ("Then `h = F.silu(g) * u`: is that all?", "a statement"),
    ("Print `{k: v.shape for k, v in sd.items()}`: which axis?", "a comprehension"),
    ("```python\nx = 1\n```\nWhich one?", "a code block"),
    ("Use a comprehension:\n\n    blocks = [B() for _ in range(n)]\n\nWhich one?", "a code block"),
    ("Split the 46.7B in two.", "asks nothing"),
])
def test_a_hint_that_solves_is_named(hint, why):
    found = problems("99", 1, {1: "Which parts?", 2: hint})
    assert any(why in p for p in found), found


def test_a_hint_that_nudges_passes():
    hint = ("`nn.Linear` stores (out, in) and `gelu(...)` takes an array: which axis holds the "
            "outputs, and what does `W[:, j]` pick?")
    assert problems("99", 1, {1: "Which parts does every token use?", 2: hint}) == []


def test_the_checked_answer_is_named():
    found = problems("05", 6, {1: "Walk backwards.", 2: "dW = a.T @ dy: and the rest?"})
    assert any("gives what the check wants" in p for p in found), found
