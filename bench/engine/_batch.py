"""Batched local sweeps: several cheap tasks per worker process.

Used by :func:`anonratio.bench.engine.runner.sweep`. Tasks whose ``Task.batch`` is None run one
process each (:func:`~anonratio.bench.engine._pool.run_local`, unchanged); tasks sharing a ``batch``
key run one after another in one forked worker, which reports every start and every finished row
through the pool's pipe. The batch's hard deadline is the sum of its tasks' time limits (plus the
pool's grace for that sum). When a batch's worker is killed or dies, its finished rows are kept, the
run in progress gets the failure row (``time_limit``, ``error`` or ``memory_limit``, its ``error``
saying it ran in a batch) and the tasks it had not started are rerun one process each, so a
failure stays confined to the run that caused it.

``on_done(index, row)`` (task indices) is called as soon as a row is final: for a batch, as its
worker reports each finished run, so a sweep stopped mid-batch keeps the batch's finished runs.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from anonratio.bench.engine._pool import filled, run_local
from anonratio.bench.engine._signals import SignalGuard

__all__ = ["run_batched"]

_BATCH_KEY = "__batch__"


@dataclass(frozen=True)
class _Batch:
    """Tasks run one after another in one worker; ``time_limit`` is the worker's budget."""

    tasks: tuple[Any, ...]
    time_limit: float
    execute: Callable[..., dict[str, Any]]


def _execute_batch(
    batch: _Batch, report: Callable[[dict[str, Any]], None] | None = None
) -> list[dict[str, Any]]:
    """Worker side: run the batch's tasks, reporting each start and each finished row."""

    def send(payload: dict[str, Any]) -> None:
        if report is not None:
            report(payload)

    def reporter(i: int) -> Callable[[dict[str, Any]], None]:
        return lambda r: send({_BATCH_KEY: (i, "start", r)})

    cache: dict[Any, Any] = {}
    rows: list[dict[str, Any]] = []
    for i, task in enumerate(batch.tasks):
        send({_BATCH_KEY: (i, "start", None)})
        row = batch.execute(task, report=reporter(i), cache=cache)
        send({_BATCH_KEY: (i, "done", row)})
        rows.append(row)
    return rows


class _BatchProgress(dict[str, Any]):
    """Parent side of a batch: collects the worker's reports (the pool passes each to
    :meth:`update`); after a failure the pool sets ``status`` / ``error`` items on it."""

    def __init__(
        self,
        batch: _Batch,
        bar: Any,
        blank_row: Callable[[Any], dict[str, Any]],
        on_row: Callable[[int, dict[str, Any]], None],
    ) -> None:
        super().__init__()
        self.batch, self.bar, self.blank_row, self.on_row = batch, bar, blank_row, on_row
        self.rows: dict[int, dict[str, Any]] = {}
        self.current: int | None = None  # the run in progress
        self.current_row: dict[str, Any] | None = None  # its instance columns, once reported
        self.started: float | None = None  # when it started (time.monotonic)
        self._failed: dict[int, dict[str, Any]] | None = None

    def update(self, payload: Any = (), /, **kw: Any) -> None:
        i, what, row = dict(payload)[_BATCH_KEY]
        if what == "done":
            self.rows[i] = row
            self.current, self.current_row = None, None
            self.bar.update(1)
            self.on_row(i, row)
        else:
            if self.current != i:
                self.current, self.current_row, self.started = i, None, time.monotonic()
            if row is not None:
                self.current_row = row

    def failed_rows(self) -> dict[int, dict[str, Any]]:
        """``{index: row}``: the finished runs and the failed one (the others are missing)."""
        if self._failed is not None:
            return self._failed
        out = self._failed = dict(self.rows)
        i = self.current
        if i is not None:
            row = dict(self.current_row or self.blank_row(self.batch.tasks[i]))
            row["status"] = self.get("status", "error")
            error = self.get("error") or "worker died"
            row["error"] = f"{error} (in a batch of {len(self.batch.tasks)} runs)"
            if self.started is not None:
                row["time_s"] = time.monotonic() - self.started
            out[i] = row
            self.bar.update(1)
        return out


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


def run_batched(
    tasks: Sequence[Any],
    n_jobs: int,
    memory_limit_mb: float | None,
    grace: float | None,
    bar: Any,
    *,
    execute: Callable[..., dict[str, Any]],
    blank_row: Callable[[Any], dict[str, Any]],
    on_done: Callable[[int, dict[str, Any]], None] | None = None,
    stop: SignalGuard | None = None,
) -> list[dict[str, Any]]:
    """Rows of ``tasks`` in task order: unbatched tasks one process each, batches one each.

    ``execute(task, report, cache=)`` runs one task (``cache`` lets consecutive tasks of a batch
    reuse their instance), ``blank_row(task)`` is the complete row of a task whose worker died
    before reporting, ``on_done(index, row)`` is told of each final row once. The other
    parameters are those of :func:`~anonratio.bench.engine._pool.run_local`.
    """
    rows: list[dict[str, Any] | None] = [None] * len(tasks)
    told: set[int] = set()

    def tell(i: int, row: dict[str, Any]) -> None:
        if on_done is not None and i not in told:
            told.add(i)
            on_done(i, row)

    single = [i for i, t in enumerate(tasks) if t.batch is None]
    groups: dict[Hashable, list[int]] = {}
    for i, t in enumerate(tasks):
        if t.batch is not None:
            groups.setdefault(t.batch, []).append(i)

    def run_single(indices: Sequence[int], tasks_to_run: Sequence[Any]) -> None:
        done = run_local(
            tasks_to_run,
            n_jobs,
            memory_limit_mb,
            grace,
            bar,
            execute,
            blank_row,
            on_done=lambda j, row: tell(indices[j], row),
            stop=stop,
        )
        for i, row in zip(indices, done, strict=True):
            rows[i] = row

    if single:
        run_single(single, [tasks[i] for i in single])
    if not groups:
        return filled(rows)
    index = list(groups.values())

    def batch_done(b: int, result: list[dict[str, Any]] | _BatchProgress) -> None:
        if not isinstance(result, list):  # a failed batch: its run in progress is final now
            for j, row in result.failed_rows().items():
                tell(index[b][j], row)

    batches = [
        _Batch(tuple(tasks[i] for i in idx), sum(float(tasks[i].time_limit) for i in idx), execute)
        for idx in index
    ]
    pos = {id(b): n for n, b in enumerate(batches)}

    def progress(b: _Batch) -> _BatchProgress:
        indices = index[pos[id(b)]]
        return _BatchProgress(b, bar, blank_row, lambda j, row: tell(indices[j], row))

    results = run_local(
        batches,
        n_jobs,
        memory_limit_mb,
        grace,
        _NoBar(),  # rows are counted as the workers report them
        _execute_batch,
        progress,
        on_done=batch_done,
        stop=stop,
    )
    rerun: list[int] = []
    for idx, result in zip(index, results, strict=True):
        got = dict(enumerate(result)) if isinstance(result, list) else result.failed_rows()
        rerun += [i for j, i in enumerate(idx) if j not in got]
        for j, i in enumerate(idx):
            if j in got:
                rows[i] = got[j]
    if rerun:
        run_single(rerun, [dataclasses.replace(tasks[i], batch=None) for i in rerun])
    return filled(rows)
