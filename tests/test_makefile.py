"""`make help` lists every target with its one-line description (the `##` line above it)."""

import re
import subprocess

from course_paths import ROOT


def documented_targets():
    """{target: description} from the Makefile's `## description` / `target:` line pairs."""
    text = (ROOT / "Makefile").read_text()
    return dict((t, d) for d, t in re.findall(r"^## (.+)\n([a-z][a-z-]*):", text, re.M))


def test_every_phony_target_has_a_description():
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    phony = re.search(r"^\.PHONY: (.+)$", text, re.M).group(1).split()
    assert sorted(phony) == sorted(documented_targets())


def test_help_lists_every_target_with_its_description():
    done = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    listed = dict(re.findall(r"^  make (\S+) +(.+)$", done.stdout, re.M))
    assert listed == documented_targets()
    assert {"lab", "test", "release-check", "gpu-check", "help"} <= set(listed)
    assert "`make lab`" in done.stdout and "`make test`" in done.stdout


def test_the_modules_xdist_spreads_or_starts_early_exist():
    import conftest

    for group in (conftest.FIRST, conftest.SPREAD, conftest.LONG):
        missing = [name for name in group if not (ROOT / name).is_file()]
        assert group and not missing, f"tests/conftest.py names modules that are not there: {missing}"
