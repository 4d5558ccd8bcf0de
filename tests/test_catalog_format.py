"""Every Korean catalog passes the check Poedit and gettext run on save (`msgfmt -c`), and the same
checks in Python where gettext is not installed: no %-format flag, and each template's translation
keeps the template's {fields}. The flags come from the extractor (check_messages.format_flags)."""

import os
import re
import shutil
import string
import subprocess

import pytest
from babel.messages.catalog import Catalog

import check_messages
import translations

CATALOGS = sorted(translations.LOCALE_DIR.glob("*.po"))
FLAGS = re.compile(r"^#,(.*)$", re.M)


def _msgfmt():
    """The path of msgfmt; a skip where it is missing (a failure in CI, COURSE_REQUIRE_MSGFMT=1)."""
    found = shutil.which("msgfmt")
    if found is None:
        if os.environ.get("COURSE_REQUIRE_MSGFMT") == "1":
            pytest.fail("msgfmt (gettext) is not installed, and CI must run it: .ci/run installs gettext")
        pytest.skip("msgfmt (gettext) is not installed: the Python checks below still run")
    return found


def msgfmt_errors(path):
    """msgfmt -c's complaints about the catalog at path ('' when it passes without a warning)."""
    done = subprocess.run([_msgfmt(), "-c", "-o", os.devnull, str(path)], capture_output=True, text=True)
    return done.stderr.strip() if done.returncode or done.stderr.strip() else ""


def fields(text):
    """The {field} names a str.format template fills (None where it is no template)."""
    try:
        return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)
    except ValueError:
        return None


def format_problems(path):
    """[line] for each entry of a catalog that gettext's format check, or fill(), would trip over."""
    text = path.read_text(encoding="utf-8")
    found = [f"{path.name}: an entry flagged python-format ({flags.strip()})"
             for flags in FLAGS.findall(text) if "python-format" in re.split(r"[,\s]+", flags)]
    for message in translations.read_catalog(path):
        if not message.id or not message.string or message.fuzzy or path.stem in ("notebooks", "code"):
            continue
        if fields(message.id) != fields(message.string):
            found.append(f"{path.name}: {message.id[:60]!r} fills {fields(message.id)}, "
                         f"its translation {fields(message.string)}")
    return found


@pytest.mark.parametrize("path", CATALOGS, ids=[p.stem for p in CATALOGS])
def test_every_catalog_passes_msgfmt_check(path):
    assert msgfmt_errors(path) == "", f"msgfmt -c {path.relative_to(translations.ROOT)}: run `make ko-extract`"


@pytest.mark.parametrize("path", CATALOGS, ids=[p.stem for p in CATALOGS])
def test_every_catalog_keeps_its_templates_fields_and_has_no_percent_format_flag(path):
    assert format_problems(path) == []


def _planted(tmp_path, domain, english, korean):
    catalog = translations.new_catalog(domain)
    catalog.add(english, korean)
    path = tmp_path / f"{domain}.po"
    translations.write_catalog(path, catalog)
    return path


def test_a_percent_sentence_is_written_without_the_flag_that_made_its_korean_fail(tmp_path):
    template = Catalog()
    assert "python-format" in template.add("below 10% of {n} rows").flags   # Babel's guess
    path = _planted(tmp_path, "checks", "below 10% of {n} rows", "{n}행의 10% 미만")
    assert "python-format" not in path.read_text(encoding="utf-8")
    assert "python-brace-format" in path.read_text(encoding="utf-8")
    assert format_problems(path) == []
    if shutil.which("msgfmt"):
        assert msgfmt_errors(path) == ""


def test_a_translation_that_drops_a_field_is_named(tmp_path):
    path = _planted(tmp_path, "checks", "{call} returned {got}.", "{call}이(가) 잘못된 값을 돌려주었습니다.")
    assert format_problems(path) == ["checks.po: '{call} returned {got}.' fills ['call', 'got'], "
                                     "its translation ['call']"]
    if shutil.which("msgfmt"):
        assert "got" in msgfmt_errors(path)


def test_markdown_is_no_template_and_a_check_sentence_without_fields_has_no_flag():
    assert check_messages.format_flags("Use `{x}` as in 10% of cases", "notebooks") == set()
    assert check_messages.format_flags("Only 10% of the rows.") == set()
    assert check_messages.format_flags("a dict {'a': 1") == set()   # a brace that is no field
    assert check_messages.format_flags("{got:,} of {n}") == {"python-brace-format"}
