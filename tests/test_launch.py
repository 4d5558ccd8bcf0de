"""Workers end cleanly: each way a run can end is said in one sentence, and nothing is left behind.

After every failing run, `ps` must show none of its workers (alive or zombie), nothing they
started, and the run's folder must be gone.
"""

import _thread
import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

from helpers import launch, tensor_parallel, workers

pytestmark = pytest.mark.skipif(os.name != "posix", reason="ps and process groups are POSIX")

X = torch.zeros(2, 4, dtype=torch.float64)
SHARDS = [{"W": torch.zeros(4, 4)}, {"W": torch.zeros(4, 4)}]
TIMEOUT_S = 25.0      # long enough for two workers to import torch on a busy 2-core machine


def ps_rows(pids):
    """`ps` rows (pid, ppid, pgid, stat, command) of these processes or of anything in their groups."""
    out = subprocess.run(["ps", "-eo", "pid=,ppid=,pgid=,stat=,args="], capture_output=True, text=True).stdout
    rows = [line.split(None, 4) for line in out.splitlines()]
    return [r for r in rows if int(r[0]) in pids or int(r[2]) in pids]


def left_behind(pids, ours=True):
    """What `ps` still shows of these workers and their groups, but for what is init's to reap.

    A worker (ours=True: pids are our own children) must be gone, reaped by us. What a worker started and left is stopped with its
    group; once the worker is gone it belongs to init, which reaps it (some containers' init
    does so only now and then): it must not be running, nor be a zombie of ours.
    """
    return [r for r in ps_rows(pids) if (ours and int(r[0]) in pids) or not r[3].startswith("Z")
            or int(r[1]) == os.getpid()]


def my_run_folders():
    return sorted(launch.runs_dir().glob(f"run-{os.getpid()}-*"))


def failed_run(forward, timeout_s=TIMEOUT_S, error=launch.WorkerError):
    """Run forward in 2 workers, expect it to fail; the error, after checking nothing is left."""
    with pytest.raises(error) as info:
        tensor_parallel.run(SHARDS, X, forward=forward, timeout_s=timeout_s)
    err = info.value
    if isinstance(err, launch.WorkerError):
        assert len(err.pids) == 2
        assert left_behind(err.pids) == [], f"left behind: {left_behind(err.pids)}"
        assert "\n" not in err.sentence and err.sentence.endswith("."), err.sentence
    assert my_run_folders() == [], f"run folders left: {my_run_folders()}"
    return err


def raises(x, shard, all_reduce):
    import torch.distributed as dist

    if dist.get_rank() == 1:
        raise KeyError("W1")
    return all_reduce(x)


def exits(x, shard, all_reduce):
    import sys

    import torch.distributed as dist

    if dist.get_rank() == 1:
        sys.exit(0)
    return all_reduce(x)


def crashes(x, shard, all_reduce):
    import os

    import torch.distributed as dist

    if dist.get_rank() == 1:
        os.abort()                      # dies by SIGABRT, as a segfault in a C extension would
    return all_reduce(x)


def hangs(x, shard, all_reduce):
    import os
    import subprocess
    import time

    child = subprocess.Popen(["sleep", "600"])          # something the worker started, in its group
    with open(os.environ["COURSE_TEST_MARK"] + str(os.getpid()), "w") as f:
        f.write(str(child.pid))
    time.sleep(600)


def ignores_sigterm(x, shard, all_reduce):
    import os
    import signal
    import time

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    open(os.environ["COURSE_TEST_MARK"] + str(os.getpid()), "w").close()     # the test waits for this
    time.sleep(600)


def interrupt_when_marked(folder, n, limit_s=300.0):
    """A thread that interrupts the main thread (as Jupyter's stop button does) once n workers have
    written their mark in folder: the run is stopped when the workers are where the test wants them,
    however long a busy machine takes to get them there (limit_s only guards against a hang)."""
    def watch():
        deadline = time.monotonic() + limit_s
        while len(list(folder.glob("mark-*"))) < n and time.monotonic() < deadline:
            time.sleep(0.05)
        _thread.interrupt_main()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_a_worker_that_raises_is_named_first_with_its_exception():
    err = failed_run(raises)
    first = "The run with 2 workers failed: worker 1 exited with code 1 after it raised KeyError: 'W1'; "
    then = ["worker 0 exited with code 1 after it raised RuntimeError because another worker closed its connection.",
            "worker 0 was still running and was stopped with SIGTERM."]   # on a machine too busy to notice in time
    assert err.sentence in [first + t for t in then], err.sentence
    assert "--- worker 1 error ---" in str(err) and "KeyError: 'W1'" in str(err)


