"""Start a new notebook, whole: its skeleton, check and demo modules and test file; its rows in
README.md and README.ko.md, its session plans in docs/INSTRUCTOR.md and docs/INSTRUCTOR.ko.md, its
row in docs/SOURCES.md; then it executes the notebook, sets its slides and the minutes per section,
and adds its Korean entries, untranslated, to the catalogs (`make ko-status` lists them).

    python tools/new_notebook.py my_topic --title "My topic" --posts 1,3     # make new-notebook NAME=my_topic
    python tools/new_notebook.py 14_my_topic                                   # the number given, not the next

The skeleton is the course's anatomy (docs/AUTHORING.md) with placeholder content that runs: a
section with a check, a build exercise and a predict exercise with their checks and solutions, a
live demo, a summary. Replace each placeholder; the files say where, and the tests name each TODO
left and each entry not yet translated, one line each. Every other registry is found from the
files (helpers' modules, the checks and demos by their names, the claims by cell metadata).

It writes nothing until it knows it can: a taken number or file, or a number past 99, is refused
first; if a step fails half way, every file it wrote is removed and every file it changed is put
back, so that the next run starts from the same place.
"""

import argparse
import re
import sys
from pathlib import Path
from textwrap import dedent

import nbformat

import run_notebooks
import section_minutes
import slide_layout
import sync_notebooks
import translations
from course_paths import NOTEBOOK_DIR, ROOT, notebook_paths


def parse_name(name):
    """('14', 'my_topic') from 'my_topic' (the next number) or '14_my_topic'."""
    found = re.fullmatch(r"(?:(\d\d)_)?([a-z][a-z0-9_]*)", name)
    if not found:
        raise SystemExit(f"NAME must be lower_case_with_underscores, optionally after NN_, got {name!r}")
    taken = [int(p.name[:2]) for p in notebook_paths()]
    if found.group(1) is None and max(taken, default=0) >= 99:
        raise SystemExit("notebook 99 exists, and the course's notebooks have two-digit numbers (NN_name): "
                         "no tool would see a notebook 100. Give a free number: NAME=NN_my_topic")
    number = found.group(1) or f"{max(taken, default=0) + 1:02d}"
    if int(number) in taken:
        raise SystemExit(f"notebook {number} exists already: {notebook_paths([number])[0].name}")
    return number, found.group(2)


def md(text, slide=False):
    cell = nbformat.v4.new_markdown_cell(dedent(text).strip())
    if slide:
        cell.metadata["slideshow"] = {"slide_type": "slide"}
    return cell


