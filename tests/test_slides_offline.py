"""A deck from `make slides`, opened from disk with the network blocked, works, and every slide of
every deck fits a 1280x720 screen.

Builds every deck once with tools/build_slides.py (and notebook 12's Korean one). Notebook 12's
deck (the notebook with formulas, and figures) is opened in headless Chromium with every request
that would leave the machine aborted, and the test checks that reveal.js started with the slides the
notebook's metadata gives and moves between them, that MathJax rendered the formulas in its own
fonts, and that the figures show. Notebook 12's Korean deck, from slides/ko/, does the same with its
Hangul drawn in the deck's own Nanum Gothic (no box). Then each slide of every deck is visited as a
presenter does, without scrolling (in the page, measured once it has settled frame to frame):
everything on it, every figure in full, inside the 1280x720 window; a code cell longer than a slide
is cut across sub-slides, and on a slide at full size no code is drawn under 14 px. The build
fetches reveal.js, MathJax and the Hangul font with npm once (into build/npm/);
where npm is missing the test skips, like a missing Chromium (required in CI).
"""

import re

import chromium
import nbformat
import pytest

import build_slides
from course_paths import NOTEBOOK_DIR, notebook_paths
from sync_notebooks import BADGE_IMAGE  # the Colab badge: the one remote image

NOTEBOOK = NOTEBOOK_DIR / "12_kv_memory_editing.ipynb"  # the one notebook with formulas
KOREAN = build_slides.KOREAN / NOTEBOOK.name   # its Korean deck (`make slides` builds all of them)
REVEAL = f"require('{build_slides.URLS['reveal_url_prefix']}/dist/reveal.js')"  # its API, via require.js
SCREEN = {"width": 1280, "height": 720}
MIN_SCALE = 0.45   # a slide the deck had to shrink more than this is unreadable: split its cell
# What the present slide shows: the box around everything visible on it, the figures that are not
# fully on screen, anything scrolled (content cut off), and how much the deck shrank the slide.
MEASURE = """() => {
  const slide = [...document.querySelectorAll('.reveal .slides section.present')].pop();
  const box = {l: Infinity, t: Infinity, r: -Infinity, b: -Infinity}, cut = [], scrolled = [];
  for (const el of slide.querySelectorAll('*')) {
    const r = el.getBoundingClientRect(), style = getComputedStyle(el);
    // (MathJax's MathML copy for screen readers is clipped to 1 px on purpose: not content)
    if (!r.width || !r.height || style.visibility === 'hidden' || el.closest('aside.notes, .MJX_Assistive_MathML'))
      continue;
    box.l = Math.min(box.l, r.left); box.t = Math.min(box.t, r.top);
    box.r = Math.max(box.r, r.right); box.b = Math.max(box.b, r.bottom);
    const outside = r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1;
    if (el.tagName === 'IMG' && outside) cut.push(el.alt || el.src.slice(0, 40));
    if (/(auto|scroll|hidden)/.test(style.overflowX + style.overflowY)
        && (el.scrollHeight > el.clientHeight + 2 || el.scrollWidth > el.clientWidth + 2))
      scrolled.push(el.className + ': ' + el.scrollWidth + 'x' + el.scrollHeight + ' in ' + el.clientWidth + 'x' + el.clientHeight);
  }
  // the smallest code as drawn: its font size times reveal.js's scale and the zoom of the slide
  const zoom = Number(slide.style.zoom || 1), scale = REVEAL.getScale();
  const code = [...slide.querySelectorAll('pre, code')].filter(el => !el.closest('aside.notes') && el.getBoundingClientRect().height)
    .map(el => [parseFloat(getComputedStyle(el).fontSize) * zoom * scale, el.textContent.trim().slice(0, 40)])
    .reduce((a, b) => (b[0] < a[0] ? b : a), [Infinity, '']);
  return {box, cut, scrolled, code, scale: zoom, text: slide.innerText.trim().slice(0, 60),
          figures: slide.querySelectorAll('.jp-OutputArea-output img').length};
}"""
CODE_PX = 14   # code is cut across sub-slides rather than drawn smaller


@pytest.fixture(scope="module")
def browser():
    yield from chromium.launch()


@pytest.fixture(scope="module")
def decks(browser, tmp_path_factory):
    """Every English deck and notebook 12's Korean one, built once for the module."""
    try:
        return build_slides.build(notebook_paths() + [KOREAN], tmp_path_factory.mktemp("all_slides"))
    except build_slides.NpmMissing as e:
        chromium.require(False, str(e))


@pytest.fixture(scope="module")
def deck(decks):
    """Notebook 12's English deck."""
    return next(d for d in decks if d.parent.name != "ko" and d.name == build_slides.deck_name(NOTEBOOK, False))


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


