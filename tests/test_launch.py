"""Workers end cleanly: each way a run can end is said in one sentence, and nothing is left behind.

After every failing run, `ps` must show none of its workers (alive or zombie), nothing they
started, and the run's folder must be gone.
"""

import _thread
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

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
    import signal
    import time

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(600)


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


def test_a_worker_that_ignores_sigterm_is_killed(monkeypatch):
    monkeypatch.setattr(workers, "GRACE_S", 1.0)
    err = failed_run(ignores_sigterm, timeout_s=15.0)
    assert "worker 0 ignored SIGTERM for 1 s and was killed with SIGKILL" in err.sentence, err.sentence


def test_an_interrupt_stops_the_workers():
    timer = threading.Timer(4.0, _thread.interrupt_main)   # as Jupyter's stop button does
    timer.start()
    try:
        err = failed_run(ignores_sigterm, timeout_s=60.0, error=KeyboardInterrupt)
    finally:
        timer.cancel()
    assert str(err).startswith("The run with 2 workers was interrupted: worker 0 "), str(err)


def test_workers_of_a_killed_kernel_quit_and_its_folder_is_removed_next_time(tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text(textwrap.dedent("""
        import torch
        from helpers import tensor_parallel

        def hangs(x, shard, all_reduce):
            import time
            time.sleep(600)

        tensor_parallel.run([{"W": torch.zeros(1)}] * 2, torch.zeros(1, 1), forward=hangs, timeout_s=600)
    """))
    kernel = subprocess.Popen([sys.executable, str(script)], env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    folders = []
    for _ in range(600):                        # wait until both workers run its function
        folders = list(launch.runs_dir().glob(f"run-{kernel.pid}-*"))
        if folders and len(_workers_in(folders[0])) == 2 and _imported(folders[0]):
            break
        time.sleep(0.1)
    assert folders, "the stand-in kernel never started its workers"
    workers = _workers_in(folders[0])
    kernel.send_signal(signal.SIGKILL)          # as when a kernel dies or is killed
    kernel.wait()
    for _ in range(300):
        if not [r for r in ps_rows(workers) if not r[3].startswith("Z")]:
            break
        time.sleep(0.1)
    # Orphans are init's to reap; what matters is that none is still running.
    assert [r for r in ps_rows(workers) if not r[3].startswith("Z")] == [], "workers outlived their parent"
    assert folders[0].exists()
    assert folders[0].name in launch.remove_stale_runs()
    assert not folders[0].exists()


def _workers_in(folder):
    """The pids of the workers whose command line names this run folder."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return {int(line.split(None, 1)[0]) for line in out.splitlines()
            if str(folder) in line and "_child_main" in line}


def _imported(folder):
    """True once both workers have been running long enough to have imported torch."""
    return all((folder / f"stderr{r}.txt").exists() for r in range(2)) and \
        all(time.time() - (folder / f"stderr{r}.txt").stat().st_mtime > 3 for r in range(2))


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
