"""Projector decks are readable from the back of a room: on every slide of every deck that
`make slides` builds in projector mode (NN_name.projector.slides.html), opened from disk at
1280x720 in headless Chromium, no body text is drawn under 24 px and no code or printed output
under 18 px; a code cell longer than a slide is cut across sub-slides, marked "continued", instead
of being shrunk. One Korean projector deck (slides/ko/) is measured the same way, and its marks are
the catalog's Korean.

The size measured is the one drawn on screen: each text's computed font size times reveal.js's
scale of the slide and any zoom on the way (the normal decks shrink a slide that does not fit; a
projector deck must not). Formulas count at the size of the text around them (MathJax's
sub- and superscripts are smaller on purpose), and so do <sub> and <sup>. Speaker notes are not on
the screen and do not count. Waits are on the deck's own events (reveal.js's slide index, the
deck's fit of the slide), never on the clock, so a busy machine only makes it slower.
"""

import re

import chromium
import nbformat
import pytest

import build_slides
import slide_layout
import translations
from course_paths import notebook_paths

BODY_PX, CODE_PX = 24, 18
SCREEN = {"width": 1280, "height": 720}
# The smallest body text and the smallest code on the present slide, as drawn, with an example of each
# (REVEAL: the deck's reveal.js, build_slides.reveal_api).
SMALLEST = """() => {
  const reveal = REVEAL;
  const slide = [...document.querySelectorAll('.reveal .slides section.present')].pop();
  const zoomOf = el => { let z = 1; for (let a = el; a; a = a.parentElement) z *= Number(getComputedStyle(a).zoom || 1); return z; };
  const found = {body: [Infinity, ''], code: [Infinity, '']};
  for (const el of slide.querySelectorAll('*')) {
    if (el.closest('aside.notes, .MJX_Assistive_MathML, sub, sup') || el.matches('script, style')) continue;
    // a formula at the size of its container; the text of anything else that holds text itself
    const math = el.closest('.MathJax_CHTML, .MathJax, mjx-container');
    if (math && math !== el) continue;
    const own = [...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!own && !math) continue;
    const r = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (!r.width || !r.height || style.visibility === 'hidden' || style.display === 'none') continue;
    const px = parseFloat(style.fontSize) * reveal.getScale() * zoomOf(el);
    const kind = el.closest('pre, code, .jp-CodeCell, .highlight') ? 'code' : 'body';
    if (px < found[kind][0]) found[kind] = [px, (el.textContent || '').trim().slice(0, 50)];
  }
  return found;
}"""


@pytest.fixture(scope="module")
def browser():
    yield from chromium.launch()


def longest_code_cell():
    """(lines, notebook, source) of the longest code cell of the course (the setup cell aside)."""
    return max(((len(c.source.splitlines()), p, c.source) for p in notebook_paths()
                for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"
                and "setup" not in c.metadata.get("tags", [])), key=lambda t: t[0])


@pytest.fixture(scope="module")
def decks(browser, tmp_path_factory):
    """Every English notebook's projector deck, and the Korean one of the notebook with the longest
    code cell (`make slides` builds every Korean deck)."""
    korean = build_slides.KOREAN / longest_code_cell()[1].name
    try:
        return build_slides.build(notebook_paths() + [korean], tmp_path_factory.mktemp("projector"), projector=(True,))
    except build_slides.NpmMissing as e:
        chromium.require(False, str(e))


def smallest_fonts(page, deck):
    """(slides visited, [(px, where, text)] of body text, the same of code) for one deck."""
    page.goto(deck.as_uri())
    page.wait_for_selector(".reveal.ready", timeout=60_000)
    reveal = build_slides.reveal_api(deck)
    page.evaluate(f"() => {reveal}.configure({{transition: 'none'}})")
    body, code, n = [], [], 0
    for h, v, found in chromium.every_slide(page, reveal, SMALLEST):
        n += 1
        body.append((found["body"][0], f"{deck.name} slide {h}.{v}", found["body"][1]))
        code.append((found["code"][0], f"{deck.name} slide {h}.{v}", found["code"][1]))
    return n, body, code


