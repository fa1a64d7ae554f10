"""Worker processes for :func:`anonratio.bench.engine.runner.sweep`: local ones, or a Dask
cluster's.

One forked process per task, at most ``n_jobs`` at a time, each with a hard wall-clock deadline
(``time_limit + grace``; a worker past it is terminated and its row gets ``status="time_limit"``)
and an optional memory limit: the resident memory (RSS) a worker may add to its resident set at
start. The parent reads each worker's peak resident set (``VmHWM`` and ``VmRSS`` in
``/proc/<pid>/status``) every ``MEMORY_POLL_S`` seconds, and the worker checks its own before
each report, so a run past the limit is stopped however short it is; its row gets
``status="memory_limit"`` (as does a ``MemoryError``). The worker reports the instance columns
before the algorithm starts, so a killed run still knows its instance. Workers are forked (not
spawned), so they inherit the parent's imports and registry.

``on_done(index, row)`` is called in the parent as each task finishes (the durable journal of
:mod:`anonratio.bench.engine._sweep`). With a ``stop`` guard
(:mod:`anonratio.bench.engine._signals`) a SIGINT or SIGTERM wakes the pool at once: rows already
finished are passed on, every worker is terminated (killed a second later if still alive) and
reaped, and :class:`~anonratio.bench.engine._signals.StopRequested` is raised. Workers ignore SIGINT
and die with the parent.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing as mp
import os
import resource
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

from anonratio.bench.engine._signals import SignalGuard, worker_signals

__all__ = ["run_local", "run_dask", "filled", "proc_status_mb", "PeakMemory", "MEMORY_POLL_S"]

#: seconds between two reads of the workers' resident sets under a memory limit
MEMORY_POLL_S = 0.05

#: what a task's ``execute`` returns (a row; a batch's list of rows)
_Result = TypeVar("_Result")
#: what a task's ``blank_row`` returns: the row the worker's reports fill in, kept if it fails
_Partial = TypeVar("_Partial", bound=dict[str, Any])
_T = TypeVar("_T")


def proc_status_mb(field_name: str, pid: int | str = "self") -> float | None:
    """A ``/proc/<pid>/status`` field (``VmRSS``, ``VmHWM``, ``VmSize``) in MiB, or None (no
    ``/proc``, a process gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    return None


def _reset_peak() -> bool:
    """Reset this process's ``VmHWM`` to its current resident size; False without ``/proc``."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def _resident_peak_mb(pid: int | str = "self") -> float | None:
    """The process's peak resident set since its last ``clear_refs`` reset, in MiB."""
    sizes = [v for v in (proc_status_mb("VmHWM", pid), proc_status_mb("VmRSS", pid)) if v]
    return max(sizes) if sizes else None


def _over_limit(text: str, grown: float, memory_limit_mb: float) -> str:
    return (
        f"{text}: its resident set grew by {grown:.1f} MiB, past the memory limit of "
        f"{memory_limit_mb:g} MiB"
    )


class PeakMemory:
    """Peak resident-set growth of this process over a ``with`` block, in MiB (``peak_mb``).

    The kernel's high-water mark ``VmHWM`` is reset (``/proc/self/clear_refs``) on entry and read
    on exit, minus the resident size on entry. Without ``/proc`` it falls back to the growth of
    ``ru_maxrss``, which is 0 when the block stays below an earlier peak.
    """

    peak_mb: float
    #: True when ``start`` is the ``VmRSS`` read after a ``VmHWM`` reset (else ``ru_maxrss``)
    proc: bool
    start: float

    def __enter__(self) -> PeakMemory:
        start = proc_status_mb("VmRSS") if _reset_peak() else None
        self.proc = start is not None
        if start is None:
            start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        self.start = start
        return self

    def __exit__(self, *exc: object) -> None:
        end = proc_status_mb("VmHWM") if self.proc else None
        if end is None:
            end = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        self.peak_mb = max(0.0, end - self.start)


class _MemoryLimitReached(BaseException):
    """The worker's own check found its resident set past the limit (it then stops; a
    BaseException, so no handler of the run swallows it)."""


def _sender(conn: Connection, memory_limit_mb: float | None) -> Callable[[str, Any], None]:
    """``send(kind, payload)`` for the worker: first tells the parent the worker's resident set
    at start (``"base"``); under a memory limit the worker then checks its own peak after each
    report (``"start"``: the instance is known even to a run stopped) and before its result
    (``"done"``), and once past the limit sends ``"memory"`` (the growth) and stops, so even a
    run shorter than the parent's polling interval is caught."""
    base = None
    if memory_limit_mb is not None and _reset_peak():  # forget the parent's peak
        base = proc_status_mb("VmRSS")
    conn.send(("base", base))

    def check() -> None:
        if base is None or memory_limit_mb is None:  # no limit, or no /proc to check it with
            return
        peak = _resident_peak_mb()
        if peak is not None and peak - base > memory_limit_mb:
            conn.send(("memory", peak - base))
            raise _MemoryLimitReached

    def send(kind: str, payload: Any) -> None:
        if kind == "done":
            check()
        conn.send((kind, payload))
        if kind != "done":
            check()

    return send


def _worker(task, conn, memory_limit_mb, execute, parent):
    try:
        worker_signals(parent)
        send = _sender(conn, memory_limit_mb)
        row = execute(task, report=lambda r: send("start", r))
        send("done", row)
    except _MemoryLimitReached:
        pass
    except BaseException as exc:  # pragma: no cover - last resort, keep the parent informed
        try:
            conn.send(("crash", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        except Exception:
            pass
    finally:
        conn.close()


class _Job:
    def __init__(self, index, task, ctx, memory_limit_mb, grace, execute, blank_row):
        self.index, self.task = index, task
        self.recv, send = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_worker,
            args=(task, send, memory_limit_mb, execute, os.getpid()),
            daemon=True,
        )
        self.proc.start()
        send.close()
        self.start = time.monotonic()
        self.span = float(task.time_limit) + grace
        self.deadline = self.start + self.span
        self.partial = blank_row(task)
        self.row = None
        self.base = None  # the worker's resident set at start (MiB), once it said
        self.grown = None  # its growth (MiB) once found past the memory limit

    def drain(self):
        """Read what the worker sent; True once the job is over."""
        try:
            while self.recv.poll():
                kind, payload = self.recv.recv()
                if kind == "start":
                    self.partial.update(payload)
                elif kind == "done":
                    self.row = payload
                elif kind == "base":
                    self.base = payload
                elif kind == "memory":
                    self.grown = payload
                    return True
                else:
                    self.partial["error"] = f"worker crashed: {payload}"
        except (EOFError, OSError):
            return True
        return self.row is not None

    def over_memory(self, memory_limit_mb):
        """True when the worker's peak resident set has grown past ``memory_limit_mb``."""
        if memory_limit_mb is None or self.base is None or self.row is not None:
            return False
        peak = _resident_peak_mb(self.proc.pid)
        if peak is not None and peak - self.base > memory_limit_mb:
            self.grown = peak - self.base
        return self.grown is not None

    def finish(self, memory_limit_mb, timed_out=False):
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(2)
            if self.proc.is_alive():
                self.proc.kill()
        self.proc.join()
        self.recv.close()
        if self.row is not None and self.grown is None:
            return self.row
        row = self.partial
        if self.grown is not None:
            row["status"] = "memory_limit"
            row["time_s"] = time.monotonic() - self.start
            row["error"] = _over_limit("stopped", self.grown, memory_limit_mb)
        elif timed_out:
            row["status"] = "time_limit"
            row["time_s"] = time.monotonic() - self.start
            row["error"] = f"killed after the hard timeout ({self.span:.1f} s)"
        elif row.get("error") is None or not str(row["error"]).startswith("worker crashed"):
            row["status"] = "error"
            row["error"] = f"worker died without a result (exit code {self.proc.exitcode})"
        return row


#: imported once in the parent so forked workers start with them loaded
_PRELOAD = (
    "anonratio.bench.registry",  # imports every declared algorithm
)


def _preload():
    for name in _PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # a missing or broken module fails in its own tasks, not here
            pass


def _stop_all(jobs: list[_Job], patience: float = 1.0) -> None:
    """Terminate every job's worker, kill those still alive after ``patience`` s, reap them."""
    for job in jobs:
        if job.proc.is_alive():
            with contextlib.suppress(OSError):
                job.proc.terminate()
    end = time.monotonic() + patience
    for job in jobs:
        job.proc.join(max(0.0, end - time.monotonic()))
    for job in jobs:
        if job.proc.is_alive():
            with contextlib.suppress(OSError):
                job.proc.kill()
        job.proc.join()
        with contextlib.suppress(OSError):
            job.recv.close()


def run_local(
    tasks: Sequence[Any],
    n_jobs: int,
    memory_limit_mb: float | None,
    grace: float | None,
    bar: Any,
    execute: Callable[..., _Result],
    blank_row: Callable[[Any], _Partial],
    *,
    on_done: Callable[[int, _Result | _Partial], None] | None = None,
    stop: SignalGuard | None = None,
) -> list[_Result | _Partial]:
    """Run ``execute(task, report)`` for every task in forked workers; rows in task order.

    Parameters
    ----------
    tasks : sequence
        Objects with a ``time_limit`` (a :class:`~anonratio.bench.engine.runner.Task` or a batch).
    n_jobs : int
        Workers running side by side.
    memory_limit_mb : float or None
        Resident memory (MiB) a worker may add to its resident set at start; a worker past it
        is stopped and its run gets a ``memory_limit`` row.
    grace : float or None
        Seconds past ``time_limit`` before a worker is killed (None: ``10 + 0.2 time_limit``).
    bar : progress bar
        ``bar.update(1)`` per finished task.
    execute : callable
        ``execute(task, report=) -> row``, run in the worker.
    blank_row : callable
        ``blank_row(task) -> row``: the row of a task whose worker died before reporting.
    on_done : callable, optional
        ``on_done(index, row)`` in the parent as soon as a task's row is final.
    stop : SignalGuard, optional
        Wake on its signal: pass on the finished rows, reap every worker, raise
        :class:`~anonratio.bench.engine._signals.StopRequested`.

    Returns
    -------
    list
        One row per task, in task order: what ``execute`` returned, or the task's
        ``blank_row`` (filled in with the worker's reports) when it failed.
    """
    _preload()
    ctx = mp.get_context("fork")
    rows: list[_Result | _Partial | None] = [None] * len(tasks)
    pending = list(enumerate(tasks))[::-1]
    running: list[_Job] = []
    deferred = stop.deferred() if stop is not None else contextlib.nullcontext()

    def done(job: _Job, row: _Result | _Partial) -> None:
        rows[job.index] = row
        bar.update(1)
        if on_done is not None:
            on_done(job.index, row)

    try:
        with deferred:
            while pending or running:
                if stop is not None and stop.signum is not None:
                    for job in running:  # keep what finished before the signal
                        if job.drain() and job.row is not None:
                            done(job, job.row)
                    stop.check()
                while pending and len(running) < n_jobs:
                    index, task = pending.pop()
                    g = grace if grace is not None else 10.0 + 0.2 * float(task.time_limit)
                    running.append(_Job(index, task, ctx, memory_limit_mb, g, execute, blank_row))
                timeout = max(0.0, min(j.deadline for j in running) - time.monotonic())
                if memory_limit_mb is not None:
                    timeout = min(timeout, MEMORY_POLL_S)
                ready = [j.recv for j in running] + [j.proc.sentinel for j in running]
                wait(ready + ([stop] if stop is not None else []), timeout=timeout)
                if stop is not None and stop.signum is not None:
                    continue
                still = []
                for job in running:
                    over = job.drain()
                    if not over and not job.proc.is_alive():
                        over = job.drain() or True
                    over = over or job.over_memory(memory_limit_mb)
                    timed_out = not over and time.monotonic() >= job.deadline
                    if over or timed_out:
                        done(job, job.finish(memory_limit_mb, timed_out=timed_out))
                    else:
                        still.append(job)
                running = still
    finally:
        _stop_all(running)
    return filled(rows)


def filled(rows: Sequence[_T | None]) -> list[_T]:
    """``rows`` once every task has its row (the pools run until none is missing)."""
    out = [row for row in rows if row is not None]
    if len(out) != len(rows):
        raise RuntimeError(f"{len(rows) - len(out)} of {len(rows)} tasks finished without a row")
    return out


def run_dask(
    tasks: Sequence[Any],
    scheduler: str,
    bar: Any,
    *,
    execute: Callable[..., dict],
    blank_row: Callable[[Any], dict],
    on_done: Callable[[int, Any], None] | None = None,
) -> list[dict]:
    """Run ``execute(task)`` for every task on a Dask cluster; rows in task order.

    A task whose Dask future fails gets ``blank_row(task)`` with the failure in ``error``. Needs
    ``dask.distributed`` (not a dependency: ``ImportError`` saying what to install).
    """
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:
        raise ImportError(
            "running a sweep on a Dask scheduler needs dask.distributed, which is not a "
            'dependency of anonratio: pip install "dask[distributed]"'
        ) from exc
    rows: list[dict] = [{} for _ in tasks]
    with Client(scheduler) as client:
        futures = client.map(execute, tasks, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for fut in as_completed(futures):
            i = index[fut.key]
            try:
                rows[i] = fut.result()
            except Exception as exc:
                rows[i] = blank_row(tasks[i])
                rows[i]["error"] = f"dask task failed: {type(exc).__name__}: {exc}"
            bar.update(1)
            if on_done is not None:
                on_done(i, rows[i])
    return rows
