"""The Korean edition (notebooks/ko/) is whole, in step with the English, and only its words differ.

- every English notebook has a Korean one, generated from locale/ko/LC_MESSAGES/notebooks.po
  and the current English;
- every markdown cell is translated, and a translation whose English has changed since is
  named (notebook, cell, what changed): nothing falls back to English silently;
- code cells are the English ones once string literals and comments are set aside (a token comparison:
  code.po translates what they print, draw and say in comments), the setup cell aside (it selects Korean);
- every stored output equals the English one, except the lines a check prints;
- code blocks inside the markdown (the solutions) are the English ones;
- the glossary's Korean terms are spelled as docs/GLOSSARY.md gives them;
- the checks speak Korean there, and the Colab badges open the Korean notebooks.
"""

import re
import shutil

import nbformat
import pytest

import code_strings
import translations
from course_paths import NOTEBOOK_DIR, ROOT, notebook_paths
from rerun_check import sanitizers

ENGLISH = notebook_paths()
IDS = [p.stem for p in ENGLISH]
KO_DIR = translations.OUT_DIR
# The pairs compared cell by cell: a notebook with no Korean edition yet (a new lesson, its entries
# not yet translated) is named once, by test_every_notebook_has_a_korean_edition, not by each test.
PAIRED = [p for p in ENGLISH if (KO_DIR / p.name).exists()]
HANGUL = re.compile(r"[\uac00-\ud7a3]")
MARKS_EN = ("[correct]", "[not yet]", "[not attempted yet]")
MARKS_KO = ("[정답]", "[아직]", "[아직 시도하지 않음]")
# Notebook 13's model banner (helpers.gpt2.banner) speaks the notebook's language too.
BANNER_EN = ("Model: ", "Why this model: ")
BANNER_KO = ("모델: ", "이 모델인 이유: ")


def korean(path):
    return nbformat.read(KO_DIR / path.name, as_version=4)


@pytest.fixture(params=PAIRED, ids=[p.stem for p in PAIRED])
def pair(request):
    path = request.param
    return nbformat.read(path, as_version=4), korean(path), path


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_every_cell_is_translated_and_in_step(path):
    found = translations.problems(path)
    unwritten = [f for f in found if f[0] == "missing"]
    no_edition = not (KO_DIR / path.name).exists()   # test_every_notebook_has_a_korean_edition says so
    if unwritten and all(kind == "missing" or no_edition for kind, *_ in found):   # a new lesson: one line
        found = unwritten
        pytest.fail(f"write this: {path.name} has {len(found)} markdown cell(s) with no Korean yet "
                    f"(`make ko-status NB={path.name[:2]}` lists them; translate them in "
                    "locale/ko/LC_MESSAGES/notebooks.po)", pytrace=False)
    assert not found, translations.describe(path, found) + "\n(make ko-status lists them all)"


def test_every_notebook_has_a_korean_edition():
    missing = [p.name for p in ENGLISH if not (KO_DIR / p.name).exists()]
    if missing:
        pytest.fail(f"write this: no Korean edition of {missing} yet: translate its entries "
                    "(`make ko-status`), then `make ko NB=NN`", pytrace=False)
    extra = sorted({p.name for p in KO_DIR.glob("*.ipynb")} - {p.name for p in ENGLISH})
    assert not extra, f"notebooks/ko/ holds {extra}, which have no English notebook"


def test_the_korean_slides_use_the_same_style_sheet():
    assert (KO_DIR / "rise.css").read_bytes() == (NOTEBOOK_DIR / "rise.css").read_bytes(), \
        "notebooks/ko/rise.css differs from notebooks/rise.css: run `make ko`"


def test_the_korean_notebook_is_generated_from_the_current_sources(pair):
    _, ko, path = pair
    expected = translations.generate(path)
    assert [c.cell_type for c in ko.cells] == [c.cell_type for c in expected.cells]
    for index, (mine, want) in enumerate(zip(ko.cells, expected.cells, strict=True)):
        assert mine.source == want.source, (f"notebooks/ko/{path.name} cell {index} is not what notebooks.po gives: "
                                            "run `make ko`")
        assert mine.metadata.get("tags", []) == want.metadata.get("tags", [])


