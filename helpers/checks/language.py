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

Korean particles after a value: a Korean template writes the particle after a {field} in its
two-form spelling, `{got}은(는)`, `{name}이(가)`, `{got}을(를)`, `{x}과(와)` (or `와(과)`) and
`{x}(으)로`, `{x}(이)라고`, `{x}(이)나`; `particle` then picks the one form that the value as it is shown calls for: "fall은",
"GELU는", "2는", "1,2,3은", "층을", "모델을"... (`reading`: a Hangul syllable by its final
consonant, a digit by its Korean reading, a Latin word by a rule of thumb). A value whose reading
is unknown keeps the two-form spelling, which is always correct Korean.

The Korean notebooks' setup cell calls `helpers.setup.start(VERSION, language="ko")`, which calls
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


# ---- particles ----------------------------------------------------------------------------------

# The particle pairs, two-form spelling -> (after a final consonant, after a vowel).
PARTICLES = {"은(는)": ("은", "는"), "이(가)": ("이", "가"), "을(를)": ("을", "를"),
             "과(와)": ("과", "와"), "와(과)": ("과", "와"), "(으)로": ("으로", "로"),
             "(이)라고": ("이라고", "라고"), "(이)나": ("이나", "나")}
# Digits read in Korean: 영 일 이 삼 사 오 육 칠 팔 구. "consonant", "vowel", or "rieul" (a final ㄹ,
# which takes 로 like a vowel: "1로", "7로", "8로").
_DIGITS = {"0": "consonant", "1": "rieul", "2": "vowel", "3": "consonant", "4": "vowel", "5": "vowel",
           "6": "consonant", "7": "rieul", "8": "rieul", "9": "vowel"}
# A Latin letter said by its name (an acronym, a single letter): 엘, 엠, 엔, 알 end in a consonant.
_LETTER_NAMES = {"l": "rieul", "r": "rieul", "m": "consonant", "n": "consonant"}
_SYMBOLS = {"%": "vowel"}   # 퍼센트
_SILENT = ")]}'\"`>»”’ \t.,;:!?…"   # closing marks and punctuation: the reading is the word before them
_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
_MARK = "\ue000"   # stands for a particle to choose, in a filled template, until the value is known


def reading(text):
    """How `text`, read aloud in Korean, ends: 'consonant', 'rieul' (final ㄹ), 'vowel', or None if unknown.

    A Hangul syllable by its final consonant; a digit by its Korean reading (1,2,3 -> 삼 -> consonant);
    a Latin word by a rule of thumb: an acronym or a single letter by the letter's name (MLP -> 피,
    FFN -> 엔); a word ending in l -> ㄹ (fall -> 폴), in m, n or ng -> a consonant (LayerNorm -> 놈),
    in a short vowel and a stop b, c, ck, d, g, k, p, t -> a consonant (cat -> 캣, top -> 탑),
    anything else -> a vowel (GELU -> 겔루, gate -> 게이트, layer -> 레이어)."""
    text = str(text).rstrip(_SILENT)
    if not text:
        return None
    last = text[-1]
    if _HANGUL_FIRST <= ord(last) <= _HANGUL_LAST:
        final = (ord(last) - _HANGUL_FIRST) % 28
        return "vowel" if final == 0 else "rieul" if final == 8 else "consonant"
    if last in _DIGITS:
        return _DIGITS[last]
    if last in _SYMBOLS:
        return _SYMBOLS[last]
    if not ("a" <= last.lower() <= "z"):
        return None
    word = re.search(r"[A-Za-z]+$", text).group()
    if len(word) == 1 or (word.isupper() and len(word) <= 5):
        return _LETTER_NAMES.get(last.lower(), "vowel")
    lower = word.lower()
    if lower.endswith("l"):
        return "rieul"
    if lower.endswith(("m", "n")):
        return "consonant"
    if re.search(r"(?<![aeiou])[aeiou](?:ck|[bcdgkpt])$", lower):
        return "consonant"
    return "vowel"


def particle(value, pair):
    """The form of `pair` ('은(는)', '이(가)', '을(를)', '과(와)', '와(과)', '(으)로', '(이)라고', '(이)나') that follows `value`
    when it is read in Korean; the two-form spelling itself where the reading is unknown."""
    after_consonant, after_vowel = PARTICLES[pair]
    sound = reading(value)
    if sound is None:
        return pair
    if pair == "(으)로":
        return after_consonant if sound == "consonant" else after_vowel
    return after_vowel if sound == "vowel" else after_consonant


_PAIR_AFTER_FIELD = re.compile(r"(\{[^{}]*\})(" + "|".join(re.escape(p) for p in PARTICLES) + ")")
_CHOSEN = re.compile(_MARK + r"(\d)")


def _marked(template):
    """template with each particle after a {field} replaced by a mark naming the pair (chosen once filled)."""
    pairs = list(PARTICLES)
    return _PAIR_AFTER_FIELD.sub(lambda m: m.group(1) + _MARK + str(pairs.index(m.group(2))), template)


def with_particles(template, args=(), values=None):
    """template filled (show.fill), each two-form particle after a {field} chosen by the value shown there."""
    if _MARK in template or not _PAIR_AFTER_FIELD.search(template):
        return fill(template, args, values)
    filled = fill(_marked(template), args, values)
    pairs, out, start = list(PARTICLES), [], 0
    for match in _CHOSEN.finditer(filled):
        before = filled[start:match.start()]
        out.append(before)
        out.append(particle("".join(out), pairs[int(match.group(1))]))
        start = match.end()
    out.append(filled[start:])
    return "".join(out).replace(_MARK, "")


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
    return with_particles(found, [_value(a, messages) for a in text.args],
                          {k: _value(v, messages) for k, v in text.values.items()})


def translate(text, language=None):
    """text (a Text or a plain sentence) in `language` (the current one if None)."""
    language = language or current()
    if language == "en":
        return str(text)
    return _translated(text, catalog(language))
