"""Korean particles after a filled-in value: `{got}은(는)` becomes "GELU는" or "층은".

A Korean template writes the particle after a {field} in its two-form spelling, `{got}은(는)`,
`{name}이(가)`, `{got}을(를)`, `{x}과(와)` (or `와(과)`), `{x}(으)로`, `{x}(이)라고`, `{x}(이)나`;
`helpers.language.with_particles` fills the template and picks, for each, the one form that the
value as it is shown calls for: "fall은", "GELU는", "2는", "1,2,3은", "층을", "모델을"... (`reading`: a
Hangul syllable by its final consonant, a digit by its Korean reading, a Latin word by a rule of
thumb). A value whose reading is unknown keeps the two-form spelling, which is always correct
Korean.

Standard library only: helpers.language (the bottom of the package) uses it.
"""

import re

# The particle pairs, two-form spelling -> (after a final consonant, after a vowel).
PARTICLES = {"은(는)": ("은", "는"), "이(가)": ("이", "가"), "을(를)": ("을", "를"),
             "과(와)": ("과", "와"), "와(과)": ("과", "와"), "(으)로": ("으로", "로"),
             "(이)라고": ("이라고", "라고"), "(이)나": ("이나", "나")}
# Digits read in Korean: 영 일 이 삼 사 오 육 칠 팔 구. "consonant", "vowel", or "rieul" (a final ㄹ,
# which takes 로 like a vowel: "1로", "7로", "8로").
_DIGITS = {"0": "consonant", "1": "rieul", "2": "vowel", "3": "consonant", "4": "vowel",
           "5": "vowel", "6": "consonant", "7": "rieul", "8": "rieul", "9": "vowel"}
# A Latin letter said by its name (an acronym, a single letter): 엘, 엠, 엔, 알 end in a consonant.
_LETTER_NAMES = {"l": "rieul", "r": "rieul", "m": "consonant", "n": "consonant"}
_SYMBOLS = {"%": "vowel"}   # 퍼센트
# closing marks and punctuation: the reading is the word before them
_SILENT = ")]}'\"`>»”’ \t.,;:!?…"
_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
_MARK = "\ue000"   # stands for a particle to choose, in a filled template, until the value is known


def reading(text):
    """How `text`, read aloud in Korean, ends: 'consonant', 'rieul' (final ㄹ), 'vowel', or None if
    unknown.

    A Hangul syllable by its final consonant; a digit by its Korean reading (1,2,3 -> 삼 ->
    consonant); a Latin word by a rule of thumb: an acronym or a single letter by the letter's name
    (MLP -> 피, FFN -> 엔); a word ending in l -> ㄹ (fall -> 폴), in m, n or ng -> a consonant
    (LayerNorm -> 놈), in a short vowel and a stop b, c, ck, d, g, k, p, t -> a consonant (cat -> 캣,
    top -> 탑), anything else -> a vowel (GELU -> 겔루, gate -> 게이트, layer -> 레이어)."""
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
    """The form of `pair` ('은(는)', '이(가)', '을(를)', '과(와)', '와(과)', '(으)로', '(이)라고', '(이)나') that
    follows `value` when it is read in Korean; the two-form spelling itself where the reading is
    unknown."""
    after_consonant, after_vowel = PARTICLES[pair]
    sound = reading(value)
    if sound is None:
        return pair
    if pair == "(으)로":
        return after_consonant if sound == "consonant" else after_vowel
    return after_vowel if sound == "vowel" else after_consonant


_PAIR_AFTER_FIELD = re.compile(r"(\{[^{}]*\})(" + "|".join(re.escape(p) for p in PARTICLES) + ")")
_CHOSEN = re.compile(_MARK + r"(\d)")


def has_pairs(template):
    """Whether template writes a two-form particle after a {field} (one to choose once filled)."""
    return _MARK not in template and bool(_PAIR_AFTER_FIELD.search(template))


def marked(template):
    """template with each particle after a {field} replaced by a mark naming the pair (chosen once
    filled)."""
    pairs = list(PARTICLES)
    return _PAIR_AFTER_FIELD.sub(lambda m: m.group(1) + _MARK + str(pairs.index(m.group(2))),
                                 template)


def chosen(filled):
    """A marked template once filled: each mark replaced by the form that the text before it calls
    for."""
    pairs, out, start = list(PARTICLES), [], 0
    for match in _CHOSEN.finditer(filled):
        out.append(filled[start:match.start()])
        out.append(particle("".join(out), pairs[int(match.group(1))]))
        start = match.end()
    out.append(filled[start:])
    return "".join(out).replace(_MARK, "")
