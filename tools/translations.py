"""The Korean edition: notebooks/ko/ made from the English notebooks and gettext catalogs.

Every Korean string lives in a PO catalog under locale/ko/LC_MESSAGES/ (edit them in Poedit or
any PO editor; read and written with Babel):

- notebooks.po: each English notebook's markdown cells, msgctxt "<notebook>#<cell id>", msgid
  the English (the Colab badge left out), msgstr the Korean;
- checks.po: the checks' sentences (helpers/checks/**/*.py), extracted by check_messages.py, a
  Babel extraction method; each entry's `#:` names the modules that say it. Compiled into
  helpers/locale/ko/LC_MESSAGES/checks.mo (built, not committed: tools/compile_catalogs.py), which
  the package reads;
- code.po: the code cells' comments and printed or drawn strings, msgctxt "<notebook>#<cell id>"
  (tools/code_strings.py);
- setup.po: the setup cell's learner-facing pieces, each English piece found exactly once in
  the English setup cell (tools/sync_notebooks.py) and replaced by its msgstr.

`extract` brings the catalogs in step with the English: a changed English string keeps its
Korean, marked fuzzy, with the English it translated as `#| msgid`; a string no longer in the
English is kept as obsolete (`#~`), never dropped. A translator revises a fuzzy entry and clears
its fuzzy flag. Entries flagged `runtime` hold sentences the checks compose while running (a
mark, a phrase joined from parts) that no extractor can see: extract keeps them.

`status` names, per notebook and per check module, every missing, fuzzy (or not yet extracted)
and obsolete entry, and every code cell of a Korean notebook that differs from the English
(the Korean notebook is stale until regenerated); it exits 1 when there is any. `generate`
never falls back to English for markdown. Code cells are the English notebook's code: their comments
and the strings they print or draw come from code.po where it translates them (tools/code_strings.py;
an untranslated one keeps its English and `status` counts it, a changed one is reported), and the
setup cell selects the language.

    python tools/translations.py status [NN ...]     # what is left to translate or regenerate
    python tools/translations.py extract             # catalogs in step with the English (make ko-extract)
    python tools/translations.py generate [NN ...]   # write notebooks/ko/ (no execution)
    python tools/translations.py build [NN ...]      # generate, then execute them (make ko)
    python tools/translations.py todo NN             # extract, then list what notebook NN lacks

A new notebook: `add_notebook(number)` adds its markdown cells and its checks' sentences to the
catalogs, untranslated, for `status` to list (tools/new_notebook.py calls it).
"""

import difflib
import io
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import PoFileError, denormalize, normalize, read_po, write_po

import check_messages
import code_strings
import compile_catalogs
import sync_notebooks
import translator_notes
from course_paths import NOTEBOOK_DIR, ROOT, notebook_paths, refuse_uncommitted

LANGUAGE = "ko"
LOCALE_DIR = ROOT / "locale" / LANGUAGE / "LC_MESSAGES"
NOTEBOOKS_PO = LOCALE_DIR / "notebooks.po"
CHECKS_PO = LOCALE_DIR / "checks.po"
SETUP_PO = LOCALE_DIR / "setup.po"
CODE_PO = LOCALE_DIR / "code.po"   # the comments and printed or drawn strings of code cells (code_strings.py)
CHECKS_MO = ROOT / "helpers" / "locale" / LANGUAGE / "LC_MESSAGES" / "checks.mo"
OUT_DIR = NOTEBOOK_DIR / LANGUAGE
RUNTIME = "runtime"   # the flag of a check sentence composed while the check runs: extract keeps it
_PO_LINE = re.compile(r'(#.*|(msgctxt|msgid|msgid_plural|msgstr(\[\d+\])?)\s+"(?:[^"\\]|\\.)*"|"(?:[^"\\]|\\.)*")\s*')


# ---- reading and writing catalogs ---------------------------------------------------------------

class CatalogError(ValueError):
    """A catalog that cannot be read as it is: the message names the file and the line."""


PROJECT = "Inside the Transformer MLP"
HEADER = ("# Korean translations of the course Inside the Transformer MLP: {domain}.\n"
          "# Edit it in Poedit or any PO editor; docs/AUTHORING.md (The Korean edition) says how.\n#")


