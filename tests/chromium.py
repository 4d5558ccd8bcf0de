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


# Every slide of a `make slides` deck in turn, inside the page (one call, no round trip a slide):
# bring it up, wait (frame by frame) until the deck has fitted it, its images have loaded and
# `measure` gave the same result `frames` frames in a row, then keep that result. A slide not
# settled after `limit` frames is kept with the frames it waited, for the test to name.
EVERY_SLIDE = """async ([frames, limit]) => {
  const reveal = REVEAL, measure = MEASURE;
  const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
  const stacks = [...document.querySelectorAll('.reveal .slides > section')]
    .map(s => Math.max(1, s.querySelectorAll(':scope > section').length));
  const found = [];
  for (let h = 0; h < stacks.length; h++) for (let v = 0; v < stacks[h]; v++) {
    const at = reveal.getIndices();
    if (at.h !== h || at.v !== v) { delete reveal.getSlide(h, v).dataset.fitted; reveal.slide(h, v); }
    let last = null, same = 0, waited = 0;
    for (;;) {
      const now = reveal.getIndices(), images = document.querySelectorAll('.reveal section.present img');
      if (now.h !== h || now.v !== v || !reveal.getCurrentSlide().dataset.fitted
          || document.readyState !== 'complete' || ![...images].every(img => img.complete)) {
        last = null;
      } else {
        const value = measure(), m = JSON.stringify(value);
        same = m === last ? same + 1 : 0; last = m;
        if (same >= frames) { found.push({h, v, m: value}); break; }
      }
      if (++waited > limit) { found.push({h, v, unsettled: waited}); break; }
      await frame();
    }
  }
  return found;
}"""


def every_slide(page, reveal, measure, frames=2, limit=3600):
    """[(h, v, what `measure` returned)] for every slide of the deck open in `page` (`reveal`: the
    expression that gives its reveal.js; `measure`: a page function of no argument, in which REVEAL
    stands for that expression too), each once the deck has fitted it and `measure` has given the
    same result `frames` frames in a row. AssertionError names the slides not settled within
    `limit` frames (a minute at 60 Hz): the wait ends by the page's frames, never by the clock."""
    found = page.evaluate(EVERY_SLIDE.replace("MEASURE", measure).replace("REVEAL", reveal), [frames, limit])
    unsettled = [f"slide {f['h']}.{f['v']}" for f in found if "unsettled" in f]
    assert not unsettled, f"not fitted and settled within {limit} frames: {unsettled}"
    return [(f["h"], f["v"], f["m"]) for f in found]
