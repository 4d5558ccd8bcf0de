"""The set-up's sentences in the learner's language: what make's Python tools print while they
install (tools/torch_build.py: which PyTorch build arrived, and the stop, with its fix, when it is the
wrong one).

Korean for a Korean user: COURSE_LANG=ko, or else a Korean locale (LANG=ko_KR.UTF-8; COURSE_LANG=en
keeps English): helpers.language.from_environment decides. The sentences are entries of
locale/<language>/LC_MESSAGES/checks.po like the checks' (tools/check_messages.py extracts the tools
that call `say` from here), with the same particles. They are read from the .po itself: a fresh
clone's set-up runs before the package, Babel or the compiled catalog are installed.
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # helpers.language: the standard library alone, importable before any install

from helpers import language  # noqa: E402


def po_messages(path):
    """{msgid: msgstr} of the translated entries of a PO file that are neither fuzzy, obsolete nor in a
    msgctxt (standard library only)."""
    found, entry = {}, None

    def close(entry):
        if entry and entry.get("msgid") and entry.get("msgstr") and not entry["fuzzy"] and "msgctxt" not in entry:
            found[entry["msgid"]] = entry["msgstr"]

    for line in Path(path).read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            close(entry)
            entry, key = None, None
            continue
        entry = entry if entry is not None else {"fuzzy": False}
        if line.startswith("#,") and "fuzzy" in line:
            entry["fuzzy"] = True
        elif line.startswith(("msgctxt ", "msgid ", "msgstr ")):
            key, _, quoted = line.partition(" ")
            entry[key] = ast.literal_eval(quoted)
        elif line.startswith('"') and entry is not None and key:
            entry[key] += ast.literal_eval(line)
    return found


def say(template, environ=None, **values):
    """template with its {fields} filled, in the set-up's language (English where untranslated)."""
    text = language.say(template, **values)
    chosen = language.from_environment(environ)
    path = ROOT / "locale" / chosen / "LC_MESSAGES" / "checks.po"
    if chosen == "en" or not path.is_file():
        return str(text)
    return language._translated(text, po_messages(path))