def new_catalog(domain):
    """An empty Korean catalog with the course's header."""
    return Catalog(locale=LANGUAGE, domain=domain, fuzzy=False, project=PROJECT, version=None,
                   header_comment=HEADER.format(domain=domain), language_team="Korean",
                   last_translator="the course's translators", charset="utf-8")


def read_catalog(path):
    """The Babel Catalog in path (an empty one if there is no file); CatalogError names file and line."""
    path = Path(path)
    if not path.exists():
        return new_catalog(path.stem)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise CatalogError(f"{path}:{line}: not UTF-8 ({err.reason}); nothing was changed") from None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not _PO_LINE.fullmatch(line):
            raise CatalogError(f"{path}:{number}: not a PO line (an unclosed quote, or text outside quotes): "
                               f"{line[:80]!r}; fix it in a PO editor; nothing was changed")
    try:
        catalog = read_po(io.BytesIO(raw), locale=LANGUAGE, domain=path.stem, abort_invalid=True)
    except PoFileError as err:
        raise CatalogError(f"{path}: {err} (line); fix it in a PO editor; nothing was changed") from None
    for message in list(catalog) + list(catalog.obsolete.values()):   # Babel reads `#|` as a translator's comment
        message.user_comments = [c for c in message.user_comments if not c.startswith("|")]
    for (msgid, context), previous in _previous_ids(text).items():
        message = catalog.get(msgid, context=context)
        if message is not None:
            message.previous_id = [previous]
    return catalog


def _previous_ids(text):
    """{(msgid, msgctxt): previous msgid} from the `#| msgid` lines (Babel's reader leaves them out)."""
    found, previous, entry = {}, [], None
    for line in text.splitlines() + [""]:
        if line.startswith("#| msgid "):
            previous = [line[len("#| msgid "):]]
        elif line.startswith('#| "') and previous:
            previous.append(line[3:])
        elif previous and line.startswith(("msgctxt ", "msgid ", '"')) and not line.startswith("msgstr"):
            entry = entry or {"msgctxt": [], "msgid": []}
            if not line.startswith('"'):
                entry["key"] = line.split(" ", 1)[0]
                line = line.split(" ", 1)[1]
            entry[entry["key"]].append(line)
        elif previous and entry and line.startswith("msgstr"):
            context = denormalize("\n".join(entry["msgctxt"])) if entry["msgctxt"] else None
            found[(denormalize("\n".join(entry["msgid"])), context)] = denormalize("\n".join(previous))
            previous, entry = [], None
    return found


def write_catalog(path, catalog):
    """Write catalog to path as PO: a fuzzy entry's previous msgid as `#| msgid` lines (after its flags, each
    line a quoted string as msgfmt and Poedit write them), obsolete entries kept as #~, references naming
    the file without a line (moving code does not rewrite the catalog), and each entry's format flag the
    one its domain calls for (check_messages.format_flags), whatever Babel guessed."""
    for message in list(catalog) + list(catalog.obsolete.values()):
        if message.id:
            message.flags = message.flags - check_messages.FORMAT_FLAGS | check_messages.format_flags(
                message.id, Path(path).stem)
    if isinstance(catalog.revision_date, str):   # Babel's placeholder, which msgfmt -c warns of
        catalog.revision_date = catalog.creation_date
    marks = {}
    for message in catalog:
        if message.id and message.previous_id and message.fuzzy:
            marks[f"previous msgid {len(marks)}"] = message
            message.auto_comments.append(f"previous msgid {len(marks) - 1}")
    buffer = io.BytesIO()
    try:
        write_po(buffer, catalog, width=100, include_previous=False, sort_output=False, include_lineno=False)
    finally:
        for mark, message in marks.items():
            message.auto_comments.remove(mark)
    lines, out, pending = buffer.getvalue().decode("utf-8").split("\n"), [], None
    for line in lines:
        if line.startswith("#. ") and line[3:] in marks:   # Babel wraps #| lines mid-string: written here
            previous = normalize(marks[line[3:]].previous_id[0], width=100).split("\n")
            pending = ["#| msgid " + previous[0]] + ["#| " + p for p in previous[1:]]
            continue
        if pending and line.startswith(("msgctxt ", "msgid ")):
            out += pending
            pending = None
        out.append(line)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("\n".join(out).encode("utf-8"))


