"""The Korean edition's terms: each settled once in docs/GLOSSARY.md ("Korean terms"), checked and applied here.

docs/GLOSSARY.md's table "Korean terms" gives, for each term, the one Korean word the edition uses
(the source posts' own word where they have one) and the variants it does not use. This tool finds
the rejected variants in Korean prose: the translations (msgstr) of locale/ko/LC_MESSAGES/*.po,
README.ko.md and docs/INSTRUCTOR.ko.md. Code is not prose: fenced blocks, `inline code`, $math$,
link targets, HTML tags, {fields} of the checks' templates, identifiers (up_proj, nn.Linear),
English quoted in "double quotes" and an English gloss in parentheses after a Korean word
(기울기(gradient)) are left alone.

    python tools/glossary.py            # list every rejected variant, by file, entry and term (exit 1 if any)
    python tools/glossary.py --fix      # replace them by the settled term (particles chosen anew), then list
    python tools/glossary.py english    # English words in Korean prose that the glossary does not keep

--fix replaces a variant by its term and re-chooses a particle right after it by the new word
("편향을" -> "bias를", "사전 활성화를" -> "활성화 전 값을"), drops a gloss that would repeat the
term ("편향(bias)" -> "bias"), and writes the catalogs with tools/translations.py (so checks.mo is
recompiled by `python tools/translations.py extract`, which tests/test_translation_catalogs.py asks).
Run it again after merging branches that add Korean entries; tests/test_glossary.py fails while a
variant is left.
"""

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from course_paths import ROOT  # noqa: E402

GLOSSARY = ROOT / "docs" / "GLOSSARY.md"
HEADING = "## Korean terms"
DOCS = [ROOT / "README.ko.md", ROOT / "docs" / "INSTRUCTOR.ko.md"]
HANGUL = r"\uac00-\ud7a3"


@dataclass
class Term:
    english: str
    korean: str
    rejected: list = field(default_factory=list)
    note: str = ""

    @property
    def kept_in_english(self):
        return not re.search(f"[{HANGUL}]", self.korean)


def terms(text=None):
    """The rows of docs/GLOSSARY.md's "Korean terms" table, as Terms."""
    text = GLOSSARY.read_text(encoding="utf-8") if text is None else text
    if HEADING not in text:
        raise ValueError(f"{GLOSSARY.name} has no '{HEADING}' section")
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    found = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 4 or cells[0] in ("English", "---") or set(cells[0]) <= {"-"}:
            continue
        english, korean, rejected, note = cells
        found.append(Term(english, korean, [v.strip() for v in rejected.split(";") if v.strip()], note))
    return found


# ---- prose: what of a Korean text is read as Korean ---------------------------------------------

_NOT_PROSE = [
    re.compile(r"```.*?```", re.S),                 # fenced code
    re.compile(r"`[^`]*`"),                         # inline code
    re.compile(r"\$\$.*?\$\$", re.S),               # display math
    re.compile(r"(?<![\\\w])\$[^$\n]+\$"),          # inline math
    re.compile(r"\]\([^)\s]*\)"),                   # link targets
    re.compile(r"<[^<>\n]+>"),                      # HTML tags
    re.compile(r"https?://\S+"),                    # addresses
    re.compile(r"\{[^{}\n]*\}"),                    # a template's {fields}
    re.compile(rf"\([^()\n{HANGUL}]*\)"),           # an English gloss or a tuple in parentheses: (gradient), (out, in)
    re.compile(rf"\"[^\"\n{HANGUL}]*\"|“[^”\n{HANGUL}]*”"),   # English quoted: "the capital of X is"
    re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z0-9_.]*[A-Za-z0-9][_.][A-Za-z0-9_.]*[A-Za-z0-9_](?![A-Za-z0-9_])"),
    # identifiers: up_proj, nn.Linear, torch.float32
]


def code_spans(text):
    """[(start, end)] of the parts of text that are not prose."""
    spans = []
    for pattern in _NOT_PROSE:
        spans += [m.span() for m in pattern.finditer(text)]
    return sorted(spans)


def prose(text):
    """text with everything that is not prose blanked out (same length, so positions still hold)."""
    chars = list(text)
    for start, end in code_spans(text):
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def variant_pattern(variant):
    """A rejected variant as a pattern: a Latin word whole (not inside an identifier or a longer word), a
    Hangul word starting a word (서브레이어 is not 레이어)."""
    body = re.escape(variant).replace(r"\ ", r"\s+")
    if re.search(f"[{HANGUL}]", variant[0]):
        return re.compile(rf"(?<![{HANGUL}]){body}")
    return re.compile(rf"(?<![A-Za-z0-9_\-/]){body}(?![A-Za-z0-9_\-/])", re.I)


