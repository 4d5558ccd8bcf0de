"""The translation layer sits at the bottom of the package: helpers.language (and helpers.particles)
import the standard library alone, the modules that speak to a learner use it, and the checks' former
names (helpers.checks.language, helpers.checks.show.say) still work."""

import ast
import re
import subprocess
import sys

import pytest

from course_paths import ROOT
from helpers import language, particles
from helpers.checks import language as checks_language
from helpers.checks import show

BOTTOM = ("language.py", "particles.py")
SPEAKERS = ("gpt2.py", "setup.py", "device.py", "progress.py", "study.py", "study_group.py", "study_page.py",
            "checks/verdict.py", "checks/recording.py")


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found |= {f"{node.module}.{alias.name}" if node.module == "helpers" else node.module
                      for alias in node.names}
    return found


@pytest.mark.parametrize("name", BOTTOM)
def test_the_bottom_modules_import_only_the_standard_library_and_each_other(name):
    found = {m for m in _imports(ROOT / "helpers" / name) if m.split(".")[0] not in sys.stdlib_module_names}
    assert found <= {"helpers.particles"}, f"helpers/{name} imports {sorted(found)}"


def test_importing_the_layer_loads_neither_the_checks_nor_torch():
    code = ("import sys, helpers.language as l; l.use('ko'); l.translate(l.say('Device: {name}', name='cpu')); "
            "print(sorted(m for m in sys.modules if m.startswith(('helpers.checks', 'torch', 'numpy'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("name", SPEAKERS)
def test_the_modules_that_speak_to_a_learner_use_the_layer_not_the_checks_for_it(name):
    found = _imports(ROOT / "helpers" / name)
    assert "helpers.language" in found or "helpers.language.say" in found
    assert "helpers.checks.language" not in found and "helpers.checks.language" not in str(found)


def test_the_checks_former_names_are_the_layers_own():
    assert checks_language.MISSES is language.MISSES and checks_language.translate is language.translate
    assert checks_language.reading is particles.reading
    assert isinstance(show.say("{got} rows", got=3), language.Text)
    before = language.current()
    try:
        checks_language.use("ko")
        assert language.current() == "ko"
    finally:
        language.use(before)


def test_a_checks_sentence_describes_an_array_and_the_layers_own_says_it_as_it_is():
    torch = pytest.importorskip("torch")
    assert show.say("got {got}", got=torch.zeros(2, 3)) == "got a float32 tensor of shape (2, 3)"
    assert language.say("{n:,} rows", n=12345) == "12,345 rows"
    assert language.translate(show.say("got {got}", got=torch.zeros(2, 3)), "en") == "got a float32 tensor of shape (2, 3)"


@pytest.mark.parametrize("environ, expected", [
    ({}, "en"),
    ({"COURSE_LANG": "ko"}, "ko"),
    ({"COURSE_LANG": "en", "LANG": "ko_KR.UTF-8"}, "en"),
    ({"LANG": "ko_KR.UTF-8"}, "ko"),
    ({"LC_ALL": "C.UTF-8", "LANG": "ko_KR.UTF-8"}, "en"),   # the first one set wins, as gettext reads them
    ({"LC_MESSAGES": "ko_KR.UTF-8", "LANG": "en_US.UTF-8"}, "ko"),
])
def test_the_language_outside_a_notebook_comes_from_course_lang_then_the_locale(environ, expected):
    assert language.from_environment(environ) == expected


def test_an_unknown_course_lang_is_named():
    with pytest.raises(ValueError, match="COURSE_LANG must be one of \\['en', 'ko'\\], got 'fr'"):
        language.from_environment({"COURSE_LANG": "fr"})


def test_the_setup_lines_speak_the_notebooks_language_and_nbval_masks_them_in_both():
    from rerun_check import sanitizers

    code = "import helpers.setup as s; s.setup_notebook(device='cpu', language='{}')"
    printed = {lang: subprocess.run([sys.executable, "-c", code.format(lang)], cwd=ROOT, capture_output=True,
                                    text=True, check=True).stdout.splitlines() for lang in ("en", "ko")}
    assert re.fullmatch(r"Device: cpu \(.+, \d+ threads\)", printed["en"][0]), printed["en"]
    assert re.fullmatch(r"장치: cpu \(.+, 스레드 \d+개\)", printed["ko"][0]), printed["ko"]
    assert printed["en"][1].startswith("Versions: python ") and printed["ko"][1].startswith("버전: python ")
    masked = {}
    for lang, lines in printed.items():
        text = "\n".join(lines)
        for regex, replace in sanitizers():
            text = regex.sub(replace, text)
        masked[lang] = text
    assert masked["en"] == masked["ko"] == "Device: DEVICE\nVersions: VERSIONS"
