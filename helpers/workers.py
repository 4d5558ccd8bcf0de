"""Worker processes that end cleanly, whatever happens: the parent's side of helpers.launch.

Each worker leads its own process group (`start`), so that stopping it stops anything it started.
`stop` sends every group SIGTERM, then SIGKILL after GRACE_S seconds, and reaps each process, so no
zombie is left. `report` says in one sentence how each worker ended: its exit code, or the signal
that stopped it. Each run keeps its files in a folder of `runs_dir()` named after the parent's
process id; `remove_stale_runs` removes those whose parent is gone (a kernel that was killed).

The runs' folder is this user's alone: made with mode 0700, and refused if another user owns it or
others may enter it (another user who made it first could put files where the workers read them).
On Linux each worker asks the kernel to SIGKILL it when its parent dies (`die_with_parent`), which
ends it even in the middle of a long C call that holds the GIL.
"""

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GRACE_S = 3.0          # seconds a worker gets between SIGTERM and SIGKILL
PARENT_GONE = 75       # the exit code of a worker whose parent went away
# the parent's process id, as the worker's environment holds it
PARENT_VAR = "COURSE_WORKER_PARENT"


class WorkerError(RuntimeError):
    """A run that failed or timed out. str(): one sentence, then what the workers wrote."""

    def __init__(self, sentence, details="", pids=()):
        super().__init__(sentence + (f"\n\n{details}" if details else ""))
        self.sentence, self.pids = sentence, tuple(pids)

    # Jupyter shows these lines instead of a traceback into this module
    def _render_traceback_(self):
        return str(self).splitlines()


def runs_dir():
    """The folder that holds one sub-folder per run, run-<parent pid>-<random>; this user's
    alone."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    path = Path(tempfile.gettempdir()) / f"course_workers-{user}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        _check_private(path)
    return path


def _check_private(path):
    """Refuse, in words, a runs' folder that is not a folder of this user's, closed to others."""
    found = os.lstat(path)
    if not stat.S_ISDIR(found.st_mode):
        raise WorkerError(f"The workers' folder {path} is not a folder (a link or a file is in its "
                          "place): remove it, then run again.")
    if not hasattr(os, "getuid"):   # Windows: the temporary folder is the user's own
        return
    if found.st_uid != os.getuid():
        raise WorkerError(f"The workers' folder {path} belongs to user {found.st_uid}, not to you "
                          f"(user {os.getuid()}): whoever made it could put files where your "
                          "workers read them. Remove it (as its owner or root), or set TMPDIR to "
                          "a folder of your own, then run again.")
    if found.st_mode & 0o077:
        raise WorkerError(f"The workers' folder {path} is open to other users (mode "
                          f"{stat.S_IMODE(found.st_mode):o}); it must be yours alone (700). Remove "
                          f"it, or run `chmod 700 {path}`, then run again.")


def die_with_parent():
    """In a worker: end the moment the parent (the kernel) dies, whatever the worker is doing.

    On Linux the kernel sends SIGKILL on the parent's death (prctl PR_SET_PDEATHSIG), which needs
    no Python thread and so ends a worker stuck in a long C call too. The parent may have died
    before the request was made: then this worker leaves at once.
    """
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            # 1 = PR_SET_PDEATHSIG
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass            # no prctl: the stdin watchdog still ends an idle worker
    parent = os.environ.get(PARENT_VAR)
    if parent and os.getppid() != int(parent):     # it died between our start and the line above
        os._exit(PARENT_GONE)


def _alive(pid):
    """True if a process with this id exists."""
    if os.name == "nt":
        import ctypes

        # PROCESS_QUERY_LIMITED_INFORMATION
        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)
        code = ctypes.c_ulong()
        if not handle:
            return False
        ok = ctypes.windll.kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        ctypes.windll.kernel32.CloseHandle(handle)
        return bool(ok) and code.value == 259                                # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_runs():
    """Remove the folders of runs whose parent process is gone (a killed kernel); their names."""
    removed = []
    for path in runs_dir().glob("run-*"):
        try:
            pid = int(path.name.split("-")[1])
        except (IndexError, ValueError):
            continue
        if not _alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
    return removed


_LOST_PEER = ("Connection closed by peer", "Connection reset by peer", "Broken pipe")


@dataclass
class Worker:
    """One worker process of a run, the files it writes to, and how it ended."""

    rank: int
    process: subprocess.Popen
    outdir: Path
    ended_at: float = float("inf")
    stopped_with: str = ""           # the signal the parent sent, if it had to stop this worker

    def file(self, kind):
        return self.outdir / f"{kind}{self.rank}.txt"

    def has_result(self):
        return (self.outdir / f"result{self.rank}.pt").exists()

    def said(self):
        """The first line of what the worker wrote about its failure, or ''."""
        path = self.file("error")
        said = path.read_text().splitlines()[0] if path.exists() and path.read_text().strip() else (
            "")
        if any(words in said for words in _LOST_PEER):   # gloo's words for "another worker stopped"
            said = said.split(":")[0] + " because another worker closed its connection"
        return said

    def when(self):
        """When it ended (wall clock): when it wrote its error, else when the parent saw it end."""
        path = self.file("error")
        return path.stat().st_mtime if path.exists() else self.ended_at

    def failed(self):
        return self.process.returncode is not None and (self.process.returncode != 0
                                                        or not self.has_result())

    def ending(self):
        """How this worker ended, as a clause of a sentence."""
        code, said, name = self.process.returncode, self.said(), f"worker {self.rank}"
        if self.stopped_with == "SIGKILL":
            return f"{name} ignored SIGTERM for {GRACE_S:g} s and was killed with SIGKILL"
        if self.stopped_with:
            return f"{name} was still running and was stopped with SIGTERM" + \
                ("" if code == -signal.SIGTERM else f" (exit code {code})")
        if code is not None and code < 0:
            return f"{name} was killed by {signal.Signals(-code).name}, which the run did not send"
        if code == 0:
            return f"{name} finished" if self.has_result() else \
                f"{name} exited with code 0 without returning a result" \
                + (f": {said}" if said else "")
        return f"{name} exited with code {code}" + (f" after it {said}" if said else "")


def _signal_group(worker, sig):
    """Send sig to the worker's process group (on Windows, to the worker itself)."""
    try:
        if os.name == "posix":
            os.killpg(worker.process.pid, sig)
        elif sig == signal.SIGTERM:
            worker.process.terminate()
        else:
            worker.process.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass   # already gone