def test_every_projector_slide_has_body_text_of_24px_and_code_of_18px(browser, decks):
    page = browser.new_page(viewport=SCREEN)
    problems, report, n_slides = [], [], 0
    try:
        for deck in decks:
            n, body, code = smallest_fonts(page, deck)
            n_slides += n
            problems += [f"{where}: body text {px:.1f} px ({text!r})" for px, where, text in body if px < BODY_PX - 0.01]
            problems += [f"{where}: code {px:.1f} px ({text!r})" for px, where, text in code if px < CODE_PX - 0.01]
            report.append(f"{deck.relative_to(deck.parents[1]) if deck.parent.name == 'ko' else deck.name}: {n} slides, smallest body text {min(body)[0]:.1f} px, "
                          f"smallest code {min(code)[0]:.1f} px")
    finally:
        page.close()
    print("\n".join(report))
    assert n_slides >= 16 * 20, f"only {n_slides} slides visited"
    assert not problems, (f"{len(problems)} of {n_slides} projector slides have text too small for the back of "
                          f"a room (body >= {BODY_PX} px, code >= {CODE_PX} px):\n" + "\n".join(problems))


def test_a_long_code_cell_is_cut_across_sub_slides_marked_continued(browser, decks):
    """The longest code cell of the course, in its projector deck: in pieces, in order, each after
    the first under a "continued" mark, none drawn smaller than the rest."""
    n_lines, path, source = longest_code_cell()
    lines_per_slide = slide_layout.PROJECTOR.slide_height // slide_layout.PROJECTOR.code_line
    assert n_lines > lines_per_slide, f"the longest code cell has {n_lines} lines: nothing to cut"
    deck = next(d for d in decks if d.name == build_slides.deck_name(path, True) and d.parent.name != "ko")
    page = browser.new_page(viewport=SCREEN)
    try:
        page.goto(deck.as_uri())
        page.wait_for_selector(".reveal.ready", timeout=60_000)
        lines = source.strip().splitlines()   # two lines each, so that a line common elsewhere cannot match
        first, last = "\n".join(lines[:2]), "\n".join(lines[-2:])
        where = page.evaluate("""([first, last]) => {
          const slides = [...document.querySelectorAll('.reveal .slides section:not(:has(> section))')];
          const find = text => slides.findIndex(s => [...s.querySelectorAll('.jp-InputArea pre')]
            .some(pre => pre.textContent.includes(text)));
          const a = find(first);
          const b = slides.findIndex((s, i) => i > a && [...s.querySelectorAll('.jp-InputArea pre')]
            .some(pre => pre.textContent.includes(last)));
          const marks = slides.slice(a + 1, b + 1).filter(s => s.querySelector('.celltag_slide-continued')).length;
          return {a, b, marks};
        }""", [first, last])
    finally:
        page.close()
    assert 0 <= where["a"] < where["b"], f"{path.name}'s {n_lines}-line cell is not cut across slides: {where}"
    assert where["marks"] == where["b"] - where["a"], f"a piece after the first has no 'continued' mark: {where}"


def test_the_korean_deck_marks_its_cut_pieces_in_korean(decks):
    """The same cell in the Korean projector deck: its marks are checks.po's Korean, never the English."""
    path = longest_code_cell()[1]
    korean = next(d for d in decks if d.parent.name == "ko").read_text(encoding="utf-8")
    said = translations.read_catalog(translations.CHECKS_PO).get(
        "(continued from the previous slide: {index} of {total})").string
    pattern = re.escape(said).replace(r"\{index\}", r"\d+").replace(r"\{total\}", r"\d+")
    assert re.search(pattern, korean), f"{path.name}'s Korean deck has no mark {said!r}"
    assert "continued from the previous slide" not in korean
