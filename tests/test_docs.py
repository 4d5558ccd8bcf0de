"""The README and the guides describe the notebooks that exist."""

import re

import pytest

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


def test_the_korean_readme_lists_every_korean_notebook_and_is_linked_from_the_top():
    readme_ko = (ROOT / "README.ko.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert f"(notebooks/ko/{path.name})" in readme_ko, path.name
        assert sync_notebooks.badge(f"ko/{path.name}") in readme_ko, f"no Korean Colab badge for {path.name}"
    assert re.findall(r"^    (make \w+)$", readme_ko, re.M)[:2] == ["make lab", "make test"]
    top = (ROOT / "README.md").read_text().split("\n## ")[0]
    assert "(README.ko.md)" in top, "README.md links the Korean README before its first section"


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


def plan_numbers(text):
    """The notebook numbers of the '### NN · ' session plans in a guide."""
    return re.findall(r"^### ([0-9]{2}) · \S", text, re.M)


def test_the_korean_instructor_guide_has_every_plan_of_the_english_one_and_links_it():
    english = plan_numbers((ROOT / "docs" / "INSTRUCTOR.md").read_text())
    korean_text = (ROOT / "docs" / "INSTRUCTOR.ko.md").read_text(encoding="utf-8")
    korean = plan_numbers(korean_text)
    assert english, "docs/INSTRUCTOR.md has no '### NN · ' session plan"
    assert korean == english, f"docs/INSTRUCTOR.ko.md has the plans {korean}, docs/INSTRUCTOR.md has {english}"
    assert "](INSTRUCTOR.md)" in korean_text.split("\n### ")[0], "docs/INSTRUCTOR.ko.md links INSTRUCTOR.md before its first plan"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", korean_text):
        if not target.startswith(("http://", "https://", "../notebooks/ko/")):
            assert (ROOT / "docs" / target).exists(), f"INSTRUCTOR.ko.md links {target}, which does not exist"


def test_a_missing_or_extra_plan_is_noticed():
    assert plan_numbers("### 01 · 행렬 곱 (약 40분)\n### 03 · FFN 순전파\n") == ["01", "03"]
    assert plan_numbers("### 1 · 행렬 곱\n## 01 · x\n### 02 ·\n") == []


# --- The source posts by name: docs/SOURCES.md, docs/GLOSSARY.md, and no "seed" for a post ---

SOURCES = ROOT / "docs" / "SOURCES.md"
GLOSSARY = ROOT / "docs" / "GLOSSARY.md"


def named_posts(text):
    """{post number: title} from the '## Source post N: title' headings of SOURCES.md."""
    return {int(n): title for n, title in re.findall(r"^## Source post (\d): (.+)$", text, re.M)}


def test_sources_name_the_three_posts_by_their_titles():
    import claims

    named = named_posts(SOURCES.read_text())
    assert named == {n: title for n, (title, _) in claims.POSTS.items()}, \
        "SOURCES.md's '## Source post N: title' headings must match tools/claims.py's POSTS"


def test_sources_list_every_notebook_once_with_its_posts():
    text = SOURCES.read_text()
    rows = re.findall(r"^\| \[(\d\d) [^]]+\]\(\.\./notebooks/(\d\d)_[a-z0-9_]+\.ipynb\) \| ([123](?:, [123])*) \|$",
                      text, re.M)
    assert [r[0] for r in rows] == [p.name[:2] for p in NOTEBOOKS]
    assert all(number == link for number, link, _ in rows)
    # each post's section lists exactly the notebooks whose row names that post
    sections = re.split(r"^## ", text, flags=re.M)
    for post in "123":
        section = next(s for s in sections if s.startswith(f"Source post {post}:"))
        follows = section.split("**Notebooks that follow it:**")[1].split(";")[0]
        listed = re.findall(r"\[(\d\d)\]\(\.\./notebooks/", follows)
        assert listed == [n for n, _, posts in rows if post in posts.split(", ")], f"source post {post}"


def glossary_rows(text):
    """(course term, [the posts' words], [post numbers], [notebook numbers]) for each glossary row."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) != 5 or cells[0] in ("Course term", "---|---|---|---|---"):
            continue
        term, words, posts, introduced, _ = cells
        links = re.findall(r"\[(\d\d)\]\(\.\./notebooks/((\d\d)_[a-z0-9_]+\.ipynb)\)", introduced)
        assert links and all(n == prefix for n, _, prefix in links), f"glossary row {term!r}: {introduced!r}"
        for _, name, _ in links:
            assert (ROOT / "notebooks" / name).exists(), f"glossary row {term!r} cites {name}, which does not exist"
        rows.append((term, [] if words == "-" else words.split("; "),
                     [int(p) for p in posts.split(", ")] if posts else [], [n for n, _, _ in links]))
    return rows


def test_glossary_is_linked_and_cites_notebooks_that_exist():
    readme = (ROOT / "README.md").read_text()
    assert "(docs/GLOSSARY.md)" in readme and "(docs/SOURCES.md)" in readme and "(docs/CLAIMS.md)" in readme
    rows = glossary_rows(GLOSSARY.read_text())
    assert len(rows) >= 40, f"the glossary has {len(rows)} rows"
    terms = [r[0] for r in rows]
    assert len(set(terms)) == len(terms), "a course term appears twice"
    assert all(set(r[2]) <= {1, 2, 3} for r in rows)


def test_links_in_readme_sources_and_glossary_resolve():
    for path in [ROOT / "README.md", SOURCES, GLOSSARY, ROOT / "docs" / "CLAIMS.md", *MOVED_FROM_README]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
            if not target.startswith(("http://", "https://")):
                assert (path.parent / target).exists(), f"{path.name} links {target}, which does not exist"


MOVED_FROM_README = [ROOT / "docs" / "SETUP.md", ROOT / "docs" / "CONTRIBUTING.md"]


def anchor(heading):
    """GitHub's anchor for a markdown heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_anchors_the_readme_and_its_guides_link_exist():
    for path in [ROOT / "README.md", ROOT / "README.ko.md", *MOVED_FROM_README]:
        for target, name in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", path.read_text(encoding="utf-8")):
            linked = (path.parent / target) if target else path
            if target.startswith(("http://", "https://")) or linked.suffix != ".md":
                continue
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            assert name in {anchor(h) for h in headings}, f"{path.name} links {target}#{name}, a heading it lacks"


def test_the_readme_is_the_two_commands_and_where_to_go():
    readme = (ROOT / "README.md").read_text()
    before_the_table = readme[:readme.index("## The notebooks")]
    assert len(before_the_table.split()) < 600, "README.md before the notebooks table: move the detail to docs/"
    assert "### When something fails" in before_the_table


# "seed" for a source post: "seed 000", "seeds 002", "the seed's", "the seed says", "the seeds".
# A random seed is "the random seed" or `seed`, which these leave alone.
SEED_FOR_A_POST = re.compile(r"\bseeds? ?0\d\d\b|\bthe seed(?:'s|s)?\b(?!\s+(?:of|for|value|argument)\b)", re.I)
# docs/INSTRUCTOR.md still names the posts by file number in its session plans; add it here once they
# say "source post N".
NO_SEED_FILES = ([ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
                 + sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
                 + sorted((ROOT / "helpers" / "checks").rglob("*.py")))


def seed_mentions(text):
    """Lines that call a source post a seed (a line naming the posts' folder, shared/seeds, is allowed)."""
    return [line for line in text.splitlines() if SEED_FOR_A_POST.search(line) and "shared/seeds" not in line]


def test_readme_docs_notebooks_and_checks_never_call_a_source_post_a_seed():
    for path in NO_SEED_FILES:
        assert seed_mentions(path.read_text()) == [], f"{path.name}: say 'source post N', not 'seed'"


def test_seed_mentions_are_found():
    for bad in ["the seed's worked example", "Seed 003's hands-on 2", "as seeds 000 and 002 say",
                "The seed puts it plainly", "the seeds name three"]:
        assert seed_mentions(bad) == [bad], bad
    for fine in ["np.random.default_rng(seed)", "retrain with the random seed 1", "the seed of the generator",
                 "`000_*.txt` in `../shared/seeds/` is source post 1", "source post 2's worked example"]:
        assert seed_mentions(fine) == [], fine


def test_every_plan_gives_minutes_per_section_in_step_with_its_notebook():
    import section_minutes
    assert section_minutes.main(["--check"]) == 0, "run `make sync` (tools/section_minutes.py)"
    guide = (ROOT / "docs" / "INSTRUCTOR.md").read_text()
    assert guide.count("- **Minutes per section** (of about") == len(NOTEBOOKS)
    guide_ko = (ROOT / "docs" / "INSTRUCTOR.ko.md").read_text(encoding="utf-8")
    assert guide_ko.count("- **절마다의 분** (약") == len(NOTEBOOKS)


def test_minutes_are_whole_at_least_one_each_and_add_up():
    import section_minutes
    assert section_minutes.split([10.0, 0.01, 5.0], 12) == [7, 1, 4]
    assert sum(section_minutes.split([1.0] * 7, 40)) == 40
    with pytest.raises(ValueError, match="total must give each of the 3 sections a minute, got 2"):
        section_minutes.split([1.0, 1.0, 1.0], 2)


# A count of the notebooks written by hand goes stale with the next notebook ("the 12 notebooks"
# stayed in the README after notebook 13 came): documents say "every notebook" or link the table.
NUMBER = r"(?:\d{1,2}|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen)"
NOTEBOOK_COUNT = re.compile(
    rf"\b{NUMBER}\s+(?:English\s+|Korean\s+|numbered\s+)?notebooks\b|\ball\s+{NUMBER}\s+(?:took|in)\b", re.I)
# The same in code: a range of notebook numbers written out ("01".."13") in a comment or docstring.
NOTEBOOK_RANGE = re.compile(r'"01"\s*(?:\.\.|-|to)\s*"\d\d"')


def test_no_document_states_the_number_of_notebooks_by_hand():
    for path in [ROOT / "README.md", ROOT / "README.ko.md", *sorted((ROOT / "docs").glob("*.md"))]:
        found = NOTEBOOK_COUNT.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.name} counts the notebooks by hand: {found}"
    for path in sorted((ROOT / "tools").glob("*.py")) + sorted((ROOT / "helpers").rglob("*.py")):
        found = NOTEBOOK_RANGE.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(ROOT)} writes the notebooks' numbers out by hand: {found}"
    for stale in ["one nbval pass over the 12 notebooks", "all twelve notebooks present", "all 13 took 1 s",
                  "each re-executes in 4-17 s, all twelve in 86.06 s", "demo redraws (kernel), 13 notebooks",
                  "the 16 Korean notebooks"]:
        assert NOTEBOOK_COUNT.search(stale), stale
    for fine in ["the 4 blocks of notebook 13", "13 of 13 within target", "all 26 medians", "every notebook"]:
        assert not NOTEBOOK_COUNT.search(fine), fine
    assert NOTEBOOK_RANGE.search('notebook: str  # "01".."13": the notebook') and not NOTEBOOK_RANGE.search('"01", "02"')


def table_problems(text):
    """[line numbers] of markdown tables whose divider row has another number of columns than
    their header (GitHub then shows the table as plain text)."""
    lines, found = text.splitlines(), []
    for i in range(1, len(lines)):
        if re.fullmatch(r"\|(?:\s*:?-+:?\s*\|)+", lines[i].strip()) and lines[i - 1].lstrip().startswith("|"):
            if lines[i].strip().count("|") != lines[i - 1].strip().count("|"):
                found.append(i + 1)
    return found


def test_every_table_in_the_readmes_and_docs_renders():
    for path in [ROOT / "README.md", ROOT / "README.ko.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert not table_problems(path.read_text(encoding="utf-8")), f"{path.name}: a table's divider does not match its header"
    assert table_problems("| a | b |\n|---|---|---|\n| 1 | 2 |") == [2]
    assert table_problems("| a | b |\n|---|:--|\n| 1 | 2 |") == []
