"""The Korean edition: notebooks/ko/ made from the English notebooks and i18n/ko/*.json.

A translation file holds, for each markdown cell of one English notebook (by cell id), the
English text it translates and the translation:

    {"notebook": "03_ffn_forward.ipynb",
     "cells": [{"id": "796d6b4b", "en": "# 03 · The FFN forward pass ...", "text": "# 03 · FFN ..."}]}

A translation is stale when the English cell no longer reads as its "en" says; a markdown
cell with no entry is missing. Neither ever falls back to English: `generate` refuses, and
`make test` names the notebook, the cell and what changed in the English. Code cells are
the English notebook's, byte for byte, except the setup cell, which selects the language.

    python tools/translations.py status [NN ...]     # stale and missing cells per notebook
    python tools/translations.py generate [NN ...]   # write notebooks/ko/ (no execution)
    python tools/translations.py build [NN ...]      # generate, then execute them (make ko)
    python tools/translations.py todo NN             # add entries for missing cells, show stale ones
    python tools/translations.py accept NN CELL_ID   # the translation is revised: record the English
"""

import difflib
import json
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat

import sync_notebooks
from course_paths import NOTEBOOK_DIR, ROOT, notebook_paths, refuse_uncommitted

LANGUAGE = "ko"
I18N_DIR = ROOT / "i18n" / LANGUAGE
OUT_DIR = NOTEBOOK_DIR / LANGUAGE


# The setup cell in Korean: the same code, its learner-facing sentences translated, and the checks
# told to speak Korean. Each English piece must occur exactly once in the English setup cell.
SETUP_KO = [
    ("# Setup (the same in every notebook). In Colab it installs the course package first.",
     "# 설정 (모든 노트북에서 같습니다). Colab에서는 강좌 패키지를 먼저 설치합니다."),
    ('f"Could not install {PIN}: this runtime cannot reach PyPI.\\n"\n'
     '                         "Check that the runtime is online, then run this cell again."',
     'f"{PIN}을(를) 설치하지 못했습니다: 이 런타임은 PyPI에 연결할 수 없습니다.\\n"\n'
     '                         "런타임이 온라인인지 확인한 뒤 이 셀을 다시 실행하세요."'),
    ('f"{PIN} is not published, on PyPI or as the git tag v{VERSION}.\\n"\n'
     '                         f"Open the notebook from a release ({REPO}/releases) instead."',
     'f"{PIN}은(는) PyPI에도, git 태그 v{VERSION}로도 공개되어 있지 않습니다.\\n"\n'
     '                         f"대신 릴리스({REPO}/releases)에서 노트북을 여세요."'),
    ('f"pip could not install {PIN}: {error}.\\n"\n'
     '                     f"Run `!pip install {PIN}` in a new cell to read pip\'s whole log."',
     'f"pip가 {PIN}을(를) 설치하지 못했습니다: {error}.\\n"\n'
     '                     f"새 셀에서 `!pip install {PIN}`을 실행하면 pip의 로그 전체를 볼 수 있습니다."'),
    ('f"The course package {VERSION} is installed but does not import: {problem}.\\n"\n'
     '        f"Run `pip install --force-reinstall --no-deps {fix}`, then restart the kernel."',
     'f"강좌 패키지 {VERSION}이(가) 설치되어 있지만 import되지 않습니다: {problem}.\\n"\n'
     '        f"`pip install --force-reinstall --no-deps {fix}`을 실행한 뒤 커널을 다시 시작하세요."'),
    ('f"This notebook needs the course package {VERSION}; this kernel has {found}.\\n"\n'
     '        f"Run `pip install {PIN}` (in a clone of the course: `pip install -e .`),"\n'
     '        " then restart the kernel."',
     'f"이 노트북에는 강좌 패키지 {VERSION}이(가) 필요한데, 이 커널에는 {found}이(가) 있습니다.\\n"\n'
     '        f"`pip install {PIN}`을 실행한 뒤(강좌를 clone했다면 `pip install -e .`),"\n'
     '        " 커널을 다시 시작하세요."'),
    ("device = helpers.setup_notebook()", 'device = helpers.setup_notebook(language="ko")'),
]


def setup_cell_source():
    """The Korean setup cell: the English one with SETUP_KO's pieces replaced (each exactly once)."""
    text = sync_notebooks.setup_cell_source()
    for english, korean in SETUP_KO:
        if text.count(english) != 1:
            raise ValueError(f"the English setup cell holds {text.count(english)} copies of {english!r}; "
                             "update SETUP_KO in tools/translations.py to match tools/sync_notebooks.py")
        text = text.replace(english, korean)
    return text


