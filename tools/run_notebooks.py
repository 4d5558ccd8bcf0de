"""Re-execute notebooks top to bottom and save their outputs in place.

    python tools/run_notebooks.py                 # every notebook
    python tools/run_notebooks.py 01 03           # notebooks whose name starts with 01 or 03

Stored outputs come from a CPU run (COURSE_DEVICE=cpu) so that they are the
same on every machine that checks them.
"""

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def select(prefixes):
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if prefixes:
        paths = [p for p in paths if any(p.name.startswith(x) for x in prefixes)]
    if not paths:
        raise SystemExit(f"no notebook matches {prefixes}")
    return paths


KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def execute(path):
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
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    nbformat.write(nb, path)


def main(argv):
    os.environ["COURSE_DEVICE"] = "cpu"
    os.environ.setdefault("PYTHONHASHSEED", "0")
    total = 0.0
    for path in select(argv):
        start = time.perf_counter()
        execute(path)
        seconds = time.perf_counter() - start
        total += seconds
        print(f"{path.name}: executed in {seconds:.1f} s", flush=True)
    print(f"all: {total:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