@pytest.fixture(scope="module")
def code_catalog():
    """code.po, read once for the module (reading it is most of the comparison's time)."""
    return translations.read_catalog(translations.CODE_PO)


def test_code_cells_are_the_english_ones(pair, code_catalog):
    en, ko, path = pair
    for index, (mine, theirs) in enumerate(zip(ko.cells, en.cells, strict=True)):
        if mine.cell_type != "code":
            continue
        if "setup" in theirs.metadata.get("tags", []):
            assert mine.source == translations.setup_cell_source(), "the Korean setup cell is the generated one"
            assert 'setup.start(VERSION, language="ko")' in mine.source
            continue
        assert code_strings.same_code(theirs.source, mine.source), (
            f"{path.name} cell {index}: the code differs from the English beyond its comments and strings")
        assert mine.source == translations.korean_code(path, theirs, code_catalog), (
            f"{path.name} cell {index}: not the English code with code.po's strings: run `make ko`")


def _lines(cell, marks, pairs):
    """A code cell's compared text outputs (sanitized), without the lines a check prints."""
    texts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            texts.append(out.text)
        elif "data" in out:
            texts += [out.data[m] for m in ("text/plain", "text/html") if m in out.data
                      and "application/vnd.jupyter.widget-view+json" not in out.data]
        elif out.output_type == "error":
            texts.append(f"{out.ename}: {out.evalue}")
    text = "".join(texts)
    for regex, replace in pairs:
        text = regex.sub(replace, text)
    return [line for line in text.splitlines() if not line.startswith(marks)]


def test_outputs_equal_the_englishs_but_for_the_checks(pair):
    en, ko, path = pair
    pairs = sanitizers()
    for index, (mine, theirs) in enumerate(zip(ko.cells, en.cells, strict=True)):
        if mine.cell_type != "code" or "nbval-ignore-output" in theirs.metadata.get("tags", []):
            continue
        if mine.source != theirs.source and "setup" not in theirs.metadata.get("tags", []):
            continue   # code.po translates what it prints: its output is Korean
        assert _lines(mine, MARKS_KO + BANNER_KO, pairs) == _lines(theirs, MARKS_EN + BANNER_EN, pairs), (
            f"{path.name} cell {index}: the Korean notebook's output differs from the English one")


def _check_lines(nb):
    """The lines the checks print in a notebook (a Feedback is shown as a cell's result)."""
    lines = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            text = out.get("text", "") if out.output_type == "stream" else out.get("data", {}).get("text/plain", "")
            lines += [line for line in text.splitlines() if line.startswith(MARKS_EN + MARKS_KO)]
    return lines


def test_the_checks_speak_korean_there(pair):
    en, ko, path = pair
    said = _check_lines(ko)
    assert len(said) == len(_check_lines(en)) > 0, f"{path.name}: the Korean edition shows another number of checks"
    assert all(line.startswith("[아직 시도하지 않음]") and HANGUL.search(line.split(":", 1)[1]) for line in said), said[:3]


def test_code_blocks_in_the_markdown_are_the_englishs(pair):
    en, ko, path = pair
    for index, (mine, theirs) in enumerate(zip(ko.cells, en.cells, strict=True)):
        if mine.cell_type == "markdown":
            assert translations.code_blocks(mine.source) == translations.code_blocks(theirs.source), (
                f"{path.name} cell {index}: a code block in the Korean markdown differs from the English")


def test_colab_badges_open_the_korean_notebooks(pair):
    _, ko, path = pair
    assert f"/notebooks/ko/{path.name})" in ko.cells[0].source, "the title's badge opens the Korean notebook"


# ---- the glossary -------------------------------------------------------------------------------

def _terms(course_term):
    """The English terms of a glossary row: its comma-separated names, parentheses left out."""
    names = [re.sub(r"\s*\(.*?\)", "", part).strip() for part in course_term.split(",")]
    return [n for n in names if len(n) > 3]