def code(text, *tags):
    cell = nbformat.v4.new_code_cell(dedent(text).strip())
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def notebook(number, name, title):
    stem = f"nb{number}_{name}"
    return nbformat.v4.new_notebook(cells=[
        md(f"""
            # {number} · {title}

            **What you will learn**
            - TODO: what this notebook shows, one line per idea.

            **You need** TODO: the notebooks that come first. **Time** about 30 minutes.
            """),
        code(sync_notebooks.setup_cell_source(), "setup"),
        md("""
            ## 1. TODO: the first idea

            TODO: a short explanation; then a cell that shows it and a cell that checks it.
            """, slide=True),
        code(f"""
            import torch

            from helpers.checks import {stem} as checks

            layer = torch.nn.Linear(4, 3)
            print(layer)
            """),
        code("""
            assert layer.weight.shape == (3, 4), f"nn.Linear(4, 3) stores (out, in), got {tuple(layer.weight.shape)}"
            print("Checked: nn.Linear(4, 3) stores its weight as (out, in) = (3, 4).")
            """),
        md("""
            ### Exercise 1 (core): TODO, a build exercise

            Write `scale(x, factor)`: x times factor. TODO: the notebook's core computation instead.

            <details><summary>Hint 1</summary>

            TODO: a hint that points.
            </details>
            <details><summary>Hint 2</summary>

            TODO: a hint that nearly tells (not the solution).
            </details>
            """),
        code('''
            def scale(x, factor):
                """x (any shape) times factor."""
                # YOUR CODE HERE
                return None


            checks.check_scale(scale)
            ''', "exercise-1", "build"),
        md("""
            ### Exercise 2 (stretch): TODO, a predict exercise

            How many parameters does `nn.Linear(4, 3)` hold, its bias included? Write a number in
            `my_guess` before you run the cell after it.

            <details><summary>Hint 1</summary>

            TODO: a hint.
            </details>
            """),
        code('my_guess = None   # a number', "exercise-2", "predict"),
        code("""
            count = sum(p.numel() for p in layer.parameters())   # shown after the check
            checks.check_guess(my_guess, count)
            """),
        code("""
            assert count == 3 * 4 + 3, f"3 x 4 weights and 3 biases, got {count}"
            print(f"Checked: nn.Linear(4, 3) holds {count} parameters, 12 weights and 3 biases.")
            """),
        md("""
            ## 2. TODO: the second idea

            TODO: each section opens a slide; a lesson has at least three besides its title and summary.
            """, slide=True),
        md("""
            ## 3. Live demo

            TODO: what the controls change and what to look for. Where widgets cannot run you see the
            default setting.
            """, slide=True),
        code(f"""
            from helpers.demos import {stem} as demo_module

            demo = demo_module.make()
            demo.show()
            """),
        code("""
            assert demo.render(**demo_module.SAMPLE).axes, "the demo draws its figure for the sample setting"
            print("Checked: the demo redraws for", demo_module.SAMPLE)
            """),
        md("""
            ## Summary

            - **Shown:** TODO.
            - **Checked:** TODO.
            - **Next:** TODO.
            """, slide=True),
        md('''
            ## Solutions

            Try the exercises first. Each solution is folded; click to open it. Running the notebook never
            runs a solution, so it never overwrites your work.

            <details><summary>Solution to exercise 1</summary>

            ```python
            def scale(x, factor):
                """x (any shape) times factor."""
                return x * factor


            checks.check_scale(scale)
            ```
            </details>

            <details><summary>Solution to exercise 2</summary>

            ```python
            my_guess = 15   # 3 x 4 weights and 3 biases
            ```
            </details>
            '''),
    ])


CHECKS = '''\
"""Checks for notebook {number}'s exercises (TODO: the notebook's subject).

1. `scale(x, factor)`: TODO, the build exercise.
2. (stretch) A prediction: TODO.
"""

import torch

from helpers.checks.compare import arrays
from helpers.checks.runner import Check, Mistake, Prediction

check_scale = Check(
    "Exercise 1 (TODO)",
    reference=lambda x, factor: x * factor,
    cases=[(torch.arange(6.0).reshape(2, 3), 2.0), (torch.ones(4), -0.5)],
    mistakes=[Mistake("you added factor instead of multiplying by it.", answer=lambda x, factor: x + factor)],
    compare=arrays(atol=1e-12, rtol=1e-12),
    success="x times factor, for every shape tried.",
    name="scale",
)

check_guess = Prediction(
    "Exercise 2 (TODO)",
    why="TODO: why the answer is what it is.",
    rel=0.0,
    variable="my_guess",
)
'''

DEMO = '''\
"""Notebook {number}'s demo: TODO, what it shows. A redraw must take at most 150 ms (make bench)."""

import numpy as np
from ipywidgets import FloatSlider

from helpers.plots import COLORS
from helpers.widgets import LiveFigure

SAMPLE = {{"factor": 1.5}}


def draw(fig, factor):
    ax = fig.subplots()
    x = np.linspace(-3, 3, 200)
    ax.plot(x, factor * x, color=COLORS["mlp"])
    ax.set(xlabel="x", ylabel="factor * x", title=f"A line of slope {{factor:.1f}}")


def make():
    controls = {{"factor": FloatSlider(value=1.0, min=-2.0, max=2.0, step=0.1, description="factor")}}
    return LiveFigure(draw, controls, figsize=(6.0, 3.2), title="TODO: the demo's title")
'''

