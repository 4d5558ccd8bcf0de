"""tools/gpu_check.py (`make gpu-check`): one line and status 2 without a GPU; with one, the same
code as here on the CPU: notebooks executed with COURSE_DEVICE set, the benchmark, the report."""

import json
import os
import subprocess
import sys

import nbformat
import torch
from nbformat.v4 import new_code_cell, new_notebook

import gpu_check
import sync_notebooks
from course_paths import ROOT

NO_GPU = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # hides any GPU, so this holds everywhere


def test_without_a_gpu_it_says_so_in_one_line_and_exits_2():
    done = subprocess.run([sys.executable, "tools/gpu_check.py"], cwd=ROOT, env=NO_GPU,
                          capture_output=True, text=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"gpu-check: no CUDA GPU on this machine (torch {torch.__version__}), "
        "so there is nothing to check."]
    assert done.stderr == ""
    made = subprocess.run(["make", "-s", "gpu-check"], cwd=ROOT, env=NO_GPU,
                          capture_output=True, text=True)
    assert made.returncode == 2 and made.stdout == done.stdout


def notebook(path, *sources):
    nbformat.write(new_notebook(cells=[new_code_cell(s) for s in sources]), path)
    return path


def course_notebook(path):
    """A notebook as the course's start: the setup cell every notebook has, then the FFN on the
    device it picks (what gpu-check runs everywhere, in a second rather than a real notebook's
    half minute; the real notebooks pass nbval in the main run)."""
    return notebook(path, sync_notebooks.setup_cell_source(),
                    "import torch\nfrom helpers.ffn import FFN\n"
                    "ffn = FFN(8, 32).to(device)\n"
                    "assert ffn(torch.ones(2, 8, device=device)).shape == (2, 8)")


def test_check_runs_notebooks_and_benchmark_and_writes_the_report(tmp_path):
    ok = notebook(tmp_path / "01_ok.ipynb", "import os",
                  'assert os.environ["COURSE_DEVICE"] == "cpu", os.environ["COURSE_DEVICE"]')
    bad = notebook(tmp_path / "02_bad.ipynb", 'assert 1 + 1 == 3, "largest difference 1"')
    real = course_notebook(tmp_path / "03_course.ipynb")
    lines = []
    report, results = gpu_check.check("cpu", [ok, bad, real], smoke=True, out=lines.append)
    assert lines[:3] == [f"01_ok: passed in {results[0][1]:.1f} s",
                         f"02_bad: FAILED in {results[1][1]:.1f} s "
                         "(AssertionError: largest difference 1)",
                         f"03_course: passed in {results[2][1]:.1f} s"]
    md_path = gpu_check.write(report, results, tmp_path / "report")

    saved = json.loads((tmp_path / "report" / "report.json").read_text())
    assert saved == json.loads(json.dumps(report))
    assert saved["device"].startswith("cpu (") and saved["dtype"] == "torch.float32"
    assert saved["torch"] == torch.__version__ and saved["cuda"] == torch.version.cuda
    assert saved["passed"] is False and saved["benchmark_error"] is None
    assert [(n["name"], n["passed"], n["error"]) for n in saved["notebooks"]] == [
        ("01_ok", True, None), ("02_bad", False, "AssertionError: largest difference 1"),
        ("03_course", True, None)]
    measured = [r["measurement"] for r in saved["benchmark"]]
    assert "FFN 32->128 T=1 (cpu, one copy reused): helpers / torch.nn.functional" in measured
    assert "GPU rows" not in measured  # the device given is the only one timed

    md = md_path.read_text()
    assert md.startswith("# GPU check\n") and "- Result: FAILED" in md
    assert "| execute 02_bad | failed: AssertionError: largest difference 1 | < 60 s | MISSED |" in md
    assert "| decode FFN bandwidth / matvec bandwidth |" in md
