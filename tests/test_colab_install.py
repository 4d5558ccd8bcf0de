"""Installing the course where Colab's packages already are changes none of them,
and the notebooks then pass nbval from outside the checkout, importing the wheel.

tools/colab_check.py does it; `make release-check` runs the same check, every edition, on the
wheel it builds. Here the Korean notebooks run, and only here: their code cells are the English
ones (tests/test_korean_edition.py), which the main nbval run checks on this machine's stack, so
each edition executes once and each notebook's code runs on both stacks. They run as
tests/test_portability.py's older CPU on one thread, while the main run is its AVX2 laptop: each
notebook's code also runs once on each CPU profile. A failure here is Colab's stack or that CPU;
`python tools/colab_check.py WHEEL` (no profile) tells the two apart.
"""

import subprocess
import sys

from test_portability import OLDER_CPU, profile

from colab_check import check_wheel
from course_paths import ROOT


def build_wheel(dist):
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(dist),
                    str(ROOT)], check=True, capture_output=True)
    (wheel,) = dist.glob("*.whl")
    return wheel


def test_colab_stack_is_untouched_and_notebooks_pass_from_the_wheel(tmp_path):
    check_wheel(build_wheel(tmp_path / "dist"), tmp_path / "work", editions={"ko"}, profile=profile(OLDER_CPU))

