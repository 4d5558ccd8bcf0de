"""Build one reveal.js deck per notebook into slides/, loading nothing from the network.

    python tools/build_slides.py                  # every notebook (what `make slides` runs)
    python tools/build_slides.py 12               # notebooks whose name starts with 12

Each notebook gives two decks: NN_name.slides.html, and NN_name.projector.slides.html for a room
(projector mode: body text 24 px and code 18 px at 1280x720, nothing shrunk; a code cell longer
than a slide is cut across consecutive sub-slides, each piece after the first marked "continued",
by tools/slide_layout.py's split_for_projector). The Korean edition's notebooks (notebooks/ko/) give
the same two decks in slides/ko/, in Korean (<html lang="ko">, the marks from checks.po), with Hangul
in Nanum Gothic, the Korean figures' font, as a web font: the @fontsource/nanum-gothic package's
Korean subset (every Hangul syllable; SIL OFL 1.1, its LICENSE beside it), so that no deck asks the
network for a font. (The TrueType files of koreanize-matplotlib, which the figures use, carry an
empty hinting table that Chromium's font sanitizer refuses.)

reveal.js, MathJax and require.js come from their npm packages: `npm pack` fetches each once
into build/npm/, and the files a deck uses are copied into slides/assets/. The decks refer to
them by relative paths, so slides/ opened from disk (or copied to a USB stick) needs no network.
"""

import argparse
import copy
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter
from traitlets.config import Config

import slide_layout

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
KOREAN = NOTEBOOKS / "ko"   # the Korean edition: its decks go to slides/ko/
NPM_CACHE = ROOT / "build" / "npm"
TEMPLATE = Path(__file__).resolve().parent / "offline_slides.html.j2"
ASSETS = "assets"  # the folder next to the decks

# npm package -> the files the decks use (`*` stays within a folder, `**` crosses folders).
PACKAGES = {
    "reveal.js@4.6.1": ["LICENSE", "dist/reveal.js", "dist/reveal.css", "dist/theme/white.css",
                        "dist/theme/fonts/source-sans-pro/*", "plugin/notes/notes.js"],
    # MathJax 2, as nbconvert's template expects; the TeX input and CommonHTML output only.
    "mathjax@2.7.9": ["LICENSE", "MathJax.js", "config/TeX-AMS_CHTML-full.js", "config/Safe.js",
                      "extensions/*.js", "extensions/TeX/*", "extensions/a11y/accessibility-menu.js",
                      "jax/input/TeX/*", "jax/element/**", "jax/output/CommonHTML/**",
                      "jax/output/PreviewHTML/*", "fonts/HTML-CSS/TeX/woff/*", "localization/en/*"],
    "requirejs@2.3.8": ["require.js"],
    # Hangul for the Korean decks: Nanum Gothic's Korean subset, regular and bold, as WOFF2.
    "@fontsource/nanum-gothic@5.3.0": ["LICENSE", "files/nanum-gothic-korean-400-normal.woff2",
                                       "files/nanum-gothic-korean-700-normal.woff2"],
}
# The exporter's URLs, relative to a deck in slides/ (a Korean deck, in slides/ko/, puts ../ before each).
URLS = {
    "reveal_url_prefix": f"{ASSETS}/reveal.js",
    "reveal_theme": "white",
    "mathjax_url": f"{ASSETS}/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe",
    "require_js_url": f"{ASSETS}/requirejs/require.js",
}
# A 16:9 slide, the size of a projector's 720p screen (tools/slide_layout.py fills slides to fit it).
SIZE = {"reveal_width": "1280", "reveal_height": "720"}
# A script, style sheet, module or font fetched from another machine.
REMOTE = re.compile(r"""(?:<(?:script|link)\b[^>]*\b(?:src|href)=["']?|\bfrom\s*["']|\bimport\s*\(\s*["']"""
                    r"""|url\(\s*["']?)(?:https?:)?//[^"')\s]*""")


