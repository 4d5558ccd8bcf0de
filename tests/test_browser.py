"""A real browser: JupyterLab on loopback, driven by headless Chromium (Playwright).

Runs all cells of the notebooks whose front end differs, and checks that no error or stderr output
appears in the page; on notebook 01 it moves a slider and checks the figure changes, and
opens it as live slides (RISE) with the network blocked. A presenter's steps from
docs/INSTRUCTOR.md: notebook 05 in a full-screen slideshow, its demo run on the slide, a slider
moved and the figure redrawn, offline. Every notebook in RISE: code at 14 px or more, and each
slide fits a 1280x720 screen but one that holds a long code cell alone, which scrolls. A stored demo says, before its kernel runs, that it needs
one; in projector mode its controls are enlarged, and controls and figure fit one 1280x720 screen
(at 150% zoom too, without running off the right edge); its figure grows with a 1920x1080 screen,
in normal mode too. Chromium is started by
tests/chromium.py (skipped with a message where it is absent, required in CI).
"""

import json
import re
import shutil
import time
import urllib.request

import pytest

from course_paths import NOTEBOOK_DIR, notebook_paths

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the tests skip (or fail in CI) in chromium.launch()
    PlaywrightTimeout = TimeoutError

import chromium
import nbformat
from nbclient import NotebookClient
from nbformat.sign import NotebookNotary

import bench_browser
import slide_layout
from helpers import plots
from sync_notebooks import BADGE_IMAGE  # the Colab badge: the one remote image

NOTEBOOKS = notebook_paths()
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'


@pytest.fixture(scope="module")
def browser():
    yield from chromium.launch()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser):  # a browser first: the tests skip before a server starts
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(NOTEBOOK_DIR, root / "notebooks")
    for path in (root / "notebooks").glob("*.ipynb"):
        # Show the collapsed solutions, so that every code cell shows its prompt once it ran.
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            cell.get("metadata", {}).get("jupyter", {}).pop("source_hidden", None)
        # The slides RISE shows: tools/slide_layout.py's (test_slides.py checks the stored ones match).
        laid_out = nbformat.reads(json.dumps(nb), as_version=4)
        slide_layout.apply(laid_out)
        path.write_text(nbformat.writes(laid_out))
    server, base, token = bench_browser.start_lab(root / "notebooks", root / "settings")
    try:
        yield base, token
    finally:
        bench_browser.stop_lab(server)


NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"  # the notebook on screen


def shut_down_kernels(lab):
    """Stop every kernel the previous page started, so notebooks do not compete for the CPU."""
    base, token = lab
    with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as r:
        sessions = json.load(r)
    for s in sessions:
        req = urllib.request.Request(f"{base}/api/sessions/{s['id']}?token={token}", method="DELETE")
        urllib.request.urlopen(req, timeout=30).close()


def wait_for_idle_kernel(lab, name, timeout_s=120):
    """Wait until the notebook's kernel has started and is idle (asked from the server)."""
    base, token = lab
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as r:
            states = [s["kernel"]["execution_state"] for s in json.load(r) if s["path"].endswith(name)]
        if states == ["idle"]:
            return
        time.sleep(0.5)
    raise AssertionError(f"{name}: its kernel did not become idle within {timeout_s} s")


