"""Compile the checks' catalogs into the package: locale/<lang>/LC_MESSAGES/checks.po becomes
helpers/locale/<lang>/LC_MESSAGES/checks.mo, which helpers reads with the standard library's gettext.

The .mo is built, never committed: by the wheel's build (setup.py, so the wheel and a Colab install
from PyPI or a git tag hold it), by `make` before anything that runs the checks, and by
tools/translations.py (`make ko-extract`, `make ko`). It needs Babel alone (a build requirement).

    python tools/compile_catalogs.py [ROOT]    # the repository's root by default
"""

import io
import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DOMAINS = ("checks",)   # the catalogs the package reads (notebooks.po and setup.po are read by tools)


def compiled(catalog):
    """The .mo bytes of a Babel catalog (fuzzy entries left out, as gettext expects)."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def targets(root):
    """{.po path: .mo path} for every language's package catalogs under root."""
    root = Path(root)
    return {po: root / "helpers" / "locale" / po.parent.parent.name / "LC_MESSAGES" / f"{po.stem}.mo"
            for domain in DOMAINS for po in sorted((root / "locale").glob(f"*/LC_MESSAGES/{domain}.po"))}


def compile_all(root):
    """Write every package catalog's .mo where it differs from a fresh compile; the paths written."""
    written = []
    for po, mo in targets(root).items():
        with po.open("rb") as fp:
            data = compiled(read_po(fp, locale=po.parent.parent.name, domain=po.stem))
        if not mo.is_file() or mo.read_bytes() != data:
            mo.parent.mkdir(parents=True, exist_ok=True)
            mo.write_bytes(data)
            written.append(mo)
    return written


if __name__ == "__main__":
    for path in compile_all(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent):
        print(f"compiled {path}")