def compiled(catalog):
    """The .mo bytes of a catalog (fuzzy entries left out, as gettext expects)."""
    return compile_catalogs.compiled(catalog)


def translated(message):
    return bool(message.string) and not message.fuzzy


# ---- notebooks' markdown ------------------------------------------------------------------------

def english_text(cell):
    """A markdown cell's English as its translation records it: the Colab badge left out."""
    return sync_notebooks.BADGE_RE.sub("", cell.source).rstrip()


def context(notebook, cell_id):
    return f"{Path(notebook).name}#{cell_id}"


def notebook_entries(path, catalog=None):
    """{cell id: Message} of notebooks.po for one English notebook (obsolete ones left out)."""
    catalog = catalog or read_catalog(NOTEBOOKS_PO)
    prefix = Path(path).name + "#"
    return {m.context[len(prefix):]: m for m in catalog if m.context and m.context.startswith(prefix)}


def load(path):
    """{cell id: {"id", "en", "text"}} for one English notebook: what notebooks.po holds for it."""
    return {cell_id: {"id": cell_id, "en": m.id, "text": m.string if translated(m) else None}
            for cell_id, m in notebook_entries(path).items()}


def _diff(old, new):
    return "\n".join(difflib.unified_diff(old.splitlines(), new.splitlines(), "translated from", "English now",
                                          lineterm="", n=0))


def problems(path, catalog=None):
    """[(kind, cell index, cell id, detail)] for one English notebook: 'missing', 'stale', 'fuzzy',
    'orphan' (markdown), and 'code' (a code cell of notebooks/ko/ that is not the English one)."""
    catalog = catalog or read_catalog(NOTEBOOKS_PO)
    nb = nbformat.read(path, as_version=4)
    entries = notebook_entries(path, catalog)
    found, ids = [], set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        ids.add(cell.id)
        entry = entries.get(cell.id)
        if entry is None or not entry.string:
            found.append(("missing", index, cell.id, english_text(cell)))
        elif entry.id != english_text(cell):
            found.append(("stale", index, cell.id, _diff(entry.id, english_text(cell))))
        elif entry.fuzzy:
            found.append(("fuzzy", index, cell.id, _diff(entry.previous_id[0] if entry.previous_id else "",
                                                         entry.id)))
    for cell_id in entries.keys() - ids:
        found.append(("orphan", None, cell_id, "no markdown cell of the English notebook has this id"))
    prefix = Path(path).name + "#"
    for key in catalog.obsolete:
        if isinstance(key, tuple) and key[1] and key[1].startswith(prefix):
            found.append(("orphan", None, key[1][len(prefix):], "an obsolete entry (#~): translate it again "
                          "where its English went, then delete it"))
    return found + code_problems(path, nb)


def code_problems(path, nb=None):
    """[('code', index, cell id, detail)]: code cells of notebooks/ko/<name> that differ from the English."""
    out = OUT_DIR / Path(path).name
    if not out.exists():
        return [("code", None, "-", f"notebooks/ko/{Path(path).name} does not exist: run `make ko`")]
    nb = nb or nbformat.read(path, as_version=4)
    ko = nbformat.read(out, as_version=4)
    english = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    korean = [c for c in ko.cells if c.cell_type == "code"]
    if len(english) != len(korean):
        return [("code", None, "-", f"the English notebook has {len(english)} code cells, the Korean one "
                 f"{len(korean)}: regenerate it (make ko NB={Path(path).name[:2]})")]
    found, code = [], read_catalog(CODE_PO)
    for (index, cell), mine in zip(english, korean, strict=True):
        want = setup_cell_source() if _is_setup(cell) else korean_code(path, cell, code)
        if mine.source != want:
            found.append(("code", index, cell.id, _diff(mine.source, want)))
        if not _is_setup(cell):
            found += [("code-text", index, cell.id, _diff(previous, now))
                      for now, previous in code_strings.cell_state(path, cell, code)[2]]
    return found