def open_and_run_all(browser, lab, name, timeout_s=240):
    base, token = lab
    shut_down_kernels(lab)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    # `reset` starts from an empty workspace: no notebook left open from an earlier page.
    page.goto(f"{base}/lab/tree/{name}?reset&token={token}")
    page.wait_for_selector(f"{NOTEBOOK} .jp-Cell", timeout=90_000)
    wait_for_idle_kernel(lab, name)
    # Run > Run All Cells; on a cold start the first click can come before the page is ready,
    # so try again until some cell starts.
    started = f"() => [...document.querySelectorAll('{NOTEBOOK} .jp-InputPrompt')]" \
              ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))"
    for _ in range(4):
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name=re.compile("^Run All Cells")).click()
        try:
            page.wait_for_function(started, timeout=30_000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    n_code = page.locator(f"{NOTEBOOK} .jp-CodeCell").count()
    deadline = time.time() + timeout_s
    while True:
        prompts = page.locator(f"{NOTEBOOK} .jp-CodeCell .jp-InputPrompt").all_inner_texts()
        done = [p for p in prompts if re.fullmatch(r"\[\d+\]:", p.strip())]
        if len(done) == n_code and not page.locator(STDERR).count():
            break
        if page.locator(STDERR).count() or time.time() > deadline:
            break
        time.sleep(1)
    return page, n_code, len(done)


# Run All in the browser only where the front end differs: kernel errors already fail nbval, which
# runs every notebook. What nbval cannot see is the page: widget views that fail to render, a
# display update that lands in the wrong output, stderr printed by JupyterLab's own renderers.
# 01's demo is a plain LiveFigure; 10's cells start worker processes from the kernel. (Projector
# mode has a test of its own below, on a stored demo.)
RUN_ALL = [p for p in NOTEBOOKS if p.name.startswith(("01_", "10_"))]


@pytest.mark.parametrize("path", RUN_ALL, ids=[p.stem for p in RUN_ALL])
def test_notebook_runs_in_jupyterlab_without_errors(browser, lab, path):
    page, n_code, n_done = open_and_run_all(browser, lab, path.name)
    try:
        errors = page.locator(STDERR).all_inner_texts()
        assert not errors, f"{path.name}: error output in the page: {errors[0][:500]}"
        assert n_done == n_code, f"{path.name}: {n_done} of {n_code} code cells ran"
        assert page.locator(f"{NOTEBOOK} .jp-OutputArea-output img").count() >= 1
    finally:
        page.close()


def test_moving_a_slider_redraws_the_figure(browser, lab):
    page, n_code, n_done = open_and_run_all(browser, lab, "01_matrix_multiply.ipynb")
    try:
        assert n_done == n_code
        cell = page.locator(f"{NOTEBOOK} .jp-CodeCell", has_text="demo.show()")
        # The cell ran in this page: the note that the controls need a kernel goes, before any move.
        cell.locator(".course-demo .widget-html", has_text="need a running kernel").wait_for(state="hidden", timeout=30_000)
        image = cell.locator(".jp-OutputArea-output img").first
        before = image.get_attribute("src")
        # Drag the first slider's handle to the right, as a presenter would.
        handle = cell.locator(".widget-slider .noUi-handle, .widget-slider .ui-slider-handle").first
        handle.scroll_into_view_if_needed()
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 120, y, steps=8)
        page.mouse.up()
        readout = cell.locator(".widget-readout").first.inner_text()
        assert readout.strip() != "4", "the slider did not move"
        deadline = time.time() + 30
        while image.get_attribute("src") == before and time.time() < deadline:
            time.sleep(0.5)  # the output is re-rendered: query the image again each time
        assert image.get_attribute("src") != before, "the figure did not redraw"
    finally:
        page.close()


def test_rise_shows_the_first_slide_offline(browser, lab):
    """RISE (jupyterlab-rise, from `make lab`) shows notebook 01 as live slides with no network."""
    base, token = lab
    shut_down_kernels(lab)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    attempted = chromium.block_network(page)
    try:
        page.goto(f"{base}/rise/01_matrix_multiply.ipynb?token={token}")
        slide = page.locator(".reveal.ready .slides > section.present")
        slide.wait_for(timeout=90_000)
        title = slide.locator("h1").first.text_content()
        assert title.startswith("01 · Matrix multiply"), f"the first slide shows {title!r}, not the title"
        assert page.locator(".reveal .slides > section").count() >= 5
        remote = [r for r in attempted if r != ("image", BADGE_IMAGE)]
        assert not remote, f"RISE asked the network for {remote}"
    finally:
        page.close()


SCREEN = {"width": 1280, "height": 720}
FULL_SCREEN = "Open the slideshow in full screen"   # the RISE preview's toolbar button


