"""The Korean edition's catalogs (locale/ko/LC_MESSAGES/*.po): nothing lost in the move to PO, changes
shown to the translator, damage named, and the compiled catalog the package ships equal to its .po.

tests/data/korean_checks_before_po.json is the checks' Korean catalog as it stood before the move
({English template: Korean}, then kept in Python modules under helpers/checks/korean/); the Korean
notebooks committed in notebooks/ko/ are what the former JSON translations rendered.
"""

import json
import re
import shutil
import subprocess
import sys
import zipfile

import nbformat
import pytest

import check_messages
import translations
from course_paths import ROOT, notebook_paths
from helpers.checks import language

ENGLISH = notebook_paths()
HANGUL = re.compile(r"[\uac00-\ud7a3]")
# The sentences the checks say now (checks.po in step with them: test_catalogs_are_in_step_with_the_english).
CURRENT = {m.id for m in translations.read_catalog(translations.CHECKS_PO) if m.id}
BEFORE = json.loads((ROOT / "tests" / "data" / "korean_checks_before_po.json").read_text(encoding="utf-8"))


def test_the_compiled_checks_catalog_is_a_fresh_compile_of_checks_po():
    fresh = translations.compiled(translations.read_catalog(translations.CHECKS_PO))
    assert translations.CHECKS_MO.read_bytes() == fresh, \
        "helpers/locale/ko/LC_MESSAGES/checks.mo is not checks.po compiled: run `make ko-extract`"


def test_the_wheel_built_from_the_sdist_holds_the_compiled_catalog_where_the_checks_read_it(tmp_path):
    """The .mo is built, never committed: the sdist holds the .po, and the wheel's build compiles it."""
    tracked = subprocess.run(["git", "ls-files", "helpers/locale"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.returncode != 0 or tracked.stdout == "", f"a compiled catalog is committed: {tracked.stdout}"
    assert language.LOCALE_DIR / "ko" / "LC_MESSAGES" / "checks.mo" == translations.CHECKS_MO
    tree = tmp_path / "tree"
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "data", "locale", "helpers",
                 "tools/compile_catalogs.py"):
        source = ROOT / name
        if source.is_dir():
            skipped = ("__pycache__", "locale") if name == "helpers" else ("__pycache__",)
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns(*skipped))
        else:
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, tree / name)
    assert not (tree / "helpers" / "locale").exists()
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "-o", str(tmp_path / "dist"), str(tree)],
                   check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    relative = translations.CHECKS_MO.relative_to(ROOT).as_posix()
    fresh = translations.compiled(translations.read_catalog(translations.CHECKS_PO))
    assert zipfile.ZipFile(wheel).read(relative) == fresh


def test_every_check_sentence_of_before_the_move_is_still_said_in_korean():
    """Nothing was lost in the move. The Korean itself has been revised since (docs/GLOSSARY.md's terms,
    particles chosen by the value), so a sentence is compared with its old Korean only where it is not."""
    import glossary

    language.MISSES.clear()
    lost, changed = [], []
    for english, korean in BEFORE.items():
        if not english or not re.search(r"[A-Za-z]{2}", re.sub(r"\{[^{}]*\}", "", english)):
            continue   # no words: the same in every language
        if english not in CURRENT:
            continue   # its English has been reworded since: the new sentence has its own entry
        now = language.translate(english, "ko")
        if english in language.MISSES or not HANGUL.search(now):
            lost.append(english)
        elif now != korean and now != glossary.replace_all(korean)[0] and "{" not in english:
            changed.append((english, korean, now))
    assert not lost, f"{len(lost)} check sentences lost in the move, e.g. {lost[:3]}"
    assert len(changed) < 60, f"{len(changed)} check sentences changed beyond the glossary, e.g. {changed[:3]}"
    assert len(BEFORE) == 556   # less the sentences notebooks 02 and 03 have since reworded


@pytest.mark.parametrize("path", ENGLISH, ids=[p.stem for p in ENGLISH])
def test_the_korean_notebook_renders_byte_for_byte_as_committed(path):
    if not (translations.OUT_DIR / path.name).exists():
        pytest.skip(f"no notebooks/ko/{path.name} yet: test_every_notebook_has_a_korean_edition says so")
    committed = (translations.OUT_DIR / path.name).read_text(encoding="utf-8")
    assert nbformat.writes(translations.rendered(path)) + "\n" == committed, \
        f"notebooks/ko/{path.name} is not what locale/ko/LC_MESSAGES/notebooks.po renders: run `make ko`"


def test_the_checks_catalog_is_in_step_with_the_code():
    found = translations.check_problems()
    stale = {m: [p for p in f if p[0] in ("stale", "orphan")] for m, f in found.items()}
    assert not any(stale.values()), f"checks.po holds sentences the code no longer says: {stale}"


# ---- a changed English string shows up, on copies ---------------------------------------------------

def _copy(tmp_path, path):
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    return copy, nbformat.read(copy, as_version=4)


