"""The language the checks speak: English, or Korean in the Korean edition (notebooks/ko/).

Every sentence a check says is made with `show.say(template, **values)`: a `Text`, the English
sentence that keeps its template and values. In Korean, `translate` looks the template up in
the catalog (helpers/checks/korean/: one module per notebook, plus the runners' own) and
fills the same values into the Korean template; a value that is itself a Text is translated
the same way. A template missing from the catalog is said in English and recorded in
`MISSES`, which the tests keep empty.

The Korean notebooks' setup cell calls `helpers.setup_notebook(language="ko")`, which calls
`use("ko")`.
"""

import importlib
import pkgutil
from functools import cache

from helpers.checks.show import Text, fill

LANGUAGES = {"en": "English", "ko": "Korean (한국어)"}
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


@cache
def catalog(language):
    """{English template: template in `language`}, from every module of helpers/checks/<language>/."""
    if language == "en":
        return {}
    package = importlib.import_module(f"helpers.checks.{LANGUAGES[language].split()[0].lower()}")
    merged = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for english, translated in module.MESSAGES.items():
            if merged.get(english, translated) != translated:
                raise ValueError(f"{module.__name__} translates {english!r} otherwise than another module")
            merged[english] = translated
    return merged


def _value(value, messages):
    """A value inside a sentence: a Text or a catalogued phrase translated, anything else as it is."""
    if isinstance(value, Text):
        return _translated(value, messages)
    if isinstance(value, str) and value in messages:
        return messages[value]
    return value


def _translated(text, messages):
    template = text.template if isinstance(text, Text) else str(text)
    found = messages.get(template)
    if found is None:
        MISSES.add(template)
        return str(text)
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