def test_a_demo_runs_and_answers_on_a_full_screen_slide_offline(browser, lab):
    """The guide's steps: select the demo cell, Alt+R, the preview's full-screen button, Ctrl+Enter
    on the slide; then a slider moved on the slide redraws the figure. No request leaves the machine.
    With jupyterlab_widgets 3.0.11 or later the slideshow's widget manager fails to load (RISE's app
    has no @jupyterlab/console), and the cell shows only its text stand-in."""
    base, token = lab
    shut_down_kernels(lab)
    page = browser.new_page(viewport=SCREEN)
    attempted = chromium.block_network(page)
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text[:200]))
    try:
        page.goto(f"{base}/lab/tree/05_swiglu_gate.ipynb?reset&token={token}")
        cell = page.locator(f"{NOTEBOOK} .jp-CodeCell", has_text="demo.show()")
        cell.locator(".jp-InputPrompt").click(timeout=90_000)
        page.keyboard.press("Escape")          # command mode: Alt+R needs the notebook focused
        page.keyboard.press("Alt+r")
        slides = page.wait_for_selector("iframe[src*='/rise/']", timeout=60_000).content_frame()
        slides.locator(".reveal.ready .slides > section.present").first.wait_for(timeout=90_000)
        page.get_by_title(FULL_SCREEN).click()   # once the slides show: before, the click is lost
        # The slides fill the screen (the element grows to it as full screen begins).
        filled = ("s => { const e = document.fullscreenElement; if (!e || !e.matches('div.reveal')) return false;"
                  " const r = e.getBoundingClientRect(); return r.width >= s.width - 1 && r.height >= s.height - 1; }")
        try:
            slides.wait_for_function(filled, arg=SCREEN, timeout=30_000)
        except PlaywrightTimeout:
            size = slides.evaluate("() => document.fullscreenElement && [document.fullscreenElement.className,"
                                   " document.fullscreenElement.getBoundingClientRect().width,"
                                   " document.fullscreenElement.getBoundingClientRect().height]")
            raise AssertionError(f"the slideshow did not fill the screen: full-screen element {size}") from None
        # The slideshow opens at the selected cell's slide: the demo.
        demo = slides.locator(".reveal section.present .jp-CodeCell", has_text="demo.show()")
        demo.locator(".jp-InputArea-editor").click(timeout=60_000)
        page.keyboard.press("Control+Enter")   # run it and stay on the slide (Shift+Enter moves on)
        try:
            demo.locator(".widget-slider").first.wait_for(timeout=120_000)
        except PlaywrightTimeout:
            raise AssertionError(f"the demo ran on the slide but showed no controls; console errors: {errors[:3]}") from None
        image = demo.locator(".jp-OutputArea-output img").first
        image.wait_for(timeout=60_000)
        before = image.get_attribute("src")
        handle = demo.locator(".widget-slider .noUi-handle, .widget-slider .ui-slider-handle").first
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x - 80, y, steps=8)
        page.mouse.up()
        slides.wait_for_function(
            "b => [...document.querySelectorAll('.reveal section.present .jp-OutputArea-output img')].some(i => i.src !== b)",
            arg=before, timeout=60_000)
        remote = [r for r in attempted if r != ("image", BADGE_IMAGE)]
        assert not remote, f"the slideshow asked the network for {remote}"
    finally:
        page.close()
# The present RISE slide: the box around everything visible on it, figures not fully on screen,
# and anything scrolled (RISE's scroll fallback, or content cut off).
RISE_MEASURE = """() => {
  const leaves = [...document.querySelectorAll('.reveal .slides section')].filter(s => !s.querySelector('section'));
  const slide = leaves.find(s => s.classList.contains('present'));
  const box = {l: Infinity, t: Infinity, r: -Infinity, b: -Infinity}, cut = [], scrolled = [];
  for (const el of [slide, ...slide.querySelectorAll('*')]) {
    if (el.closest('mjx-assistive-mml, .MJX_Assistive_MathML')) continue;   // a screen reader's copy, clipped
    const r = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (/(auto|scroll)/.test(style.overflowX + style.overflowY)
        && (el.scrollHeight > el.clientHeight + 2 || el.scrollWidth > el.clientWidth + 2))
      scrolled.push(el.className.slice(0, 60) + ': ' + el.scrollWidth + 'x' + el.scrollHeight + ' in '
                    + el.clientWidth + 'x' + el.clientHeight);
    if (el === slide || !r.width || !r.height || style.visibility === 'hidden'
        || el.closest('.jp-OutputArea-promptOverlay, .jp-Collapser, .cm-announced')) continue;
    box.l = Math.min(box.l, r.left); box.t = Math.min(box.t, r.top);
    box.r = Math.max(box.r, r.right); box.b = Math.max(box.b, r.bottom);
    if (el.tagName === 'IMG' && el.closest('.jp-OutputArea-output')
        && (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1)) cut.push(el.alt);
  }
  return {index: leaves.indexOf(slide), n: leaves.length, box, cut, scrolled,
          text: slide.innerText.trim().slice(0, 50)};
}"""


def settle(page, frames=2):
    """Wait until the present slide has settled (tests/chromium.py)."""
    chromium.wait_until_settled(page, RISE_MEASURE, frames, timeout_ms=30_000)


