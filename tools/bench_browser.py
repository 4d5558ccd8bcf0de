"""The demos as a room sees them: release a control in JupyterLab, wait until the new figure is painted.

    python tools/bench_browser.py                 # every demo, normal and projector mode
    python tools/bench_browser.py 05 12           # demos of notebooks starting with 05 or 12
    python tools/bench_browser.py --room          # normal mode alone, beside one CPU-bound
                                                  # process and beside two (a busy laptop)

For each demo a notebook of two cells (the course style, then the demo: `make(); show()`) runs in
JupyterLab on loopback, driven by headless Chromium (Debian's /usr/bin/chromium, playwright).
The first control that is a slider, a dropdown or a checkbox moves five times (a slider is dragged
and let go; a dropdown takes a new option, so notebook 12's subject dropdown is a first look at a
new subject each time), and each time the time from the release (mouseup or change event) to the
first frame painted after the new image decoded is taken in the page. `make bench` adds these rows.
"""

import json
import os
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat

from course_paths import NOTEBOOK_DIR
from helpers import bench, demos

CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
LAB_SETTINGS = NOTEBOOK_DIR.parent / "tools" / "lab_settings"
MOVES, TARGET_S = 5, 0.150
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"
# In the page: note each release, and the first frame painted after a new demo image decoded.
WATCH = """() => {
  window.__release = null; window.__painted = null;
  const note = () => { window.__release = performance.now(); window.__painted = null; };
  document.addEventListener('mouseup', note, true);
  document.addEventListener('change', note, true);
  const seen = new WeakSet();
  new MutationObserver(() => {
    for (const img of document.querySelectorAll('.jp-OutputArea-output img')) {
      if (seen.has(img) && img.dataset.src === img.src) continue;
      seen.add(img); img.dataset.src = img.src;
      if (window.__release === null) continue;
      img.decode().then(() => requestAnimationFrame(() => requestAnimationFrame(() => {
        if (window.__painted === null) window.__painted = performance.now();
      })));
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['src']});
}"""


SOURCES = "() => [...document.querySelectorAll('.jp-OutputArea-output img')].map(i => i.src.length + i.src.slice(-40))"


def demo_notebook(name, projector):
    """A two-cell notebook: the course style (and projector mode), then the demo."""
    style = "import helpers\n\nhelpers.plots.use_course_style()" + ("\nhelpers.presentation()" if projector else "")
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(style),
        nbformat.v4.new_code_cell(f"from helpers import demos\n\ndemo = demos.load({name!r}).make()\ndemo.show()"),
    ], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(notebook_dir, settings_dir):
    """JupyterLab on loopback over notebook_dir with the course's lab settings (what `make lab` gives)
    and user settings in settings_dir, rendering every cell; returns (process, base URL, token).
    tests/test_browser.py starts its JupyterLab with this too."""
    tracker = Path(settings_dir) / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    # Render every cell (JupyterLab 4 otherwise only renders the visible ones).
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, COURSE_DEVICE="cpu", JUPYTERLAB_SETTINGS_DIR=str(settings_dir))
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--allow-root",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebook_dir}",
         f"--LabApp.app_settings_dir={LAB_SETTINGS}", "--LabApp.news_url=",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2).close()
            return server, base, token
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                stop_lab(server)
                raise RuntimeError("JupyterLab did not start") from None
            time.sleep(0.5)


def stop_lab(server):
    server.terminate()
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def shut_down_kernels(base, token):
    with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as r:
        for s in json.load(r):
            req = urllib.request.Request(f"{base}/api/sessions/{s['id']}?token={token}", method="DELETE")
            urllib.request.urlopen(req, timeout=30).close()


def move(page, control, step):
    """Release the control once: drag a slider, pick the next option, tick a box; say which it was."""
    kind = control.get_attribute("class")
    if "widget-slider" in kind:
        handle = control.locator(".noUi-handle, .ui-slider-handle").first
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + (40 if step % 2 == 0 else -40), y, steps=4)
        page.mouse.up()
        return "drag"
    if "widget-dropdown" in kind:
        select = control.locator("select")
        n = select.locator("option").count()
        select.select_option(index=(step + 1) % n)
        return "new option"
    control.locator("input").first.click()
    return "click"


