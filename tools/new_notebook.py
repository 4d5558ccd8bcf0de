"""Start a new notebook: its skeleton, check and demo modules, test file, and its README, INSTRUCTOR
and SOURCES entries, then execute it so that it passes the stored-notebook tests from the start.

    python tools/new_notebook.py my_topic --title "My topic" --posts 1,3     # make new-notebook NAME=my_topic
    python tools/new_notebook.py 14_my_topic                                   # the number given, not the next

The skeleton is the course's anatomy (docs/AUTHORING.md) with placeholder content that runs: a
section with a check, a build exercise and a predict exercise with their checks and solutions, a
live demo, a summary. Replace each placeholder; the files say where.
"""

import argparse
import re
import sys
from textwrap import dedent

import nbformat

import run_notebooks
import sync_notebooks
from course_paths import NOTEBOOK_DIR, ROOT, notebook_paths


def parse_name(name):
    """('14', 'my_topic') from 'my_topic' (the next number) or '14_my_topic'."""
    found = re.fullmatch(r"(?:(\d\d)_)?([a-z][a-z0-9_]*)", name)
    if not found:
        raise SystemExit(f"NAME must be lower_case_with_underscores, optionally after NN_, got {name!r}")
    taken = [int(p.name[:2]) for p in notebook_paths()]
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
            count = sum(p.numel() for p in layer.parameters())
            print(f"nn.Linear(4, 3) holds {count} parameters")
            """),
        code("""
            assert count == 3 * 4 + 3, f"3 x 4 weights and 3 biases, got {count}"
            print("Checked: 12 weights and 3 biases.")
            """),
        code("checks.check_guess(my_guess, count)"),
        md("""
            ## 2. Live demo

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
2. A prediction: TODO.
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


def insert_readme_row(number, name, title):
    path = ROOT / "README.md"
    text = path.read_text()
    rows = list(re.finditer(r"^\| \d\d \| \[.*\n", text, re.M))
    if not rows:
        raise SystemExit("README.md has no notebook table (rows '| NN | [Title](notebooks/...) | ...')")
    file = f"{number}_{name}.ipynb"
    row = f"| {number} | [{title}](notebooks/{file}) | TODO: what it shows | {sync_notebooks.badge(file)} |\n"
    at = rows[-1].end()
    path.write_text(text[:at] + row + text[at:])


def insert_instructor_section(number, title):
    path = ROOT / "docs" / "INSTRUCTOR.md"
    text = path.read_text()
    at = text.index("## GPU and Colab notes")
    section = (f"### {number} · {title} (about 30 minutes; runs in TODO s)\n"
               "- **Points:** TODO.\n- **Exercises:** TODO.\n- **Widget:** TODO.\n"
               "- **Questions:** *\"TODO?\"* TODO.\n\n")
    path.write_text(text[:at] + section + text[at:])


def insert_sources(number, name, title, posts):
    path = ROOT / "docs" / "SOURCES.md"
    text = path.read_text()
    file = f"{number}_{name}.ipynb"
    rows = list(re.finditer(r"^\| \[\d\d [^\n]*\n", text, re.M))
    row = f"| [{number} {title}](../notebooks/{file}) | {', '.join(posts)} |\n"
    text = text[:rows[-1].end()] + row + text[rows[-1].end():]
    for post in posts:
        start = text.index(f"## Source post {post}:")
        follows = text.index("**Notebooks that follow it:**", start)
        end = min(i for i in (text.find(";", follows), text.find(".\n", follows)) if i != -1)
        text = text[:end] + f", [{number}](../notebooks/{file})" + text[end:]
    path.write_text(text)


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
    stem = f"nb{number}_{name}"
    files = {
        NOTEBOOK_DIR / f"{number}_{name}.ipynb": None,
        ROOT / "helpers" / "checks" / f"{stem}.py": CHECKS.format(number=number),
        ROOT / "helpers" / "demos" / f"{stem}.py": DEMO.format(number=number),
        ROOT / "tests" / f"test_checks_{stem}.py": TEST.format(number=number, stem=stem),
    }
    for path in files:
        if path.exists():
            raise SystemExit(f"{path.relative_to(ROOT)} exists already")
    for path, text in files.items():
        if text is not None:
            path.write_text(text)
    nb = notebook(number, name, title)
    nb.metadata["kernelspec"] = run_notebooks.KERNELSPEC
    sync_notebooks.sync(nb, f"{number}_{name}.ipynb")        # the Colab badge
    nbformat.write(nb, NOTEBOOK_DIR / f"{number}_{name}.ipynb")
    insert_readme_row(number, name, title)
    insert_instructor_section(number, title)
    insert_sources(number, name, title, posts)
    written = [*files, ROOT / "README.md", ROOT / "docs" / "INSTRUCTOR.md", ROOT / "docs" / "SOURCES.md"]
    print("wrote " + ", ".join(str(p.relative_to(ROOT)) for p in written))
    if not args.no_run:
        run_notebooks.execute(NOTEBOOK_DIR / f"{number}_{name}.ipynb")
        print(f"executed notebooks/{number}_{name}.ipynb; its outputs are stored")
    print("Next: replace every TODO; add its terms to docs/GLOSSARY.md and any source-post number it checks "
          "to tools/claims.py (then `make claims`).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
