"""No prediction's answer is shown before the learner has committed to a guess.

Every English notebook's `predict` exercises are found (the code cell tagged `predict`, the
first later code cell that passes its guess to a check), and the answer is read from the
worked solution (the `my_..._guess = VALUE` line in `## Solutions`, evaluated). Then, in the
stored notebook (Colab opens it with its outputs):

1. the cells between the predict cell and its check have no stored output that holds the
   answer in any form it is printed in (every number within the prediction's own tolerance of
   it, a fraction as a percent, a list's items in order, a choice's words);
2. nothing a learner has read before the check states the answer: every earlier cell's markdown,
   code (its comments and strings: the numbers in code are its parameters), stored text output and
   figure alt text, from the notebook's first cell down to the check (the worked solutions, below
   it, are not read). From the exercise's heading down, any statement of the answer counts; above
   the heading, one in a line or sentence that names what the question asks about (a word of the
   exercise's title or of the predict cell's comment: "bytes", "units"), so that the notebook's
   other numbers (a share of units off that happens to be 50%) are not taken for the answer. This
   holds when the answer is a number that is not a small whole number and not one of listed choices
   (those the question itself must name), and above the heading not in the output of a timing cell
   (tagged nbval-ignore-output: a measured number that changes from run to run, which may meet the
   answer by chance): a number that rounds to it, written with a decimal point
   or two significant digits or more and precise enough to pass the check as a guess, or its
   percent, or its word ("half"). An answer the check reads as a percent (49.5 for 49.5%) is looked
   for as that percent and as its fraction (0.495, "half");
3. the closing cells of a notebook (its last section before the exercises, the exercises and the
   summary) do not state the next notebook's answers in those forms either (at three significant
   digits, as a percent or a word: the next notebook's own numbers are often the earlier one's).

A small whole number (0 to 16) and a choice are looked for in the outputs between the predict
cell and its check only: elsewhere they are too common to mean the answer.
"""

import ast
import importlib
import io
import math
import re
import sys
import tokenize
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import nbformat
import numpy as np
import pytest
from check_catalog import EARLIER_CELLS
from exercise_cells import HEADING, exercises, output_text, tags

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DEFAULT_REL = 0.1     # a check that keeps its tolerance to itself (a referee function): 10%
SMALL = 16            # whole numbers up to this are too common to look for in prose
WORDS = {0.5: ["half"], 0.25: ["a quarter", "one quarter"], 0.75: ["three quarters"], 1 / 3: ["a third"],
         2 / 3: ["two thirds"], 0.1: ["a tenth"]}
NUMBER = re.compile(r"(?<![\w.])[-+]?\d(?:[\d,]*\d)?(?:\.\d+)?(?:[eE][-+]?\d+)?(%?)")


@dataclass
class Prediction:
    notebook: str       # 04_network_3d
    number: int         # the exercise's number
    predict: int        # index of the predict cell
    check: int          # index of the check cell
    heading: int        # index of the markdown cell with the exercise's heading
    variable: str       # my_off_share
    answer: object      # the worked solution's guess
    rel: float          # the check's tolerance
    choices: tuple | None
    percent: bool = False   # the check reads the answer as a percent (49.5 for 49.5%)
    topic: frozenset = frozenset()   # words of the exercise's title and the predict cell's comment

    @property
    def id(self):
        return f"{self.notebook} ex{self.number}"


def _guess_value(solution, variable, notebook):
    """The value the worked solution assigns to variable, evaluated (names from earlier cells supplied)."""
    namespace = {"math": math, **EARLIER_CELLS.get(notebook, {})}
    for node in ast.parse(solution).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == variable for t in node.targets):
            return eval(compile(ast.Expression(node.value), "<solution>", "eval"), namespace)  # noqa: S307
    raise AssertionError(f"{notebook}: the solution sets no {variable}")


def _check_modules(notebook):
    """The notebook's check module, or its check package and the package's submodules."""
    name = "helpers.checks.nb" + notebook
    importlib.import_module(name)
    return [module for key, module in sorted(sys.modules.items()) if key == name or key.startswith(name + ".")]


def _check_object(notebook, name):
    module = importlib.import_module("helpers.checks.nb" + notebook)
    return getattr(module, name)


GENERIC = {"what", "that", "this", "with", "from", "into", "each", "your", "guess", "write", "number", "percent",
           "share", "many", "much", "most", "least", "about", "there", "their", "them", "then", "than", "when",
           "which", "will", "would", "does", "predict", "exercise", "stretch", "core", "before", "after"}


