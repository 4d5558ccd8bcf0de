"""Every notebook builds into a reveal.js deck with one slide per slide-marked cell, loading
no script, style sheet or font from the network (tools/build_slides.py, what `make slides` runs),
and tools/slide_layout.py sets the slide metadata by its rules, the same way every time. A Korean
notebook's deck is Korean (lang, title, the "continued" marks from checks.po) and names its own
Hangul font from the shared assets."""

import re
from html import escape
from html.parser import HTMLParser

import nbformat
import pytest
from nbconvert import SlidesExporter

import build_slides
import slide_layout
import translations
from course_paths import notebook_paths

NOTEBOOKS = notebook_paths()
# Two Korean decks (the full build, `make slides`, makes all of them): the first notebook, and the one
# with formulas and the longest text.
KOREAN = [build_slides.KOREAN / NOTEBOOKS[0].name, build_slides.KOREAN / "12_kv_memory_editing.ipynb"]


class SlideCounter(HTMLParser):
    """Counts the top-level <section> elements (slides) of a reveal.js deck."""

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.slides = 0

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.slides += self.depth == 0
            self.depth += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self.depth -= 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_deck_has_the_expected_slides(path):
    nb = nbformat.read(path, as_version=4)
    assert build_slides.slide_count(nb) >= 5, "mark each section's heading cell as a slide"
    assert nb.metadata.get("widgets"), "the stored notebook carries its demo's widget state"
    html = build_slides.deck_html(build_slides.exporter(), nb, path.stem)
    counter = SlideCounter()
    counter.feed(html)
    assert counter.slides == build_slides.slide_count(build_slides.laid_out(nb))
    assert '"setup"' not in html and "celltag_setup" not in html, "the setup cell is on a slide"
    assert "width: 1280" in html and "height: 720" in html, "the deck is not laid out for 1280x720"
    assert not build_slides.remote_urls(html), "the deck loads something from the network"
    assert f'"{build_slides.URLS["reveal_url_prefix"]}/dist/reveal.js"' in html  # from the assets folder
    assert '<html lang="en">' in html and f"<title>{escape(build_slides.title(nb), quote=False)}</title>" in html


@pytest.mark.parametrize("path", KOREAN, ids=[p.stem for p in KOREAN])
def test_a_korean_deck_is_korean_and_reaches_the_shared_assets_from_slides_ko(path):
    nb = nbformat.read(path, as_version=4)
    html = build_slides.deck_html(build_slides.exporter("ko"), nb, path.stem, projector=True)
    title = build_slides.title(nb)
    assert '<html lang="ko">' in html and f"<title>{escape(title, quote=False)}</title>" in html and re.search("[가-힣]", title)
    assert not build_slides.remote_urls(html), "the deck loads something from the network"
    assert '"../assets/reveal.js/dist/reveal.js"' in html and 'src="../assets/requirejs/require.js"' in html
    assert 'url("../assets/@fontsource/nanum-gothic/files/nanum-gothic-korean-400-normal.woff2")' in html, \
        "Hangul has no font of the deck's own"
    assert "continued from the previous slide" not in html


def test_the_continued_marks_come_from_the_catalog_in_the_decks_language():
    english, korean = slide_layout.continued_mark(2, 3), slide_layout.continued_mark(2, 3, "ko")
    assert english == "*(continued from the previous slide: 2 of 3)*"
    catalog = translations.read_catalog(translations.CHECKS_PO)
    said = catalog.get("(continued from the previous slide: {index} of {total})").string
    assert korean == "*" + said.format(index=2, total=3) + "*" and re.search("[가-힣]", korean)
    item = "- " + " ".join(f"문장 {i}은 MLP에 대해 꽤 길게 무언가를 말합니다." for i in range(60))
    pieces = slide_layout.markdown_pieces(item, slide_layout.PROJECTOR, "ko")
    mark = catalog.get("(continued from the previous slide)").string
    assert len(pieces) >= 2 and all(p.startswith(f"- *{mark}* ") for p in pieces[1:])