TEST = '''\
"""Notebook {number}'s checks accept a right answer and name typical mistakes."""

import torch

from helpers.checks import {stem} as checks


def test_not_attempted():
    for fb in [checks.check_scale(None), checks.check_scale(lambda x, f: None), checks.check_guess(None, 15)]:
        assert fb.status == "not attempted" and "Hint" not in str(fb)


def test_right_answers():
    assert checks.check_scale(lambda x, f: x * f)
    assert checks.check_scale(lambda x, f: torch.mul(x, f))
    assert checks.check_guess(15, 15)


def test_mistakes_are_named():
    fb = checks.check_scale(lambda x, f: x + f)
    assert fb.status == "wrong" and "added" in str(fb), fb
    assert checks.check_scale(lambda x, f: x).status == "wrong"
    assert checks.check_guess(12, 15).status == "wrong"
'''


def with_row_after_last(text, pattern, row, where):
    """text with `row` inserted after the last line matching `pattern`."""
    rows = list(re.finditer(pattern, text, re.M))
    if not rows:
        raise SystemExit(f"{where} has no notebook table (no line matches {pattern!r})")
    return text[:rows[-1].end()] + row + text[rows[-1].end():]


def readme_rows(number, name, title):
    """{README: its text with the notebook's row}, English and Korean."""
    file = f"{number}_{name}.ipynb"
    english, korean = ROOT / "README.md", ROOT / "README.ko.md"
    return {
        english: with_row_after_last(
            english.read_text(encoding="utf-8"), r"^\| \d\d \| \[.*\n",
            f"| {number} | [{title}](notebooks/{file}) | TODO: what it shows | {sync_notebooks.badge(file)} |\n",
            "README.md"),
        korean: with_row_after_last(
            korean.read_text(encoding="utf-8"), r"^\| \d\d \| \[.*\n",
            f"| {number} | [TODO: 한국어 제목 ({title})](notebooks/ko/{file}) | TODO: 무엇을 보여 주는지 | "
            f"{sync_notebooks.badge('ko/' + file)} |\n",
            "README.ko.md"),
    }


def instructor_plans(number, title):
    """{guide: its text with the notebook's session plan}, English and Korean."""
    english, korean = ROOT / "docs" / "INSTRUCTOR.md", ROOT / "docs" / "INSTRUCTOR.ko.md"
    plans = {
        english: (f"### {number} · {title} (about 30 minutes; runs in TODO s)\n"
                  "- **Points:** TODO.\n- **Exercises:** TODO.\n- **Widget:** TODO.\n"
                  "- **Questions:** *\"TODO?\"* TODO.\n\n"),
        korean: (f"### {number} · TODO: 한국어 제목 ({title}) (약 30분; 실행 TODO초)\n"
                 "- **요점:** TODO.\n- **연습:** TODO.\n- **위젯:** TODO.\n"
                 "- **질문:** *\"TODO?\"* TODO.\n\n"),
    }
    texts = {}
    for guide, plan in plans.items():
        text = guide.read_text(encoding="utf-8")
        last = list(re.finditer(r"^### \d\d · ", text, re.M))
        if not last:
            raise SystemExit(f"{guide.relative_to(ROOT)} has no session plans ('### NN · Title')")
        after = re.search(r"^##? ", text[last[-1].end():], re.M)   # the next section, or the end
        at = len(text) if after is None else last[-1].end() + after.start()
        texts[guide] = text[:at] + plan + text[at:]
    return texts


def sources_row(number, name, title, posts):
    """{docs/SOURCES.md: its text with the notebook's row and its place under each post}."""
    path = ROOT / "docs" / "SOURCES.md"
    file = f"{number}_{name}.ipynb"
    text = with_row_after_last(path.read_text(encoding="utf-8"), r"^\| \[\d\d [^\n]*\n",
                               f"| [{number} {title}](../notebooks/{file}) | {', '.join(posts)} |\n",
                               "docs/SOURCES.md")
    for post in posts:
        start = text.index(f"## Source post {post}:")
        follows = text.index("**Notebooks that follow it:**", start)
        end = min(i for i in (text.find(";", follows), text.find(".\n", follows)) if i != -1)
        text = text[:end] + f", [{number}](../notebooks/{file})" + text[end:]
    return {path: text}