def _words(text):
    return {w for w in re.findall(r"[a-z_]{4,}", text.lower()) if w not in GENERIC}


def _topic(heading_source, number, predict_source):
    """What the question asks about: the words of the exercise's title and of the predict cell's comments."""
    title = re.search(rf"^### Exercise {number} \([^)]*\): (.*)$", heading_source, re.M).group(1)
    comments = " ".join(tok.string for tok in _tokens(predict_source) if tok.type == tokenize.COMMENT)
    return frozenset(_words(title) | _words(comments))


def _tokens(source):
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []


@cache
def predictions(path):
    nb = nbformat.read(path, as_version=4)
    notebook = path.stem
    found = []
    for ex in exercises(nb):
        if ex.kind != "predict":
            continue
        cell = nb.cells[ex.cell_index]
        variables = {t.id for node in ast.parse(cell.source).body if isinstance(node, ast.Assign)
                     for t in node.targets if isinstance(t, ast.Name)}
        check, variable, name = None, None, None
        for j in range(ex.cell_index + 1, len(nb.cells)):
            if nb.cells[j].cell_type != "code":
                continue
            m = re.search(r"checks\.(\w+)\(\s*(\w+)", nb.cells[j].source)
            if m and m.group(2) in variables:
                check, name, variable = j, m.group(1), m.group(2)
                break
        assert check is not None, f"{notebook} ex{ex.number}: no check cell takes the guess"
        heading = next(i for i in range(ex.cell_index, -1, -1) if nb.cells[i].cell_type == "markdown"
                       and re.search(rf"^### Exercise {ex.number} \(", nb.cells[i].source, re.M))
        checker = _check_object(notebook, name)
        rel = getattr(checker, "rel", None)
        choices = getattr(checker, "choices", None)
        percent = getattr(checker, "percent", False)
        if choices is None:   # a referee function around a Prediction: its tolerance and choices
            inner = [v for module in _check_modules(notebook) for v in vars(module).values()
                     if hasattr(v, "why") and getattr(v, "variable", None) == variable]
            if inner:
                rel, choices, percent = inner[0].rel, inner[0].choices, getattr(inner[0], "percent", False)
        found.append(Prediction(notebook, ex.number, ex.cell_index, check, heading, variable,
                                _guess_value(ex.solution, variable, notebook),
                                DEFAULT_REL if rel is None else rel, None if choices is None else tuple(choices),
                                bool(percent), _topic(nb.cells[heading].source, ex.number, cell.source)))
    return found


ALL = [p for path in NOTEBOOKS for p in predictions(path)]