def measure(page, base, token, path, timeout_s=120):
    """Release-to-paint seconds of MOVES releases of the demo's first slider, dropdown or checkbox."""
    page.goto(f"{base}/lab/tree/{path.name}?reset&token={token}")
    page.wait_for_selector(f"{NOTEBOOK} .jp-Cell", timeout=90_000)
    for _ in range(4):   # on a cold start the first click can come before the page is ready,
        try:             # or a dialog (the kernel starting) can be in the way: close it, try again
            page.get_by_role("menuitem", name="Run", exact=True).click(timeout=20_000)
            page.get_by_role("menuitem", name=re.compile("^Run All Cells")).first.click(timeout=20_000)
            page.wait_for_selector(f"{NOTEBOOK} .jp-OutputArea-output img", timeout=timeout_s * 1000 // 4)
            break
        except Exception:  # noqa: BLE001 - playwright's timeout: try the menu again
            page.keyboard.press("Escape")
    page.wait_for_timeout(1500)   # the widget views render
    controls = page.locator(f"{NOTEBOOK} .widget-slider, {NOTEBOOK} .widget-dropdown, {NOTEBOOK} .widget-checkbox")
    control = controls.first
    control.scroll_into_view_if_needed()
    label = control.locator(".widget-label").first.inner_text()
    page.evaluate(WATCH)
    seconds, how = [], ""
    for step in range(MOVES):
        how = move(page, control, step)
        page.wait_for_function("() => window.__painted !== null", timeout=timeout_s * 1000)
        seconds.append(page.evaluate("() => window.__painted - window.__release") / 1000)
        quiet_since = time.time()    # the sharp image follows: wait until no image changed for 1 s,
        src = page.evaluate(SOURCES)  # so that a late one is never taken for the next move's answer
        deadline = quiet_since + 10
        while time.time() - quiet_since < 1.0 and time.time() < deadline:
            page.wait_for_timeout(200)
            now = page.evaluate(SOURCES)
            if now != src:
                src, quiet_since = now, time.time()
    return label, how, seconds


def measured(names, projector=(False, True)):
    """For each demo of `names` and each mode: (name, mode, (label, how, seconds)), or
    (name, mode, the exception) where the demo failed to answer, as soon as it is measured."""
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        root = Path(tmp)
        for name in names:
            for on in projector:
                nbformat.write(demo_notebook(name, on), root / f"bench_{name}{'_projector' * on}.ipynb")
        server, base, token = start_lab(root, root / "settings")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox",
                                                                    "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            for name in names:
                for on in projector:
                    mode = "projector mode" if on else "normal"
                    shut_down_kernels(base, token)
                    page = browser.new_page(viewport={"width": 1280, "height": 720})
                    try:
                        result = measure(page, base, token, root / f"bench_{name}{'_projector' * on}.ipynb")
                    except Exception as err:  # noqa: BLE001 - a demo that fails to answer is a finding
                        result = err
                    finally:
                        page.close()
                    yield name, mode, result
        finally:
            browser.close()
            stop_lab(server)


def demo_names(prefixes=()):
    """The demos of the notebooks whose names start with one of `prefixes` (every demo: none)."""
    return [n for n in demos.DEMOS if not prefixes or n.startswith(tuple(prefixes))]


def missing():
    """Why the browser rows cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "skipped: playwright is not installed"
    if not Path(CHROMIUM).exists():
        return f"skipped: no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def summary(seconds):
    """'median 123 ms (110-146)' of release-to-paint seconds."""
    return (f"median {statistics.median(seconds) * 1e3:.0f} ms "
            f"({min(seconds) * 1e3:.0f}-{max(seconds) * 1e3:.0f})")


def rows(prefixes=(), projector=(False, True), report=None):
    """One table row per demo and mode: the browser's release-to-paint median and range.
    report(row), if given, is called with each row as soon as it is measured."""
    if missing():
        return [bench.row("browser redraws", missing())]
    names = demo_names(prefixes)
    out = []
    for name, mode, result in measured(names, projector):
        if isinstance(result, Exception):
            out.append(bench.row(f"browser: demo {name}, {mode}",
                                 f"error: {type(result).__name__}: {str(result).splitlines()[0][:120]}",
                                 f"<= {TARGET_S * 1e3:.0f} ms", False))
        else:
            label, how, seconds = result
            out.append(bench.row(f"browser: demo {name}, {mode} ({MOVES} x {how}: {label})",
                                 f"{summary(seconds)}, load average {os.getloadavg()[0]:.1f}",
                                 f"<= {TARGET_S * 1e3:.0f} ms", statistics.median(seconds) <= TARGET_S))
        if report is not None:
            report(out[-1])
    return out


HOG = "while True: pass"
BESIDE = {0: "no other process", 1: "one CPU-bound process", 2: "two CPU-bound processes"}


def room(prefixes=(), beside=(0, 1, 2)):
    """A busy laptop: every demo in normal mode, once beside each number of CPU-bound processes
    (`python -c "while True: pass"`) in `beside`. Prints a markdown table, a column per number; each
    cell the median and range of the releases and the 1-minute load average then."""
    if missing():
        print(missing())
        return
    names = demo_names(prefixes)
    cells, controls = {name: [] for name in names}, {}
    for n in beside:
        hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(n)]
        try:
            for name, _, result in measured(names, projector=(False,)):
                if isinstance(result, Exception):
                    cells[name].append(f"error: {type(result).__name__}")
                else:
                    label, how, seconds = result
                    controls[name] = f"{label} ({how})".replace("|", "\\|")   # a table cell
                    cells[name].append(f"{summary(seconds).removeprefix('median ')}, "
                                       f"load {os.getloadavg()[0]:.1f}")
                print(f"{BESIDE.get(n, n)}: {name}: {cells[name][-1]}", flush=True)
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
    print("\n| demo (control moved) | " + " | ".join(BESIDE.get(n, f"{n} CPU-bound processes")
                                                    for n in beside) + " |")
    print("|---|" + "---|" * len(beside))
    for name in names:
        print(f"| {name} ({controls.get(name, '?')}) | " + " | ".join(cells[name]) + " |")


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    print(f"load average {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores")
    if "--room" in args:
        room([a for a in args if a != "--room"])
    else:
        rows(args, report=lambda r: print(bench.table([r]).splitlines()[-1], flush=True))


if __name__ == "__main__":
    main()
