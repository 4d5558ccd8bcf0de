"""The language the checks speak: English, or Korean in the Korean edition (notebooks/ko/).

Every sentence a check says is made with `show.say(template, **values)`: a `Text`, the English
sentence that keeps its template and values. In Korean, `translate` looks the template up in
the gettext catalog `checks` and fills the same values into the Korean template; a value that
is itself a Text is translated the same way. A template missing from the catalog (or marked
fuzzy there, since a fuzzy entry is not compiled) is said in English and recorded in `MISSES`,
which the tests keep empty. A template made only of fields and punctuation ("{}, {}") is the
same in every language.

The catalog is read with the standard library's `gettext` from the compiled
`helpers/locale/<language>/LC_MESSAGES/checks.mo`, which ships in the wheel: an installed
course (Colab) needs no extra package to speak Korean. Translators edit
`locale/ko/LC_MESSAGES/checks.po`; `python tools/translations.py extract` compiles it (and
tests/test_translation_catalogs.py keeps the .mo equal to a fresh compile of the .po).

The Korean notebooks' setup cell calls `helpers.setup_notebook(language="ko")`, which calls
`use("ko")`.
"""

import gettext
import re
from functools import cache
from pathlib import Path

from helpers.checks.show import Text, fill

LANGUAGES = {"en": "English", "ko": "Korean (한국어)"}
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "checks"
_current = ["en"]
MISSES = set()   # templates asked for in Korean that the catalog does not hold


def use(language):
    """Make the checks speak `language` ('en' or 'ko') from now on."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {sorted(LANGUAGES)}, got {language!r}")
    _current[0] = language


def current():
    """'en' or 'ko'."""
    return _current[0]


class _Missing(gettext.NullTranslations):
    """The last fallback: None for a message the catalog does not hold (gettext would return the English)."""

    def gettext(self, message):
        return None


class Messages:
    """{English template: translation} read from a compiled gettext catalog: `get` and `in`, as a dict."""

    def __init__(self, translations):
        self._translations = translations
        translations.add_fallback(_Missing())

    def get(self, english, default=None):
        if not english:   # gettext("") is the catalog's header, not a translation
            return default
        found = self._translations.gettext(english)
        return default if found is None else found

    def __contains__(self, english):
        return self.get(english) is not None


@cache
def catalog(language):
    """The checks' catalog in `language` (a Messages; {} for English)."""
    if language == "en":
        return {}
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.is_file():
        raise FileNotFoundError(f"the checks' {LANGUAGES[language]} catalog {path} is missing: "
                                "run `python tools/translations.py extract`")
    with path.open("rb") as fp:
        return Messages(gettext.GNUTranslations(fp))


def _value(value, messages):
    """A value inside a sentence: a Text or a catalogued phrase translated, anything else as it is."""
    if isinstance(value, Text):
        return _translated(value, messages)
    if isinstance(value, str) and value in messages:
        return messages.get(value)
    return value


def _no_words(template):
    return not re.search(r"\w", re.sub(r"\{[^{}]*\}", "", template))


def _translated(text, messages):
    template = text.template if isinstance(text, Text) else str(text)
    found = messages.get(template)
    if found is None:
        if not _no_words(template):
            MISSES.add(template)
            return str(text)
        found = template
    if not isinstance(text, Text):
        return found
    return fill(found, [_value(a, messages) for a in text.args],
                {k: _value(v, messages) for k, v in text.values.items()})


def translate(text, language=None):
    """text (a Text or a plain sentence) in `language` (the current one if None)."""
    language = language or current()
    if language == "en":
        return str(text)
    return _translated(text, catalog(language))