# The cells drawn on the present RISE slide (a cell RISE skips is not drawn).
RISE_CELLS = """() => {
  const leaves = [...document.querySelectorAll('.reveal .slides section')].filter(s => !s.querySelector('section'));
  const slide = leaves.find(s => s.classList.contains('present'));
  return [...slide.querySelectorAll('.jp-Cell')].filter(c => c.getBoundingClientRect().height > 0).length;
}"""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_rise_slide_fits_the_screen_with_code_at_14_px(browser, lab, path):
    """Every RISE slide of the notebook at 1280x720: code and printed output drawn at 14 px or more,
    nothing off the left or right edge, and the slide fits the screen, unless it holds one cell alone,
    a code cell too long for the screen at that size: that slide scrolls (RISE's scroll option)
    instead of shrinking its code. A slide of several cells that does not fit is the layout's error
    (tools/slide_layout.py)."""
    base, token = lab
    shut_down_kernels(lab)
    page = browser.new_page(viewport=SCREEN)
    problems, last, alone = [], -1, []
    try:
        page.goto(f"{base}/rise/{path.name}?token={token}")
        page.locator(".reveal.ready .slides > section.present").wait_for(timeout=90_000)
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        settle(page, frames=5)        # the cells' editors and outputs settle
        while True:
            m = page.evaluate(RISE_MEASURE)
            assert m["index"] != last, f"{path.name}: Space did not move past slide {last}"
            last, box = m["index"], m["box"]
            where = f"{path.name} slide {m['index']} ({m['text'][:40]!r})"
            code_px, code_text = page.evaluate(RISE_SMALLEST)["found"]["code"]
            if code_px < 14 - 0.01:
                problems.append(f"{where}: code drawn at {code_px:.1f} px ({code_text!r})")
            if box["l"] < -1 or box["r"] > SCREEN["width"] + 1:
                problems.append(f"{where}: content spans {box} across")
            overflows = box["t"] < -1 or box["b"] > SCREEN["height"] + 1 or m["scrolled"] or m["cut"]
            if overflows and page.evaluate(RISE_CELLS) == 1:
                alone.append(where)
            elif overflows:
                problems.append(f"{where}: several cells that do not fit: content spans {box}, "
                                f"scrolled {m['scrolled']}, figures not fully on screen {m['cut']}")
            if m["index"] == m["n"] - 1:
                break
            page.keyboard.press("Space")
            page.wait_for_function("i => [...document.querySelectorAll('.reveal .slides section')]"
                                   ".filter(s => !s.querySelector('section')).findIndex(s => s.classList.contains('present')) !== i",
                                   arg=last, timeout=10_000)
            settle(page)
    finally:
        page.close()
    assert last >= 5, f"{path.name}: RISE showed only {last + 1} slides"
    assert len(alone) <= (last + 1) // 4, f"{len(alone)} of {last + 1} slides scroll: {alone}"
    assert not problems, (f"{len(problems)} of {last + 1} RISE slides do not fit 1280x720 (tools/slide_layout.py "
                          "names the cells taller than a slide):\n" + "\n".join(problems))


def store_demo(lab, name, projector):
    """Store a notebook whose demo ran headless with its widget state, as the course's are, in
    projector mode or not; returns its name on the server."""
    base, token = lab
    setup = "import helpers\n\nhelpers.plots.use_course_style()" + ("\nhelpers.presentation()" if projector else "")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(setup),
        nbformat.v4.new_code_cell("from helpers.demos import nb05_swiglu_gate\n\n"
                                  "demo = nb05_swiglu_gate.make()\ndemo.show()"),
    ], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True).execute()
    # Trusted, as a notebook the learner ran and saved is: JupyterLab then draws its stored widgets
    # (an untrusted one shows the plain-text stand-in, which says to run the notebook).
    NotebookNotary().sign(nb)
    body = json.dumps({"type": "notebook", "format": "json", "content": json.loads(nbformat.writes(nb))}).encode()
    req = urllib.request.Request(f"{base}/api/contents/{name}?token={token}", data=body,
                                 method="PUT", headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=30).close()
    return name


@pytest.fixture(scope="module")
def stored_demo(lab):
    """A demo stored in projector mode."""
    return store_demo(lab, "demo_projector.ipynb", projector=True)


@pytest.fixture(scope="module")
def stored_normal_demo(lab):
    """The same demo stored in normal mode."""
    return store_demo(lab, "demo_normal.ipynb", projector=False)


