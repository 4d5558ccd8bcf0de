"""Run a notebook's cells again in the same kernel and compare what they print.

An instructor re-runs cells in front of the room all the time, and a learner
runs a section again after an error. Every cell must be safe to run twice. In
one kernel this runs each code cell twice in a row (pass 1), then the whole
notebook once more from the top (pass 2), and requires, after
tests/sanitize.cfg (as nbval compares):
- a cell's second run prints what its first printed;
- pass 2 prints what pass 1 printed, so running any cell twice changed
  nothing that follows, and a whole notebook or section can be run again;
- from the setup cell on, no cell leaves torch's thread count, default dtype
  or grad mode other than it found them (later cells, and their timings,
  would run differently than the text says), but a cell tagged
  `notebook-settings`: one that sets them for the whole notebook, on purpose
  and idempotently (notebook 12 runs on one thread and restores the count in
  its last cell).
Cells nbval skips (`nbval-skip`) are not run; those whose output nbval ignores
run but are not compared. Only the numbered notebooks are run, never copies.

    python tools/rerun_check.py                 # every notebook
    python tools/rerun_check.py 03 12           # notebooks whose name starts with 03 or 12

Exit status 1 names each cell whose second run differs, with both texts, and each
cell that changes those settings.
"""

import copy
import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbval.plugin import coalesce_streams

from course_paths import ROOT, notebook_paths

SANITIZE = ROOT / "tests" / "sanitize.cfg"


def sanitizers(path=SANITIZE):
    """The (regex, replacement) pairs of an nbval sanitize file."""
    lines = [line.rstrip("\n") for line in Path(path).read_text().splitlines() if line.strip()]
    pairs = []
    for regex, replace in zip(lines[::2], lines[1::2], strict=True):
        pairs.append((re.compile(regex.removeprefix("regex: ")), replace.removeprefix("replace: ")))
    return pairs


# What nbval leaves out of its comparison (images are compared only with nbdime).
NOT_COMPARED = {"image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json"}


def texts(cell, pairs):
    """What nbval compares in a cell's outputs, sanitized: each stream (its chunks joined, as
    nbval joins them), each error's name and message, each output's data but images."""
    found = []
    for out in coalesce_streams(copy.deepcopy(cell.get("outputs", []))):
        if out.output_type == "stream":
            found.append((out.name, out.text))
        elif out.output_type == "error":
            found.append(("error", f"{out.ename}: {out.evalue}"))
        elif "data" in out:
            found += [(mime, value) for mime, value in sorted(out.data.items()) if mime not in NOT_COMPARED]
    return "\n".join(f"{kind}: {sanitize(text, pairs)}" for kind, text in found)   # as nbval: text alone


def sanitize(text, pairs):
    for regex, replace in pairs:
        text = regex.sub(replace, text)
    return text


def tags(cell):
    return set(cell.metadata.get("tags", []))


def compared(cell):
    return cell.cell_type == "code" and not {"nbval-ignore-output", "nbval-skip"} & tags(cell)


# Run after each cell from the setup cell on: the settings no cell may leave changed. It binds no
# name in the learner's namespace and prints no value (the kernel's `_` stays).
PROBE = nbformat.v4.new_code_cell(
    'print("thread count, default dtype, grad mode:", __import__("torch").get_num_threads(),\n'
    '      __import__("torch").get_default_dtype(), __import__("torch").is_grad_enabled())')


def run_twice(path, device="cpu", timeout=600, nb=None, folder=None, record=False):
    """Run each code cell twice in a row, then the notebook again from the top, in one kernel.

    `nb`: the notebook to run instead of the file at `path` (a copy with the exercises' solutions
    in place, say); it keeps pass 2's outputs. The kernel runs in `folder` (default: `path`'s), and
    the checks record their verdicts there only with record=True (helpers.checks.recording).
    Returns [(cell index, what differs, first text, other text)]: "run again at once" when a
    cell's second run differs from its first, "run again later" when pass 2 differs from pass 1,
    "settings" when a cell leaves torch's settings other than it found them.
    """
    nb = nbformat.read(path, as_version=4) if nb is None else nb
    pairs = sanitizers()
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(folder or Path(path).parent)}})

    def run(index, cell):
        cell.outputs = []
        try:
            client.execute_cell(cell, index)
        except CellExecutionError:
            pass  # recorded in the cell's outputs (allow_errors)
        return texts(cell, pairs)

    code = [(i, c) for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and "nbval-skip" not in tags(c)]
    differences = []
    env = {"COURSE_GPT2": "tiny", **os.environ, "COURSE_DEVICE": device, "PYTHONHASHSEED": "0",
           "COURSE_RECORD": "1" if record else "0"}
    with client.setup_kernel(env=env):
        first, settings = {}, None
        for index, cell in code:
            first[index] = run(index, cell)
            if settings is None and "setup" in tags(cell):
                settings = run(-1, PROBE)
            elif settings is not None:
                after = run(-1, PROBE)
                if after != settings:
                    if "notebook-settings" not in tags(cell):
                        differences.append((index, "settings", settings, after))
                    settings = after
            again = run(index, cell)
            if compared(cell) and again != first[index]:
                differences.append((index, "run again at once", first[index], again))
        for index, cell in code:
            later = run(index, cell)
            if compared(cell) and later != first[index]:
                differences.append((index, "run again later", first[index], later))
    return differences


def report(path, differences):
    lines = [f"{path.name}: {len(differences)} cell(s) print something else when run again "
             "or change torch's settings"]
    for index, how, first, other in differences:
        if how == "settings":
            lines.append(f"  cell {index} leaves torch's settings changed:\n"
                         f"    before: {first}\n    after:  {other}")
        else:
            lines.append(f"  cell {index} ({how}):\n    first:  {first[:400]!r}\n"
                         f"    again:  {other[:400]!r}")
    return "\n".join(lines)


def main(argv):
    failed = 0
    for path in notebook_paths(argv):
        differences = run_twice(path)
        if differences:
            failed += 1
            print(report(path, differences), flush=True)
        else:
            print(f"{path.name}: the second run prints the same", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