def test_sys_exit_in_a_worker_is_named():
    err = failed_run(exits)
    assert "worker 1 exited with code 0 without returning a result: its function called sys.exit(0)" \
        in err.sentence, err.sentence


def test_a_crashed_worker_gives_its_signal():
    err = failed_run(crashes)
    assert "worker 1 was killed by SIGABRT, which the run did not send" in err.sentence, err.sentence


def test_a_hanging_worker_and_what_it_started_are_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_TEST_MARK", str(tmp_path / "grandchild-of-"))
    start = time.monotonic()
    err = failed_run(hangs)
    assert time.monotonic() - start < TIMEOUT_S + 2 * workers.GRACE_S + 5
    assert err.sentence == (f"The run with 2 workers timed out after {TIMEOUT_S:g} s: worker 0 was still "
                            "running and was stopped with SIGTERM; worker 1 was still running and was "
                            "stopped with SIGTERM."), err.sentence
    grandchildren = [int(p.read_text()) for p in tmp_path.glob("grandchild-of-*")]
    assert len(grandchildren) == 2, "each worker should have started its sleep before the timeout"
    assert left_behind(grandchildren, ours=False) == [], f"left behind: {left_behind(grandchildren, ours=False)}"


def test_a_worker_that_ignores_sigterm_is_killed(monkeypatch, tmp_path):
    """Stopped once both workers ignore SIGTERM (an event), not after a fixed timeout that a busy
    machine could reach before the workers had even imported torch."""
    monkeypatch.setattr(workers, "GRACE_S", 1.0)
    monkeypatch.setenv("COURSE_TEST_MARK", str(tmp_path / "mark-"))
    watcher = interrupt_when_marked(tmp_path, 2)
    err = failed_run(ignores_sigterm, timeout_s=600.0, error=KeyboardInterrupt)
    watcher.join()
    assert len(list(tmp_path.glob("mark-*"))) == 2
    assert str(err) == ("The run with 2 workers was interrupted: worker 0 ignored SIGTERM for 1 s and was "
                        "killed with SIGKILL; worker 1 ignored SIGTERM for 1 s and was killed with SIGKILL."), str(err)