def test_slide_count_reads_the_slide_metadata():
    cells = [nbformat.v4.new_markdown_cell("# title")] + [
        nbformat.v4.new_markdown_cell(f"## {i}", metadata={"slideshow": {"slide_type": kind}})
        for i, kind in enumerate(["slide", "subslide", "fragment", "slide", "skip", "notes"])]
    nb = nbformat.v4.new_notebook(cells=cells)
    assert build_slides.slide_count(nb) == 3  # the title's slide and two marked ones
    nb.cells[0].metadata["slideshow"] = {"slide_type": "slide"}
    assert build_slides.slide_count(nb) == 3  # the title cell is marked itself: no extra slide


def test_the_remote_check_catches_nbconverts_cdn_urls():
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    html, _ = SlidesExporter().from_notebook_node(nb)  # nbconvert's defaults: unpkg and cdnjs
    found = " ".join(build_slides.remote_urls(html))
    for cdn in ["unpkg.com/@jupyter-widgets/html-manager", "unpkg.com/reveal.js", "cdnjs.cloudflare.com/ajax/libs/mathjax",
                "cdnjs.cloudflare.com/ajax/libs/require.js", "cdnjs.cloudflare.com/ajax/libs/mermaid"]:
        assert cdn in found
    assert "colab-badge.svg" not in found  # an image in the notebook, not something the deck runs on


def markdown(text, **metadata):
    return nbformat.v4.new_markdown_cell(text, metadata=metadata)


def code(text, outputs=(), **metadata):
    cell = nbformat.v4.new_code_cell(text, metadata=metadata)
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def figure(width, height):
    return {"output_type": "display_data", "data": {"image/png": "", "text/plain": "<Figure>"},
            "metadata": {"image/png": {"width": width, "height": height}}}


def synthetic():
    return nbformat.v4.new_notebook(cells=[
        markdown("# 01 · Title\n\nWhat you will learn"),
        code("import helpers", tags=["setup"]),
        markdown("## 1. A section"),
        code("x = 1"),
        code("\n".join(f"y{i} = {i}" for i in range(14)), [figure(630, 360)]),      # a long figure cell
        code("z = 2", [figure(630, 360)]),
        markdown("### Exercise 1 (core): build it"),
        code("\n".join(f"line_{i} = {i}" for i in range(40))),                    # taller than a slide
        markdown("## Summary"),
        markdown("## Solutions"),
        markdown("<details><summary>Solution to exercise 1</summary>\n\n```python\nx = 1\n```\n</details>"),
    ])


def test_layout_follows_its_rules():
    nb = synthetic()
    types, too_tall = slide_layout.slide_types(nb)
    assert types == ["slide", "skip", "slide", "-", "-", "subslide", "subslide", "subslide", "slide", "notes",
                     "notes"]
    assert [i for i, _ in too_tall] == [7], "the 40-line cell is the one taller than a slide"
    assert slide_layout.side_by_side(nb.cells[4]) and not slide_layout.side_by_side(nb.cells[5])


def test_layout_is_idempotent_and_leaves_continuing_cells_unmarked():
    nb = synthetic()
    nb.cells[3].metadata["slideshow"] = {"slide_type": "fragment"}   # a stale mark is replaced
    assert slide_layout.apply(nb) == 10
    assert "slideshow" not in nb.cells[3].metadata and "slideshow" not in nb.cells[4].metadata
    assert nb.cells[1].metadata == {"tags": ["setup"], "slideshow": {"slide_type": "skip"}}
    before = nbformat.writes(nb)
    assert slide_layout.apply(nb) == 0 and nbformat.writes(nb) == before


