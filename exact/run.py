"""Run an exact model with a time limit and report status, objective, bound and gap.

Problem-independent: a problem module builds a CP-SAT model (OR-Tools) or a PuLP problem, and this
module solves it with an explicit solver, time limit, seed and worker count, then decides the run's
status from the solver's own proof, never from its say-so:

- ``optimal``: the best bound proves the incumbent optimal (``|objective - bound| <= tol``; with an
  integral objective the bound is first rounded to the next integer);
- ``time_limit``: a limit stopped the search, with the incumbent and the bound when there are any;
- ``feasible``: the solver stopped on its own with an incumbent its bound does not prove (e.g. it
  stopped at a MIP gap tolerance);
- ``infeasible``: the solver proved that no solution exists;
- ``error``: an invalid model or a solver failure (``info["reason"]`` says which).

The parts live in three modules, all re-exported here:

- :mod:`anonratio.exact.status` — :class:`RunResult`, the one status decision
  (:func:`decide_status`) and the one table of HiGHS limit statuses (:func:`highs_claims`), also
  used by the factor ILP of :mod:`anonratio.solvers.kanonymity.min_weight_factor`;
- :mod:`anonratio.exact.options` — :func:`check_run_options` (``time_limit``, ``seed``,
  ``threads``) and the other checks every exact solver shares;
- :mod:`anonratio.exact.pulp_run` — :func:`run_pulp` (PuLP with HiGHS or CBC): PuLP reports a
  time-limited HiGHS or CBC run as "Optimal", so ``prob.status`` is never used; HiGHS is read
  through its own model, CBC through its log.

This module itself runs CP-SAT (:func:`run_cpsat`).

Notes
-----
OR-Tools bundles its own HiGHS shared library. highspy releases that ship a separate
``libhighs.so.1`` of another version clash with it in one process (whichever loads second fails
with an undefined symbol); highspy 1.12.0 (statically linked, the version OR-Tools 9.15 bundles)
coexists with it. OR-Tools is imported first here regardless.
"""

from __future__ import annotations

from collections.abc import Mapping
from time import perf_counter
from typing import Any

from ortools.sat.python import cp_model  # before pulp: see Notes

# isort: split
from anonratio.exact.options import check_run_options, seconds_left, within_run, work_limits
from anonratio.exact.pulp_run import PULP_SOLVERS, run_pulp
from anonratio.exact.status import (
    HIGHS_LIMITS,
    HIGHS_PRESOLVE_RULES_OFF,
    RunResult,
    decide_status,
    highs_claims,
    run_result,
)
from anonratio.instances.solution import relative_gap

__all__ = [
    "RunResult",
    "check_run_options",
    "decide_status",
    "highs_claims",
    "relative_gap",
    "run_cpsat",
    "run_pulp",
    "PULP_SOLVERS",
    "HIGHS_LIMITS",
    "HIGHS_PRESOLVE_RULES_OFF",
]


def _cpsat_solver(
    time_limit: float, seed: int, threads: int, log: bool, parameters: Mapping[str, Any] | None
) -> cp_model.CpSolver:
    """A CP-SAT solver with the run's limit, seed and workers, plus ``parameters`` as given.

    ``catch_sigint_signal`` is always off: when on, CP-SAT replaces the process's SIGINT handler
    during a solve and leaves the default action behind, so a later Ctrl-C would kill the
    process instead of raising ``KeyboardInterrupt`` (the command line's exit 130)."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.random_seed = int(seed)
    solver.parameters.num_workers = int(threads)
    solver.parameters.log_search_progress = bool(log)
    for name, v in (parameters or {}).items():
        if isinstance(v, list | tuple):  # repeated fields, e.g. ``subsolvers``
            getattr(solver.parameters, name).extend(v)
        else:
            setattr(solver.parameters, name, v)
    solver.parameters.catch_sigint_signal = False
    deterministic_time = work_limits()[0]
    if deterministic_time is not None:
        solver.parameters.max_deterministic_time = min(
            deterministic_time, solver.parameters.max_deterministic_time
        )
    return solver


def _cpsat_claims(code: Any, model: cp_model.CpModel, info: dict[str, Any]) -> dict[str, bool]:
    """What a CP-SAT status code claims, as keywords of :func:`decide_status`."""
    if code == cp_model.OPTIMAL:
        # The search closed: the incumbent's value equals the best bound.
        return {"has_solution": True, "proven_optimal": True}
    if code == cp_model.FEASIBLE:
        # Only a limit stops CP-SAT with an incumbent and an open bound.
        return {"has_solution": True, "hit_limit": True}
    if code == cp_model.INFEASIBLE:
        return {"has_solution": False, "proven_infeasible": True}
    if code == cp_model.MODEL_INVALID:
        info["reason"] = model.validate() or "MODEL_INVALID"
        return {"has_solution": False, "failed": True}
    # UNKNOWN: the limit came before any solution or proof
    return {"has_solution": False, "hit_limit": True}


def run_cpsat(
    model: cp_model.CpModel,
    *,
    time_limit: float,
    seed: int = 0,
    threads: int = 1,
    log: bool = False,
    parameters: Mapping[str, Any] | None = None,
) -> RunResult:
    """Solve a CP-SAT model (minimization or pure feasibility) under a time limit.

    Parameters
    ----------
    model : ortools.sat.python.cp_model.CpModel
    time_limit : float
        ``max_time_in_seconds``; no later than the run's deadline when one is set
        (:func:`~anonratio.exact.options.run_deadline`).
    seed : int
        ``random_seed``.
    threads : int
        ``num_workers`` (CP-SAT's portfolio of search workers).
    log : bool
        ``log_search_progress``.
    parameters : mapping, optional
        More ``SatParameters`` fields, set as given (lists extend repeated fields). Within
        :func:`~anonratio.exact.options.work_limit`, ``max_deterministic_time`` is at most its
        ``cpsat_deterministic_time``.

    Returns
    -------
    RunResult
        ``value`` is ``solver.value``; ``info`` holds ``n_variables``, ``n_constraints``,
        ``num_branches``, ``num_conflicts`` and CP-SAT's own ``wall_time``.

    Examples
    --------
    >>> model = cp_model.CpModel()
    >>> x = model.new_int_var(0, 10, "x")
    >>> _ = model.add(3 * x >= 7)
    >>> model.minimize(x)
    >>> run = run_cpsat(model, time_limit=5, seed=0, threads=1)
    >>> run.status, run.objective, run.bound, run.value(x)
    ('optimal', 3.0, 3.0, 3)
    """
    time_limit = seconds_left(within_run(perf_counter() + time_limit))
    solver = _cpsat_solver(time_limit, seed, threads, log, parameters)
    proto = model.proto
    integral = not proto.has_floating_point_objective()
    t0 = perf_counter()
    code = solver.solve(model)
    time_s = perf_counter() - t0
    info = {
        "solver": "cp-sat",
        "solver_status": solver.status_name(code),
        "n_variables": len(proto.variables),
        "n_constraints": len(proto.constraints),
        "num_branches": int(solver.num_branches),
        "num_conflicts": int(solver.num_conflicts),
        "wall_time": float(solver.wall_time),
        "workers": int(threads),
    }
    kw = _cpsat_claims(code, model, info)
    has = kw["has_solution"]
    objective = float(solver.objective_value) if has else None
    bound = (
        float(solver.best_objective_bound)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        else None
    )
    return run_result(
        {**kw, "bound": bound},
        objective,
        time_s,
        solver.value if has else None,
        info,
        integral=integral,
    )
