"""The checks speak Korean in the Korean edition, every sentence of them, and never fall back.

Every sentence a check can say is a template: a `say(...)` literal, a Mistake's message, an
exercise's name, its success line, a prediction's explanation, a module's key hints. Each must
have a Korean entry with the same {names}; no check module builds a sentence with an f-string
(that would reach the learner in English); and every check, called the ways the referee test
calls it, says in Korean what it says in English, with no template missing.
"""

import ast
import importlib
import pkgutil
import re
import string
from pathlib import Path

import pytest
from check_catalog import all_entries

import translations
from course_paths import check_modules
from helpers.checks import ModuleCheck, Prediction, language
from helpers.checks.runner import Check

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "helpers" / "checks"
# Files whose f-strings format values, not sentences (a call, a shape, a number).
VALUE_FORMATTERS = {"show.py", "state.py", "language.py", "__init__.py"}
HANGUL = re.compile(r"[\uac00-\ud7a3]")
_CATALOG = [m for m in translations.read_catalog(translations.CHECKS_PO) if m.id]
KO = {m.id: m.string for m in _CATALOG if translations.translated(m)}
KO_UNTRANSLATED = {m.id for m in _CATALOG if not translations.translated(m)}   # a new lesson's entries


def fields(template):
    """The {names} a template fills, without format specs: {'got', 'call'}."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def sentence_literals(path):
    """(line, text) of every string literal a check module passes to say(), wrong(), correct(),
    not_attempted(), Mistake(), Check(), ModuleCheck() or Prediction() as a sentence."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    sentence_calls = {"say", "wrong", "correct", "not_attempted", "Mistake"}
    sentence_keywords = {"message", "success", "why", "answer"}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        args = list(node.args)
        if name in sentence_calls:
            chosen = args[:1] if name in ("say", "Mistake") else args[1:2]
        elif name in ("Check", "ModuleCheck", "Prediction"):
            chosen = args[:1]
        else:
            chosen = []
        chosen += [k.value for k in node.keywords if k.arg in sentence_keywords]
        for arg in chosen:
            try:
                value = ast.literal_eval(arg)
            except ValueError:
                continue
            if isinstance(value, str):
                found.append((node.lineno, value))
    return found


def write_this(what):
    """A sentence still to translate: one line that says what to write, where, and how to see the rest."""
    pytest.fail(f"write this: {what}: translate it in locale/ko/LC_MESSAGES/checks.po "
                "(`make ko-status` lists every one)", pytrace=False)


def module_paths():
    return sorted(p for p in CHECKS.rglob("*.py")   # a check package's submodules too
                  if p.name not in VALUE_FORMATTERS and "__pycache__" not in p.parts)


@pytest.mark.parametrize("english", sorted(KO), ids=lambda t: t[:50])
def test_a_korean_template_fills_the_same_names(english):
    korean = KO[english]
    assert fields(korean) == fields(english), f"{english!r} -> {korean!r}: the {{names}} differ"
    if re.search("[A-Za-z]{2}", re.sub(r"\{[^}]*\}", "", english)):   # words, not only {fields}
        assert HANGUL.search(korean), f"{english!r} has no Korean in {korean!r}"


@pytest.mark.parametrize("path", module_paths(), ids=lambda p: p.relative_to(CHECKS).as_posix())
def test_no_sentence_is_built_with_an_f_string(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)]
    assert not lines, (f"{path.name} builds text with an f-string on line(s) {lines}: a learner in the Korean "
                       "edition would read it in English. Write say('... {name} ...', name=value) instead.")


@pytest.mark.parametrize("path", module_paths(), ids=lambda p: p.relative_to(CHECKS).as_posix())
def test_every_literal_sentence_has_korean(path):
    missing = [(line, text) for line, text in sentence_literals(path) if text and text not in KO]
    if missing:
        write_this(f"{path.name} has {len(missing)} sentence(s) with no Korean yet, the first on line "
                   f"{missing[0][0]}: {missing[0][1]!r}")


def _sentences_of(check):
    """The sentences a check object holds in its fields."""
    if isinstance(check, (Check, ModuleCheck)):
        found = [check.exercise, check.success] + [m.message for m in check.mistakes]
        if isinstance(check, ModuleCheck):
            found += list(check.key_hints.values())
        return found
    if isinstance(check, Prediction):
        return [check.exercise, check.why, check.answer]
    return []


def test_every_check_objects_sentences_have_korean():
    from helpers import checks

    missing = []
    for module in check_modules():
        package = importlib.import_module(f"helpers.checks.{module}")
        parts = [importlib.import_module(f"{package.__name__}.{m.name}")   # a package's submodules
                 for m in pkgutil.iter_modules(getattr(package, "__path__", []))]
        for loaded in [package, *parts]:
            for name, value in vars(loaded).items():
                missing += [(module, name, s) for s in _sentences_of(value) if s and s not in KO]
    assert checks
    if missing:
        modules = sorted({module for module, _, _ in missing})
        write_this(f"{len(missing)} sentence(s) of the check objects in {', '.join(modules)} have no Korean "
                   f"yet, the first {missing[0][2]!r} ({missing[0][0]}.{missing[0][1]})")


ENTRIES = all_entries()


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_every_check_speaks_korean_whole(entry):
    """The stub, the right answer and two odd answers, in Korean: every template found, Hangul shown."""
    if entry.right is None:
        pytest.skip(f"{entry.id}: no right answer was found in the notebook's solutions")
    language.MISSES.clear()
    language.use("ko")
    try:
        if entry.kind == "prediction":
            guess, actual = entry.right
            said = [entry.check(None, actual), entry.check(guess, actual), entry.check("?", actual)]
        else:
            odd = (lambda *a: 3) if entry.kind == "function" else int
            said = [entry.check(*([None] * len(entry.right))), entry.check(*entry.right),
                    entry.check(*([odd] * len(entry.right)))]
        texts = [str(fb) for fb in said]
    finally:
        language.use("en")
    if language.MISSES:
        untranslated = sorted(m for m in language.MISSES if m in KO_UNTRANSLATED)
        if len(untranslated) == len(language.MISSES):   # entries the catalog holds, still empty
            write_this(f"{entry.id} says {len(untranslated)} sentence(s) with no Korean yet, the first "
                       f"{untranslated[0]!r}")
    assert not language.MISSES, f"{entry.id}: no Korean for {sorted(language.MISSES)[:4]}"
    assert all(HANGUL.search(t) for t in texts), texts
