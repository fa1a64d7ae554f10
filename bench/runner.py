"""Run algorithms on instances and turn every run into one verified result row (the results schema:
docs/architecture.md).

* :func:`run_instance` runs one registered algorithm on one instance, times it, measures its peak
  memory, re-verifies the solution with :func:`anonratio.instances.verify` (the solver's own
  objective is never trusted) and returns the row. Solver failures become ``status="error"`` rows;
  it never raises for them.
* :func:`sweep` runs a list of :class:`Task` in local worker processes (one process per task, a
  hard wall-clock timeout, an optional address-space limit) or on a Dask cluster. Tasks that
  share a ``Task.batch`` key run one after another in one worker (cheap runs, e.g. the thousands
  of Figure 7 runs, where a process per run would cost more than the run); every run still gets
  its own row, and a run that hangs or kills its worker is isolated (see :func:`sweep`).
* :func:`finalize` fills the per-instance columns: reference optimum, best valid lower bound,
  ratio and certified ratio.

Seeds
-----
``Task.seed`` is the *instance* seed: the generator is called with it, so (family, params, seed)
always gives the same instance. The algorithm's seed is derived from the run identity,
``np.random.SeedSequence([task.seed, crc32(algorithm)]).generate_state(1)[0] & 0x7FFFFFFF``
(:func:`algorithm_seed`; 31 bits so every solver accepts it). Rows record both: ``seed`` is the
seed the algorithm received, ``instance_seed`` the generator seed.

Memory
------
``peak_mb`` is the growth of the worker's *resident set* during the run: the kernel's high-water
mark ``VmHWM`` is reset (``/proc/self/clear_refs``) right before the run and read right after,
minus the resident size at the start. It counts native memory (OR-Tools, HiGHS) but not that of
solver subprocesses (CBC runs as one). Without ``/proc`` it falls back to the growth of
``ru_maxrss``, which is 0 when the run stays below an earlier peak.
"""

import json
import math
import resource
import subprocess
import time
import zlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from anonratio.bench._finalize import RTOL, finalize, load_reference_optima
from anonratio.bench._pool import proc_status_mb
from anonratio.bench.registry import get_algorithm

__all__ = [
    "Task",
    "run_instance",
    "execute_task",
    "sweep",
    "finalize",
    "load_reference_optima",
    "algorithm_seed",
    "package_version",
    "VERIFICATION_EXTRAS",
]

_ROOT = Path(__file__).resolve().parent.parent

#: problem-specific fields of a verification result copied into the row when present
#: (``BinCoveringVerification``: relaxed mode, its lightest bin, Figure 7's overfull ratio)
VERIFICATION_EXTRAS = (
    "relaxed",
    "strictly_feasible",
    "min_load_ratio",
    "overfull_ratio",
    "n_bins",
)


@dataclass(frozen=True)
class Task:
    """One run of a sweep: generate ``family(seed, **family_params)``, run ``algorithm`` on it.

    ``batch``: a key; local sweeps run the tasks sharing it one after another in one worker
    process (None: a process of its own).
    """

    family: str
    family_params: dict = field(default_factory=dict)
    seed: int = 0
    algorithm: str = "forest"
    time_limit: float = 60.0
    #: tasks with the same key (not None) share one worker process in a local sweep
    batch: str | None = None


# ---------------------------------------------------------------------------------------------
# run identity
# ---------------------------------------------------------------------------------------------
def algorithm_seed(instance_seed, algorithm):
    """The seed an algorithm gets for the instance generated with ``instance_seed``."""
    entropy = [int(instance_seed or 0) & 0xFFFFFFFF, zlib.crc32(algorithm.encode())]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0] & 0x7FFFFFFF)


@cache
def package_version():
    """``"<version>+g<commit>"`` (git run once, cached); the version alone without git."""
    from anonratio import __version__

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return __version__
    return f"{__version__}+g{commit}" if commit else __version__


def _json(obj):
    return json.dumps(obj, sort_keys=True, default=_jsonable, separators=(", ", ": "))


def _jsonable(x):
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return str(x)


def _scalar_info(info):
    """The scalar entries of a Solution's ``info`` (arrays and nested objects are left out)."""
    keep = {}
    for key, value in dict(info or {}).items():
        if isinstance(value, str | int | float | bool | np.integer | np.floating | np.bool_):
            keep[str(key)] = value
        elif value is None:
            keep[str(key)] = None
    return keep


def _num(x):
    return math.nan if x is None else float(x)