def open_stored(browser, lab, name, zoom=1.0, screen=SCREEN):
    base, token = lab
    shut_down_kernels(lab)
    page = browser.new_page(viewport={"width": round(screen["width"] / zoom), "height": round(screen["height"] / zoom)},
                            device_scale_factor=zoom)
    page.goto(f"{base}/lab/tree/{name}?reset&token={token}")
    page.wait_for_selector(f"{NOTEBOOK} .jp-OutputArea-output img", timeout=90_000)
    page.wait_for_selector(f"{NOTEBOOK} .widget-slider", timeout=30_000)
    return page


def test_a_stored_demo_says_it_needs_a_running_kernel(browser, lab, stored_demo):
    page = open_stored(browser, lab, stored_demo)
    try:
        note = page.locator(f"{NOTEBOOK} .course-demo .widget-html").first
        assert "need a running kernel" in note.inner_text(), "the stored demo does not say it needs a kernel"
        assert note.is_visible()
    finally:
        page.close()


@pytest.mark.parametrize("zoom", [1.0, 1.5])
def test_projector_demo_fits_one_screen_with_enlarged_controls(browser, lab, stored_demo, zoom):
    page = open_stored(browser, lab, stored_demo, zoom)
    try:
        cell = page.locator(f"{NOTEBOOK} .jp-CodeCell").nth(1)
        outputs = cell.locator(".jp-Cell-outputWrapper")
        outputs.scroll_into_view_if_needed()
        label = cell.locator(".widget-slider .widget-label").first
        size = float(label.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
        assert size >= 18, f"projector mode left the controls' text at {size} px"
        box, image = outputs.bounding_box(), cell.locator(".jp-OutputArea-output img").first.bounding_box()
        width, height = page.viewport_size["width"], page.viewport_size["height"]
        assert image["x"] + image["width"] <= width + 1, f"at {zoom:.0%} zoom the figure runs off the right edge"
        if zoom == 1.0:
            top = page.locator(f"{NOTEBOOK}").bounding_box()["y"]
            assert box["height"] <= height - top, (f"controls and figure take {box['height']:.0f} px; "
                                                   f"the notebook area is {height - top:.0f} px tall")
    finally:
        page.close()


@pytest.mark.parametrize("mode", ["projector", "normal"])
def test_demo_figure_grows_with_the_screen(browser, lab, stored_demo, stored_normal_demo, mode):
    """At 1920x1080 a demo's figure is drawn larger than at 1280x720 (it fills the room the screen
    gives, in normal and in projector mode), and controls and figure still fit in the notebook's area."""
    name = stored_demo if mode == "projector" else stored_normal_demo
    heights = {}
    for screen in (SCREEN, {"width": 1920, "height": 1080}):
        page = open_stored(browser, lab, name, screen=screen)
        try:
            cell = page.locator(f"{NOTEBOOK} .jp-CodeCell").nth(1)
            outputs = cell.locator(".jp-Cell-outputWrapper")
            outputs.scroll_into_view_if_needed()
            heights[screen["height"]] = cell.locator(".jp-OutputArea-output img").first.bounding_box()["height"]
            top = page.locator(NOTEBOOK).bounding_box()["y"]
            box = outputs.bounding_box()
            assert box["height"] <= screen["height"] - top, \
                f"{mode} mode: at {screen['width']}x{screen['height']} controls and figure take {box['height']:.0f} px"
        finally:
            page.close()
    assert heights[1080] >= 1.4 * heights[720], \
        f"{mode} mode: the figure is {heights[720]:.0f} px tall at 720p, {heights[1080]:.0f} px at 1080p"


# The smallest body text and code on the present RISE slide as drawn (font size times the slides'
# scale and any zoom), leaving out the prompts and other chrome of JupyterLab's cells.
RISE_SMALLEST = """() => {
  const leaves = [...document.querySelectorAll('.reveal .slides section')].filter(s => !s.querySelector('section'));
  const slide = leaves.find(s => s.classList.contains('present'));
  const slides = document.querySelector('.reveal .slides');
  const scale = new DOMMatrix(getComputedStyle(slides).transform === 'none' ? undefined : getComputedStyle(slides).transform).a;
  const zoomOf = el => { let z = 1; for (let a = el; a; a = a.parentElement) z *= Number(getComputedStyle(a).zoom || 1); return z; };
  const found = {body: [Infinity, ''], code: [Infinity, '']};
  for (const el of slide.querySelectorAll('*')) {
    if (el.closest('.jp-InputPrompt, .jp-OutputPrompt, .jp-Collapser, .jp-OutputArea-promptOverlay, .cm-announced,'
                   + ' .jp-Cell-footer, .jp-Toolbar, .jp-cell-toolbar, mjx-assistive-mml, .MJX_Assistive_MathML,'
                   + ' sub, sup, mjx-container *, .MathJax *, .jupyter-widgets, .cm-gutters')
        || el.matches('script, style')) continue;
    if (![...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim())) continue;
    const r = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (!r.width || !r.height || style.visibility === 'hidden' || style.display === 'none') continue;
    const px = parseFloat(style.fontSize) * scale * zoomOf(el);
    const kind = el.closest('.jp-CodeCell, pre, code') ? 'code' : 'body';
    if (px < found[kind][0]) found[kind] = [px, el.textContent.trim().slice(0, 50)];
  }
  return {index: leaves.indexOf(slide), n: leaves.length, found};
}"""


# The height of the setup cell where it is drawn on the present slide (0 where RISE skips it, as it should).
SETUP_SHOWN = """() => Math.round([...document.querySelectorAll('.reveal section.present .jp-CodeCell')]
  .filter(c => c.textContent.includes('class SetupError'))
  .reduce((h, c) => h + c.getBoundingClientRect().height, 0))"""


def test_projector_mode_keeps_rise_text_large_and_long_cells_unshrunk(browser, lab):
    """Notebook 05 in RISE at 1280x720 with helpers.presentation()'s output after its setup cell:
    on every slide body text is drawn at 24 px or more and code and printed output at 18 px or
    more (05's 39-line timing cell too, which normal mode shrinks). RISE cannot cut a live cell
    across slides: a slide taller than the screen scrolls at full size instead. The setup cell stays
    off every slide, as in normal mode."""
    base, token = lab
    shut_down_kernels(lab)
    nb = nbformat.read(NOTEBOOK_DIR / "05_swiglu_gate.ipynb", as_version=4)
    mode = plots.presentation()
    plots.presentation(False)
    cell = nbformat.v4.new_code_cell("helpers.presentation()")
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/html": mode._repr_html_(), "text/plain": repr(mode)},
                                           execution_count=1)]
    setup = next(i for i, c in enumerate(nb.cells) if "setup" in c.metadata.get("tags", []))
    nb.cells.insert(setup + 1, cell)
    slide_layout.apply(nb)
    NotebookNotary().sign(nb)
    body = json.dumps({"type": "notebook", "format": "json", "content": json.loads(nbformat.writes(nb))}).encode()
    req = urllib.request.Request(f"{base}/api/contents/05_projector.ipynb?token={token}", data=body,
                                 method="PUT", headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=30).close()
    page = browser.new_page(viewport=SCREEN)
    problems, last = [], -1
    try:
        page.goto(f"{base}/rise/05_projector.ipynb?token={token}")
        page.locator(".reveal.ready .slides > section.present").wait_for(timeout=90_000)
        page.wait_for_function("() => document.fonts.status === 'loaded' && document.querySelector('.course-projector-on')")
        while True:
            page.wait_for_function("() => [...document.querySelectorAll('.reveal section.present .jp-CodeCell')]"
                                   ".every(c => c.querySelector('.cm-content'))", timeout=30_000)
            m = page.evaluate(RISE_SMALLEST)
            assert m["index"] != last, f"Space did not move past slide {last}"
            last = m["index"]
            shown = page.evaluate(SETUP_SHOWN)
            if shown:
                problems.append(f"slide {last}: the setup cell is on it, {shown} px tall")
            (body_px, body_text), (code_px, code_text) = m["found"]["body"], m["found"]["code"]
            if body_px < 24 - 0.01:
                problems.append(f"slide {last}: body text {body_px:.1f} px ({body_text!r})")
            if code_px < 18 - 0.01:
                problems.append(f"slide {last}: code {code_px:.1f} px ({code_text!r})")
            if m["index"] == m["n"] - 1:
                break
            page.keyboard.press("Space")
            page.wait_for_function("i => [...document.querySelectorAll('.reveal .slides section')]"
                                   ".filter(s => !s.querySelector('section')).findIndex(s => s.classList.contains('present')) !== i",
                                   arg=last, timeout=30_000)
    finally:
        page.close()
    assert last >= 5, f"RISE showed only {last + 1} slides"
    assert not problems, (f"{len(problems)} of {last + 1} RISE slides in projector mode show the setup cell or "
                          "text too small:\n" + "\n".join(problems))