def test_a_changed_markdown_cell_is_stale_then_fuzzy_with_its_previous_english(tmp_path):
    copy, nb = _copy(tmp_path, ENGLISH[0])
    cell = next(c for c in nb.cells[1:] if c.cell_type == "markdown")
    old = translations.english_text(cell)
    cell.source += "\n\nA sentence the translation has not seen."
    nbformat.write(nb, copy)
    catalog = translations.read_catalog(translations.NOTEBOOKS_PO)
    assert [(k, i) for k, _, i, _ in translations.problems(copy, catalog)] == [("stale", cell.id)]
    updated = translations.update_notebooks(catalog, translations.notebook_template([copy]))
    entry = translations.notebook_entries(copy, updated)[cell.id]
    assert entry.fuzzy and entry.previous_id == [old] and entry.string, "the Korean kept, marked fuzzy"
    found = translations.problems(copy, updated)
    assert [(k, i) for k, _, i, _ in found] == [("fuzzy", cell.id)]
    assert "A sentence the translation has not seen." in found[0][3], "the report shows what changed"
    assert len(updated.obsolete) >= len(catalog.obsolete), "nothing dropped"
    translations.write_catalog(tmp_path / "notebooks.po", updated)   # written and read back, updated again
    again = translations.update_notebooks(translations.read_catalog(tmp_path / "notebooks.po"),
                                          translations.notebook_template([copy]))
    entry = translations.notebook_entries(copy, again)[cell.id]
    assert entry.fuzzy and entry.previous_id == [old] and not entry.user_comments
    assert "#| msgid" in (tmp_path / "notebooks.po").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="stale"):   # never rendered with the Korean of the old English
        translations.generate(copy)


def test_a_changed_code_cell_makes_the_korean_notebook_stale(tmp_path):
    copy, nb = _copy(tmp_path, ENGLISH[0])
    cell = next(c for c in nb.cells if c.cell_type == "code" and "setup" not in c.metadata.get("tags", []))
    cell.source += "\nprint('one more line')"
    nbformat.write(nb, copy)
    found = translations.problems(copy)
    assert [(k, i) for k, _, i, _ in found] == [("code", cell.id)]
    assert "one more line" in found[0][3]


def test_a_changed_check_sentence_is_fuzzy_with_its_previous_english(tmp_path):
    module = ROOT / "helpers" / "checks" / "nb01_matrix_multiply" / "ex1_rows.py"
    old = "Exercise 1 (which rows move?)"
    assert old in module.read_text(encoding="utf-8")
    checks = tmp_path / "helpers" / "checks" / "nb01_matrix_multiply"
    checks.mkdir(parents=True)
    (checks / module.name).write_text(module.read_text(encoding="utf-8").replace(old, "Exercise 1 (which row moves?)"),
                                      encoding="utf-8")
    template = check_messages.messages(tmp_path, load=False)
    catalog = translations.read_catalog(translations.CHECKS_PO)
    before = {m.id for m in catalog if m.id}
    assert ("missing", "Exercise 1 (which row moves?)") in translations.check_problems(catalog, template)[
        "helpers/checks/nb01_matrix_multiply/ex1_rows.py"]
    translations.update_checks(catalog, template)
    entry = catalog.get("Exercise 1 (which row moves?)")
    assert entry.fuzzy and entry.previous_id == [old] and entry.string == BEFORE[old]
    assert ("fuzzy", entry.id) in translations.check_problems(catalog, template)["helpers/checks/nb01_matrix_multiply/ex1_rows.py"]
    translations.write_catalog(tmp_path / "checks.po", catalog)
    again = translations.update_checks(translations.read_catalog(tmp_path / "checks.po"), template)
    assert again.get(entry.id).previous_id == [old] and again.get(entry.id).fuzzy, "the previous English stays"
    kept = {m.id for m in catalog if m.id} | set(catalog.obsolete)
    assert before - kept == {old} and old == entry.previous_id[0], "every other entry kept, as it was or as #~"


def test_status_exits_non_zero_when_anything_is_left(tmp_path, monkeypatch, capsys):
    copy, nb = _copy(tmp_path, ENGLISH[0])
    next(c for c in nb.cells[1:] if c.cell_type == "markdown").source += " Changed."
    nbformat.write(nb, copy)
    monkeypatch.setattr(translations, "notebook_paths", lambda args: [copy])
    monkeypatch.setattr(translations, "check_problems", lambda: {})
    assert translations.main(["status"]) == 1
    assert "stale" in capsys.readouterr().out


# ---- a damaged catalog is named, never overwritten ----------------------------------------------------

@pytest.mark.parametrize("damage, line", [
    (lambda text: text[: text.index('msgstr "', 2000) + 12], None),                  # truncated in a string
    (lambda text: text.replace('\nmsgid "', '\nmsgid "unclosed\nmsgid "', 1), None),  # an unclosed quote
])
def test_a_damaged_catalog_is_named_with_its_line_and_left_as_it_is(tmp_path, monkeypatch, capsys, damage, line):
    po = tmp_path / "notebooks.po"
    po.write_text(damage(translations.NOTEBOOKS_PO.read_text(encoding="utf-8")), encoding="utf-8")
    before = po.read_bytes()
    monkeypatch.setattr(translations, "NOTEBOOKS_PO", po)
    monkeypatch.setattr(translations, "CHECKS_PO", tmp_path / "checks.po")
    for command in (["status"], ["extract"], ["todo", "01"]):
        assert translations.main(command) == 1
        said = capsys.readouterr().err
        assert f"{po}:" in said and "nothing was changed" in said, said
    assert po.read_bytes() == before
    assert not (tmp_path / "checks.po").exists()
