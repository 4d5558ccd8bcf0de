"""The language the checks speak: English, or Korean in the Korean edition (notebooks/ko/).

The Korean notebooks' setup cell calls `helpers.setup_notebook(language="ko")`, which calls
`use("ko")`; a check's Feedback is then shown in Korean.
"""

LANGUAGES = {"en": "English", "ko": "Korean (한국어)"}
_current = ["en"]


def use(language):
    """Make the checks speak `language` ('en' or 'ko') from now on."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {sorted(LANGUAGES)}, got {language!r}")
    _current[0] = language


def current():
    """'en' or 'ko'."""
    return _current[0]
