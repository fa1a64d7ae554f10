"""The body of :func:`anonratio.bench.engine.runner.sweep`: resume from a journal, run what is
missing, record each run as it finishes, stop cleanly on SIGINT / SIGTERM.

With a :class:`~anonratio.bench.engine.journal.Journal`, runs whose key (:func:`task_key`) the
journal already holds are not run again, every finished run is appended to it at once, and the
returned table is read back from it, in task order, so a resumed sweep gives the same table as an
uninterrupted one (timings aside).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pandas as pd

from anonratio.bench.engine._batch import run_batched
from anonratio.bench.engine._pool import run_dask
from anonratio.bench.engine._signals import NonBlockingStderr, stop_signals
from anonratio.bench.engine.journal import Journal, task_identity, task_key
from anonratio.instances.validation import check_int

__all__ = ["run_sweep", "sweep_iv", "pending_tasks"]


def sweep_iv(
    tasks: Iterable[Any], n_jobs: int, memory_limit_mb: float | None, task_type: type
) -> list[Any]:
    tasks = list(tasks)
    for t in tasks:
        if not isinstance(t, task_type):
            raise ValueError(f"`tasks` must hold Task objects, got {type(t).__name__}")
    check_int("n_jobs", n_jobs, low=1)
    if memory_limit_mb is not None and not memory_limit_mb > 0:
        raise ValueError(f"`memory_limit_mb` must be positive or None, got {memory_limit_mb!r}")
    return tasks


def pending_tasks(
    tasks: Sequence[Any], journal: Journal | None, memory_limit_mb: float | None
) -> list[int]:
    """Indices of the tasks ``journal`` holds no run of (all of them without a journal)."""
    if journal is None:
        return list(range(len(tasks)))
    recorded = journal.load()
    return [i for i, t in enumerate(tasks) if task_key(t, memory_limit_mb) not in recorded]


def run_sweep(
    tasks: Sequence[Any],
    *,
    n_jobs: int,
    scheduler: str | None,
    progress: bool,
    memory_limit_mb: float | None,
    grace: float | None,
    journal: Journal | None,
    execute: Callable[..., dict],
    blank_row: Callable[[Any], dict],
) -> pd.DataFrame:
    """Rows of every task in task order (see :func:`anonratio.bench.engine.runner.sweep`)."""
    from tqdm.auto import tqdm

    from anonratio.bench.engine.store import order_columns

    limit = None if scheduler is not None else memory_limit_mb
    rows: list[dict | None] = [None] * len(tasks)
    todo = pending_tasks(tasks, journal, memory_limit_mb)

    def on_done(j: int, row: dict) -> None:
        i = todo[j]
        row = {**row, "memory_limit_mb": limit}
        rows[i] = row
        if journal is not None:
            task = task_identity(tasks[i], memory_limit_mb)
            journal.append(task_key(tasks[i], memory_limit_mb), row, task)

    with stop_signals() as guard:
        out = NonBlockingStderr()
        with tqdm(total=len(todo), disable=not progress, desc="sweep", unit="run", file=out) as bar:
            chosen = [tasks[i] for i in todo]
            done: list[dict]
            if not chosen:
                done = []
            elif scheduler is not None:
                done = run_dask(
                    chosen, scheduler, bar, execute=execute, blank_row=blank_row, on_done=on_done
                )
            else:
                done = run_batched(
                    chosen,
                    n_jobs,
                    memory_limit_mb,
                    grace,
                    bar,
                    stop=guard,
                    execute=execute,
                    blank_row=blank_row,
                    on_done=on_done,
                )
        for j, row in enumerate(done):
            if rows[todo[j]] is None and row is not None:
                on_done(j, row)
        if journal is not None:
            recorded = journal.load()
            rows = [recorded[task_key(t, memory_limit_mb)] for t in tasks]
    return order_columns(pd.DataFrame(rows))
