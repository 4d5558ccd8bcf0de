"""The README and the guides describe the notebooks that exist."""

import re

import sync_notebooks
from course_paths import ROOT, notebook_paths

NOTEBOOKS = notebook_paths()


def test_readme_lists_every_notebook_with_a_colab_badge():
    readme = (ROOT / "README.md").read_text()
    for path in NOTEBOOKS:
        assert f"(notebooks/{path.name})" in readme, path.name
        assert sync_notebooks.badge(path.name) in readme, f"no Colab badge (from pyproject's URL) for {path.name}"
    linked = re.findall(r"\(notebooks/([0-9]{2}_[a-z0-9_]+\.ipynb)\)", readme)
    assert sorted(set(linked)) == [p.name for p in NOTEBOOKS], "README links a notebook that does not exist"


def test_readme_gives_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^    (make \w+)$", readme, re.M)
    assert commands[:2] == ["make lab", "make test"]


def test_instructor_guide_has_a_plan_per_notebook():
    guide = (ROOT / "docs" / "INSTRUCTOR.md").read_text()
    for path in NOTEBOOKS:
        number = path.name[:2]
        section = re.search(rf"^### {number} · .*?(?=^### |^## )", guide, re.M | re.S)
        assert section, f"no session plan for notebook {number}"
        text = section.group(0)
        for words in ["**Points:**", "**Widget:**", "**Questions:**", "runs in"]:
            assert words in text, f"notebook {number}'s plan lacks {words}"
    for heading in ["## GPU and Colab notes", "## Troubleshooting", "RISE"]:
        assert heading in guide