class Changes:
    """The files a scaffold writes, kept so that a failure half way puts everything back."""

    def __init__(self):
        self.before = {}   # path: its bytes before the first write, or None where it did not exist

    def write(self, path, text):
        path = Path(path)
        if path not in self.before:
            self.before[path] = path.read_bytes() if path.exists() else None
        path.write_text(text, encoding="utf-8")

    def watch(self, *paths):
        """Files another step rewrites (the catalogs): remember them as they are now."""
        for path in map(Path, paths):
            if path not in self.before:
                self.before[path] = path.read_bytes() if path.exists() else None

    def undo(self):
        for path, data in self.before.items():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)


def scaffold(number, name, title, posts, run=True, out=print):
    """Write every file of notebook `number` (see the module's docstring); undo all of it on failure."""
    stem = f"nb{number}_{name}"
    notebook_path = NOTEBOOK_DIR / f"{number}_{name}.ipynb"
    new_files = {
        ROOT / "helpers" / "checks" / f"{stem}.py": CHECKS.format(number=number),
        ROOT / "helpers" / "demos" / f"{stem}.py": DEMO.format(number=number),
        ROOT / "tests" / f"test_checks_{stem}.py": TEST.format(number=number, stem=stem),
    }
    for path in [notebook_path, *new_files]:
        if path.exists():
            raise SystemExit(f"{path.relative_to(ROOT)} exists already")
    docs = {**readme_rows(number, name, title), **instructor_plans(number, title),
            **sources_row(number, name, title, posts)}     # every text known before anything is written
    nb = notebook(number, name, title)
    nb.metadata["kernelspec"] = run_notebooks.KERNELSPEC
    sync_notebooks.sync(nb, notebook_path.name)            # the Colab badge

    changes = Changes()
    try:
        for path, text in {**new_files, **docs}.items():
            changes.write(path, text)
        changes.write(notebook_path, nbformat.writes(nb) + "\n")
        out("wrote " + ", ".join(str(p.relative_to(ROOT)) for p in changes.before))
        if run:
            run_notebooks.execute(notebook_path)
            out(f"executed {notebook_path.relative_to(ROOT)}; its outputs are stored")
        laid_out = nbformat.read(notebook_path, as_version=4)
        slide_layout.apply(laid_out)
        nbformat.write(laid_out, notebook_path)
        changes.watch(*section_minutes.GUIDES.values())
        section_minutes.main([])
        changes.watch(translations.NOTEBOOKS_PO, translations.CHECKS_PO, translations.CODE_PO, translations.CHECKS_MO)
        translations.add_notebook(number)
        out("set its slides and minutes per section; its Korean entries are in locale/ko/, untranslated")
    except BaseException:
        changes.undo()
        out(f"stopped half way: every file written for notebook {number} is removed and every file "
            "changed is put back")
        raise
    return sorted(changes.before)


def main(argv):
    parser = argparse.ArgumentParser(prog="make new-notebook", description=__doc__.splitlines()[0])
    parser.add_argument("name", help="my_topic (takes the next number) or NN_my_topic")
    parser.add_argument("--title", help="the notebook's title (default: from the name)")
    parser.add_argument("--posts", default="1", help="the source posts it follows, e.g. 1,3 (default 1)")
    parser.add_argument("--no-run", action="store_true", help="write the files but do not execute the notebook")
    args = parser.parse_args(argv)
    number, name = parse_name(args.name)
    title = args.title or name.replace("_", " ").capitalize()
    posts = [p.strip() for p in args.posts.split(",")]
    if not set(posts) <= {"1", "2", "3"}:
        raise SystemExit(f"--posts names source posts 1, 2 or 3, got {args.posts!r}")
    scaffold(number, name, title, posts, run=not args.no_run)
    print("Next: replace every TODO (the tests name each one); translate its entries in "
          "locale/ko/LC_MESSAGES/*.po, then `make ko NB=" + number + "`; add its terms to docs/GLOSSARY.md "
          "and, for a number from a source post, a line in tools/claims.py (then `make claims`).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