# The CDNs nbconvert's templates load from, wherever they appear (a script may build its URL).
CDN = re.compile(r"(?:https?:)?//(?:unpkg\.com|cdnjs\.cloudflare\.com|cdn\.jsdelivr\.net)/[^\"')\s]*")


class NpmMissing(SystemExit):
    """npm is needed once, to fetch the packages the decks use."""


def slide_count(nb):
    """The number of top-level slides a notebook's slide metadata gives (the title cell opens the first)."""
    marked = [c for c in nb.cells if c.metadata.get("slideshow", {}).get("slide_type") == "slide"]
    return len(marked) + (0 if marked and marked[0] is nb.cells[0] else 1)


def matches(path, pattern):
    regex = re.escape(pattern).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    return re.fullmatch(regex, path) is not None


def fetch(spec):
    """The npm tarball of `spec` (name@version), downloaded with `npm pack` on first use."""
    name, version = spec.rsplit("@", 1)
    tarball = NPM_CACHE / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"   # as npm pack names it
    if not tarball.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise NpmMissing(f"the slides need {spec} from npm, but npm is not installed: install "
                             "Node.js (npm) once, or copy build/npm/ from a machine that has it")
        NPM_CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=NPM_CACHE) as tmp:  # no half-written tarball is kept
            subprocess.run([npm, "pack", "--silent", spec], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
            (Path(tmp) / tarball.name).replace(tarball)
    return tarball


def copy_assets(out_dir):
    """Copy the files the decks use from each npm package into out_dir/assets/<package>/."""
    assets = out_dir / ASSETS
    shutil.rmtree(assets, ignore_errors=True)
    for spec, patterns in PACKAGES.items():
        name = spec.rsplit("@", 1)[0]
        used = set()
        with tarfile.open(fetch(spec)) as tar:
            for member in tar.getmembers():
                path = member.name.removeprefix("package/")
                hits = [p for p in patterns if matches(path, p)]
                if member.isfile() and hits:
                    used.update(hits)
                    dest = assets / name / path
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(tar.extractfile(member).read())
        if unused := [p for p in patterns if p not in used]:
            raise SystemExit(f"{spec} has no file matching {unused}")


def language_of(path):
    """'ko' for a notebook of the Korean edition (notebooks/ko/), else 'en'."""
    return "ko" if Path(path).resolve().parent == KOREAN.resolve() else "en"


def prefix(language):
    """How a deck in `language` reaches slides/: from slides/ko/ one folder up."""
    return "../" if language == "ko" else ""


def exporter(language="en"):
    """nbconvert's SlidesExporter with every URL pointing into the assets folder, for decks in
    `language` (the html's lang attribute; a Korean deck's URLs start with ../)."""
    config = Config()
    urls = {k: prefix(language) + v if k != "reveal_theme" else v for k, v in URLS.items()}
    config.SlidesExporter.update(urls, **SIZE, template_file=str(TEMPLATE), language_code=language)
    return SlidesExporter(config=config)


def reveal_api(deck):
    """The JavaScript expression that gives a built deck's reveal.js (the tests drive it)."""
    language = "ko" if Path(deck).parent.name == "ko" else "en"
    return f"require('{prefix(language)}{URLS['reveal_url_prefix']}/dist/reveal.js')"


def title(nb):
    """The deck's title: the notebook's own (its first heading), in its language."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return nb.metadata.get("title", "")


def deck_links(nb, projector):
    """Links between notebooks pointed at their decks, which sit side by side as the notebooks do."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\]\((\d\d_\w+)\.ipynb([#)])",
                                 lambda m: f"]({m.group(1)}{'.projector' * projector}.slides.html{m.group(2)}",
                                 cell.source)


