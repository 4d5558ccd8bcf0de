"""Re-execute notebooks top to bottom and save their outputs in place.

    python tools/run_notebooks.py                 # every notebook
    python tools/run_notebooks.py 01 03           # notebooks whose name starts with 01 or 03

Stored outputs come from a CPU run (COURSE_DEVICE=cpu) so that they are the
same on every machine that checks them. Only the numbered notebooks (NN_name.ipynb) are run,
never JupyterLab's copies, and a notebook with uncommitted changes is left alone unless
FORCE=1: re-executing it replaces what a learner's session left in it. `timed_copies` runs copies instead
(the stored outputs stay): `make bench` and `make gpu-check` time notebooks with it.
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course_paths import notebook_paths, refuse_uncommitted

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def select(prefixes):
    """The notebooks whose names start with one of `prefixes` (all of them if none)."""
    paths = notebook_paths(prefixes)
    if not paths:
        raise SystemExit(f"no notebook matches {prefixes}")
    return paths


def execute(path, device="cpu"):
    """Run the notebook at `path` in a fresh kernel with COURSE_DEVICE=device; store its outputs."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("jupytext", None)
    nb.metadata.pop("widgets", None)  # stored afresh below
    nb.metadata["kernelspec"] = KERNELSPEC
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        record_timing=False,
        # The demos' controls are saved with the notebook, so that JupyterLab and nbviewer
        # show them (and the first figure) before anything runs.
        store_widget_state=True,
        resources={"metadata": {"path": str(Path(path).parent)}},
    )
    # Notebook 13 runs its offline tiny GPT-2 here, whatever this machine has cached; the checks record no
    # progress beside the stored notebooks (COURSE_RECORD=0).
    client.execute(env={"COURSE_GPT2": "tiny", **os.environ, "COURSE_DEVICE": device, "COURSE_RECORD": "0"})
    nbformat.write(nb, path)


def failure(err):
    """One line for a failed run: the cell's exception, not nbclient's whole report."""
    if hasattr(err, "ename"):  # nbclient's CellExecutionError
        return f"{err.ename}: {err.evalue}".strip()
    return f"{type(err).__name__}: {err}".splitlines()[0]


def timed_copies(paths, device="cpu"):
    """Execute a copy of each notebook; yield (path, seconds, None or the failure in one line)."""
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            copy = Path(shutil.copy(path, tmp))
            start = time.perf_counter()
            try:
                execute(copy, device)
                error = None
            except Exception as err:  # report the failure, go on with the others
                error = failure(err)
            yield path, time.perf_counter() - start, error


def main(argv):
    os.environ.setdefault("PYTHONHASHSEED", "0")
    paths = select(argv)
    refused = refuse_uncommitted(paths)
    if refused:
        print("\n".join(refused))
        return 1
    total = 0.0
    for path in paths:
        start = time.perf_counter()
        execute(path, device="cpu")
        seconds = time.perf_counter() - start
        total += seconds
        print(f"{path.name}: executed in {seconds:.1f} s", flush=True)
    print(f"all: {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
