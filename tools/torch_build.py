"""Which build of PyTorch pip installed, said in one line; a stop when it is not the one asked for.

    python tools/torch_build.py cpu      # after make's torch step: fails if a CUDA build arrived

pip takes the highest version on every index it knows, and a pip configuration can add indexes
(PIP_EXTRA_INDEX_URL, extra-index-url in pip.conf): PyPI's Linux wheel, the CUDA build with gigabytes
of nvidia-* packages, can then win over the CPU index's wheel that `make lab` printed it would
install. The build is read from torch's metadata, without importing torch (seconds): a local version
label (2.5.1+cpu, 2.5.1+cu124) names it; without one, a wheel that requires nvidia-* packages is the
CUDA build, and any other is the CPU build (macOS, and Windows from PyPI).
"""

import argparse
import importlib.metadata
import re
import sys

from setup_language import say  # in Korean for a Korean user (COURSE_LANG=ko or a Korean locale)

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def build_of(version, requires):
    """'cpu', 'cuda' or 'rocm' from torch's version string and its Requires-Dist lines."""
    local = version.partition("+")[2]
    if local.startswith("cpu"):
        return "cpu"
    if local.startswith("cu"):
        return "cuda"
    if local.startswith("rocm"):
        return "rocm"
    if any(re.match(r"nvidia-", r.strip(), re.I) for r in requires or []):
        return "cuda"
    return "cpu"


def installed():
    """(version, requires) of the torch that this Python would import, or None if there is none."""
    try:
        dist = importlib.metadata.distribution("torch")
    except importlib.metadata.PackageNotFoundError:
        return None
    return dist.version, list(dist.requires or [])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("asked", nargs="?", choices=["cpu", "cuda", "macos", "any"], default="any",
                        help="the build make asked for")
    parser.add_argument("--index", default=CPU_INDEX, help="the CPU index make installed from")
    args = parser.parse_args(argv)
    found = installed()
    if found is None:
        print(say("PyTorch: no torch is installed after the install step; run `make` again, and see pip's "
                  "messages above."))
        return 1
    version, requires = found
    build = build_of(version, requires)
    print(say("PyTorch installed: torch {version}, the {build} build.", version=version, build=build.upper()))
    if args.asked == "cpu" and build != "cpu":
        public = version.partition("+")[0]
        print(say("The CPU build was asked for, and the {build} build arrived: your pip configuration "
                  "adds another index (PIP_EXTRA_INDEX_URL, or extra-index-url in pip.conf; `pip config list` "
                  "shows it), and pip took its torch. To fix it: .venv/bin/pip uninstall -y torch, then "
                  ".venv/bin/pip install --no-deps \"torch=={public}+cpu\" --index-url {index}, then make "
                  "again (or TORCH=cuda to keep this build).", build=build.upper(), public=public, index=args.index))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
