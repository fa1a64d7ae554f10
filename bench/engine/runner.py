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
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from anonratio.bench.declarations import Algorithm
from anonratio.bench.engine._finalize import RTOL, finalize, load_reference_optima
from anonratio.bench.engine._pool import PeakMemory
from anonratio.bench.engine._sweep import run_sweep, sweep_iv
from anonratio.bench.engine.journal import Journal
from anonratio.bench.engine.record import (
    RunRecord,
    algorithm_seed,
    json_text,
    package_version,
    scalar_info,
)
from anonratio.bench.registry import get_algorithm
from anonratio.instances import Solution, instance_id, lower_bound, verify
from anonratio.instances.base import cold_copy
from anonratio.instances.validation import check_int, check_time_limit

__all__ = [
    "Task", "RunRecord", "run_record", "run_instance", "run_and_finalize", "execute_task",
    "sweep", "finalize", "load_reference_optima", "algorithm_seed", "package_version", "RTOL",
]  # fmt: skip


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


# ---------------------------------------------------------------------------------------------
# the stages of one run, each filling its part of the record
# ---------------------------------------------------------------------------------------------
def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _describe_instance(instance: Any, family: str, meta: dict | None) -> RunRecord:
    """A record of the columns that depend on the instance only (its bound: after the run)."""
    meta = dict(meta or {})
    record = RunRecord(
        problem=getattr(instance, "problem", type(instance).__name__),
        family=meta.get("family", family),
        instance=instance_id(instance),
        n=int(instance.n),
        params=json_text(dict(instance.params)),
        # k, or the clustering problems' minimum cluster size r (kr-center's k stays in params)
        k=int(getattr(instance, "r", 0) or getattr(instance, "k", 0)) or None,
        m=int(instance.table.n_attributes) if hasattr(instance, "table") else None,
        family_params=json_text(meta.get("params", {})),
        instance_seed=meta.get("seed"),
        known_optimum=_num(meta.get("optimum")),
        version=package_version(),
    )
    return record


def _instance_bound(record: RunRecord, instance: Any, proven: float | None) -> tuple[float, str]:
    """The instance's cheap lower bound, or the family's proven one (gadgets) when larger."""
    value, source = 0.0, "none"
    try:
        found, how = lower_bound(instance)
        value, source = float(found), str(how)
    except Exception as exc:  # a broken bound must not lose the run
        record.error = f"lower bound failed: {type(exc).__name__}: {exc}"
    if proven is not None and float(proven) > value:
        value, source = float(proven), f"{record.family} construction"
    return value, source


def _start_run(record: RunRecord, algorithm: str, seed: int | None, time_limit: float) -> None:
    """Reset the run's columns: an error until the run proves otherwise."""
    record.algorithm, record.kind = algorithm, None
    record.seed = None if seed is None else int(seed)
    record.time_limit = float(time_limit)
    record.status, record.verified, record.info = "error", False, "{}"
    for name in ("cost", "objective", "guarantee", "bound", "gap", "time_s", "peak_mb"):
        setattr(record, name, math.nan)


def _lookup(record: RunRecord, algorithm: str, instance: Any, options: Any) -> Algorithm | None:
    """The registered algorithm (with extra ``options``) if it runs on ``instance``; else None,
    with the reason."""
    try:
        alg = get_algorithm(algorithm)
        if options:
            alg = alg.with_options(options)
    except ValueError as exc:
        record.error = str(exc)
        return None
    record.kind = alg.kind
    reason = alg.supports(instance)
    if reason is not None:
        record.error = f"unsupported: {reason}"
        return None
    return alg


def _execute(
    record: RunRecord, alg: Algorithm, instance: Any, seed: int | None, time_limit: float
) -> Solution | None:
    """Run the algorithm, timing it and measuring its memory; None when it failed."""
    try:
        with PeakMemory() as mem:
            t0 = time.perf_counter()
            try:
                solution = alg.run(instance, seed=seed, time_limit=time_limit)
            finally:
                record.time_s = time.perf_counter() - t0
        record.peak_mb = mem.peak_mb
    except MemoryError as exc:
        record.status, record.error = "memory_limit", f"MemoryError: {exc}"
        return None
    except Exception as exc:
        record.status, record.error = "error", f"{type(exc).__name__}: {exc}"
        return None
    record.solution = solution
    return solution


def _record_solution(record: RunRecord, alg: Algorithm, instance: Any, solution: Solution) -> None:
    """The solver's own claims: status, the proven guarantee, objective and scalar info."""
    record.status = solution.status
    if alg.kind == "exact" or solution.status in ("feasible", "optimal"):
        # a run that ends neither feasible nor optimal proves no ratio (e.g. a factor ILP
        # stopped by its time limit)
        try:
            record.guarantee = _num(alg.guarantee(instance, solution))
        except Exception as exc:
            record.error = f"guarantee failed: {type(exc).__name__}: {exc}"
    record.objective = _num(solution.objective)
    record.info = json_text(scalar_info(solution.info))