def _numbers(text):
    """(value, decimals written, significant digits written, is a percent) for every number in text."""
    for m in NUMBER.finditer(text):
        raw = m.group(0).rstrip("%").lstrip("+")
        digits = raw.replace(",", "").replace("-", "")
        try:
            value = float(digits) * (-1 if raw.startswith("-") else 1)
        except ValueError:
            continue
        mantissa = re.split(r"[eE]", digits)[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        significant = len(mantissa.replace(".", "").lstrip("0"))
        yield value, decimals, significant, bool(m.group(1))


def _is_number(answer):
    return isinstance(answer, (int, float)) and not isinstance(answer, bool)


def _small(answer):
    return _is_number(answer) and float(answer).is_integer() and abs(answer) <= SMALL


def _fractions(answer):
    """The answer's word forms: 0.5 -> "half"."""
    if not _is_number(answer):
        return []
    return [w for value, words in WORDS.items() if math.isclose(answer, value, rel_tol=0.02) for w in words]


def near_forms(text, answer, rel):
    """The answer's forms in text, loosely: any number within rel of it (a fraction's percent too), a list's
    items in order, a choice's words. For outputs that should show nothing at all."""
    found = []
    if _is_number(answer):
        for value, _, _, percent in _numbers(text):
            rel_here = 0 if _small(answer) else rel   # a small count is the answer only when it is that count
            for target in ([answer * 100] if percent else [answer]) + ([answer * 100] if 0 < abs(answer) <= 1 else []):
                if math.isclose(value, target, rel_tol=rel_here, abs_tol=1e-12):
                    found.append(f"{value:g}{'%' if percent else ''}")
                    break
        text_lower = text.lower()
        found += [w for w in _fractions(answer) if re.search(rf"\b{w}\b(?!-)", text_lower)]
    elif isinstance(answer, (list, tuple)) and answer:
        items = r"\W{1,3}".join(re.escape(str(a)) for a in answer)
        found += [m.group(0) for m in re.finditer(rf"(?<![\w.]){items}(?![\w.])(?!\s*,\s*\d)", text)]
        if len(answer) > 1:
            listed = ", ".join(str(a) for a in answer[:-1]) + " and " + str(answer[-1])
            found += [listed] if listed in text else []
    elif isinstance(answer, str) and len(answer.strip()) >= 2:
        found += [m.group(0) for m in re.finditer(rf"\b{re.escape(answer.strip())}\b", text, re.I)]
    return found


def exact_forms(text, answer, digits=2, rel=None):
    """The answer's forms in prose: a number that rounds to it (two significant digits or more), its percent,
    its word. Only for a number that is not a small whole number."""
    if not _is_number(answer) or _small(answer):
        return []
    found = []
    for value, decimals, significant, percent in _numbers(text):
        target = 100 * answer if percent else answer
        half_unit = 0.5 * 10 ** -decimals
        precise = rel is None or half_unit <= rel * abs(target) * (1 + 1e-9)   # as a guess it would pass the check
        if (significant >= digits or (decimals >= 1 and digits <= 2)) and precise and abs(value - target) <= half_unit * (1 + 1e-9) + 1e-12 * abs(target):
            found.append(f"{value:g}{'%' if percent else ''}")
    found += [w for w in _fractions(answer) if re.search(rf"\b{w}\b(?!-)", text.lower())]
    return found


def code_prose(source):
    """What a learner reads as words in code: its comments and string literals (not its numbers)."""
    return "\n".join(tok.string for tok in _tokens(source) if tok.type in (tokenize.COMMENT, tokenize.STRING))


def read_text(cell, code=True):
    """What a learner reads of a cell: a markdown cell's text; a code cell's comments and strings, its
    stored text outputs and the alt text of its figures."""
    if cell.cell_type == "markdown":
        return cell.source
    alts = [out.get("metadata", {}).get("image/png", {}).get("alt", "") for out in cell.get("outputs", [])]
    return "\n".join([code_prose(cell.source) if code else "", output_text(cell), *alts])


def stated_forms(text, p):
    """The forms of p's answer that text states (exact_forms, precise enough to pass p's check as a guess);
    for a percent answer, also as a fraction."""
    if p.percent and _is_number(p.answer):
        return (exact_forms(text, p.answer / 100, rel=p.rel)
                + [f for f in exact_forms(text, p.answer, rel=p.rel) if "." in f and not f.endswith("%")])
    return exact_forms(text, p.answer, rel=p.rel)


def on_topic(text, p):
    """The lines and sentences of text that name a word of p's question."""
    pieces = re.split(r"(?<=[.!?])\s+|\n", text)
    return "\n".join(piece for piece in pieces if _words(piece) & p.topic)


def without_progress_times(text):
    """text with the seconds a progress bar took left out ("fitting: 24 of 24 done in 442.01 ms"): a timing
    that happens to fall near a numeric answer does not state it."""
    return re.sub(r"(\bdone in )[\d.,]+ ?(?:ns|us|µs|ms|s|min)\b", r"\1(a time)", text)


def leaks_between(nb, p):
    """[(cell index, forms)] for the outputs of the cells between the predict cell and its check."""
    leaks = []
    for i in range(p.predict + 1, p.check):
        cell = nb.cells[i]
        if cell.cell_type == "code":
            forms = near_forms(without_progress_times(output_text(cell)), p.answer, p.rel)
            if forms:
                leaks.append((i, forms))
    return leaks


def leaks_above(nb, p):
    """[(cell index, forms)] for everything read before the check: every earlier cell's markdown, code
    comments and strings, stored text output and figure alt text, and the check cell's code (its output
    is the verdict); above the exercise's heading, only what names the question's topic."""
    if p.choices is not None:
        return []   # the question names its choices
    leaks = []
    for i in range(p.check + 1):
        cell = nb.cells[i]
        if i == p.check:
            text = code_prose(cell.source)
        elif i < p.heading and "nbval-ignore-output" in tags(cell):
            text = code_prose(cell.source)   # a measured table that changes from run to run states nothing
        else:
            text = read_text(cell)
        forms = stated_forms(text if i >= p.heading else on_topic(text, p), p)
        if forms:
            leaks.append((i, forms))
    return leaks


def closing_cells(nb):
    """The indices of an notebook's closing cells: its last section before the exercises, the exercises and
    the summary (not the solutions)."""
    sections = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and re.match(r"## ", c.source)]
    solutions = next((i for i in sections if re.match(r"## Solutions", nb.cells[i].source)), len(nb.cells))
    exercises_at = next((i for i in sections if re.match(r"## \d+\. Exercises", nb.cells[i].source)), solutions)
    before = [i for i in sections if i < exercises_at]
    start = before[-1] if before else exercises_at
    return range(start, solutions)


