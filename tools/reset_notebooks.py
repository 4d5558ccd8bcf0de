"""Put notebooks back as they were last committed: outputs, edits and answers alike.

    python tools/reset_notebooks.py          # every notebook (make reset)
    python tools/reset_notebooks.py 03       # notebooks whose name starts with 03 (make reset NB=03)

JupyterLab saves a notebook into this checkout as it is worked on, so a session leaves its
outputs, widget state and the learner's answers in the files. This names each committed notebook
that differs from the last commit (edited, `git add`-ed or deleted), keeps a copy of it in
build/reset/<time>/ under its own path (notebooks/05_x.ipynb and notebooks/ko/05_x.ipynb both
survive), and restores it, index and file, with `git checkout HEAD -- <file>`. Notebooks the last
commit does not hold (new ones, even `git add`-ed, and JupyterLab's copies such as
03_ffn_forward-Copy1.ipynb) are left alone.

A notebook still open in JupyterLab must be closed first (or reloaded at once: File > Reload
Notebook from Disk): on its next save JupyterLab says the file changed on disk and offers
"Overwrite" as the default button, and one Enter puts the old work back over the reset.
"""

import shutil
import subprocess
import sys
import time

from course_paths import NOTEBOOK_DIR, ROOT, all_notebook_paths, is_course_notebook, uncommitted

BACKUPS = ROOT / "build" / "reset"
OPEN_IN_LAB = ("Close any of them still open in JupyterLab, or reload it at once (File > Reload Notebook "
               "from Disk): JupyterLab's save dialog offers \"Overwrite\" by default, and one Enter puts "
               "the old work back over the reset.")


def committed_notebooks(prefixes=()):
    """The course notebooks the last commit holds (deleted ones too), editions included, by prefix."""
    done = subprocess.run(["git", "ls-tree", "-r", "--name-only", "HEAD", "--", "notebooks"], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        return []
    wanted = tuple(p.zfill(2) if p.isdigit() else p for p in prefixes)
    paths = [ROOT / line for line in done.stdout.splitlines()]
    return [p for p in paths if is_course_notebook(p) and p.parent.parent in (ROOT, NOTEBOOK_DIR)
            and (not wanted or p.name.startswith(wanted))]


def backup_folder():
    """A new folder build/reset/<time>/ (a suffix when a reset already used this second)."""
    stamp = time.strftime("%Y-%m-%d-%H%M%S")
    for n in range(1000):
        folder = BACKUPS / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:
            continue
    raise RuntimeError(f"could not make a new folder in {BACKUPS}")


def main(argv):
    committed = committed_notebooks(argv)
    paths = sorted(set(all_notebook_paths(argv)) | set(committed))
    if not paths:
        print(f"no notebook matches {argv}")
        return 2
    status = {path: uncommitted(path) for path in paths}
    cannot = next((s for s in status.values() if len(s) > 2), None)
    if cannot:
        print(f"make reset needs git: {cannot}.")
        return 1
    changed = [p for p in paths if p in committed and status[p]]
    unknown = [p for p in paths if p not in committed]       # untracked, or added but never committed
    unknown += [p for p in NOTEBOOK_DIR.rglob("*.ipynb")
                if not is_course_notebook(p) and ".ipynb_checkpoints" not in p.parts]
    if unknown:
        print(f"Left alone (not in the last commit): "
              f"{', '.join(sorted(str(p.relative_to(ROOT)) for p in unknown))}.")
    if not changed:
        print("Every notebook named is as last committed: nothing to reset.")
        return 0
    deleted = [p for p in changed if not p.exists()]
    print(f"Discarding what was changed or saved in {len(changed)} notebook(s) since the last "
          f"commit (outputs, edits, answers): {', '.join(str(p.relative_to(NOTEBOOK_DIR)) for p in changed)}.")
    backup = backup_folder()
    for path in changed:
        if path.exists():
            target = backup / path.relative_to(ROOT)              # notebooks/ko/05_x.ipynb stays apart
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    names = [str(p.relative_to(ROOT)) for p in changed]
    done = subprocess.run(["git", "checkout", "HEAD", "--", *names], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no reason given"])[0]
        print(f"git could not restore them ({said}); the copies are in {backup.relative_to(ROOT)}/.")
        return 1
    if deleted:
        print(f"Restored from the last commit (they had been deleted): "
              f"{', '.join(str(p.relative_to(NOTEBOOK_DIR)) for p in deleted)}.")
    print(f"Done; a copy of each as it was is in {backup.relative_to(ROOT)}/, under its path in the "
          f"checkout. {OPEN_IN_LAB}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
