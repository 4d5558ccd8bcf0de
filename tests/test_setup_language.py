"""The set-up speaks Korean to a Korean user: COURSE_LANG=ko, or a Korean locale (LANG=ko_KR.UTF-8),
makes the Python tools of make's install steps print their sentences from checks.po, read from the
.po itself (a fresh clone has no compiled catalog, package or Babel yet)."""

import pytest
from test_torch_build import torch_step

import check_messages
import setup_language
import translations
from helpers import language


def test_a_cuda_build_stop_reads_in_korean_for_a_korean_user(tmp_path):
    index = tmp_path / "another-index"
    index.mkdir()
    done, stamped = torch_step(tmp_path, PIP_EXTRA_INDEX_URL=index.as_uri(), COURSE_LANG="ko")
    assert done.returncode != 0 and not stamped, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "PyTorch를 설치했습니다: torch 2.13.0, CUDA 빌드입니다."
    assert lines[2].startswith("CPU 빌드를 요청했는데 CUDA 빌드가 왔습니다"), lines[2]
    assert '.venv/bin/pip install --no-deps "torch==2.13.0+cpu" --index-url <' in lines[2], lines[2]


@pytest.mark.parametrize("environ, korean", [({"LANG": "ko_KR.UTF-8"}, True), ({"COURSE_LANG": "en",
                                             "LANG": "ko_KR.UTF-8"}, False), ({}, False)])
def test_the_locale_chooses_unless_course_lang_says_otherwise(environ, korean):
    said = setup_language.say("PyTorch installed: torch {version}, the {build} build.", environ,
                              version="2.13.0+cpu", build="CPU")
    assert said == ("PyTorch를 설치했습니다: torch 2.13.0+cpu, CPU 빌드입니다." if korean
                    else "PyTorch installed: torch 2.13.0+cpu, the CPU build.")


def test_every_sentence_of_the_set_up_tools_is_translated():
    template = check_messages.messages(translations.ROOT, load=False)
    said = [m.id for m in template if m.id and any(where.startswith("tools/") for where, _ in m.locations)]
    assert len(said) >= 3
    messages = setup_language.po_messages(translations.CHECKS_PO)
    language.MISSES.clear()
    for english in said:
        language._translated(language.say(english), messages)
    assert not language.MISSES, f"untranslated in checks.po: {sorted(language.MISSES)}"


def test_the_po_reader_takes_translated_entries_only(tmp_path):
    po = tmp_path / "checks.po"
    po.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=utf-8\\n"\n\n'
                  'msgid "one {n}"\nmsgstr ""\n"하나 {n}"\n\n#, fuzzy\nmsgid "two"\nmsgstr "둘"\n\n'
                  'msgctxt "x"\nmsgid "three"\nmsgstr "셋"\n\nmsgid "four \\"q\\""\nmsgstr ""\n', encoding="utf-8")
    assert setup_language.po_messages(po) == {"one {n}": "하나 {n}"}