@pytest.mark.parametrize("p", ALL, ids=[p.id for p in ALL])
def test_no_output_between_a_prediction_and_its_check_shows_the_answer(p):
    nb = nbformat.read(ROOT / "notebooks" / f"{p.notebook}.ipynb", as_version=4)
    leaks = leaks_between(nb, p)
    assert not leaks, (f"{p.id}: the stored output of cell(s) {leaks} shows the answer {p.answer!r} before the "
                       f"check of {p.variable}: run it after the check, or hold its result back until then")


@pytest.mark.parametrize("p", ALL, ids=[p.id for p in ALL])
def test_nothing_read_before_the_check_states_the_answer(p):
    nb = nbformat.read(ROOT / "notebooks" / f"{p.notebook}.ipynb", as_version=4)
    leaks = leaks_above(nb, p)
    assert not leaks, (f"{p.id}: cell(s) {leaks} state the answer {p.answer!r}{'%' if p.percent else ''} before "
                       "its check (markdown, code, a stored output or a figure's alt text): move it after the check")


@pytest.mark.parametrize("path", NOTEBOOKS[:-1], ids=[p.stem for p in NOTEBOOKS[:-1]])
def test_a_notebooks_closing_cells_answer_no_later_prediction(path):
    nb = nbformat.read(path, as_version=4)
    following = NOTEBOOKS[NOTEBOOKS.index(path) + 1]
    later = [p for p in predictions(following) if p.choices is None]
    leaks = []
    for i in closing_cells(nb):
        cell = nb.cells[i]
        if cell.cell_type == "code" and any(t.startswith("exercise") for t in tags(cell)):
            continue
        text = cell.source if cell.cell_type == "markdown" else output_text(cell)
        if cell.cell_type == "markdown" and HEADING.search(text) is None and "<details>" in text and "Solution" in text:
            continue
        for p in later:
            forms = exact_forms(text, p.answer, digits=3)   # in another notebook: three digits, a percent, a word
            if forms:
                leaks.append((i, p.id, forms))
    assert not leaks, f"{path.stem}: its closing cells state later predictions' answers: {leaks}"


# ---- the finder itself ----------------------------------------------------------------------------


def test_every_prediction_is_found_with_its_answer():
    assert len(ALL) >= 20, [p.id for p in ALL]
    by_id = {p.id: p for p in ALL}
    assert by_id["04_network_3d ex1"].answer == 0.5 and by_id["01_matrix_multiply ex1"].answer == 1
    assert by_id["07_position_wise ex1"].answer == [1, 2, 3]


@pytest.mark.parametrize(("text", "answer", "rel", "found"), [
    ("share off: 0.497", 0.5, 0.25, True),          # a count printed before the check
    ("49.7% of the units are 0", 0.5, 0.25, True),   # as a percent
    ("about half of them", 0.5, 0.25, True),
    ("a half-finished install", 0.5, 0.25, False),
    ("tensor([1, 2, 3])", [1, 2, 3], 0, True),
    ("token 3 sees tokens 1, 2 and 3", [1, 2, 3], 0, True),
    ("[1, 2, 3, 4]", [1, 2, 3], 0, False),
    ("the time per token falls", "falls", 0, True),
    ("12.94 B active", 12.9, 0.05, True),
    ("46.7 B in all", 12.9, 0.05, False),
    ("49,152 bytes", 49152, 0.01, True),
])
def test_the_loose_forms_are_found(text, answer, rel, found):
    assert bool(near_forms(text, answer, rel)) is found, (text, near_forms(text, answer, rel))


@pytest.mark.parametrize(("text", "answer", "found"), [
    ("the stream grows to 10.6", 10.61, True),
    ("it is 11 long", 10.61, True),         # rounded to two digits
    ("10.61", 10.61, True),
    ("10.7", 10.61, False),
    ("a 4.0x ratio", 4.03, True),
    ("with 4 workers", 4.03, False),         # a small whole number in prose is not the answer
    ("batch of 3", 3, False),                # a small answer is not looked for in prose
    ("50% are off", 0.5, True),
    ("0.5", 0.5, True),
    ("5 of 10", 0.5, False),
    ("about half of the units", 0.5, True),
])
def test_the_exact_forms_are_found(text, answer, found):
    assert bool(exact_forms(text, answer)) is found, (text, exact_forms(text, answer))