def offline_page(browser, viewport):
    """(page, requests that tried to leave the machine, local files missing, script errors) of a new
    page with the network blocked."""
    page = browser.new_page(viewport=viewport)
    attempted = chromium.block_network(page)
    missing, errors = [], []
    page.on("requestfailed", lambda r: r.url.startswith("file:") and missing.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, attempted, missing, errors


def test_deck_works_from_disk_with_the_network_blocked(browser, deck):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    n_formulas = len(re.findall(r"\$\$.+?\$\$", markdown, re.S))
    assert n_formulas >= 1, "notebook 12 has no formula left: test another notebook's deck"

    page, attempted, missing, errors = offline_page(browser, {"width": 1280, "height": 800})
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


def test_a_korean_deck_draws_its_hangul_offline_in_its_own_font(browser, decks):
    """A Korean deck from slides/ko/, opened from disk with the network blocked: reveal.js starts from
    the shared assets, the page says it is Korean, and every Hangul character on it is drawn in
    Nanum Gothic from the assets folder (Chromium says which font drew the title; the font holds every
    Hangul character of the deck), so none shows as a box."""
    import tarfile

    from fontTools.ttLib import TTFont

    [deck] = [d for d in decks if d.parent.name == "ko"]
    nb = nbformat.read(KOREAN, as_version=4)
    page, attempted, missing, errors = offline_page(browser, SCREEN)
    try:
        page.goto(deck.as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        reveal = build_slides.reveal_api(deck)
        assert page.evaluate(f"() => {reveal}.getHorizontalSlides().length") == build_slides.slide_count(
            build_slides.laid_out(nb))
        assert page.evaluate("() => [document.documentElement.lang, document.title]") == ["ko", build_slides.title(nb)]
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        loaded = page.evaluate("() => [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
        assert "Nanum Gothic" in [f.strip('"') for f in loaded], f"Nanum Gothic did not load: {loaded}"
        heading = page.locator(".reveal .slides section.present h1").first
        session = page.context.new_cdp_session(page)
        session.send("DOM.enable")
        session.send("CSS.enable")
        document = session.send("DOM.getDocument", {"depth": -1})
        found = session.send("DOM.querySelector", {"nodeId": document["root"]["nodeId"],
                                                   "selector": ".reveal .slides section.present h1"})
        fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": found["nodeId"]})["fonts"]
        text = heading.inner_text()
        hangul = len(re.findall("[가-힣]", text))
        drew = {f["familyName"]: f["glyphCount"] for f in fonts}
        assert hangul and sum(n for f, n in drew.items() if "Nanum" in f) >= hangul, f"{text!r} was drawn in {drew}"
        assert not [r for r in attempted if r != ("image", BADGE_IMAGE)], f"the deck asked the network: {attempted}"
        assert not missing, f"files the deck needs are not in the assets folder: {missing}"
        assert not errors, f"script errors in the deck: {errors}"
    finally:
        page.close()
    shown = set("".join(re.findall("[가-힣]+", deck.read_text(encoding="utf-8"))))
    spec = next(s for s in build_slides.PACKAGES if "nanum-gothic" in s)   # the shipped WOFF2's WOFF twin
    with tarfile.open(build_slides.fetch(spec)) as tar:                    # (the same glyphs; no brotli needed)
        font = TTFont(tar.extractfile("package/files/nanum-gothic-korean-400-normal.woff"))
    lacking = sorted(c for c in shown if ord(c) not in font.getBestCmap())
    assert not lacking, f"Nanum Gothic has no glyph for {lacking}: they would show as boxes"


def test_every_slide_fits_the_screen_without_scrolling(browser, decks):
    page = browser.new_page(viewport=SCREEN)
    problems, n_slides, n_figures, shrunk = [], 0, 0, 0
    try:
        for deck in decks:
            page.goto(deck.as_uri())
            page.wait_for_selector(".reveal.ready", timeout=30_000)
            reveal = build_slides.reveal_api(deck)
            page.evaluate(f"() => {reveal}.configure({{transition: 'none'}})")
            # each slide fitted, and fitted again once a figure loads: measured once it has settled
            for h, v, m in chromium.every_slide(page, reveal, MEASURE):
                n_slides, n_figures = n_slides + 1, n_figures + m["figures"]
                box, where = m["box"], f"{deck.name} slide {h}.{v} ({m['text'][:40]!r})"
                if box["t"] < -1 or box["l"] < -1 or box["b"] > SCREEN["height"] + 1 or box["r"] > SCREEN["width"] + 1:
                    problems.append(f"{where}: content spans {box}")
                problems += [f"{where}: figure {c!r} is not fully on screen" for c in m["cut"]]
                problems += [f"{where}: scrolled {s}" for s in m["scrolled"]]
                if m["scale"] < MIN_SCALE:
                    problems.append(f"{where}: shrunk to {m['scale']:.2f} to fit; split the cell in the notebook")
                if m["scale"] == 1 and m["code"][0] < CODE_PX - 0.01:   # at the size the deck's style gives
                    problems.append(f"{where}: code drawn at {m['code'][0]:.1f} px ({m['code'][1]!r})")
                shrunk += m["code"][0] < CODE_PX - 0.01
    finally:
        page.close()
    print(f"{shrunk} of {n_slides} slides shrink code under {CODE_PX} px to fit")
    assert n_slides >= 12 * 5 and n_figures >= 12, f"only {n_slides} slides and {n_figures} figures visited"
    assert not problems, f"{len(problems)} of {n_slides} slides do not fit 1280x720:\n" + "\n".join(problems)