def found_in(text, term_list=None):
    """[(variant, Term, start)] of the rejected variants in text's prose, longest variant first at a place."""
    term_list = terms() if term_list is None else term_list
    readable, taken, found = prose(text), set(), []
    variants = sorted(((v, t) for t in term_list for v in t.rejected), key=lambda p: -len(p[0]))
    for variant, term in variants:
        for match in variant_pattern(variant).finditer(readable):
            if taken.isdisjoint(range(*match.span())):
                taken.update(range(*match.span()))
                found.append((match.group(), term, match.start(), match.end()))
    return sorted(found, key=lambda f: f[2])


# ---- particles after a replaced word -------------------------------------------------------------

_AFTER = re.compile(rf"(이나|나|은|는|이|가|을|를|과|와|으로|로)(?![{HANGUL}])|(은|는|을|를|과|와|으로|로)")
_FORMS = {"은": "은(는)", "는": "은(는)", "이": "이(가)", "가": "이(가)", "을": "을(를)", "를": "을(를)",
          "과": "과(와)", "와": "과(와)", "으로": "(으)로", "로": "(으)로", "이나": "(이)나", "나": "(이)나"}


def _particle_after(word, old):
    from helpers.checks.language import particle

    chosen = particle(word, _FORMS[old])
    return old if "(" in chosen else chosen


def replace_all(text, term_list=None):
    """text with every rejected variant in its prose replaced by its term, particles chosen anew; and the count."""
    found = found_in(text, term_list)
    out, last = [], 0
    for _, term, start, end in found:
        if start < last:
            continue
        out.append(text[last:start])
        out.append(term.korean)
        last = end
        gloss = re.match(rf"\(([^()\n{HANGUL}]*)\)", text[end:])   # an English gloss, not prose
        if gloss and gloss.group(1).strip().casefold() == term.korean.casefold():
            last = end + gloss.end()     # 편향(bias) -> bias, not bias(bias)
        elif gloss:
            out.append(gloss.group())
            last = end + gloss.end()
        after = _AFTER.match(text, last)
        if after:
            old = after.group()
            out.append(_particle_after(term.korean, old))
            last = after.end()
    out.append(text[last:])
    return "".join(out), len(found)


# ---- the Korean texts -----------------------------------------------------------------------------

def catalogs():
    import translations

    return {path: translations.read_catalog(path) for path in sorted(translations.LOCALE_DIR.glob("*.po"))}


def entry_name(message):
    return message.context or (message.id[:60] + ("..." if len(message.id) > 60 else ""))


def problems(term_list=None):
    """[(file, entry, variant, term)] for every rejected variant in Korean prose."""
    term_list = terms() if term_list is None else term_list
    found = []
    for path, catalog in catalogs().items():
        for message in catalog:
            if message.id and message.string:
                found += [(path.relative_to(ROOT), entry_name(message), v, t) for v, t, *_ in
                          found_in(message.string, term_list)]
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for variant, term, start, _ in found_in(text, term_list):
            found.append((path.relative_to(ROOT), f"line {text.count(chr(10), 0, start) + 1}", variant, term))
    return found


def fix(term_list=None):
    """Replace every rejected variant in the catalogs and the Korean docs; the number replaced."""
    import translations

    term_list = terms() if term_list is None else term_list
    total = 0
    for path, catalog in catalogs().items():
        changed = 0
        for message in catalog:
            if message.id and message.string:
                message.string, count = replace_all(message.string, term_list)
                changed += count
        if changed:
            translations.write_catalog(path, catalog)
            if path == translations.CHECKS_PO:
                translations.compile_checks(catalog)
        total += changed
    for path in DOCS:
        text, count = replace_all(path.read_text(encoding="utf-8"), term_list)
        if count:
            path.write_text(text, encoding="utf-8")
        total += count
    return total


_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9_\-/'])[A-Za-z][A-Za-z\-]*[A-Za-z](?![A-Za-z0-9_\-/'])")


def english_words():
    """{word: count} of Latin words in Korean prose that no glossary row keeps in English."""
    kept = {t.korean.casefold() for t in terms() if t.kept_in_english}
    counts = {}
    texts = [m.string for c in catalogs().values() for m in c if m.id and m.string]
    texts += [p.read_text(encoding="utf-8") for p in DOCS]
    for text in texts:
        for word in _LATIN_WORD.findall(prose(text)):
            if word.casefold() not in kept:
                counts[word] = counts.get(word, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def main(argv):
    if argv[:1] == ["english"]:
        for word, count in english_words().items():
            print(f"{count:4d} {word}")
        return 0
    if "--fix" in argv:
        print(f"replaced {fix()} variant(s)")
    found = problems()
    for path, entry, variant, term in found:
        print(f"{path}: {entry}: {variant!r} -> {term.korean!r} ({term.english})")
    print(f"{len(found)} rejected variant(s) in Korean prose" if found else "no rejected variant in Korean prose")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