def _verify(record: RunRecord, instance: Any, solution: Solution) -> None:
    """The independent verifier's cost and problem-specific columns; errors when infeasible."""
    if solution.labels is not None:
        try:
            check = verify(instance, solution, strict=False)
        except Exception as exc:
            check = None
            record.error = f"verifier failed: {type(exc).__name__}: {exc}"
        if check is not None:
            record.problem_columns = dict(check.columns())
            if check.feasible:
                record.verified, record.cost = True, float(check.cost)
            else:
                record.status = "error"
                record.error = "infeasible solution: " + "; ".join(check.violations[:5])
    elif solution.status in ("optimal", "feasible"):
        record.status = "error"
        record.error = f"status {solution.status!r} but no solution returned"
    if record.verified and not math.isnan(record.objective):
        if not math.isclose(record.objective, record.cost, rel_tol=RTOL, abs_tol=RTOL):
            record.error = f"solver objective {record.objective} != verified cost {record.cost}"


def _run_bound(record: RunRecord, alg: Algorithm, solution: Solution) -> None:
    """The run's own valid lower bound (exact: its bound and gap; factor bounds where proven)."""
    status, bound = solution.status, None
    if alg.kind == "exact" and status in ("optimal", "time_limit", "feasible"):
        bound = solution.lower_bound
        if bound is None and status == "optimal" and record.verified:
            bound = record.cost
        if bound is not None:
            record.bound = float(bound)
            if record.verified:
                c = record.cost
                record.gap = 0.0 if c <= 0 else max(0.0, (c - float(bound)) / c)
    elif alg.kind != "exact" and solution.lower_bound is not None and record.status != "error":
        bound = solution.lower_bound  # factor bounds, set by a solver only where proven
    if bound is not None and float(bound) > record.run_lower_bound:
        record.run_lower_bound = float(bound)
        src = solution.info.get("lower_bound_source") if solution.info else None
        record.run_lower_bound_source = src or f"{record.algorithm}-bound"


def _run_algorithm(
    record: RunRecord, instance: Any, algorithm: str, *, seed: int | None, time_limit: float,
    options: Any = None, proven: float | None = None, bounds: dict | None = None,
) -> RunRecord:  # fmt: skip
    """Run ``algorithm`` on a cold copy of ``instance`` (its time includes what it builds, e.g.
    FOREST's neighbours) and complete ``record``; then the instance bound, from that copy, once
    per batch with ``bounds``; ``proven``: a bound the family proves."""
    _start_run(record, algorithm, seed, time_limit)
    work = cold_copy(instance)
    alg = _lookup(record, algorithm, instance, options)
    solution = None if alg is None else _execute(record, alg, work, seed, time_limit)
    if solution is not None:
        _record_solution(record, alg, instance, solution)
        _verify(record, instance, solution)
        _run_bound(record, alg, solution)
    if bounds is None or "bound" not in bounds:
        value, source = _instance_bound(record, work, proven)
        if bounds is not None:
            bounds["bound"] = (value, source)
    else:
        value, source = bounds["bound"]
    if value >= record.run_lower_bound:  # else the run proved more (an exact solver's bound)
        record.run_lower_bound, record.run_lower_bound_source = value, source
    return record


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
        A ``seed``, ``time_limit``, ``family`` or ``meta`` of the wrong kind.
    """
    seed, time_limit = _run_iv(seed, time_limit, family, meta)
    return _run_algorithm(_describe_instance(instance, family, meta), instance, algorithm,
                          seed=seed, time_limit=time_limit, options=options,
                          proven=(meta or {}).get("lower_bound"))  # fmt: skip


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
) -> RunRecord:
    """:func:`run_record`, then :func:`finalize` (with ``reference``) on that single run.

    Returns the record with ``lower_bound``, ``optimum`` (the run's own proof, the family's known
    ``meta["optimum"]`` or the instance's reference optimum), ``optimum_status``, ``ratio`` and
    ``certified_ratio`` filled, and the run's ``solution``.
    """
    record = run_record(
        instance,
        algorithm,
        seed=seed,
        time_limit=time_limit,
        family=family,
        meta=meta,
        options=options,
    )
    row = finalize(pd.DataFrame([record.to_row()]), reference=reference).iloc[0].to_dict()
    return RunRecord.from_row(row, solution=record.solution)


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
    record = _describe_instance(instance, task.family, meta)
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
    _run_algorithm(record, instance, task.algorithm, seed=seed, time_limit=task.time_limit,
                   proven=kept["meta"].get("lower_bound"), bounds=kept["bounds"])  # fmt: skip
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
