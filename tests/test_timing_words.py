"""The words a stored timing output says (faster, slower, falls, rises, as expected) agree with its numbers.

Every stored notebook, English and Korean, is read; a line that names a ratio with "faster" or "slower"
next to the two times it compares must say the ratio those times give, in the right direction; "falls
from A to B" needs B < A and "rises" B > A; a verdict "As expected" or "Outside the expected range"
must follow the "within Nx" the same output expected and the ratios it measured.
"""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted(Path(__file__).resolve().parent.parent.glob("notebooks/**/*.ipynb"))
_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_TIME = r"(\d+(?:\.\d+)?) ?(ns|us|µs|ms|s)\b"
_LABELLED = re.compile(r"([\w-]+):? " + _TIME)
_RATIO = re.compile(r"([\w-]+)(?: is)? (\d+(?:\.\d+)?)x (faster|slower)\b")
_MOVE = re.compile(r"\b(falls|rises) from (\d+(?:\.\d+)?)\s?(%|ns|us|µs|ms|s)? to (\d+(?:\.\d+)?)\s?(%|ns|us|µs|ms|s)?")
_WITHIN = re.compile(r"Expected:.*?within (\d+(?:\.\d+)?)x")
KNOWN = {}   # stored runs that contradict their words: none now ({notebook: why} while one does)


def _seconds(value, unit):
    return float(value) * _UNIT[unit] if unit in _UNIT else float(value)


def _close(a, b, digits):
    """a and b agree to the rounding of a number printed with `digits` decimals (and 2% of timer rounding)."""
    return abs(a - b) <= 0.5 * 10 ** -digits + 0.02 * max(a, b)


def line_problems(line):
    """What one printed line says that its own numbers contradict (a list of sentences)."""
    found = []
    times = {label: _seconds(v, u) for label, v, u in _LABELLED.findall(line)}
    for subject, ratio, word in _RATIO.findall(line):
        r, digits = float(ratio), len(ratio.partition(".")[2])
        if r < 1:
            found.append(f"'{ratio}x {word}': a ratio below 1 turns the word around")
        others = [t for label, t in times.items() if label != subject]
        if subject in times and len(times) == 2 and len(others) == 1:
            mine, other = times[subject], others[0]
            if (word == "faster") != (mine < other):
                found.append(f"'{subject} ... {word}' though its time is {mine:.3g} s against {other:.3g} s")
            elif not _close(r, max(mine, other) / min(mine, other), digits):
                found.append(f"'{ratio}x' though the times printed give {max(mine, other) / min(mine, other):.2f}x")
    for word, a, ua, b, ub in _MOVE.findall(line):
        start, end = _seconds(a, ua), _seconds(b, ub)
        if (word == "falls") != (end < start) or start == end:
            found.append(f"'{word} from {a} to {b}'")
    return found


def output_problems(text):
    """What one cell's printed output says against its numbers: each line, then the expected-range verdict."""
    found = [p for line in text.splitlines() for p in line_problems(line)]
    band = _WITHIN.search(text)
    measured = [line for line in text.splitlines() if line.startswith("Measured:")]
    if band and measured:
        ratios = [float(r) for _, r, _ in _RATIO.findall(measured[0])]
        inside = all(r <= float(band.group(1)) for r in ratios)
        if inside and "Outside the expected range" in text or not inside and "As expected" in text:
            found.append(f"the verdict disagrees with 'within {band.group(1)}x' and the ratios {ratios}")
    return found


def _outputs(path):
    for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                       for o in cell.get("outputs", []))
        if text:
            yield i, text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_timing_words_agree_with_the_numbers_printed(path):
    problems = [f"cell {i}: {p}" for i, text in _outputs(path) for p in output_problems(text)]
    if path.name in KNOWN:   # still wrong, as listed; once re-run right, drop it from KNOWN
        assert problems, f"{path.name} now agrees with its numbers: remove it from KNOWN"
        pytest.xfail(KNOWN[path.name] + ": " + "; ".join(problems))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("line", "bad"), [
    ("decode: separate 410.1 us, fused 2.34 ms: fused is 5.70x slower", False),
    ("decode: separate 410.1 us, fused 2.34 ms: fused is 5.70x faster", True),
    ("decode: separate 410.1 us, fused 2.34 ms: fused is 2.00x slower", True),
    ("T = 8: eager 25.79 ms, compiled 26.11 ms: compiled 0.99x slower", True),
    ("T = 512: float32 116.39 ms, int8 79.16 ms, int8 1.5x faster", False),
    ("the bound falls from 41 ms to 21 ms a token", False),
    ("the share rises from 30% to 12%", True),
])
def test_the_reader_catches_words_that_contradict_their_numbers(line, bad):
    assert bool(line_problems(line)) == bad, line_problems(line)


def test_the_expected_range_verdict_is_read():
    text = ("Expected: fused and separate within 2x of each other.\nMeasured: at T=1 fused is 5.70x slower, "
            "at T=512 fused is 1.07x faster.\n")
    assert output_problems(text + "As expected: fusing saves one call's overhead.")
    assert not output_problems(text + "Outside the expected range.")
