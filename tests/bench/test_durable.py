"""Fault tests of durable sweeps (``anonratio run``): kill -9 and resume, SIGINT / SIGTERM with
output on a pipe, two sweeps on one folder, memory and time limits, an early ``--out`` check.

The sweeps run in subprocesses. The real suites are too long to run twice here, so most tests
start the CLI through a small script that registers test algorithms (``slow``: forest after a
pause; ``hog``: fills 512 MiB; ``hang``: sleeps) and a suite read from the environment, then
calls :func:`anonratio.bench.cli.parser.main`; the SIGINT test runs ``python -m anonratio.bench.cli
run quick`` itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.engine._signals import NonBlockingStderr
from anonratio.bench.engine.journal import JOURNAL, Journal, check_out_dir
from anonratio.bench.engine.suites import get_suite

_SCRIPT = r"""
import json, os, sys, time
import numpy as np
from anonratio.bench import registry
from anonratio.bench.engine import runner
from anonratio.bench.engine import suites
from anonratio.bench.declarations import Algorithm
from anonratio.bench.cli.parser import main

def slow(instance, *, seed=None, time_limit=None):
    time.sleep(float(os.environ.get("DURABLE_DELAY", "0.2")))
    return registry.get_algorithm("forest").run(instance, seed=seed, time_limit=time_limit)

def hog(instance, *, seed=None, time_limit=None):
    return np.ones(2**26)  # 512 MiB, touched

def hang(instance, *, seed=None, time_limit=None):
    time.sleep(60)

for name, function in (("slow", slow), ("hog", hog), ("hang", hang)):
    registry.REGISTRY[name] = Algorithm(
        name=name, problem="k-anonymity", kind="approximation", function=function,
        guarantee=lambda instance, solution=None: None, guarantee_text="none", source="test",
        complexity="O(1)",
    )
tasks = [runner.Task(f, p, s, a, t) for f, p, s, a, t in json.loads(os.environ["DURABLE_TASKS"])]
suites.get_suite = lambda name: suites.Suite(name, "test suite", lambda: list(tasks))
if "DURABLE_GRACE" in os.environ:  # a short hard-kill grace, so a hang costs a second
    sweep = runner.sweep
    runner.sweep = lambda *a, **kw: sweep(*a, grace=float(os.environ["DURABLE_GRACE"]), **kw)
