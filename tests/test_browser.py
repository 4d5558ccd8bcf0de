"""A real browser: JupyterLab on loopback, driven by headless Chromium (Playwright).

Opens every notebook, runs all cells, and checks that no error or stderr output
appears in the page; on notebook 01 it moves a slider and checks the figure changes, and
opens it as live slides (RISE) with the network blocked. Chromium is started by
tests/chromium.py (skipped with a message where it is absent, required in CI).
"""

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from course_paths import NOTEBOOK_DIR, notebook_paths

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the tests skip (or fail in CI) in chromium.launch()
    PlaywrightTimeout = TimeoutError

import chromium

from sync_notebooks import BADGE_IMAGE  # the Colab badge: the one remote image

NOTEBOOKS = notebook_paths()
LAB_SETTINGS = NOTEBOOK_DIR.parent / "tools" / "lab_settings"  # what `make lab` gives JupyterLab
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'


@pytest.fixture(scope="module")
def browser():
    yield from chromium.launch()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser):  # a browser first: the tests skip before a server starts
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(NOTEBOOK_DIR, root / "notebooks")
    for path in (root / "notebooks").glob("*.ipynb"):
        # Show the collapsed solutions, so that every code cell shows its prompt once it ran.
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            cell.get("metadata", {}).get("jupyter", {}).pop("source_hidden", None)
        path.write_text(json.dumps(nb))
    settings = root / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Render every cell (JupyterLab 4 otherwise only renders the visible ones).
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, COURSE_DEVICE="cpu", JUPYTERLAB_SETTINGS_DIR=str(root / "settings"))
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--allow-root",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root / 'notebooks'}",
         f"--LabApp.app_settings_dir={LAB_SETTINGS}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    raise RuntimeError("JupyterLab did not start") from None
                time.sleep(0.5)
        yield base, token
    finally:
        server.terminate()
        server.wait(timeout=30)


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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
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
