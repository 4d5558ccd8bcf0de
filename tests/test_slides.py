"""Every notebook builds into a reveal.js deck with one slide per slide-marked cell, loading
no script, style sheet or font from the network (tools/build_slides.py, what `make slides` runs)."""

from html.parser import HTMLParser

import nbformat
import pytest
from nbconvert import SlidesExporter

import build_slides
from course_paths import notebook_paths

NOTEBOOKS = notebook_paths()


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
    assert counter.slides == build_slides.slide_count(nb)
    assert not build_slides.remote_urls(html), "the deck loads something from the network"
    assert f'"{build_slides.URLS["reveal_url_prefix"]}/dist/reveal.js"' in html  # from the assets folder


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
