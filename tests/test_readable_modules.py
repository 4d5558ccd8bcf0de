"""helpers/ is read by learners (STYLE.md): every module short enough to understand in a few
minutes, at most 300 lines, and no line wider than 100 characters."""

from course_paths import ROOT

MAX_LINES, MAX_WIDTH = 300, 100


def helpers_modules():
    return sorted(path for path in (ROOT / "helpers").rglob("*.py") if "__pycache__" not in path.parts)


def test_every_helpers_module_is_at_most_300_lines():
    modules = helpers_modules()
    assert len(modules) > 50   # the walk found the package
    long = {str(p.relative_to(ROOT)): n for p in modules
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them along their ideas): {long}"


def test_no_line_of_helpers_is_wider_than_100_characters():
    wide = [f"{p.relative_to(ROOT)}:{i} ({len(line)} characters)"
            for p in helpers_modules()
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
            if len(line) > MAX_WIDTH]
    assert not wide, f"{len(wide)} lines over {MAX_WIDTH} characters, the first: {wide[:10]}"
