"""Fold the Korean edition's former translation files into the PO catalogs (rerunnable).

- i18n/ko/NN_*.json (markdown cells by cell id, with the English each translated) -> notebooks.po;
- helpers/checks/korean/*.py (MESSAGES = {English template: Korean}) -> checks.po;
- SETUP_KO pairs in an older tools/translations.py (given as a path) -> setup.po.

An entry the catalog already translates is left as it is. A check sentence that extraction
cannot see in the code (one the checks compose while running) is kept with the flag `runtime`.
After importing, delete the folders it read: `python tools/translations.py import-legacy`
converts whatever is left in them each time it runs.
"""

import importlib
import json
import sys

import check_messages
import translations
from course_paths import ROOT

I18N_DIR = ROOT / "i18n" / translations.LANGUAGE
KOREAN_CHECKS = ROOT / "helpers" / "checks" / "korean"


def _put(catalog, english, korean, context=None):
    message = catalog.get(english, context=context)
    if message is None:
        catalog.add(english, korean, context=context)
        return 1
    if not message.string:
        message.string = korean
        return 1
    return 0


def notebooks(catalog):
    count = 0
    for path in sorted(I18N_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data["cells"]:
            if entry.get("text"):
                count += _put(catalog, entry["en"], entry["text"], translations.context(data["notebook"], entry["id"]))
    return count


def legacy_messages():
    """{English: Korean} from every module of helpers/checks/korean/ (their MESSAGES)."""
    merged = {}
    for path in sorted(KOREAN_CHECKS.glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"helpers.checks.korean.{path.stem}")
        merged |= getattr(module, "MESSAGES", {})
    return merged


def checks(catalog):
    legacy = legacy_messages()
    template = check_messages.messages(ROOT)
    count = 0
    for english, korean in legacy.items():
        if not english:
            continue
        count += _put(catalog, english, korean)
        if english not in template:
            catalog[english].flags.add(translations.RUNTIME)
    return translations.update_checks(catalog, template), count


def setup(catalog, old_tools_file):
    namespace = {}
    source = open(old_tools_file, encoding="utf-8").read()
    start = source.index("SETUP_KO = [")
    exec(source[start:source.index("\n]\n", start) + 3], namespace)   # the list literal alone
    return sum(_put(catalog, english, korean) for english, korean in namespace["SETUP_KO"])


def main(old_tools_file=None):
    catalogs = {p: translations.read_catalog(p) for p in
                (translations.NOTEBOOKS_PO, translations.CHECKS_PO, translations.SETUP_PO)}
    n_markdown = notebooks(catalogs[translations.NOTEBOOKS_PO])
    catalogs[translations.CHECKS_PO], n_checks = checks(catalogs[translations.CHECKS_PO])
    n_setup = setup(catalogs[translations.SETUP_PO], old_tools_file) if old_tools_file else 0
    for path, catalog in catalogs.items():
        translations.write_catalog(path, catalog)
    translations.compile_checks(catalogs[translations.CHECKS_PO])
    print(f"imported {n_markdown} markdown cells, {n_checks} check sentences, {n_setup} setup pieces")


if __name__ == "__main__":
    main(*sys.argv[1:])
