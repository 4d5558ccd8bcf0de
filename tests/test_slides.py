"""Every notebook builds into a reveal.js deck with one slide per slide-marked cell."""

from html.parser import HTMLParser

import nbformat
import pytest
from nbconvert import SlidesExporter

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


def expected_slides(nb):
    marked = [c for c in nb.cells if c.metadata.get("slideshow", {}).get("slide_type") == "slide"]
    first_marked = bool(marked) and marked[0] is nb.cells[0]
    return len(marked) + (0 if first_marked else 1)  # the title cell opens the first slide


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_deck_has_the_expected_slides(path):
    nb = nbformat.read(path, as_version=4)
    assert expected_slides(nb) >= 5, "mark each section's heading cell as a slide"
    html, _ = SlidesExporter().from_notebook_node(nb)
    counter = SlideCounter()
    counter.feed(html)
    assert counter.slides == expected_slides(nb)
    assert "reveal" in html.lower()
