"""Which build of PyTorch pip installed, said in one line; a stop with what works when it is not
the one asked for, or when none arrived.

    python tools/torch_build.py cpu --index URL   # after make's torch step

pip takes the highest version on every index it knows, and a pip configuration can add indexes
(PIP_EXTRA_INDEX_URL, extra-index-url in pip.conf): PyPI's Linux wheel, the CUDA build with gigabytes
of nvidia-* packages, can then win over the CPU index's wheel that `make lab` printed it would
install, and wins for sure when the CPU index cannot be reached (a proxy, a mirror, an offline lab).
The build is read from torch's metadata, without importing torch (seconds): a local version label
(2.5.1+cpu, 2.5.1+cu124) names it; without one, a wheel that requires nvidia-* packages is the CUDA
build, and any other is the CPU build (macOS, and Windows from PyPI).

Nothing here uninstalls: the fixes it prints replace torch only once a new one has downloaded, and
`make lab` keeps any torch that is installed, so a learner is never left without one.
"""

import argparse
import importlib.metadata
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

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


def unreachable(index, timeout=10):
    """None when the index's torch page answers, else why not in a few words.

    Proxies come from the environment (HTTPS_PROXY, and PIP_PROXY as pip reads it)."""
    page = index.rstrip("/") + "/torch/"
    if urllib.parse.urlparse(page).scheme == "file":
        folder = urllib.request.url2pathname(urllib.parse.urlparse(page).path)
        return None if os.path.isdir(folder) else f"there is no folder {folder}"
    proxy = os.environ.get("PIP_PROXY")
    handlers = [urllib.request.ProxyHandler({"http": proxy, "https": proxy})] if proxy else []
    try:
        with urllib.request.build_opener(*handlers).open(page, timeout=timeout):
            return None
    except urllib.error.HTTPError as error:
        return f"it answers {error.code} {error.reason} for {page}"
    except (urllib.error.URLError, OSError, ValueError) as error:
        return str(getattr(error, "reason", error))


def what_works(index):
    """The ways to a CPU build of torch that do not need this index, as one paragraph."""
    return say("What works from here: a CPU build of torch from wherever pip can reach. Either "
               "`make lab TORCH=cpu TORCH_CPU_INDEX=<a mirror of PyTorch's CPU index>`, or "
               "`.venv/bin/pip install torch==<version>` from the index pip is configured with (or "
               "`.venv/bin/pip install <a torch wheel file>`), then `make lab` again: it keeps the torch "
               "it finds. (The index tried: {index}.)", index=index)


def no_torch(index):
    """The stop when the install step left no torch."""
    reason = unreachable(index)
    if reason:
        said = say("PyTorch: the CPU index {index} could not be reached ({reason}), so no torch was installed.",
                   index=index, reason=reason)
    else:
        said = say("PyTorch: pip installed no torch from {index}; its messages above say why.", index=index)
    return said + "\n" + what_works(index)


def wrong_build(index, version, build):
    """The stop when the CPU build was asked for and another arrived."""
    public = version.partition("+")[0]
    reason = unreachable(index)
    if reason:
        why = say("the CPU index {index} could not be reached ({reason}), and", index=index, reason=reason)
        where = ""
    else:
        why = say("pip takes the highest version on every index it knows, and")
        where = say(", such as {index}", index=index)
    return say("The CPU build was asked for, and the {build} build arrived: {why} your pip "
               "configuration adds another index (PIP_EXTRA_INDEX_URL, or extra-index-url in pip.conf; "
               "`pip config list` shows it), from which pip took its torch. It stays installed, and "
               "`make lab` again keeps it. For the CPU build instead: "
               ".venv/bin/pip install --no-deps \"torch=={public}+cpu\" --index-url <a CPU index pip "
               "can reach{where}>, which replaces this torch only once the new one has downloaded, then make "
               "again.", build=build.upper(), why=why, public=public, where=where)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("asked", nargs="?", choices=["cpu", "cuda", "macos", "any"], default="any",
                        help="the build make asked for")
    parser.add_argument("--index", default=CPU_INDEX, help="the CPU index make installed from")
    args = parser.parse_args(argv)
    found = installed()
    if found is None:
        print(no_torch(args.index) if args.asked == "cpu" else
              say("PyTorch: no torch is installed after the install step; pip's messages above say why.")
              + " " + what_works(args.index))
        return 1
    version, requires = found
    build = build_of(version, requires)
    print(say("PyTorch installed: torch {version}, the {build} build.", version=version, build=build.upper()))
    if args.asked == "cpu" and build != "cpu":
        print(wrong_build(args.index, version, build))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