def _is_setup(cell):
    return "setup" in cell.metadata.get("tags", [])


def korean_code(path, cell, code=None):
    """A code cell as the Korean notebook holds it: the English code, its comments and printed or drawn
    strings translated where code.po translates them (untranslated or fuzzy: the English)."""
    use = code_strings.cell_state(path, cell, code if code is not None else read_catalog(CODE_PO))[0]
    return code_strings.translated_source(cell.source, use)


def untranslated_code(path, code=None):
    """[(cell index, English)] of the code strings of one notebook that code.po does not translate yet."""
    code = code if code is not None else read_catalog(CODE_PO)
    nb = nbformat.read(path, as_version=4)
    return [(index, text) for index, cell in enumerate(nb.cells) if cell.cell_type == "code" and not _is_setup(cell)
            for text in code_strings.cell_state(path, cell, code)[1]]


def describe(path, found):
    lines = [f"{Path(path).name}: {len(found)} cell(s) to translate again or regenerate"]
    for kind, index, cell_id, detail in found:
        where = f"cell {index} (id {cell_id})" if index is not None else f"id {cell_id}"
        lines.append(f"  {kind}: {where}")
        lines.extend("    " + line for line in detail.splitlines()[:40])
    return "\n".join(lines)


def notebook_template(paths):
    """A Catalog of every markdown cell of the English notebooks (no translations)."""
    template = Catalog(domain="notebooks", fuzzy=False)
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                template.add(english_text(cell), context=context(path, cell.id),
                             locations=[(f"notebooks/{Path(path).name}", None)])
    return template


def update_notebooks(catalog, template):
    """catalog in step with template, matched by cell (msgctxt): a changed English becomes fuzzy with its
    previous msgid; an entry whose cell is gone becomes obsolete. Returns the new catalog."""
    new = new_catalog("notebooks")
    new.mime_headers = catalog.mime_headers
    new.creation_date = catalog.creation_date
    old = {m.context: m for m in catalog if m.id}
    for message in template:
        if not message.id:
            continue
        previous = old.pop(message.context, None)
        if previous is None:
            new[message.id] = Message(message.id, "", context=message.context, locations=message.locations)
            continue
        keep = Message(message.id, previous.string, context=message.context, locations=message.locations,
                       flags=previous.flags, user_comments=previous.user_comments,
                       previous_id=previous.previous_id)
        if previous.id != message.id and previous.string:
            keep.flags.add("fuzzy")
            keep.previous_id = [previous.id]
        new[message.id] = keep
    for message in list(catalog.obsolete.values()) + list(old.values()):
        new.obsolete[(message.id, message.context)] = message
    return new


# ---- the setup cell -----------------------------------------------------------------------------

def setup_cell_source():
    """The Korean setup cell: the English one with setup.po's pieces replaced (each exactly once)."""
    text = sync_notebooks.setup_cell_source()
    for message in read_catalog(SETUP_PO):
        if not message.id:
            continue
        if text.count(message.id) != 1 or not translated(message):
            raise ValueError(f"{SETUP_PO}: the English setup cell holds {text.count(message.id)} copies of "
                             f"{message.id!r} (translated: {translated(message)}); update setup.po to match "
                             "tools/sync_notebooks.py")
        text = text.replace(message.id, message.string)
    return text


# ---- the checks' sentences ----------------------------------------------------------------------

def update_checks(catalog, template):
    """checks.po in step with the extracted template: Babel's update (changed English: fuzzy, with the
    previous msgid; gone: obsolete), entries flagged runtime kept, filled sentences derived again."""
    kept = [m for m in catalog if m.id and RUNTIME in m.flags]
    previous = {m.id: m.previous_id for m in catalog if m.id and m.previous_id}
    catalog.update(template, update_header_comment=False, update_creation_date=False)
    for message in catalog:   # Babel's update forgets the previous msgid of an entry still fuzzy
        if message.fuzzy and not message.previous_id and message.id in previous:
            message.previous_id = previous[message.id]
    for message in kept:
        if catalog.obsolete.pop(message.id, None) is not None:
            catalog[message.id] = message
        message.auto_comments = translator_notes.runtime_comments(message.id, ROOT)
    for message in catalog:
        if message.id and message.id in template:   # extraction sees it (a fuzzy match copies flags too)
            message.flags.discard(RUNTIME)
    derive(catalog)
    return catalog


