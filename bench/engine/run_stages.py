"""The stages of one run, each filling its :class:`RunRecord`: the instance's columns
(:func:`describe_instance`), then :func:`run_algorithm`: reset the run's columns, look the
algorithm up, run it timed and measured on a cold copy of the instance, record the solver's
claims, verify the solution independently, record the run's own bound and the instance's.

:mod:`anonratio.bench.engine.runner` runs these for a single instance and for every task of a
sweep.
"""

from __future__ import annotations

import math
import time
from typing import Any

from anonratio.bench.declarations import Algorithm
from anonratio.bench.engine._finalize import RTOL
from anonratio.bench.engine._pool import PeakMemory
from anonratio.bench.engine.bounds import instance_bound
from anonratio.bench.engine.record import RunRecord, json_text, package_version, scalar_info
from anonratio.bench.engine.utility import measure_utility
from anonratio.bench.registry import PROBLEMS, get_algorithm
from anonratio.instances import Solution, instance_id, verify
from anonratio.instances.base import cold_copy

__all__ = ["describe_instance", "run_algorithm"]


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _size(instance: Any) -> int | None:
    """The instance's anonymity size (the ``k`` column): the attribute its problem's declaration
    names (``k``, the cluster size ``r``, ``l``); None when it has none."""
    problem = PROBLEMS.get(str(getattr(instance, "problem", "")))
    value = getattr(instance, problem.size, None) if problem and problem.size else None
    return None if value is None else int(value)


def describe_instance(instance: Any, family: str, meta: dict | None) -> RunRecord:
    """A record of the columns that depend on the instance only (its bound: after the run)."""
    meta = dict(meta or {})
    record = RunRecord(
        problem=getattr(instance, "problem", type(instance).__name__),
        family=meta.get("family", family),
        instance=instance_id(instance),
        n=int(instance.n),
        params=json_text(dict(instance.params)),
        k=_size(instance),
        m=int(instance.table.n_attributes) if hasattr(instance, "table") else None,
        family_params=json_text(meta.get("params", {})),
        instance_seed=meta.get("seed"),
        known_optimum=_num(meta.get("optimum")),
        version=package_version(),
    )
    return record


def _instance_bound(
    record: RunRecord, instance: Any, proven: float | None, bound: str = "default"
) -> tuple[float, str]:
    """The instance's lower bound at effort ``bound`` (:mod:`.bounds`; its time in
    ``bound_time_s``), or the family's proven one (gadgets) when larger."""
    value, source = 0.0, "none"
    try:
        found, how, spent = instance_bound(
            instance, bound, key=record.instance, time_limit=record.time_limit, seed=record.seed
        )
        value, source = float(found), str(how)
        record.bound_time_s = spent
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
    for name in ("cost", "objective", "guarantee", "bound", "gap", "time_s", "cpu_s", "peak_mb"):
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
    """Run the algorithm, timing it (wall and this process's CPU) and measuring its memory; None
    when it failed."""
    try:
        with PeakMemory() as mem:
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                solution = alg.run(instance, seed=seed, time_limit=time_limit)
            finally:
                record.time_s = time.perf_counter() - t0
                record.cpu_s = time.process_time() - c0
        record.peak_mb = mem.peak_mb
    except MemoryError as exc:
        record.status, record.error = "memory_limit", f"MemoryError: {exc}"
        return None
    except Exception as exc:
        record.status, record.error = "error", f"{type(exc).__name__}: {exc}"
        record.exception = exc
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
            if check.feasible and check.cost is not None:
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


def run_algorithm(
    record: RunRecord,
    instance: Any,
    algorithm: str,
    *,
    seed: int | None,
    time_limit: float,
    options: Any = None,
    proven: float | None = None,
    bounds: dict | None = None,
    bound: str = "default",
    utility: tuple[str, ...] = (),
) -> RunRecord:
    """Run ``algorithm`` on a cold copy of ``instance`` (its time includes what it builds, e.g.
    FOREST's neighbours) and complete ``record``; then the utility metrics ``utility`` of its
    published table (names checked by :func:`~.utility.check_utility`) and the instance bound at
    effort ``bound`` (:mod:`.bounds`), from that copy, once per batch with ``bounds``;
    ``proven``: a bound the family proves."""
    _start_run(record, algorithm, seed, time_limit)
    work = cold_copy(instance)
    alg = _lookup(record, algorithm, instance, options)
    solution = None if alg is None else _execute(record, alg, work, seed, time_limit)
    if alg is not None and solution is not None:
        _record_solution(record, alg, instance, solution)
        _verify(record, instance, solution)
        _run_bound(record, alg, solution)
        measure_utility(record, instance, solution, utility)
    if bounds is None or "bound" not in bounds:
        value, source = _instance_bound(record, work, proven, bound)
        if bounds is not None:
            bounds["bound"] = (value, source)
    else:
        value, source = bounds["bound"]
    if value >= record.run_lower_bound:  # else the run proved more (an exact solver's bound)
        record.run_lower_bound, record.run_lower_bound_source = value, source
    return record
