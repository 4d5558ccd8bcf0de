"""The Korean edition's figures draw Hangul, offline, with no warning (nbval strict fails on the
"Glyph missing" warnings matplotlib writes to stderr); the English edition keeps its fonts.

Each case runs in a fresh interpreter: the setup changes matplotlib's settings for the whole process."""

import json
import subprocess
import sys

import pytest

from course_paths import ROOT

DRAW = """
import io, json, sys, warnings
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from helpers import plots, setup

setup.setup_notebook(language=sys.argv[1], device="cpu")
def pixels(text):
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, fontsize=20, ha="center", va="center")
    out = io.BytesIO()
    fig.savefig(out, format="rgba", dpi=50)
    plt.close(fig)
    return out.getvalue()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [-1, 2], label="활성화 전 값")
    ax.set_title("가중치 바이트: up_proj와 down_proj (10% 미만)", fontweight="bold")
    ax.set_xlabel("토큰 수")
    ax.set_ylabel("GB/s")
    ax.legend()
    fig.savefig(io.BytesIO(), format="png")
    two_syllables_differ = pixels("가") != pixels("나")
print(json.dumps({"family": matplotlib.rcParams["font.family"], "warnings": [str(w.message) for w in caught],
                  "differ": two_syllables_differ, "imported": "koreanize_matplotlib" in sys.modules}))
"""


def draw(language):
    done = subprocess.run([sys.executable, "-c", DRAW, language], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_a_korean_figure_draws_hangul_without_a_warning():
    said, stderr = draw("ko")
    assert said["warnings"] == [] and "Glyph" not in stderr and "missing from font" not in stderr
    assert said["family"] == ["DejaVu Sans", "NanumGothic"]   # Latin letters and digits as in English
    assert said["differ"], "가 and 나 drew the same pixels: a missing-glyph box"
    assert not said["imported"], "the font package's import changes every font: its files are registered"


def test_the_english_edition_keeps_its_fonts_and_would_draw_hangul_as_boxes():
    said, stderr = draw("en")
    assert said["family"] == ["sans-serif"]
    assert not said["differ"] and any("missing from font" in w for w in said["warnings"])


def test_without_the_font_package_the_korean_setup_says_what_to_install(monkeypatch):
    from helpers import plots

    monkeypatch.setattr(plots, "hangul_font_files", lambda: [])
    with pytest.raises(FileNotFoundError, match="pip install koreanize-matplotlib"):
        plots.use_hangul_font()
