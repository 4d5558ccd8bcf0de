"""The Korean edition says each term one way, and its checks choose particles by the word before them.

- docs/GLOSSARY.md's "Korean terms" table settles each term once (tools/glossary.py reads it);
- no rejected variant appears in Korean prose: the catalogs' msgstr's, README.ko.md,
  docs/INSTRUCTOR.ko.md (code, identifiers and English glosses are not prose);
- tools/glossary.py --fix replaces a variant and chooses the particle after it anew;
- the checks' Korean templates never write a fixed particle after a {field} ("{guess}는" would say
  "fall는"): they write the two-form spelling, which helpers.checks.language resolves by the value.
"""

import re

import pytest

import glossary
import translations
from helpers.checks import language
from helpers.checks.show import say

TERMS = glossary.terms()


def test_the_korean_terms_are_read_and_settled_once():
    assert len(TERMS) >= 20
    english = [t.english for t in TERMS]
    assert len(set(english)) == len(english), "a term is settled twice"
    variants = [v for t in TERMS for v in t.rejected]
    assert len(set(variants)) == len(variants), "a variant is rejected in two rows"
    for term in TERMS:
        assert term.korean not in term.rejected, term
        for other in TERMS:
            assert term.korean not in other.rejected, f"{term.korean!r} is settled and rejected ({other.english})"
    chosen = {t.english.split(" (")[0]: t.korean for t in TERMS}
    assert chosen["path"] == "경로" and chosen["context"] == "문맥" and chosen["width"] == "폭"
    assert chosen["course"] == "강좌" and chosen["mixture of experts"] == "MoE"
    assert chosen["pre-activation"] == "활성화 전 값"


def test_no_rejected_variant_in_korean_prose():
    found = glossary.problems(TERMS)
    said = [f"{path}: {entry}: {variant!r} -> {term.korean!r} ({term.english})" for path, entry, variant, term in found]
    assert not found, (f"{len(found)} rejected variant(s) in Korean prose; run `python tools/glossary.py --fix` "
                       "or rewrite them:\n" + "\n".join(said[:30]))


def test_a_variant_is_named_by_file_entry_and_term(tmp_path, monkeypatch):
    doc = tmp_path / "README.ko.md"
    doc.write_text("# 강좌\n\n이 코스는 두 갈래로 나뉩니다.\n", encoding="utf-8")
    monkeypatch.setattr(glossary, "DOCS", [doc])
    monkeypatch.setattr(glossary, "ROOT", tmp_path)
    monkeypatch.setattr(glossary, "catalogs", lambda: {})
    found = [(str(p), e, v, t.korean) for p, e, v, t in glossary.problems(TERMS)]
    assert found == [("README.ko.md", "line 3", "코스", "강좌"), ("README.ko.md", "line 3", "갈래", "경로")]


@pytest.mark.parametrize("text", [
    "`stream`을 읽습니다", "```python\nx = bias + stream\n```", "`my_stream_guess`에 적으세요",
    "my_stream_guess = 10", "c_fc.bias의 모양", "기울기(gradient)를 구합니다", "서브레이어마다",
    '문형("the residual stream is")', "[링크](../stream.md)", "{stream}을(를)", "$W_{stream}$",
    "그리디 디코딩", "대역폭", "<a href='stream'>", "https://example.com/stream",
])
def test_code_identifiers_and_glosses_are_not_prose(text):
    assert glossary.found_in(text, TERMS) == [], text


@pytest.mark.parametrize("text, fixed", [
    ("편향을 더합니다.", "bias를 더합니다."),
    ("c_proj의 편향이 빠졌습니다.", "c_proj의 bias가 빠졌습니다."),
    ("편향(bias)은 출력에 속합니다.", "bias는 출력에 속합니다."),
    ("사전 활성화를 셉니다.", "활성화 전 값을 셉니다."),
    ("사전 활성화가 음수", "활성화 전 값이 음수"),
    ("두 갈래로 보냅니다.", "두 경로로 보냅니다."),
    ("Residual stream에 더해집니다. stream은 x입니다.", "잔차 스트림에 더해집니다. 스트림은 x입니다."),
    ("잔차 stream을 읽고 `stream`은 그대로", "잔차 스트림을 읽고 `stream`은 그대로"),
    ("너비는 폭과 같습니다.", "폭은 폭과 같습니다."),
    ("전문가 혼합(MoE)과 밀집 모델", "MoE와 밀집 모델"),
    ("서브레이어와 레이어를", "서브레이어와 층을"),
])
def test_fix_replaces_and_chooses_the_particle_anew(text, fixed):
    assert glossary.replace_all(text, TERMS)[0] == fixed