def test_a_long_section_splits_into_sub_slides_that_each_fit():
    cells = [markdown("# Title"), markdown("## 1. Long")] + [
        markdown("\n\n".join(f"Paragraph {i}.{j} " + "word " * 30 for j in range(3))) for i in range(8)]
    types, _ = slide_layout.slide_types(nbformat.v4.new_notebook(cells=cells))
    assert types.count("subslide") >= 2
    slides, height = [], 0
    for cell, kind in zip(cells, types, strict=True):
        if kind != "-":
            slides.append(height)
            height = 0
        height += slide_layout.cell_height(cell)
    slides.append(height)
    assert max(slides) <= slide_layout.SLIDE_HEIGHT


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_notebook_carries_the_layout(path):
    """The slide metadata RISE reads is the tool's: run `python tools/slide_layout.py` after editing."""
    nb = nbformat.read(path, as_version=4)
    assert slide_layout.apply(nb) == 0, f"{path.name}: slide metadata out of date; run python tools/slide_layout.py"


def test_projector_layout_cuts_long_code_cells_into_marked_pieces():
    nb = synthetic()
    nb.cells[7].outputs = [nbformat.from_dict({"output_type": "stream", "name": "stdout", "text": "done\n"})]
    before = nbformat.writes(nb)
    split = slide_layout.split_for_projector(nb)
    m = slide_layout.PROJECTOR
    pieces = [c for c in split.cells if c.cell_type == "code" and c.source.startswith("line_")]
    assert len(pieces) >= 2 and "\n".join(p.source for p in pieces) == nb.cells[7].source
    assert all(slide_layout.cell_height(p, m) <= m.slide_height for p in pieces)
    assert [bool(p.outputs) for p in pieces] == [False] * (len(pieces) - 1) + [True], "outputs after the last piece"
    marks = [c for c in split.cells if slide_layout.CONTINUED in c.metadata.get("tags", [])]
    assert len(marks) == len(pieces) - 1 and "continued" in marks[0].source
    types, too_tall = slide_layout.slide_types(split, m)
    assert all(types[split.cells.index(mark)] == "subslide" for mark in marks)
    assert not too_tall
    assert len({c.id for c in split.cells}) == len(split.cells), "cell ids stay unique"
    assert nbformat.writes(slide_layout.split_for_projector(nb)) == nbformat.writes(split), "the same every time"
    assert nbformat.writes(nb) == before, "the notebook itself is left as it was"


def test_a_list_too_tall_for_a_projector_slide_is_cut_between_items_and_sentences():
    """A summary is one list with no blank line: cut between its items, and an item still too tall
    at its sentences (marked continued); every piece fits, and no word is lost."""
    m = slide_layout.PROJECTOR
    budget = m.slide_height - 2 * m.text_line - 2 * m.cell_gap
    long_item = " ".join(f"Sentence {i} says a thing about the MLP at some length, twice over." for i in range(30))
    summary = "## Summary\n\n- **Shown:** " + long_item + "\n- **Checked:** " + long_item[:900] + "\n- **Next:** more."
    pieces = slide_layout.markdown_pieces(summary, m)
    assert len(pieces) >= 3 and all(slide_layout.markdown_height(p, m) <= budget for p in pieces)
    assert any(p.startswith("- *(continued from the previous slide)* ") for p in pieces)
    words = " ".join(" ".join(pieces).replace("- *(continued from the previous slide)* ", "").split())
    assert words == " ".join(summary.split())
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown" and cell.source.startswith("## Summary"):
                heights = [slide_layout.markdown_height(p, m) for p in slide_layout.markdown_pieces(cell.source, m)]
                assert max(heights) <= budget, f"{path.name}'s summary: pieces {heights} px, a slide holds {budget}"


def test_a_link_to_another_notebook_leads_to_its_deck_of_the_same_kind():
    nb = nbformat.v4.new_notebook(cells=[markdown(
        "# 01 · Title\n\nAs [notebook 03](03_ffn_forward.ipynb#the-ffn) showed ([Colab](https://x.org/03_ffn_forward.ipynb)).")])
    normal, projector = (build_slides.laid_out(nb, kind).cells[0].source for kind in (False, True))
    assert "](03_ffn_forward.slides.html#the-ffn)" in normal and "](https://x.org/03_ffn_forward.ipynb)" in normal
    assert "](03_ffn_forward.projector.slides.html#the-ffn)" in projector
