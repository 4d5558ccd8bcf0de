"""Put notebooks back as they were last committed: outputs, edits and answers alike.

    python tools/reset_notebooks.py          # every notebook (make reset)
    python tools/reset_notebooks.py 03       # notebooks whose name starts with 03 (make reset NB=03)

JupyterLab saves a notebook into this checkout as it is worked on, so a session leaves its
outputs, widget state and the learner's answers in the files. This names each notebook that
differs from the last commit, keeps a copy of it in build/reset/<time>/, and restores it with
`git checkout HEAD -- <file>`. Notebooks git does not know (new ones, JupyterLab's copies such
as 03_ffn_forward-Copy1.ipynb) are left alone.
"""

import shutil
import subprocess
import sys
import time

from course_paths import NOTEBOOK_DIR, ROOT, all_notebook_paths, is_course_notebook, uncommitted

BACKUPS = ROOT / "build" / "reset"


def main(argv):
    paths = all_notebook_paths(argv)
    if not paths:
        print(f"no notebook matches {argv}")
        return 2
    status = {path: uncommitted(path) for path in paths}
    cannot = next((s for s in status.values() if len(s) > 2), None)
    if cannot:
        print(f"make reset needs git: {cannot}.")
        return 1
    changed = [p for p, s in status.items() if s and s != "??"]
    unknown = [p for p, s in status.items() if s == "??"]
    unknown += [p for p in NOTEBOOK_DIR.rglob("*.ipynb")
                if not is_course_notebook(p) and ".ipynb_checkpoints" not in p.parts]
    if unknown:
        print(f"Left alone (not in git): {', '.join(sorted(str(p.relative_to(ROOT)) for p in unknown))}.")
    if not changed:
        print("Every notebook named is as last committed: nothing to reset.")
        return 0
    names = [str(p.relative_to(ROOT)) for p in changed]
    print(f"Discarding what was changed or saved in {len(changed)} notebook(s) since the last "
          f"commit (outputs, edits, answers): {', '.join(p.name for p in changed)}.")
    backup = BACKUPS / time.strftime("%Y-%m-%d-%H%M%S")
    backup.mkdir(parents=True, exist_ok=True)
    for path in changed:
        if path.exists():
            shutil.copy2(path, backup / path.name)
    subprocess.run(["git", "checkout", "HEAD", "--", *names], cwd=ROOT, check=True)
    print(f"Done; a copy of each as it was is in {backup.relative_to(ROOT)}/. Reload any of "
          "them open in JupyterLab (File -> Reload Notebook from Disk) before it saves again.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