# ---- particles after a value in the checks' Korean ----------------------------------------------

@pytest.mark.parametrize("value, topic, subject, objective, towards", [
    ("fall", "fall은", "fall이", "fall을", "fall로"),
    ("1,2,3", "1,2,3은", "1,2,3이", "1,2,3을", "1,2,3으로"),
    ("2", "2는", "2가", "2를", "2로"),
    ("1", "1은", "1이", "1을", "1로"),
    ("10", "10은", "10이", "10을", "10으로"),
    ("GELU", "GELU는", "GELU가", "GELU를", "GELU로"),
    ("MLP", "MLP는", "MLP가", "MLP를", "MLP로"),
    ("FFN", "FFN은", "FFN이", "FFN을", "FFN으로"),
    ("LayerNorm", "LayerNorm은", "LayerNorm이", "LayerNorm을", "LayerNorm으로"),
    ("층", "층은", "층이", "층을", "층으로"),
    ("모델", "모델은", "모델이", "모델을", "모델로"),
    ("뉴런", "뉴런은", "뉴런이", "뉴런을", "뉴런으로"),
    ("게이트", "게이트는", "게이트가", "게이트를", "게이트로"),
    ("'abc'", "'abc'는", "'abc'가", "'abc'를", "'abc'로"),
    ("(4, 8)", "(4, 8)은", "(4, 8)이", "(4, 8)을", "(4, 8)로"),
    ("50%", "50%는", "50%가", "50%를", "50%로"),
])
def test_a_particle_follows_the_value_read_in_korean(value, topic, subject, objective, towards):
    filled = language.with_particles("{v}은(는) {v}이(가) {v}을(를) {v}(으)로", values={"v": value})
    assert filled == f"{topic} {subject} {objective} {towards}"


def test_an_unknown_reading_keeps_the_two_form_spelling_and_specs_are_read_as_shown():
    assert language.with_particles("{v}은(는)", values={"v": "→"}) == "→은(는)"
    assert language.with_particles("{}와(과) {}을(를)", ["x", "층"]) == "x와 층을"
    assert language.with_particles("{v:.2f}(이)라고", values={"v": 3}) == "3.00이라고"   # 영
    assert language.with_particles("{v:g}(이)라고", values={"v": 2.5}) == "2.5라고"   # 오


def test_a_check_sentence_in_korean_chooses_its_particles():
    """A real catalog entry, said with the guesses the reviews typed: never "fall는" or "1,2,3는"."""
    template = "{variable} = {guess} is not one of {choices}."
    assert template in language.catalog("ko"), "the entry this test reads is gone from checks.po"
    language.use("ko")
    try:
        said = {guess: language.translate(say(template, variable="my_kind", guess=guess, choices="[0, 1]"))
                for guess in ["fall", "1,2,3", "2", "GELU", "층", "게이트"]}
    finally:
        language.use("en")
    assert "fall은" in said["fall"] and "1,2,3은" in said["1,2,3"] and "2는" in said["2"]
    assert "GELU는" in said["GELU"] and "층은" in said["층"] and "게이트는" in said["게이트"]
    assert not any("(는)" in s for s in said.values())


FIXED_PARTICLE = re.compile(r"\{[^{}]*\}(?:으로|은|는|이|가|을|를|과|와|로|라고)(?![\uac00-\ud7a3(])")


def test_no_korean_check_template_fixes_a_particle_after_a_value():
    catalog = translations.read_catalog(translations.CHECKS_PO)
    fixed = [(m.id[:60], FIXED_PARTICLE.findall(m.string)) for m in catalog
             if m.id and m.string and FIXED_PARTICLE.search(m.string)]
    assert not fixed, ("write a particle after a {field} in its two-form spelling ({got}은(는), {got}이(가), "
                       f"{{got}}을(를), {{got}}(으)로), which the checks resolve by the value: {fixed[:6]}")
    assert FIXED_PARTICLE.search("{guess}는 아닙니다") and not FIXED_PARTICLE.search("{guess}은(는) 아닙니다")
    assert not FIXED_PARTICLE.search("{guess}이고, {x}입니다")