# ---------------------------------------------------------------------------------------------
# memory
# ---------------------------------------------------------------------------------------------
class _PeakMemory:
    """Peak resident-set growth of this process over a ``with`` block, in MiB."""

    def __enter__(self):
        self.proc = False
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")  # reset VmHWM to the current resident size
            self.start = proc_status_mb("VmRSS")
            self.proc = self.start is not None
        except OSError:
            pass
        if not self.proc:
            self.start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        return self

    def __exit__(self, *exc):
        end = proc_status_mb("VmHWM") if self.proc else None
        if end is None:
            end = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        self.peak_mb = max(0.0, end - self.start)
        return False


# ---------------------------------------------------------------------------------------------
# one run
# ---------------------------------------------------------------------------------------------
def _instance_columns(instance, family, meta):
    """The columns that depend on the instance only (computed before the algorithm runs)."""
    from anonratio.instances import instance_id, lower_bound

    meta = dict(meta or {})
    row = {
        "problem": getattr(instance, "problem", type(instance).__name__),
        "family": meta.get("family", family),
        "instance": instance_id(instance),
        "n": int(instance.n),
        "params": _json(dict(instance.params)),
        "k": int(getattr(instance, "k", 0)) or None,
        "m": int(instance.table.n_attributes) if hasattr(instance, "table") else None,
        "family_params": _json(meta.get("params", {})),
        "instance_seed": meta.get("seed"),
        "known_optimum": _num(meta.get("optimum")),
        "version": package_version(),
    }
    try:
        value, source = lower_bound(instance)
        row["run_lower_bound"], row["run_lower_bound_source"] = float(value), str(source)
    except Exception as exc:  # a broken bound must not lose the run
        row["run_lower_bound"], row["run_lower_bound_source"] = 0.0, "none"
        row["error"] = f"lower bound failed: {type(exc).__name__}: {exc}"
    proven = meta.get("lower_bound")  # a bound the family's construction proves (gadgets)
    if proven is not None and float(proven) > row["run_lower_bound"]:
        row["run_lower_bound"] = float(proven)
        row["run_lower_bound_source"] = f"{row['family']} construction"
    return row


def _blank_run(row, algorithm, seed, time_limit):
    row.update(
        algorithm=algorithm,
        kind=None,
        seed=None if seed is None else int(seed),
        time_limit=float(time_limit),
        status="error",
        verified=False,
        cost=math.nan,
        objective=math.nan,
        guarantee=math.nan,
        bound=math.nan,
        gap=math.nan,
        time_s=math.nan,
        peak_mb=math.nan,
        info="{}",
    )
    row.setdefault("error", None)
    return row


def _run_algorithm(instance, algorithm, row, *, seed, time_limit):
    """Run ``algorithm`` on ``instance`` and complete ``row`` (modified in place and returned)."""
    from anonratio.instances import verify

    _blank_run(row, algorithm, seed, time_limit)
    try:
        alg = get_algorithm(algorithm)
    except ValueError as exc:
        row["error"] = str(exc)
        return row
    row["kind"] = alg.kind
    reason = alg.supports(instance)
    if reason is not None:
        row["error"] = f"unsupported: {reason}"
        return row
    try:
        with _PeakMemory() as mem:
            t0 = time.perf_counter()
            try:
                solution = alg.run(instance, seed=seed, time_limit=time_limit)
            finally:
                row["time_s"] = time.perf_counter() - t0
        row["peak_mb"] = mem.peak_mb
    except MemoryError as exc:
        row.update(status="memory_limit", error=f"MemoryError: {exc}")
        return row
    except Exception as exc:
        row.update(status="error", error=f"{type(exc).__name__}: {exc}")
        return row

    status = solution.status
    row["status"] = status
    if alg.kind == "exact" or status in ("feasible", "optimal"):
        # a run that ends neither feasible nor optimal proves no ratio (e.g. a factor ILP
        # stopped by its time limit)
        try:
            row["guarantee"] = _num(alg.guarantee(instance, solution))
        except Exception as exc:
            row["error"] = f"guarantee failed: {type(exc).__name__}: {exc}"
    row["objective"] = _num(solution.objective)
    row["info"] = _json(_scalar_info(solution.info))
    if solution.labels is not None:
        try:
            check = verify(instance, solution, strict=False)
        except Exception as exc:
            check = None
            row["error"] = f"verifier failed: {type(exc).__name__}: {exc}"
        if check is not None:
            for attr in VERIFICATION_EXTRAS:  # e.g. bin covering: relaxed, overfull_ratio, ...
                if hasattr(check, attr):
                    row[attr] = getattr(check, attr)
        if check is not None and check.feasible:
            row["verified"] = True
            row["cost"] = float(check.cost)
        elif check is not None:
            row["status"] = "error"
            row["error"] = "infeasible solution: " + "; ".join(check.violations[:5])
    elif status in ("optimal", "feasible"):
        row["status"] = "error"
        row["error"] = f"status {status!r} but no solution returned"
    if row["verified"] and not math.isnan(row["objective"]):
        if not math.isclose(row["objective"], row["cost"], rel_tol=RTOL, abs_tol=RTOL):
            row["error"] = f"solver objective {row['objective']} != verified cost {row['cost']}"

    # this run's own valid lower bound
    bound = None
    if alg.kind == "exact" and status in ("optimal", "time_limit", "feasible"):
        bound = solution.lower_bound
        if bound is None and status == "optimal" and row["verified"]:
            bound = row["cost"]
        if bound is not None:
            row["bound"] = float(bound)
            if row["verified"]:
                c = row["cost"]
                row["gap"] = 0.0 if c <= 0 else max(0.0, (c - float(bound)) / c)
    elif alg.kind != "exact" and solution.lower_bound is not None and row["status"] != "error":
        bound = solution.lower_bound  # factor bounds, set by a solver only where proven
    if bound is not None and float(bound) > row["run_lower_bound"]:
        row["run_lower_bound"] = float(bound)
        src = solution.info.get("lower_bound_source") if solution.info else None
        row["run_lower_bound_source"] = src or f"{algorithm}-bound"
    return row