def derive(catalog):
    """Fill in the entries made from another (a sentence a check keeps filled, a case's name)."""
    from helpers.checks import language
    from helpers.checks.cases import Named

    messages = {m.id: m.string for m in catalog if m.id and translated(m)}
    for message in catalog:
        made = check_messages.DERIVED_FROM.get(message.id)
        if made is None or not any(c.startswith(check_messages.DERIVED) for c in message.auto_comments):
            continue
        language.MISSES.clear()
        if isinstance(made, Named):
            said = "<" + language._translated(made.name, messages) + ">"
        else:
            said = language._translated(made, messages)
        message.string = "" if language.MISSES else said
        message.flags.discard("fuzzy")
        language.MISSES.clear()


def check_problems(catalog=None, template=None):
    """{module: [(kind, English)]} for checks.po: missing, fuzzy, stale (not yet extracted), orphan."""
    catalog = catalog or read_catalog(CHECKS_PO)
    template = template or check_messages.messages(ROOT)
    found = {}
    for message in template:
        if not message.id:
            continue
        module = message.locations[0][0] if message.locations else "helpers/checks"
        mine = catalog.get(message.id)
        if mine is None or not mine.string:
            kind = "missing"
        elif mine.fuzzy:
            kind = "fuzzy"
        else:
            continue
        found.setdefault(module, []).append((kind, message.id))
    for message in catalog:
        if message.id and message.id not in template and RUNTIME not in message.flags:
            module = message.locations[0][0] if message.locations else "checks.po"
            found.setdefault(module, []).append(("stale", message.id + "  (no longer in the code: extract "
                                                 "makes it obsolete or fuzzy)"))
    for message in catalog.obsolete.values():
        found.setdefault("checks.po", []).append(("orphan", message.id))
    return found


def compile_checks(catalog):
    CHECKS_MO.parent.mkdir(parents=True, exist_ok=True)
    CHECKS_MO.write_bytes(compiled(catalog))


# ---- commands -----------------------------------------------------------------------------------

def extract(paths=None):
    """Bring notebooks.po and checks.po in step with the English and compile checks.mo."""
    catalogs = [read_catalog(NOTEBOOKS_PO), read_catalog(CHECKS_PO), read_catalog(CODE_PO)]   # read before writing
    notebooks = update_notebooks(catalogs[0], notebook_template(paths or notebook_paths()))
    checks = update_checks(catalogs[1], check_messages.messages(ROOT))
    code = code_strings.update(catalogs[2], code_strings.template(paths or notebook_paths(), _is_setup))
    write_catalog(NOTEBOOKS_PO, notebooks)
    write_catalog(CODE_PO, code)
    write_catalog(CHECKS_PO, checks)
    write_catalog(SETUP_PO, read_catalog(SETUP_PO))   # its flags and header as the other two
    compile_checks(checks)
    return notebooks, checks


def add_notebook(number):
    """Add notebook `number`'s markdown cells and its check module's sentences to the catalogs, untranslated
    (tools/new_notebook.py calls it; `make ko-status` then lists them as missing). Other entries are kept."""
    notebook_paths([f"{int(number):02d}"])   # refuses a number with no notebook
    return extract()


def status(args):
    """Print what is left per notebook and for the checks; the number of problems."""
    catalog = read_catalog(NOTEBOOKS_PO)
    total = 0
    for path in notebook_paths(args):
        found = problems(path, catalog)
        total += len(found)
        print(describe(path, found) if found else f"{path.name}: up to date")
        waiting = untranslated_code(path)
        if waiting:   # not a failure: the Korean cell keeps the English until translated
            print(f"  {len(waiting)} code string(s) keep their English until {CODE_PO.name} translates them"
                  + "".join(f"\n    cell {index}: {text[:100]}" for index, text in waiting[:40 if args else 0]))
    if not args:
        checks = check_problems()
        for module, found in sorted(checks.items()):
            total += len(found)
            print(f"{module}: {len(found)} sentence(s) to translate in {CHECKS_PO.relative_to(ROOT)}")
            print("\n".join(f"  {kind}: {text[:160]!r}" for kind, text in found[:40]))
        if not checks:
            print(f"{CHECKS_PO.relative_to(ROOT)}: up to date")
    return total


