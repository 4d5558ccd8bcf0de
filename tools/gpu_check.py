"""`make gpu-check`: run the course on a CUDA GPU and write a short report.

    python tools/gpu_check.py                 # every notebook, then the benchmark
    python tools/gpu_check.py 01 09           # only the notebooks starting with 01 or 09
    python tools/gpu_check.py --out DIR       # where the report goes (default build/gpu-check)

Every notebook runs top to bottom with COURSE_DEVICE=cuda, where each assert must hold (there is
no output comparison: stored outputs come from a CPU). Then helpers.bench times the FFN, the
fused gate/up and decode on the GPU in its 16-bit dtype. report.json and report.md give the
device, the torch and CUDA versions, each notebook's time and result, and the benchmark table.

It needs only torch, the installed course package (a wheel will do), nbclient and ipykernel,
and never a package index. Without a CUDA GPU it says so in one line and exits with status 2.
"""

import argparse
import json
import platform
import sys
from pathlib import Path

import torch

import helpers
from bench_all import notebook_rows  # the notebook rows of `make bench`
from course_paths import ROOT, notebook_paths
from helpers import bench
from helpers.device import describe_device, half_dtype
from run_notebooks import timed_copies


def check(device, paths, smoke=False, out=print):
    """Execute every notebook on `device`, then the benchmark there; return (report, results)."""
    device = torch.device(device)
    results = []
    for path, seconds, error in timed_copies(paths, device=device.type):
        results.append((path, seconds, error))
        out(f"{path.stem}: {'passed' if error is None else 'FAILED'} in {seconds:.1f} s"
            + ("" if error is None else f" ({error})"))
    try:
        rows, bench_error = bench.run(smoke=smoke, device=device, out=out), None
    except Exception as err:  # a broken benchmark is a finding; the report still gets written
        rows, bench_error = [], f"{type(err).__name__}: {err}".splitlines()[0]
    report = {
        "device": describe_device(device),
        "dtype": str(torch.float32 if device.type == "cpu" else half_dtype(device)),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "course_package": helpers.__version__,
        "passed": all(error is None for _, _, error in results) and bench_error is None,
        "notebooks": [{"name": path.stem, "seconds": round(seconds, 2), "passed": error is None,
                       "error": error} for path, seconds, error in results],
        "benchmark": [dict(zip(("measurement", "measured", "target", "verdict"), r, strict=True))
                      for r in rows],
        "benchmark_error": bench_error,
    }
    return report, results


def markdown(report, results):
    """The report as a short markdown page: the machine, the notebooks, the benchmark."""
    lines = [
        "# GPU check",
        "",
        f"- Device: {report['device']}, benchmark dtype {report['dtype']}",
        f"- torch {report['torch']}, CUDA {report['cuda']}, python {report['python']}, "
        f"course package {report['course_package']}",
        f"- Result: {'every notebook passed' if report['passed'] else 'FAILED'}",
        "",
        "## Notebooks (COURSE_DEVICE set to the device; every assert must hold)",
        "",
        bench.table(notebook_rows(results)),
        "",
        "## Benchmark",
        "",
        bench.table([tuple(r.values()) for r in report["benchmark"]]),
    ]
    if report["benchmark_error"]:
        lines += ["", f"The benchmark stopped: {report['benchmark_error']}"]
    return "\n".join(lines) + "\n"


def write(report, results, out_dir):
    """Write report.json and report.md into out_dir; return the markdown file's path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out_dir / "report.md").write_text(markdown(report, results))
    return out_dir / "report.md"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="notebooks whose names start with these")
    parser.add_argument("--out", default=str(ROOT / "build" / "gpu-check"), help="report folder")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print(f"gpu-check: no CUDA GPU on this machine (torch {torch.__version__}), "
              "so there is nothing to check.")
        return 2
    paths = notebook_paths(args.prefixes)
    report, results = check(torch.device("cuda"), paths)
    path = write(report, results, args.out)
    print(f"Report: {path} and {path.with_suffix('.json')}")
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