def laid_out(nb, projector=False):
    """A copy of nb as its deck shows it: slides from tools/slide_layout.py (a code cell longer than a
    slide cut across sub-slides marked "continued", as in projector decks), the long code cells that
    draw a figure tagged to sit beside it, and no stored widget state (nbconvert would load the widget
    renderer from unpkg for it; a deck shows each demo's stored figure, which needs no script).
    projector=True: the projector deck's copy, long cells cut into pieces and laid out for its sizes
    (slide_layout.PROJECTOR), no code beside its figure."""
    nb = nbformat.from_dict(copy.deepcopy(nb))
    nb.metadata.pop("widgets", None)
    nb.metadata["title"] = title(nb)
    deck_links(nb, projector)
    if projector:
        nb = slide_layout.split_for_projector(nb)
        slide_layout.apply(nb, slide_layout.PROJECTOR)
        return nb
    nb = slide_layout.split_for_projector(nb, slide_layout.NORMAL)   # code is cut, never shrunk under 14 px
    slide_layout.apply(nb)
    for cell in nb.cells:
        if slide_layout.side_by_side(cell):
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), slide_layout.SIDE_BY_SIDE]
    return nb


def deck_html(slides, nb, name, projector=False):
    """The deck of notebook nb (see laid_out); projector=True: the projector deck. A Korean notebook's
    deck (course_language "ko" in its metadata) names Nanum Gothic for Hangul; build it with exporter("ko")."""
    language = nb.metadata.get("course_language", "en")
    resources = {"metadata": {"name": name}, "course_projector": projector, "course_language": language,
                 "course_fonts": f"{prefix(language)}{ASSETS}/@fontsource/nanum-gothic/files"}
    html = slides.from_notebook_node(laid_out(nb, projector), resources=resources)[0]
    return html.replace(" slides</title>", "</title>", 1)   # the title alone, without nbconvert's English "slides"


def deck_name(path, projector=False):
    """The deck's file name: NN_name.slides.html, or NN_name.projector.slides.html."""
    return f"{path.stem}{'.projector' * projector}.slides.html"


def remote_urls(html):
    """Every script, style, module or font the deck would fetch from another machine."""
    return REMOTE.findall(html) + CDN.findall(html)


def build(paths, out_dir, projector=(False,)):
    """Write a deck per notebook in `paths` and mode in `projector` (False: the normal deck, True: the
    projector deck) into out_dir (a Korean notebook's into out_dir/ko/), with the shared assets; return
    the decks."""
    out_dir.mkdir(parents=True, exist_ok=True)
    copy_assets(out_dir)
    exporters = {language: exporter(language) for language in {language_of(path) for path in paths}}
    decks = []
    for path in paths:
        language = language_of(path)
        slides = exporters[language]
        nb = nbformat.read(path, as_version=4)
        if (said := nb.metadata.get("course_language", "en")) != language:
            raise SystemExit(f"{path}: its metadata says course_language {said!r}, but its folder holds the "
                             f"{language!r} notebooks")
        if any("text/vnd.mermaid" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", [])):
            raise SystemExit(f"{path.name}: a mermaid diagram needs mermaid.js, which the decks do not carry")
        for on in projector:
            html = deck_html(slides, nb, path.stem, on)
            if remote := remote_urls(html):
                raise SystemExit(f"{path.name}: the deck still loads {remote[0]!r} from the network")
            deck = (out_dir / "ko" if language == "ko" else out_dir) / deck_name(path, on)
            deck.parent.mkdir(exist_ok=True)
            deck.write_text(html, encoding="utf-8")
            decks.append(deck)
            print(f"{deck.relative_to(out_dir)}: {slide_count(laid_out(nb, on))} slides")
    return decks


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="build only notebooks whose name starts with these")
    parser.add_argument("--output-dir", type=Path, default=ROOT / "slides")
    args = parser.parse_args(argv)
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + sorted(KOREAN.glob("[0-9][0-9]_*.ipynb"))
    if args.prefixes:
        paths = [p for p in paths if any(p.name.startswith(x) for x in args.prefixes)]
    if not paths:
        raise SystemExit(f"no notebook matches {args.prefixes}")
    build(paths, args.output_dir, projector=(False, True))


if __name__ == "__main__":
    sys.exit(main())