def glossary():
    """[(English terms, accepted spellings)] for each row of docs/GLOSSARY.md whose posts use a Korean word.

    The accepted spellings are the posts' words (Korean, and English where a post keeps it), and the
    edition's own word where its "Korean terms" table settles the term otherwise (잔차 스트림)."""
    import glossary as settled

    rows = []
    text = (ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
    chosen = {_terms(t.english)[0].casefold(): t.korean for t in settled.terms(text) if _terms(t.english)}
    for line in text.split(settled.HEADING)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("Course term", "---") or set(cells[0]) <= {"-"}:
            continue
        words = [re.sub(r"\(.*?\)", "", w).strip() for w in cells[1].split(";")]
        if not any(HANGUL.search(w) for w in words):
            continue
        terms = _terms(cells[0])
        extra = [chosen[t.casefold()] for t in terms if t.casefold() in chosen]
        rows.append((terms, [w for w in words if w] + extra))
    return rows


def test_the_glossary_is_read():
    rows = glossary()
    assert len(rows) > 30 and any("행렬 곱" in words for _, words in rows)


def _prose(markdown):
    """Markdown without its code: fenced blocks, inline code and link targets are not prose."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def _uses(term, english):
    """The English uses the term on its own (not inside a hyphenated compound, such as up-projection)."""
    return re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", english, re.I) is not None


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_glossary_terms_are_spelled_as_the_glossary_says(path):
    """Where an English cell uses a glossary term, its translation uses one of the posts' spellings."""
    wrong = []
    for entry in translations.load(path).values():
        english, text = _prose(entry["en"]), _prose(entry.get("text") or "")
        flat = text.replace(" ", "").casefold()
        for terms, words in glossary():
            used = [t for t in terms if _uses(t, english)]
            if used and not any(w.replace(" ", "").casefold() in flat for w in words):
                wrong.append(f"cell {entry['id']}: {used[0]!r} -> none of {words}")
    assert not wrong, f"{path.name}: glossary terms not spelled as docs/GLOSSARY.md gives them: {wrong[:6]}"


# ---- staleness, shown on a copy -----------------------------------------------------------------

def translated():
    """An English notebook that has translations (the copy below, of the same name, reads the same entries)."""
    return next(p for p in ENGLISH if translations.load(p))


def test_a_changed_english_cell_is_named(tmp_path):
    path = translated()
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    nb = nbformat.read(copy, as_version=4)
    cell = next(c for c in nb.cells[1:] if c.cell_type == "markdown")
    cell.source += "\n\nA sentence the translation has not seen."
    nbformat.write(nb, copy)
    found = translations.problems(copy)
    assert [(kind, cell_id) for kind, _, cell_id, _ in found] == [("stale", cell.id)]
    assert "A sentence the translation has not seen." in found[0][3], "the report shows what changed"
    with pytest.raises(ValueError, match="stale"):
        translations.generate(copy)


def test_a_new_english_cell_without_a_translation_is_named(tmp_path):
    path = translated()
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    nb = nbformat.read(copy, as_version=4)
    nb.cells.insert(2, nbformat.v4.new_markdown_cell("A new paragraph."))
    nbformat.write(nb, copy)
    kinds = [kind for kind, *_ in translations.problems(copy)]
    assert kinds == ["missing"], kinds


def test_catalogs_are_utf8_and_name_only_english_notebooks():
    for path in sorted(translations.LOCALE_DIR.glob("*.po")):
        raw = path.read_text(encoding="utf-8")
        assert "\\u" not in raw and "charset=utf-8" in raw.lower(), f"{path.name} escapes its Korean: write it as UTF-8"
    for message in translations.read_catalog(translations.NOTEBOOKS_PO):
        if message.context:
            notebook = message.context.split("#")[0]
            assert (NOTEBOOK_DIR / notebook).exists(), f"notebooks.po names {notebook}, which is no English notebook"