def run_instance(instance, algorithm, *, seed=0, time_limit=60.0, family="file", meta=None):
    """Run one registered algorithm on one instance and return its verified result row.

    Parameters
    ----------
    instance : a registered instance type (e.g. KAnonymityInstance)
    algorithm : str
        Registry name.
    seed : int or None
        The seed the algorithm receives (recorded as ``seed``).
    time_limit : float
        Seconds, passed to exact solvers (approximation algorithms are only bounded by
        :func:`sweep`'s hard timeout).
    family : str
        Where the instance came from (``meta["family"]`` wins when given).
    meta : dict, optional
        Generator metadata: ``family``, ``params``, ``seed``, optionally a known ``optimum``.

    Returns
    -------
    dict
        One row with every schema column (docs/architecture.md; per-instance ones such as
        ``optimum`` and
        ``ratio`` are filled by :func:`finalize`), plus ``k``, ``m``, ``instance_seed``,
        ``family_params``, ``time_limit``, ``objective`` (the solver's own claim),
        ``known_optimum``, ``run_lower_bound(_source)``, ``error`` and ``info``. ``guarantee``
        is the registry's ratio for the instance, overridden for non-exact algorithms by the
        run's own ``Solution.info["guarantee"]`` when present (``None`` there: no guarantee),
        and empty when such a run ends neither ``feasible`` nor ``optimal``. Exceptions in
        the algorithm, unsupported instances, unknown algorithms and infeasible solutions give
        ``status="error"`` with the reason in ``error``.
    """
    row = _instance_columns(instance, family, meta)
    row = _run_algorithm(instance, algorithm, row, seed=seed, time_limit=time_limit)
    return _with_instance_defaults(row)


def _with_instance_defaults(row):
    row.setdefault("lower_bound", row.get("run_lower_bound", 0.0))
    row.setdefault("lower_bound_source", row.get("run_lower_bound_source"))
    for col in ("optimum", "ratio", "certified_ratio"):
        row.setdefault(col, math.nan)
    row.setdefault("optimum_status", "unknown")
    row.setdefault("exact_agree", None)
    row.setdefault("optimum_note", None)
    return row


# ---------------------------------------------------------------------------------------------
# task execution (in a worker)
# ---------------------------------------------------------------------------------------------
def _task_row(task):
    """The columns known from the task alone (used when the worker dies before reporting)."""
    try:
        kind = get_algorithm(task.algorithm).kind
    except ValueError:
        kind = None
    return _with_instance_defaults(
        {
            "problem": None,
            "family": task.family,
            "instance": None,
            "n": None,
            "params": None,
            "family_params": _json(task.family_params),
            "instance_seed": task.seed,
            "algorithm": task.algorithm,
            "kind": kind,
            "seed": algorithm_seed(task.seed, task.algorithm),
            "time_limit": float(task.time_limit),
            "status": "error",
            "verified": False,
            "cost": math.nan,
            "guarantee": math.nan,
            "bound": math.nan,
            "gap": math.nan,
            "time_s": math.nan,
            "peak_mb": math.nan,
            "version": package_version(),
            "run_lower_bound": 0.0,
            "run_lower_bound_source": "none",
            "error": None,
        }
    )