def test_code_is_read_for_its_words_not_its_numbers():
    prose = code_prose('grid = torch.linspace(0, 0.5, 26)   # about half\nprint("49.5% saved")\n')
    assert "half" in prose and "49.5%" in prose and "0.5" not in prose and "26" not in prose


def test_above_the_heading_only_what_names_the_question_counts():
    p = Prediction("15_x", 3, 0, 0, 0, "my_saving_guess", 49.5, 0.1, None, True, frozenset({"bytes", "unread"}))
    text = "MLP 1: 50% of units off.\nSo at most about half the bytes."
    assert on_topic(text, p) == "So at most about half the bytes."
    assert stated_forms(on_topic(text, p), p) == ["half"]
    assert sorted(stated_forms("a 49.5 share, 0.495 or 50%", p)) == ["0.495", "49.5", "50%"]


def test_a_number_too_coarse_to_pass_the_check_states_nothing():
    assert exact_forms("0.0", 0.013, rel=0.6) == []                 # 0.0 as a guess would fail the check
    assert exact_forms("0.013", 0.013, rel=0.6) == ["0.013"]


# ---- the figures of earlier demos ------------------------------------------------------------------

DEMO_CELL = re.compile(r"from helpers\.demos import (\w+) as (\w+)[\s\S]*?\b\2\.make\(\)")


def _share(p):
    """p's answer as a share between 0 and 1 (a percent answer divided by 100), or None."""
    if not _is_number(p.answer) or p.choices is not None:
        return None
    share = p.answer / 100 if p.percent else p.answer
    return share if 0 < share < 1 else None


def demos_seen_before(p):
    """The demo modules whose stored figure a learner has seen before p's check: those of the notebook
    before p's and those above the check in p's own (a demo made from the notebook's own objects, whose
    make() takes arguments, is left out)."""
    index = [n.stem for n in NOTEBOOKS].index(p.notebook)
    seen = []
    for path in NOTEBOOKS[max(index - 1, 0):index + 1]:
        nb = nbformat.read(path, as_version=4)
        last = p.check if path.stem == p.notebook else len(nb.cells)
        for cell in nb.cells[:last]:
            m = DEMO_CELL.search(cell.source) if cell.cell_type == "code" else None
            if m and any("image/png" in out.get("data", {}) for out in cell.get("outputs", [])):
                seen.append(m.group(1))
    return seen


def shares_shown(fig):
    """The shares a figure lets one read where its values cross 0: for each curve drawn over a share axis
    (x from 0 to 1) whose values rise from below 0 to above it (sorted values), the share below 0."""
    shown = []
    for ax in fig.axes:
        for line in ax.get_lines():
            x, y = (np.asarray(v, dtype=float) for v in line.get_data())
            if (len(x) < 10 or x.min() < -0.01 or x.max() > 1.01 or x.max() - x.min() < 0.9
                    or not np.all(np.diff(y) >= 0) or not y[0] < 0 < y[-1]):
                continue
            shown.append(float(np.interp(0.0, y, x)))
    return shown


SHARES = [p for p in ALL if _share(p) is not None]


@pytest.mark.parametrize("p", SHARES, ids=[p.id for p in SHARES])
def test_no_demo_figure_seen_before_a_share_prediction_shows_the_share(p):
    """A demo's stored figure (its default setting) seen before the check, here or in the notebook before,
    draws no sorted curve over a share axis whose crossing of 0 reads as the answer (03's hidden units,
    sorted, crossing 0 at half of them, answered 04's share of units ReLU switches off)."""
    leaks = []
    for name in demos_seen_before(p):
        module = importlib.import_module(f"helpers.demos.{name}")
        fig = module.make().render()
        leaks += [(name, round(s, 3)) for s in shares_shown(fig)
                  if math.isclose(s, _share(p), rel_tol=p.rel)]
    assert not leaks, (f"{p.id}: the stored figure of {leaks} reads as the answer {p.answer!r} before its check: "
                       "draw it so that the share cannot be read off (or show it after the check)")


def test_a_sorted_curve_over_a_share_axis_shows_its_crossing():
    from matplotlib.figure import Figure
    fig = Figure()
    ax = fig.subplots()
    ax.plot(np.linspace(0, 1, 101), np.linspace(-2, 2, 101))        # sorted: half below 0
    ax.plot(np.linspace(-2, 2, 101), np.linspace(-2, 2, 101))       # an input axis: no share
    assert shares_shown(fig) == [pytest.approx(0.5)]