def poll(workers):
    """Note when each worker ended; True once all have."""
    for w in workers:
        if w.process.poll() is not None and w.ended_at == float("inf"):
            w.ended_at = time.time()
    return all(w.process.returncode is not None for w in workers)


def wait(workers, seconds):
    """Wait up to `seconds` for every worker to end; True if they all did."""
    deadline = time.monotonic() + seconds
    while not poll(workers):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def stop(workers):
    """SIGTERM to every worker still running, SIGKILL after GRACE_S, then reap each one."""
    for w in workers:
        if w.process.poll() is None:
            w.stopped_with = "SIGTERM"
            _signal_group(w, signal.SIGTERM)
    if not wait(workers, GRACE_S):
        for w in workers:
            if w.process.poll() is None:
                w.stopped_with = "SIGKILL"
    for w in workers:   # also whatever a worker started and left in its group
        _signal_group(w, getattr(signal, "SIGKILL", signal.SIGTERM))
    for w in workers:
        w.process.wait()
        if w.process.stdin:
            w.process.stdin.close()
    poll(workers)


def messages(workers, kinds):
    """What the workers wrote, of the given kinds ('error', 'stderr'), one block each."""
    parts = []
    for w in workers:
        for kind in kinds:
            path = w.file(kind)
            text = path.read_text(errors="replace").strip() if path.exists() else ""
            if kind == "error":
                # the traceback under the summary
                text = "\n".join(text.splitlines()[1:]).strip()
            if text:
                parts.append(f"--- worker {w.rank} {kind} ---\n{text}")
    return "\n".join(parts)


def report(workers, how):
    """One sentence: how the run ended and how each worker did, the cause first."""
    # the cause first: a worker that failed on its own before one that failed because a peer left,
    # whichever wrote its error first (the two can write within the same moment)
    order = sorted(workers, key=lambda w: (bool(w.stopped_with),
                                           "another worker closed" in w.said(),
                                           0 if w.stopped_with else w.when(), w.rank))
    return (f"The run with {len(workers)} workers {how}: "
            + "; ".join(w.ending() for w in order) + ".")


def start(rank, command, outdir, env):
    """Start worker `rank` (command: its argv) as the leader of its own process group, logging to
    files."""
    group = {"start_new_session": True} if os.name == "posix" else \
        {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    with open(outdir / f"stdout{rank}.txt", "wb") as out, \
            open(outdir / f"stderr{rank}.txt", "wb") as err:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=err, env=env,
                                   **group)
    return Worker(rank, process, outdir)