sys.exit(main(sys.argv[1:]))
"""

_ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def _tasks(algorithms=("slow", "kanon-cpsat", "forest"), seeds=range(4), time_limit=20.0):
    return [
        ("kanon-binary", {"n": 8, "m": 3, "k": k}, s, a, time_limit)
        for s in seeds
        for k in (2, 3)
        for a in algorithms
    ]


def _start(out, tasks, *extra, delay=0.2, grace=None, **popen):
    env = {**_ENV, "DURABLE_TASKS": json.dumps(tasks), "DURABLE_DELAY": str(delay)}
    if grace is not None:
        env["DURABLE_GRACE"] = str(grace)
    cmd = [sys.executable, "-c", _SCRIPT, "run", "test", "--out", str(out), "--jobs", "2"]
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen([*cmd, *extra], env=env, text=True, **popen)


def _run(out, tasks, *extra, **kw):
    proc = _start(out, tasks, *extra, **kw)
    stdout, stderr = proc.communicate(timeout=120)
    return proc.returncode, stdout, stderr


def _lines(out):
    try:
        return (Path(out) / JOURNAL).read_bytes().count(b"\n")
    except OSError:
        return 0


def _wait_for_lines(out, n, proc, timeout=90):
    end = time.monotonic() + timeout
    while _lines(out) < n:
        assert proc.poll() is None, "the sweep ended before the signal"
        assert time.monotonic() < end, "the sweep recorded too few runs"
        time.sleep(0.01)


def _children(pid):
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _gone(pids, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        alive = [p for p in pids if Path(f"/proc/{p}").exists() and not _zombie(p)]
        if not alive:
            return True
        time.sleep(0.05)
    return False


def _zombie(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (OSError, IndexError):
        return True


def _comparable(df):
    """The table without what differs between two runs of the same sweep (timings)."""
    out = df.drop(columns=["time_s", "cpu_s", "peak_mb", "bound_time_s"]).copy()

    def info(text):
        data = json.loads(text) if isinstance(text, str) else {}
        return json.dumps({k: v for k, v in data.items() if "time" not in k}, sort_keys=True)

    out["info"] = out["info"].map(info)
    return out


# ---------------------------------------------------------------------------------------------
# kill -9, then the same command again
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_sigkill_then_resume_gives_the_uninterrupted_table(tmp_path):
    tasks = _tasks(seeds=range(3))
    code, _, err = _run(tmp_path / "whole", tasks)
    assert code == 0, err
    whole = pd.read_parquet(tmp_path / "whole" / "results.parquet")
    assert len(whole) == len(tasks) and _lines(tmp_path / "whole") == len(tasks)

    out = tmp_path / "killed"
    proc = _start(out, tasks)
    _wait_for_lines(out, 5, proc)
    workers = _children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert _gone(workers), "workers outlived the killed sweep"
    before = _lines(out)
    assert 5 <= before < len(tasks)
    assert not (out / "results.parquet").exists()
    with open(out / JOURNAL, "a") as fh:  # as if killed in the middle of a write
        fh.write('{"key": "0123", "row": {"family": "kanon-')

    code, _, err = _run(out, tasks)
    assert code == 0, err
    assert f"resuming: {before} runs already recorded" in err
    assert _lines(out) == len(tasks)  # only the missing runs were redone, the cut line dropped
    resumed = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(_comparable(resumed), _comparable(whole))


# ---------------------------------------------------------------------------------------------
# SIGINT / SIGTERM with output on a pipe
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow  # a killed sweep in a subprocess
@pytest.mark.parametrize(("sig", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_signal_stops_within_5_s_and_keeps_finished_runs(tmp_path, sig, group):
    out = tmp_path / "quick"
    cmd = [sys.executable, "-m", "anonratio.bench.cli.parser", "run", "quick", "--out", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_ENV,
        start_new_session=True,  # a group of its own: the terminal's Ctrl-C reaches it all
    )
    _wait_for_lines(out, 3, proc)
    workers = _children(proc.pid)
    t0 = time.monotonic()
    if group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    elapsed = time.monotonic() - t0
    assert elapsed < 5.0, f"took {elapsed:.1f} s to stop"
    assert proc.returncode == 128 + sig
    assert _gone(workers)
    err = err.decode()
    kept = _lines(out)
    assert kept >= 3
    total = len(get_suite("quick").tasks())
    assert f"stopped by {signal.Signals(sig).name}: {kept} of {total} runs are recorded" in err
    assert f"run the same command again: anonratio run quick --out {out} --jobs 2" in err
    rows = Journal(out).load()
    assert len(rows) == kept and all(r["algorithm"] for r in rows.values())


def test_progress_output_never_blocks_on_a_full_pipe():
    read, write = os.pipe()
    os.set_blocking(write, False)
    while True:  # fill the pipe
        try:
            os.write(write, b"x" * 4096)
        except BlockingIOError:
            break
    os.set_blocking(write, True)
    with os.fdopen(write, "w") as stream:
        t0 = time.monotonic()
        assert NonBlockingStderr(stream).write("sweep: 3/444\r") == len("sweep: 3/444\r")
        assert time.monotonic() - t0 < 1.0
    os.close(read)


# ---------------------------------------------------------------------------------------------
# the folder: one sweep at a time, checked before any work
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow  # a killed sweep in a subprocess
def test_a_second_sweep_on_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "shared"
    tasks = _tasks(algorithms=("slow",), seeds=range(6))
    first = _start(out, tasks, delay=1.0)
    _wait_for_lines(out, 1, first)
    code, stdout, err = _run(out, tasks)
    assert code == 2 and stdout == ""
    assert err.strip().splitlines() == [
        f"anonratio: error: another sweep is writing to '{out}' (process {first.pid}); "
        "wait for it to finish or use another --out"
    ]
    first.send_signal(signal.SIGTERM)
    first.communicate(timeout=30)
    assert first.returncode == 143
    with Journal(out) as journal:  # the lock went with the stopped sweep
        assert len(journal.load()) == _lines(out) >= 1


def test_out_is_checked_before_any_work(tmp_path, capsys, monkeypatch):
    """In process: the sweep (of the ``quick`` suite) never starts."""
    from anonratio.bench.cli.parser import main
    from anonratio.bench.engine import runner

    def sweep(*args, **kwargs):
        raise AssertionError("the sweep started before `--out` was checked")

    monkeypatch.setattr(runner, "sweep", sweep)
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    code = main(["run", "quick", "--out", str(afile / "sub"), "--jobs", "2"])
    stdout, err = capsys.readouterr()
    assert code == 2 and stdout == ""
    assert err == f"anonratio: error: `--out` must be a folder, but '{afile}' is a file\n"
    with pytest.raises(ValueError, match="is a file"):
        check_out_dir(afile)
    assert check_out_dir(tmp_path / "new" / "folder").is_dir()
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "ro"
        locked.mkdir(mode=0o500)
        with pytest.raises(ValueError, match="is not writable: Permission denied"):
            check_out_dir(locked)


# ---------------------------------------------------------------------------------------------
# limits
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_runs_over_their_memory_or_time_limit_become_rows(tmp_path):
    tasks = [
        ("kanon-binary", {"n": 8, "m": 3, "k": 2}, 0, a, 60.0) for a in ("hog", "forest", "hang")
    ] + [("kanon-binary", {"n": 8, "m": 3, "k": 3}, 1, "forest", 60.0)]
    args = ("--memory-limit", "100", "--time-limit", "0.5")
    # a grace long enough for the hog to outgrow the memory limit on a loaded machine
    code, _, err = _run(tmp_path, tasks, *args, grace=2.0)
    assert code == 0, err
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert list(df["algorithm"]) == ["hog", "forest", "hang", "forest"]
    assert list(df["status"]) == ["memory_limit", "feasible", "time_limit", "feasible"]
    assert df.loc[0, "error"].startswith("stopped: its resident set grew by ")
    assert df.loc[2, "error"].startswith("killed after the hard timeout")
    assert np.all(df["time_limit"] == 0.5) and np.all(df["memory_limit_mb"] == 100)
    assert df.loc[[1, 3], "verified"].all()


@pytest.mark.slow  # a sweep in a subprocess whose every run is killed
def test_a_one_megabyte_memory_limit_stops_every_run_and_the_sweep_goes_on(tmp_path):
    # an address-space cap let every run of this sweep through (peaks of several MB)
    tasks = _tasks(algorithms=("forest", "kanon-cpsat"), seeds=range(2))
    code, _, err = _run(tmp_path, tasks, "--memory-limit", "1")
    assert code == 0, err
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert len(df) == len(tasks) and set(df["status"]) == {"memory_limit"}
    assert df["error"].str.endswith(", past the memory limit of 1 MiB").all()
    assert np.all(df["memory_limit_mb"] == 1)
    assert list(df["algorithm"]) == [t[3] for t in tasks] and df["family"].notna().all()


# ---------------------------------------------------------------------------------------------
# the journal itself
# ---------------------------------------------------------------------------------------------
def test_journal_drops_a_cut_line_and_keeps_the_last_entry_of_a_key(tmp_path):
    with Journal(tmp_path) as journal:
        journal.append("a", {"cost": 1.0, "gap": float("nan"), "error": None})
        journal.append("b", {"cost": 2.0})
        journal.append("a", {"cost": 3.0})
    with open(tmp_path / JOURNAL, "ab") as fh:
        fh.write(b'{"key": "c", "row": {"co')
    rows = Journal(tmp_path).load()
    assert set(rows) == {"a", "b"} and rows["a"] == {"cost": 3.0}
    with Journal(tmp_path) as journal:  # opening for appending cuts the partial line away
        journal.append("c", {"cost": 4.0})
    assert (tmp_path / JOURNAL).read_bytes().count(b"\n") == 4
    assert Journal(tmp_path).load()["c"] == {"cost": 4.0}
    assert not list(tmp_path.glob("*.tmp"))


def test_a_resumed_sweep_reruns_the_runs_of_other_code_and_skips_those_of_the_same(
    tmp_path, monkeypatch
):
    """Resume reuses a journaled row only when the code identity that made it is this one."""
    from anonratio.bench.engine import record, runner

    code = tmp_path / "code"
    (code / "bench").mkdir(parents=True)
    (code / "__init__.py").write_text("")
    (code / "bench" / "__init__.py").write_text("")
    (code / "bench" / "forest.py").write_text("GOOD = True\n")

    def sweep():
        record.code_identity.cache_clear()  # a new process after an install or an edit
        with Journal(tmp_path / "out") as journal:
            return runner.sweep(tasks, n_jobs=1, progress=False, journal=journal)

    monkeypatch.setattr(record, "package_root", lambda: code)
    tasks = [
        runner.Task("kanon-binary", {"n": 8, "m": 3, "k": 2}, s, "forest", 20.0) for s in (0, 1)
    ]
    try:
        first = sweep()
        label = record.package_version()
        assert list(first["version"]) == [label, label] and _lines(tmp_path / "out") == 2
        assert list(sweep()["version"]) == [label, label] and _lines(tmp_path / "out") == 2
        (code / "bench" / "forest.py").write_text("GOOD = False\n")  # a regression, installed
        changed = sweep()
        assert record.package_version() != label and _lines(tmp_path / "out") == 4
        assert list(changed["version"]) == [record.package_version()] * 2
        (code / "bench" / "forest.py").write_text("GOOD = True\n")  # reverted and reinstalled
        assert list(sweep()["version"]) == [label, label] and _lines(tmp_path / "out") == 4
    finally:
        record.code_identity.cache_clear()
