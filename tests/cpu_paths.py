"""Check that numpy, OpenBLAS and oneDNN take the code paths this process's environment asks for,
then (after `--`) run pytest with the arguments given. tests/test_portability.py runs it.

    python tests/cpu_paths.py --off X86_V3,X86_V4 --openblas Sandybridge --onednn SSE41 -- -q --nbval ...
    python tests/cpu_paths.py --laptop-env    # NAME=value words that make this process an AVX2 laptop

NPY_DISABLE_CPU_FEATURES and OPENBLAS_CORETYPE change nothing where a library ignores them (a
name numpy does not dispatch, a BLAS that is not OpenBLAS), and then a portability run would
test this machine's own paths once more. So each feature in --off must be off in numpy's
`__cpu_features__` and chosen by none of its dispatched functions, and every OpenBLAS loaded
(numpy's and scipy's own copies) must report the --openblas core, as threadpoolctl reads it.
torch's int8 matmul (torch._int_mm) runs through oneDNN, which ATEN_CPU_CAPABILITY does not
restrict: ONEDNN_MAX_CPU_ISA does, and --onednn checks that oneDNN reports that instruction set
(without VNNI, "DL Boost", or AMX, an AVX2 laptop's int8 matmul is several times slower).
Exit status 3 and one line per problem if not; without threadpoolctl the OpenBLAS side is
reported as not checked.
"""

import argparse
import os
import platform
import re
import subprocess
import sys

AVX512 = ("AVX512", "X86_V4")  # numpy 1.x: AVX512F, AVX512_SKX, ...; 2.x: X86_V4, AVX512_ICL, ...
AVX2 = (*AVX512, "AVX2", "FMA3", "X86_V3")
X86 = platform.machine().lower() in {"x86_64", "amd64"}
# ONEDNN_MAX_CPU_ISA's value -> how oneDNN's verbose line names that instruction set, exactly
ONEDNN_ISA = {"AVX2": "Intel AVX2", "SSE41": "Intel SSE4.1"}


def numpy_features():
    """numpy's (dispatched features, {feature: available and enabled}), numpy 1.x or 2.x."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    return list(umath.__cpu_dispatch__), dict(umath.__cpu_features__)


def numpy_off(*families):
    """The features numpy dispatches here whose names start with one of `families`: naming a
    baseline feature is an error, and numpy 1.x and 2.x name them differently."""
    dispatched, _ = numpy_features()
    return [name for name in dispatched if name.startswith(families)]


def laptop_env():
    """The variables that make a process on this CPU run as an AVX2 laptop (torch's AVX2 kernels,
    numpy without its AVX-512 loops, OpenBLAS's Haswell core), as NAME=value words; "" where this
    CPU cannot be one (not x86, or without AVX2). `make test` runs under them."""
    _, features = numpy_features()
    if not X86 or not features.get("AVX2"):
        return ""
    words = ["ATEN_CPU_CAPABILITY=avx2", "ONEDNN_MAX_CPU_ISA=AVX2", "OPENBLAS_CORETYPE=Haswell"]
    if off := numpy_off(*AVX512):
        words.append("NPY_DISABLE_CPU_FEATURES=" + ",".join(off))
    return " ".join(words)


def numpy_problems(off):
    """What in numpy still uses a feature of `off`."""
    _, features = numpy_features()
    problems = [f"numpy still has {name} on" for name in off if features.get(name)]
    try:
        from numpy.lib.introspect import opt_func_info  # numpy 2.0 on
    except ImportError:
        return problems
    chosen = {target["current"] for signatures in opt_func_info().values()
              for target in signatures.values()}
    problems += [f"numpy's functions still run their {name} code" for name in sorted(chosen & set(off))]
    return problems


def openblas_cores():
    """{library file: core} of each OpenBLAS loaded by numpy and scipy, or None without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    import numpy  # noqa: F401  (loads numpy's OpenBLAS)
    import scipy.linalg  # noqa: F401  (and scipy's)

    return {info["filepath"]: info.get("architecture") for info in threadpool_info()
            if info["internal_api"] == "openblas"}


def onednn_isa(env=None):
    """The instruction set oneDNN runs torch._int_mm with, in a fresh process under env (its own line)."""
    probe = ("import torch; a = torch.ones(32, 64, dtype=torch.int8); "
             "torch._int_mm(a, torch.ones(64, 32, dtype=torch.int8))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env=dict(env if env is not None else os.environ, ONEDNN_VERBOSE="1"))
    found = re.search(r"^onednn_verbose,.*,cpu,isa:(.*)$", done.stdout + done.stderr, re.M)
    return found.group(1).strip() if found else None


def check(off, openblas, onednn=""):
    """(problems, notes): what takes another path than asked, and what could not be checked."""
    problems, notes = numpy_problems(off), []
    if onednn:
        isa = onednn_isa()
        if isa is None:
            notes.append(f"oneDNN's instruction set ({onednn} asked) is not checked: it reported none")
        elif isa != ONEDNN_ISA[onednn]:
            problems.append(f"oneDNN runs torch._int_mm with {isa}, not {ONEDNN_ISA[onednn]} "
                            f"(ONEDNN_MAX_CPU_ISA={os.environ.get('ONEDNN_MAX_CPU_ISA')})")
    if openblas:
        cores = openblas_cores()
        if cores is None:
            notes.append(f"OpenBLAS's core ({openblas} asked) is not checked: threadpoolctl is "
                         "not installed")
        elif not cores:
            notes.append("no OpenBLAS is loaded, so OPENBLAS_CORETYPE changes nothing")
        else:
            problems += [f"OpenBLAS {path} runs its {core} core, not {openblas}"
                         for path, core in cores.items() if str(core).lower() != openblas.lower()]
    return problems, notes


def main(argv):
    if "--" in argv:
        argv, pytest_args = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    else:
        pytest_args = None
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--off", default="", help="numpy features that must be off, comma-separated")
    parser.add_argument("--openblas", default="", help="the core every OpenBLAS must run")
    parser.add_argument("--onednn", default="", choices=["", *ONEDNN_ISA],
                        help="the instruction set oneDNN must run torch._int_mm with")
    parser.add_argument("--laptop-env", action="store_true", help="print the AVX2 laptop's variables, then exit")
    args = parser.parse_args(argv)
    if args.laptop_env:
        print(laptop_env())
        return 0
    problems, notes = check([f for f in args.off.split(",") if f], args.openblas, args.onednn)
    for line in problems:
        print(f"wrong path: {line}")
    for line in notes:
        print(f"not checked: {line}")
    if problems:
        return 3
    print("paths: as asked", flush=True)
    if pytest_args is None:
        return 0
    import pytest

    return pytest.main(pytest_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
