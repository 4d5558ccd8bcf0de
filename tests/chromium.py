"""Debian's headless Chromium for the browser tests, and pages that cannot reach the network.

The tests need /usr/bin/chromium (`.ci/run` installs it) and playwright. Where one is missing they
skip with a message, unless COURSE_REQUIRE_BROWSER=1 (CI) makes them fail.
"""

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
# Requests that stay on this machine: files, inline data, and the loopback server of a test.
LOCAL = ("file:", "data:", "blob:", "about:", "http://127.0.0.1:", "ws://127.0.0.1:")


def require(present, message):
    """Skip the test where `present` is false, or fail it in CI (COURSE_REQUIRE_BROWSER=1)."""
    if present:
        return
    if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


def launch():
    """Yield a started headless Chromium (the body of a module-scoped fixture)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    require(sync_playwright is not None and Path(CHROMIUM).exists(),
            f"Chromium ({CHROMIUM}) or playwright is not installed: browser test not run "
            "(install Debian's chromium to run it)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def block_network(page):
    """Abort every request of `page` that would leave this machine; return the list recording them.

    Each attempted request is recorded as (resource type, URL), whether or not the route saw it.
    """
    attempted = []
    page.on("request", lambda r: r.url.startswith(LOCAL) or attempted.append((r.resource_type, r.url)))
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(LOCAL)
               else route.abort("internetdisconnected"))
    return attempted


def settled(measure):
    """A page function of n, true once the present slide's images have loaded and the page function
    `measure` gave the same result in n frames in a row (poll it once a frame, polling="raf"): the
    slide has settled, however slow the machine. Reset window.__measure before each slide."""
    return f"""n => {{
  if (![...document.querySelectorAll('.reveal section.present img')].every(img => img.complete)) return false;
  const m = JSON.stringify(({measure})());
  window.__same = window.__measure === m ? (window.__same || 0) + 1 : 0;
  window.__measure = m;
  return window.__same >= n;
}}"""


def wait_until_settled(page, measure, frames=2, timeout_ms=60_000):
    page.evaluate("() => { window.__measure = null; window.__same = 0; }")
    page.wait_for_function(settled(measure), arg=frames, polling="raf", timeout=timeout_ms)


def visit_slide(page, reveal, h, v, timeout_ms=60_000):
    """Bring slide (h, v) of a `make slides` deck up (`reveal`: the expression that gives its
    reveal.js) and wait until the deck has fitted it: the fit marks the slide it has measured."""
    page.evaluate("([h, v]) => { const r = REVEAL, s = r.getSlide(h, v);"
                  " if (r.getIndices().h !== h || r.getIndices().v !== v) { delete s.dataset.fitted; r.slide(h, v); } }"
                  .replace("REVEAL", reveal), [h, v])
    page.wait_for_function("([h, v]) => { const r = REVEAL, i = r.getIndices();"
                           " return i.h === h && i.v === v && r.getCurrentSlide().dataset.fitted"
                           " && document.readyState === 'complete'; }".replace("REVEAL", reveal),
                           arg=[h, v], timeout=timeout_ms)