def english_text(cell):
    """A markdown cell's English as its translation records it: the Colab badge left out."""
    return sync_notebooks.BADGE_RE.sub("", cell.source).rstrip()


def translation_path(notebook):
    return I18N_DIR / f"{Path(notebook).stem}.json"


def load(notebook):
    """{cell id: {"en": ..., "text": ...}} for one English notebook (empty if no file yet)."""
    path = translation_path(notebook)
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {entry["id"]: entry for entry in data["cells"]}


def save(notebook, entries, nb):
    """Write the translation file, its entries in the notebook's cell order."""
    order = {cell.id: i for i, cell in enumerate(nb.cells)}
    cells = sorted(entries.values(), key=lambda e: order.get(e["id"], len(order)))
    data = {"notebook": Path(notebook).name, "cells": cells}
    path = translation_path(notebook)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def problems(path):
    """[(kind, cell index, cell id, detail)] for one English notebook: 'missing', 'stale', 'orphan'."""
    nb = nbformat.read(path, as_version=4)
    entries = load(path)
    found = []
    ids = set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        ids.add(cell.id)
        entry = entries.get(cell.id)
        if entry is None or not entry.get("text"):
            found.append(("missing", index, cell.id, english_text(cell)))
        elif entry["en"] != english_text(cell):
            diff = difflib.unified_diff(entry["en"].splitlines(), english_text(cell).splitlines(),
                                        "translated from", "English now", lineterm="", n=0)
            found.append(("stale", index, cell.id, "\n".join(diff)))
    for cell_id in entries.keys() - ids:
        found.append(("orphan", None, cell_id, "no markdown cell of the English notebook has this id"))
    return found


def describe(path, found):
    lines = [f"{path.name}: {len(found)} cell(s) to translate again"]
    for kind, index, cell_id, detail in found:
        where = f"cell {index} (id {cell_id})" if index is not None else f"id {cell_id}"
        lines.append(f"  {kind}: {where}")
        lines.extend("    " + line for line in detail.splitlines()[:40])
    return "\n".join(lines)


def code_blocks(text):
    """The fenced code blocks of a markdown text (a solution's code stays English)."""
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


def generate(path):
    """The Korean notebook for one English notebook (sources only; outputs come from executing it)."""
    found = problems(path)
    if any(kind != "orphan" for kind, *_ in found):
        raise ValueError(describe(path, found))
    nb = nbformat.read(path, as_version=4)
    entries = load(path)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            # notebooks/ko/ sits one folder deeper: links to the repository's files gain a ../
            text = entries[cell.id]["text"].rstrip().replace("](../", "](../../")
            if sync_notebooks.BADGE_RE.search(cell.source):
                text += "\n\n" + sync_notebooks.badge(f"{LANGUAGE}/{path.name}")
            cell.source = text
        elif "setup" in cell.metadata.get("tags", []):
            cell.source = setup_cell_source()
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata["language_info"] = nb.metadata.get("language_info", {})
    nb.metadata["course_language"] = LANGUAGE
    return nb


def write(path):
    """Write notebooks/ko/<name>, keeping the stored outputs if its code is unchanged."""
    nb = generate(path)
    out = OUT_DIR / path.name
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
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    shutil.copyfile(NOTEBOOK_DIR / "rise.css", OUT_DIR / "rise.css")   # RISE reads the one beside the notebook
    return out


def todo(path):
    """Add an entry with "text": null for every missing cell; print what is missing or stale."""
    nb = nbformat.read(path, as_version=4)
    entries = load(path)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.id not in entries:
            entries[cell.id] = {"id": cell.id, "en": english_text(cell), "text": None}
    save(path, entries, nb)
    found = problems(path)
    print(describe(path, found) if found else f"{path.name}: every cell is translated")


def accept(path, cell_id):
    """Record the current English as what cell `cell_id`'s (revised) translation translates."""
    nb = nbformat.read(path, as_version=4)
    entries = load(path)
    cells = [c for c in nb.cells if c.id == cell_id and c.cell_type == "markdown"]
    if not cells or cell_id not in entries:
        raise SystemExit(f"{path.name} has no translated markdown cell with id {cell_id!r}")
    entries[cell_id]["en"] = english_text(cells[0])
    save(path, entries, nb)


def main(argv):
    command, *args = argv or ["status"]
    if command == "status":
        stale = 0
        for path in notebook_paths(args):
            found = problems(path)
            stale += bool(found)
            print(describe(path, found) if found else f"{path.name}: up to date")
        return 1 if stale else 0
    if command in ("generate", "build"):
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
        for path in notebook_paths(args):
            todo(path)
        return 0
    if command == "accept" and len(args) == 2:
        (path,) = notebook_paths(args[:1])
        accept(path, args[1])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