def _generate(task, cache):
    """``(instance, instance columns)`` of the task; ``cache`` keeps the last instance."""
    key = (task.family, _json(task.family_params), task.seed)
    if cache is not None and cache.get("key") == key:
        return cache["instance"], dict(cache["columns"])
    from anonratio.bench.registry import generate

    instance, meta = generate(task.family, seed=task.seed, **task.family_params)
    meta = {"family": task.family, "params": task.family_params, "seed": task.seed, **meta}
    columns = _instance_columns(instance, task.family, meta)
    if cache is not None:
        cache.update(key=key, instance=instance, columns=dict(columns))
    return instance, columns


def execute_task(task, report=None, *, cache=None):
    """Generate the task's instance and run its algorithm; returns the row (never raises).

    ``report(row)`` is called with the instance columns before the algorithm starts, so a
    supervisor that has to kill the run still knows which instance it was. ``cache`` (a dict)
    reuses the last generated instance when consecutive tasks share it (batches).
    """
    row = _task_row(task)
    try:
        instance, columns = _generate(task, cache)
        row.update(columns)
    except MemoryError as exc:
        row.update(status="memory_limit", error=f"generation: MemoryError: {exc}")
        return row
    except Exception as exc:
        row["error"] = f"generation failed: {type(exc).__name__}: {exc}"
        return row
    if report is not None:
        report(dict(row))
    seed = algorithm_seed(task.seed, task.algorithm)
    row = _run_algorithm(instance, task.algorithm, row, seed=seed, time_limit=task.time_limit)
    return _with_instance_defaults(row)


def _sweep_dask(tasks, scheduler, bar):
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:
        raise ImportError(
            "running a sweep on a Dask scheduler needs dask.distributed, which is not a "
            'dependency of anonratio: pip install "dask[distributed]"'
        ) from exc
    rows = [None] * len(tasks)
    with Client(scheduler) as client:
        futures = client.map(execute_task, tasks, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for fut in as_completed(futures):
            i = index[fut.key]
            try:
                rows[i] = fut.result()
            except Exception as exc:
                rows[i] = _task_row(tasks[i])
                rows[i]["error"] = f"dask task failed: {type(exc).__name__}: {exc}"
            bar.update(1)
    return rows


def _sweep_iv(tasks, n_jobs, memory_limit_mb):
    tasks = list(tasks)
    for t in tasks:
        if not isinstance(t, Task):
            raise ValueError(f"`tasks` must hold Task objects, got {type(t).__name__}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(f"`n_jobs` must be an integer >= 1, got {n_jobs!r}")
    if memory_limit_mb is not None and not memory_limit_mb > 0:
        raise ValueError(f"`memory_limit_mb` must be positive or None, got {memory_limit_mb!r}")
    return tasks


def _sweep_local(tasks, n_jobs, memory_limit_mb, grace, bar):
    from anonratio.bench._batch import run_batched

    return run_batched(
        tasks,
        n_jobs,
        memory_limit_mb,
        grace,
        bar,
        execute=execute_task,
        blank_row=_task_row,
        finish_row=_with_instance_defaults,
    )


def sweep(tasks, *, n_jobs=2, scheduler=None, progress=True, memory_limit_mb=None, grace=None):
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
        Address space a local worker may add on top of its size at start
        (``RLIMIT_AS``); a run that exceeds it becomes a ``memory_limit`` row.
    grace : float, optional
        Seconds allowed beyond ``task.time_limit`` before a local worker is killed (its row gets
        ``status="time_limit"``); default ``10 + 0.2 * time_limit``.

    Notes
    -----
    Batches (tasks sharing ``Task.batch``, local sweeps only): one worker runs them in task
    order, reusing the instance between consecutive tasks that share it, and reports each row as
    it finishes. Its hard deadline is the sum of the tasks' time limits plus the grace for that
    sum. If the worker is killed or dies, the rows it finished are kept, the run in progress gets
    the ``time_limit`` / ``error`` / ``memory_limit`` row (its ``error`` says it was in a batch)
    and the batch's remaining tasks are rerun, each in a process of its own.

    Returns
    -------
    pandas.DataFrame
        One row per task in task order, not yet :func:`finalize`-d.
    """
    from tqdm.auto import tqdm

    tasks = _sweep_iv(tasks, n_jobs, memory_limit_mb)
    with tqdm(total=len(tasks), disable=not progress, desc="sweep", unit="run") as bar:
        if scheduler is not None:
            rows = _sweep_dask(tasks, scheduler, bar)
        else:
            rows = _sweep_local(tasks, n_jobs, memory_limit_mb, grace, bar)
    from anonratio.bench.store import order_columns

    return order_columns(pd.DataFrame(rows))