def generate(path):
    """The Korean notebook for one English notebook (sources only; outputs come from executing it)."""
    catalog = read_catalog(NOTEBOOKS_PO)
    found = [p for p in problems(path, catalog) if p[0] in ("missing", "stale", "fuzzy")]
    if found:
        raise ValueError(describe(path, found))
    nb = nbformat.read(path, as_version=4)
    entries, code = notebook_entries(path, catalog), read_catalog(CODE_PO)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            # notebooks/ko/ sits one folder deeper: links to the repository's files gain a ../
            text = entries[cell.id].string.rstrip().replace("](../", "](../../")
            if sync_notebooks.BADGE_RE.search(cell.source):
                text += "\n\n" + sync_notebooks.badge(f"{LANGUAGE}/{path.name}")
            cell.source = text
        elif "setup" in cell.metadata.get("tags", []):
            cell.source = setup_cell_source()
        elif cell.cell_type == "code":
            cell.source = korean_code(path, cell, code)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata["language_info"] = nb.metadata.get("language_info", {})
    nb.metadata["course_language"] = LANGUAGE
    return nb


def code_blocks(text):
    """The fenced code blocks of a markdown text (a solution's code stays English)."""
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


def rendered(path):
    """The Korean notebook as notebooks/ko/<name> should hold it: generated, with the stored outputs kept
    where its code is unchanged (so an unchanged notebook comes out byte for byte as committed)."""
    nb = generate(path)
    out = OUT_DIR / Path(path).name
    if out.exists():
        old = nbformat.read(out, as_version=4)
        same_code = [c.source for c in old.cells if c.cell_type == "code"] == [
            c.source for c in nb.cells if c.cell_type == "code"]
        if same_code and len(old.cells) == len(nb.cells):
            for new_cell, old_cell in zip(nb.cells, old.cells, strict=True):
                if new_cell.cell_type == "code":
                    new_cell.outputs = old_cell.outputs
                    new_cell.execution_count = old_cell.execution_count
            nb.metadata = old.metadata | {"course_language": LANGUAGE}
    return nb


def write(path):
    """Write notebooks/ko/<name> (see rendered)."""
    nb = rendered(path)
    out = OUT_DIR / path.name
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    shutil.copyfile(NOTEBOOK_DIR / "rise.css", OUT_DIR / "rise.css")   # RISE reads the one beside the notebook
    return out


def main(argv):
    command, *args = argv or ["status"]
    try:
        return _run(command, args)
    except CatalogError as err:
        print(err, file=sys.stderr)
        return 1


def _run(command, args):
    if command == "status":
        return 1 if status(args) else 0
    if command == "extract":
        extract()
        return 1 if status([]) else 0
    if command in ("generate", "build"):
        compile_catalogs.compile_all(ROOT)   # a msgstr changed in a PO editor reaches the executed checks
        paths = notebook_paths(args)
        refused = refuse_uncommitted([OUT_DIR / p.name for p in paths if (OUT_DIR / p.name).exists()])
        if refused:
            print("\n".join(refused))
            return 1
        for path in paths:
            out = write(path)
            if command == "build":
                import run_notebooks

                start = time.perf_counter()
                run_notebooks.execute(out)
                print(f"{out.relative_to(ROOT)}: generated and executed in {time.perf_counter() - start:.1f} s",
                      flush=True)
            else:
                print(f"wrote {out.relative_to(ROOT)}")
        return 0
    if command == "todo" and len(args) == 1:
        extract()
        for path in notebook_paths(args):
            found = problems(path)
            print(describe(path, found) if found else f"{path.name}: every cell is translated")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
