"""The language a learner reads: English, or Korean in the Korean edition (notebooks/ko/).

The bottom of the package: it imports the standard library and helpers.particles alone, and the
checks, demos, plots, gpt2, setup and the study group's modules speak through it.

- The choice: `use("ko")` from now on (the Korean notebooks' setup cell calls
  `helpers.setup.start(VERSION, language="ko")`, which calls it), `current()`. Outside a notebook
  (the set-up, `python -m helpers`) `from_environment()` reads COURSE_LANG=ko|en, else the locale
  (LC_ALL, LC_MESSAGES, LANG: ko_KR.UTF-8 is Korean).
- A sentence: `say(template, **values)` is a `Text`, the English sentence that keeps its template
  and values. `translate(text)` looks the template up in the gettext catalog `checks` and fills the
  same values into the Korean template; a value that is itself a Text is translated the same way;
  each two-form particle after a field is chosen for the value shown (helpers.particles). A
  template missing from the catalog (or fuzzy there: not compiled) is said in English and recorded
  in `MISSES`, which the tests keep empty. A template made only of fields and punctuation ("{}, {}")
  is the same in every language.

The catalog is read with the standard library's `gettext` from
`helpers/locale/<language>/LC_MESSAGES/checks.mo`, compiled from `locale/ko/LC_MESSAGES/checks.po`
by make and by the wheel's build (tools/compile_catalogs.py): an installed course (Colab) needs no
extra package to speak Korean. helpers.checks.show formats the checks' values (arrays described in
words) through its own `Text`, a subclass of this one.
"""

import gettext
import os
import re
from functools import cache
from pathlib import Path

from helpers import particles

LANGUAGES = {"en": "English", "ko": "Korean (한국어)"}
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "checks"
_current = ["en"]
MISSES = set()   # templates asked for in Korean that the catalog does not hold


def use(language):
    """Make helpers speak `language` ('en' or 'ko') from now on."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {sorted(LANGUAGES)}, got {language!r}")
    _current[0] = language


def current():
    """'en' or 'ko'."""
    return _current[0]


def from_environment(environ=None):
    """The language asked for outside a notebook: COURSE_LANG (en or ko), else the locale's ('ko'
    for ko_KR.UTF-8 in LC_ALL, LC_MESSAGES or LANG, the first one set), else English."""
    environ = os.environ if environ is None else environ
    asked = environ.get("COURSE_LANG", "").strip().lower()
    if asked:
        if asked not in LANGUAGES:
            raise ValueError(f"COURSE_LANG must be one of {sorted(LANGUAGES)}, got {asked!r}")
        return asked
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(name):
            return "ko" if environ[name].lower().startswith("ko") else "en"
    return "en"


# ---- sentences that keep their template ---------------------------------------------------------

class Shown:
    """A value in str.format, formatted as it is (helpers.checks.show's own describes arrays in
    words)."""

    def __init__(self, value):
        self.value = value

    def __format__(self, spec):
        return format(self.value, spec)

    def __str__(self):
        return format(self)

    def __repr__(self):
        return repr(self.value)


def fill(template, args=(), values=None, shown=Shown):
    """template with its {fields} (or {} for args) filled in, each value through `shown`; the
    template as it is if that fails."""
    if "{" not in template:
        return template
    try:
        return template.format(*(shown(a) for a in args),
                               **{k: shown(v) for k, v in (values or {}).items()})
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return template


class Text(str):
    """A sentence in English that keeps its template and values, so it can be said in another
    language.

    It is the English string itself (tests and f-strings see the English); `translate` fills the
    same values into the template's translation. `shown` formats each value (a subclass may describe
    more).
    """

    shown = Shown

    def __new__(cls, template, args=(), values=None):
        text = super().__new__(cls, fill(template, args, values, cls.shown))
        text.template, text.args, text.values = template, tuple(args), dict(values or {})
        return text

    def __reduce__(self):   # deepcopy and pickle keep the template
        return (type(self), (self.template, self.args, self.values))


def say(template, *args, **values):
    """A Text: template with its {fields} (or {} for args) filled in, e.g. say("Loaded {name}.",
    name=n)."""
    return Text(template, args, values)


def with_particles(template, args=(), values=None, shown=Shown):
    """template filled (fill), each two-form particle after a {field} chosen by the value shown
    there."""
    if not particles.has_pairs(template):
        return fill(template, args, values, shown)
    return particles.chosen(fill(particles.marked(template), args, values, shown))


# ---- the catalogs -------------------------------------------------------------------------------

class _Missing(gettext.NullTranslations):
    """The last fallback: None for a message the catalog does not hold (gettext would return the
    English)."""

    def gettext(self, message):
        return None


class Messages:
    """{English template: translation} read from a compiled gettext catalog: `get` and `in`, as a
    dict."""

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
    """The catalog in `language` (a Messages; {} for English)."""
    if language == "en":
        return {}
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.is_file():
        raise FileNotFoundError(f"the {LANGUAGES[language]} catalog {path} is missing: in a clone "
                                "of the course run `make` (it compiles "
                                "locale/ko/LC_MESSAGES/checks.po)")
    with path.open("rb") as fp:
        return Messages(gettext.GNUTranslations(fp))


def _value(value, messages):
    """A value inside a sentence: a Text or a catalogued phrase translated, anything else as it
    is."""
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
    return with_particles(found, [_value(a, messages) for a in text.args],
                          {k: _value(v, messages) for k, v in text.values.items()},
                          type(text).shown)


def translate(text, language=None):
    """text (a Text or a plain sentence) in `language` (the current one if None)."""
    language = language or current()
    if language == "en":
        return str(text)
    return _translated(text, catalog(language))


def said(template, *args, **values):
    """say(template, ...) translated into the current language at once: a demo's or a plot's label,
    title or control, read when the figure is made (`said("output g * u")`)."""
    return translate(say(template, *args, **values))