def test_an_interrupt_stops_the_workers(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_TEST_MARK", str(tmp_path / "mark-"))
    watcher = interrupt_when_marked(tmp_path, 2)
    err = failed_run(ignores_sigterm, timeout_s=600.0, error=KeyboardInterrupt)
    watcher.join()
    assert str(err).startswith("The run with 2 workers was interrupted: worker 0 "), str(err)


def test_workers_of_a_killed_kernel_quit_and_its_folder_is_removed_next_time(tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text(textwrap.dedent(f"""
        import torch
        from helpers import tensor_parallel

        def hangs(x, shard, all_reduce):
            import os, time
            open({str(tmp_path / "mark-")!r} + str(os.getpid()), "w").close()   # the test waits for this
            time.sleep(600)

        tensor_parallel.run([{{"W": torch.zeros(1)}}] * 2, torch.zeros(1, 1), forward=hangs, timeout_s=600)
    """))
    kernel = subprocess.Popen([sys.executable, str(script)], env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    deadline = time.monotonic() + 300           # both workers run its function: an event, however
    while len(list(tmp_path.glob("mark-*"))) < 2 and time.monotonic() < deadline:   # long a busy
        assert kernel.poll() is None, "the stand-in kernel ended before its workers ran"  # machine takes
        time.sleep(0.05)
    folders = list(launch.runs_dir().glob(f"run-{kernel.pid}-*"))
    workers = {int(mark.name.removeprefix("mark-")) for mark in tmp_path.glob("mark-*")}
    assert folders and len(workers) == 2, "the stand-in kernel never started its workers"
    assert {int(row[0]) for row in ps_rows(workers) if not row[3].startswith("Z")} >= workers, ps_rows(workers)
    kernel.send_signal(signal.SIGKILL)          # as when a kernel dies or is killed
    kernel.wait()
    deadline = time.monotonic() + 60
    while [r for r in ps_rows(workers) if not r[3].startswith("Z")] and time.monotonic() < deadline:
        time.sleep(0.05)
    # Orphans are init's to reap; what matters is that none is still running.
    assert [r for r in ps_rows(workers) if not r[3].startswith("Z")] == [], "workers outlived their parent"
    assert folders[0].exists()
    assert folders[0].name in launch.remove_stale_runs()
    assert not folders[0].exists()


def test_a_finished_run_leaves_nothing_behind():
    def twice(x, shard, all_reduce):
        return all_reduce(2 * x)

    results = tensor_parallel.run(SHARDS, X + 1, forward=twice, timeout_s=120)
    assert [r.output.sum().item() for r in results] == [32.0, 32.0]      # 2 workers x 2 x (2 x 4 ones)
    assert all(r.peak_memory is None or r.peak_memory > 10 * 2**20 for r in results)
    assert my_run_folders() == []


def test_bad_arguments_are_refused_before_starting():
    with pytest.raises(ValueError, match="payloads must be a non-empty list"):
        launch.launch(tensor_parallel._shards_task, [])
    with pytest.raises(ValueError, match="timeout_s must be a number of seconds > 0, got -1"):
        launch.launch(tensor_parallel._shards_task, [{}], timeout_s=-1)


STUCK_KERNEL = """
import torch
from helpers import tensor_parallel

def stuck(x, shard, all_reduce):
    import ctypes
    import os

    open(os.environ["COURSE_TEST_MARK"] + str(os.getpid()), "w").close()
    ctypes.PyDLL(None).sleep(600)      # libc's sleep, holding the GIL: no Python thread of it can run

tensor_parallel.run([{"W": torch.zeros(1)}] * 2, torch.zeros(1, 1), forward=stuck, timeout_s=600)
"""


def test_workers_in_a_long_c_call_end_when_their_kernel_is_killed(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    script = tmp_path / "kernel.py"
    script.write_text(STUCK_KERNEL)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), COURSE_TEST_MARK=str(tmp_path / "mark-"))
    kernel = subprocess.Popen([sys.executable, str(script)], env=env)
    pids = set()
    try:
        deadline = time.monotonic() + 300              # only against a hang: the marks are the event
        while len(pids) < 2 and kernel.poll() is None and time.monotonic() < deadline:
            pids = {int(p.name.removeprefix("mark-")) for p in tmp_path.glob("mark-*")}
            time.sleep(0.05)
        assert len(pids) == 2, "the stand-in kernel's workers never reached their C call"
        kernel.send_signal(signal.SIGKILL)             # as when a kernel dies or is killed
        kernel.wait()
        deadline = time.monotonic() + 60
        while [r for r in ps_rows(pids) if not r[3].startswith("Z")] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [r for r in ps_rows(pids) if not r[3].startswith("Z")] == [], "workers outlived their kernel"
    finally:
        kernel.kill()
        for pid in pids:                               # whatever outlived a failed assertion
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        kernel.wait()
    launch.remove_stale_runs()


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """tempfile's folder moved into tmp_path, so that runs_dir() is made (or met) there."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path / f"course_workers-{os.getuid()}"


def test_the_runs_folder_is_made_private(private_tmp):
    assert workers.runs_dir() == private_tmp
    found = os.lstat(private_tmp)
    assert found.st_uid == os.getuid() and stat.S_IMODE(found.st_mode) == 0o700
    assert workers.runs_dir() == private_tmp               # met again: it is ours, and closed


def test_a_runs_folder_of_another_user_is_refused(private_tmp):
    private_tmp.mkdir(mode=0o700)
    os.chown(private_tmp, 12345, 12345)                    # as another user who made it first
    with pytest.raises(workers.WorkerError, match=f"belongs to user 12345, not to you \\(user {os.getuid()}\\)"):
        workers.runs_dir()
    with pytest.raises(workers.WorkerError, match="belongs to user 12345"):
        launch.launch(tensor_parallel._shards_task, [{}])     # before any worker starts


def test_a_runs_folder_open_to_others_is_refused(private_tmp):
    private_tmp.mkdir()
    os.chmod(private_tmp, 0o777)
    with pytest.raises(workers.WorkerError, match="is open to other users \\(mode 777\\); it must be yours alone"):
        workers.runs_dir()
    private_tmp.rmdir()
    private_tmp.symlink_to(private_tmp.parent)
    with pytest.raises(workers.WorkerError, match="is not a folder"):
        workers.runs_dir()


class Planted:
    """An object whose unpickling runs code: here it only touches a file."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


def test_a_payload_that_would_run_code_is_refused_and_never_run(tmp_path):
    ran = tmp_path / "ran"
    with pytest.raises(TypeError, match="payloads\\[0\\] holds [\\w.]+, which the workers do not load"):
        launch.launch(tensor_parallel._shards_task, [{"x": Planted(ran)}], timeout_s=120)
    assert not ran.exists()
    assert my_run_folders() == []
