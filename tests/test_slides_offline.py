"""A deck from `make slides`, opened from disk with the network blocked, works.

Builds notebook 12's deck (the notebook with formulas, and figures) with tools/build_slides.py,
opens it in headless Chromium with every request that would leave the machine aborted, and checks
that reveal.js started with the slides the notebook's metadata gives and moves between them, that
MathJax rendered the formulas in its own fonts, and that the figures show. The build fetches
reveal.js and MathJax with npm once (into build/npm/); where npm is missing the test skips, like
a missing Chromium (required in CI).
"""

import re

import chromium
import nbformat
import pytest

import build_slides
from course_paths import NOTEBOOK_DIR
from sync_notebooks import BADGE_IMAGE  # the Colab badge: the one remote image

NOTEBOOK = NOTEBOOK_DIR / "12_kv_memory_editing.ipynb"  # the one notebook with formulas
REVEAL = f"require('{build_slides.URLS['reveal_url_prefix']}/dist/reveal.js')"  # its API, via require.js


@pytest.fixture(scope="module")
def browser():
    yield from chromium.launch()


@pytest.fixture(scope="module")
def deck(browser, tmp_path_factory):
    try:
        [deck] = build_slides.build([NOTEBOOK], tmp_path_factory.mktemp("slides"))
    except build_slides.NpmMissing as e:
        chromium.require(False, str(e))
    return deck


def first_slide_with(page, selector):
    """The index of the first top-level slide that contains `selector`."""
    index = page.evaluate("s => [...document.querySelectorAll('.reveal .slides > section')]"
                          ".findIndex(slide => slide.querySelector(s))", selector)
    assert index >= 0, f"no slide contains {selector}"
    return index


def go_to(page, index):
    page.evaluate(f"h => {REVEAL}.slide(h)", index)
    page.wait_for_function(f"h => {REVEAL}.getIndices().h === h", arg=index)
    return page.locator(".reveal .slides > section.present")


def test_deck_works_from_disk_with_the_network_blocked(browser, deck):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    n_formulas = len(re.findall(r"\$\$.+?\$\$", markdown, re.S))
    assert n_formulas >= 1, "notebook 12 has no formula left: test another notebook's deck"

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    attempted = chromium.block_network(page)
    missing, errors = [], []
    page.on("requestfailed", lambda r: r.url.startswith("file:") and missing.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(deck.as_uri())
        # reveal.js started, with one slide per slide-marked cell (and the title)
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        assert page.evaluate(f"() => {REVEAL}.getHorizontalSlides().length") == build_slides.slide_count(nb)
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => {REVEAL}.getIndices().h === 1", timeout=10_000)

        # the formulas are typeset by MathJax, in its web fonts from the assets folder
        page.wait_for_function("n => document.querySelectorAll('.MathJax_CHTML').length >= n",
                               arg=n_formulas, timeout=30_000)
        go_to(page, first_slide_with(page, ".MathJax_CHTML"))
        # reveal.js has MathJax typeset the slide again when it comes up: wait for the result
        page.wait_for_function("() => [...document.querySelectorAll('.slides > section.present .MathJax_CHTML')]"
                               ".some(math => math.getBoundingClientRect().width > 50)", timeout=10_000)
        assert not page.locator(".MathJax_Error, .mjx-merror").count(), "MathJax reported an error"
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        remote = [r for r in attempted if r != ("image", BADGE_IMAGE)]
        assert not remote, f"the deck asked the network for {remote}"
        assert not missing, f"files the deck needs are not in the assets folder: {missing}"
        loaded = page.evaluate("() => [...document.fonts].filter(f => f.status === 'loaded')"
                               ".map(f => f.family)")
        assert any(re.fullmatch(r"MJXc-TeX-\w+-\w+w", f) for f in loaded), f"no MathJax web font in {loaded}"
        assert "Source Sans Pro" in loaded, f"the theme's font did not load: {loaded}"

        # a figure shows
        slide = go_to(page, first_slide_with(page, "img[src^='data:image/png']"))
        image = slide.locator("img[src^='data:image/png']").first
        image.scroll_into_view_if_needed()
        assert image.evaluate("img => img.complete && img.naturalWidth") > 0, "the figure did not load"
        assert image.bounding_box()["width"] > 100

        assert not errors, f"script errors in the deck: {errors}"
    finally:
        page.close()
