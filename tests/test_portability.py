"""The stored outputs hold on every learner's machine, not only on the one that made them.

A study group's laptops differ in CPU vendor, vector unit (AVX2, AVX-512, none,
ARM) and thread count, and each picks other kernels and summation orders. The
main nbval run checks the notebooks as this machine runs them; these runs check
them again with torch's plain kernels (as on a CPU without AVX2), on one
thread, and with AVX2 kernels where this CPU has AVX-512. A failure names the
cell that printed a digit which depends on the machine.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent

CONDITIONS = {
    "plain kernels": {"ATEN_CPU_CAPABILITY": "default"},
    "one thread": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
    "avx2 kernels": {"ATEN_CPU_CAPABILITY": "avx2"},
}


def capability():
    return torch.backends.cpu.get_cpu_capability()


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_notebooks_pass_nbval_under(condition):
    if condition == "avx2 kernels" and capability() != "AVX512":
        pytest.skip(f"this CPU runs {capability()} kernels: AVX2 is what it runs already")
    env = dict(os.environ, COURSE_DEVICE="cpu", PYTHONHASHSEED="0", **CONDITIONS[condition])
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/sanitize.cfg",
         "notebooks"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert result.returncode == 0, f"nbval with {CONDITIONS[condition]}:\n{result.stdout[-6000:]}"
