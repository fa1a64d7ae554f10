"""Run algorithms on instances and turn every run into one verified :class:`RunRecord` (the results
schema: docs/architecture.md).

* :func:`run_record` runs one registered algorithm on one instance, times it, measures its peak
  memory, re-verifies the solution with :func:`anonratio.instances.verify` (the solver's own
  objective is never trusted), records the run's lower bound and returns the record;
  :func:`run_instance` returns its row. Solver failures become ``status="error"`` records; they
  never raise. :func:`run_and_finalize` adds the per-instance columns of that single run (what
  ``anonratio solve`` and ``anonratio anonymize`` print).
* :func:`sweep` runs a list of :class:`Task` in local worker processes (a hard wall-clock
  timeout, an optional resident-memory limit; tasks sharing a ``Task.batch`` key share a worker)
  or on a Dask cluster; a run that hangs or kills its worker gets its own failure row.
* :func:`finalize` fills the per-instance columns: reference optimum, best valid lower bound,
  ratio and certified ratio.

Seeds
-----
``Task.seed`` is the *instance* seed: the generator is called with it, so (family, params, seed)
always gives the same instance. The algorithm's seed is derived from the run identity,
``np.random.SeedSequence([task.seed, crc32(algorithm)]).generate_state(1)[0] & 0x7FFFFFFF``
(:func:`algorithm_seed`; 31 bits so every solver accepts it). Rows record both (``seed``,
``instance_seed``).

Each run gets a cold copy of its instance, so ``time_s`` and ``peak_mb`` (the growth of the
worker's resident set; CBC's subprocess does not count) include what the algorithm builds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from anonratio.bench.engine._finalize import RTOL, finalize, load_reference_optima
from anonratio.bench.engine._sweep import run_sweep, sweep_iv
from anonratio.bench.engine.bounds import check_bound
from anonratio.bench.engine.journal import Journal
from anonratio.bench.engine.record import (
    RunRecord,
    algorithm_seed,
    json_text,
    package_version,
)
from anonratio.bench.engine.run_stages import describe_instance, run_algorithm
from anonratio.bench.engine.utility import check_utility
from anonratio.bench.registry import get_algorithm
from anonratio.instances.validation import check_int, check_time_limit

__all__ = [
    "Task",
    "RunRecord",
    "run_record",
    "run_instance",
    "run_and_finalize",
    "execute_task",
    "sweep",
    "finalize",
    "load_reference_optima",
    "algorithm_seed",
    "package_version",
    "RTOL",
]


@dataclass(frozen=True)
class Task:
    """One run of a sweep: generate ``family(seed, **family_params)``, run ``algorithm`` on it.

    ``batch``: a key; local sweeps run the tasks sharing it one after another in one worker
    process (None: a process of its own).
    """

    family: str
    family_params: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    algorithm: str = "forest"
    time_limit: float = 60.0
    #: tasks with the same key (not None) share one worker process in a local sweep
    batch: str | None = None
    #: the utility metrics of the published table to report (:mod:`.utility`), none by default
    utility: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# the stages of one run, each filling its part of the record
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# one run
# ---------------------------------------------------------------------------------------------
def _run_iv(seed: Any, time_limit: Any, family: Any, meta: Any) -> tuple[int | None, float]:
    seed = check_int("seed", seed, low=0, allow_none=True)
    time_limit = check_time_limit(time_limit)
    if not isinstance(family, str):
        raise ValueError(f"`family` must be a string, got {type(family).__name__}")
    if meta is not None and not isinstance(meta, dict):
        raise ValueError(f"`meta` must be a dict or None, got {type(meta).__name__}")
    return seed, time_limit


def run_record(
    instance: Any,
    algorithm: str,
    *,
    seed: int | None = 0,
    time_limit: float = 60.0,
    family: str = "file",
    meta: dict | None = None,
    options: dict | None = None,
    bound: str = "default",
    utility: Any = None,
) -> RunRecord:
    """Run one registered algorithm on one instance and return its verified :class:`RunRecord`.

    Parameters
    ----------
    instance : a registered instance type (e.g. KAnonymityInstance)
    algorithm : str
        Registry name.
    seed : int or None
        The seed the algorithm receives (recorded as ``seed``); an integer >= 0.
    time_limit : float
        Seconds, positive, passed to exact solvers (approximation algorithms are only bounded by
        :func:`sweep`'s hard timeout).
    family : str
        Where the instance came from (``meta["family"]`` wins when given).
    meta : dict, optional
        Generator metadata: ``family``, ``params``, ``seed``, optionally a known ``optimum`` and
        a proven ``lower_bound``.
    options : dict, optional
        More options of the algorithm (``{"max_suppression": 0.02}``).
    bound : {"none", "fast", "default", "strong"}
        The effort of the instance's lower bound (:data:`~anonratio.bench.engine.bounds.BOUNDS`;
        ``strong`` gets ``time_limit`` of its own); its time is ``bound_time_s``.
    utility : None, "all", str or list of str
        Utility metrics of the published table to report in the ``utility`` column (JSON), their
        time in ``utility_time_s`` (:func:`~anonratio.bench.engine.utility.check_utility`); none
        by default.

    Returns
    -------
    RunRecord
        Every result column (per-instance ones such as ``optimum`` and ``ratio`` are filled by
        :func:`finalize`), the verifier's problem-specific columns and the ``solution``.
        ``guarantee`` is the registry's ratio for the instance and this run's solution, empty
        when a non-exact run ends neither ``feasible`` nor ``optimal``. Exceptions in the
        algorithm, unsupported instances, unknown algorithms and infeasible solutions give
        ``status="error"`` with the reason in ``error``.

    Raises
    ------
    ValueError
        A ``seed``, ``time_limit``, ``family``, ``meta`` or ``utility`` of the wrong kind.
    """
    seed, time_limit = _run_iv(seed, time_limit, family, meta)
    bound = check_bound(bound)
    names = check_utility(str(getattr(instance, "problem", "")), utility)
    return run_algorithm(
        describe_instance(instance, family, meta),
        instance,
        algorithm,
        seed=seed,
        time_limit=time_limit,
        options=options,
        proven=(meta or {}).get("lower_bound"),
        bound=bound,
        utility=names,
    )


def run_instance(instance: Any, algorithm: str, **kwargs: Any) -> dict[str, Any]:
    """The result row of :func:`run_record` (same parameters): ``run_record(...).to_row()``."""
    return run_record(instance, algorithm, **kwargs).to_row()


def run_and_finalize(
    instance: Any,
    algorithm: str,
    *,
    seed: int | None = 0,
    time_limit: float = 60.0,
    family: str = "file",
    meta: dict | None = None,
    reference: dict | str | Path | None = None,
    options: dict | None = None,
    bound: str = "default",
    utility: Any = None,
) -> RunRecord:
    """:func:`run_record`, then :func:`finalize` (with ``reference``) on that single run.

    Returns the record with ``lower_bound``, ``optimum`` (the run's own proof, the family's known
    ``meta["optimum"]`` or the instance's reference optimum), ``optimum_status``, ``ratio`` and
    ``certified_ratio`` filled, the run's ``solution`` and the ``exception`` its algorithm raised.
    """
    record = run_record(
        instance,
        algorithm,
        seed=seed,
        time_limit=time_limit,
        family=family,
        meta=meta,
        options=options,
        bound=bound,
        utility=utility,
    )
    row = finalize(pd.DataFrame([record.to_row()]), reference=reference).iloc[0].to_dict()
    final = RunRecord.from_row(row, solution=record.solution)
    final.exception = record.exception
    return final


# ---------------------------------------------------------------------------------------------
# task execution (in a worker)
# ---------------------------------------------------------------------------------------------
#: the run columns a task knows before its instance exists
_TASK_FIELDS = ("algorithm", "kind", "seed", "time_limit", "lower_bound", "lower_bound_source")


def _task_record(task: Task) -> RunRecord:
    """The record known from the task alone (the row of a worker that dies before reporting)."""
    try:
        kind = get_algorithm(task.algorithm).kind
    except ValueError:
        kind = None
    return RunRecord(
        family=task.family,
        family_params=json_text(task.family_params),
        instance_seed=task.seed,
        algorithm=task.algorithm,
        kind=kind,
        seed=algorithm_seed(task.seed, task.algorithm),
        time_limit=float(task.time_limit),
        version=package_version(),
        lower_bound=0.0,
        lower_bound_source="none",
    )


def _task_row(task: Task) -> dict[str, Any]:
    return _task_record(task).to_row()


def _generate(task: Task, cache: dict | None) -> tuple[Any, RunRecord, dict]:
    """``(instance, record, cache)`` of the task: ``cache`` keeps the last instance, its meta and
    its bound once computed."""
    key = (task.family, json_text(task.family_params), task.seed)
    if cache is not None and cache.get("key") == key:
        return cache["instance"], cache["record"], cache
    from anonratio.bench.registry import generate

    instance, meta = generate(task.family, seed=task.seed, **task.family_params)
    meta = {"family": task.family, "params": task.family_params, "seed": task.seed, **meta}
    record = describe_instance(instance, task.family, meta)
    if cache is not None:
        cache.update(key=key, instance=instance, record=record, meta=meta, bounds={})
    else:
        cache = {"meta": meta, "bounds": None}
    return instance, record, cache


def execute_task(
    task: Task, report: Callable[[dict], None] | None = None, *, cache: dict | None = None
) -> dict[str, Any]:
    """Generate the task's instance and run its algorithm; returns the row (never raises).

    ``report(row)`` is called with the instance columns before the algorithm starts, so a
    supervisor that has to kill the run still knows which instance it was. ``cache`` (a dict)
    reuses the last generated instance when consecutive tasks share it (batches).
    """
    record = _task_record(task)
    try:
        instance, described, kept = _generate(task, cache)
    except MemoryError as exc:
        record.status, record.error = "memory_limit", f"generation: MemoryError: {exc}"
        return record.to_row()
    except Exception as exc:
        record.error = f"generation failed: {type(exc).__name__}: {exc}"
        return record.to_row()
    record = dataclasses.replace(
        described, **{name: getattr(record, name) for name in _TASK_FIELDS}
    )
    if report is not None:
        report(record.to_row())
    seed = algorithm_seed(task.seed, task.algorithm)
    run_algorithm(
        record,
        instance,
        task.algorithm,
        seed=seed,
        time_limit=task.time_limit,
        proven=kept["meta"].get("lower_bound"),
        bounds=kept["bounds"],
        utility=tuple(task.utility),
    )
    return record.to_row()


# ---------------------------------------------------------------------------------------------
# sweeps
# ---------------------------------------------------------------------------------------------
def sweep(
    tasks: Iterable[Task],
    *,
    n_jobs: int = 2,
    scheduler: str | None = None,
    progress: bool = True,
    memory_limit_mb: float | None = None,
    grace: float | None = None,
    journal: Journal | None = None,
) -> pd.DataFrame:
    """Run every task and return one row per task, failures and timeouts included.

    Parameters
    ----------
    tasks : iterable of Task
    n_jobs : int
        Local worker processes running side by side (one fresh process per task).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``"tcp://host:8786"``). Needs
        ``pip install "dask[distributed]"``. On Dask the hard timeout and memory limit do not
        apply; exact solvers still stop at their time limit.
    progress : bool
        Show a tqdm progress bar.
    memory_limit_mb : float, optional
        Resident memory (MiB) a local worker may add to its resident set at start, checked by
        the parent every ``MEMORY_POLL_S`` s and by the worker at each report
        (:mod:`anonratio.bench.engine._pool`); a worker past it is stopped and its run becomes a
        ``memory_limit`` row (as does a ``MemoryError``).
    grace : float, optional
        Seconds allowed beyond ``task.time_limit`` before a local worker is killed (its row gets
        ``status="time_limit"``); default ``10 + 0.2 * time_limit``.
    journal : Journal, optional
        An open :class:`~anonratio.bench.engine.journal.Journal`: runs it already holds (same task,
        memory limit and code: the imported package's source hash) are skipped, each finished
        run is appended to it at once, and the table is read back from it.

    Notes
    -----
    Batches (tasks sharing ``Task.batch``, local sweeps only) run in task order in one worker,
    reusing consecutive tasks' shared instance, with the sum of their time limits (plus grace) as
    deadline. If the worker dies or is killed, its finished rows are kept, the run in progress gets
    the failure row (its ``error`` says it was in a batch) and the rest rerun one process each.
    SIGINT and SIGTERM stop a local sweep within about a second: the finished runs are kept
    (journaled), the workers reaped, and :class:`~anonratio.bench.engine._signals.StopRequested` (a
    ``KeyboardInterrupt``) is raised.

    Returns
    -------
    pandas.DataFrame
        One row per task in task order, not yet :func:`finalize`-d; ``memory_limit_mb`` holds
        the memory limit (empty on Dask, where it does not apply).
    """
    tasks = sweep_iv(tasks, n_jobs, memory_limit_mb, Task)
    return run_sweep(
        tasks,
        n_jobs=n_jobs,
        scheduler=scheduler,
        progress=progress,
        memory_limit_mb=memory_limit_mb,
        grace=grace,
        journal=journal,
        execute=execute_task,
        blank_row=_task_row,
    )
