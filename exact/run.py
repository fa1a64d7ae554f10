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

PuLP reports a time-limited HiGHS or CBC run as "Optimal" (``prob.status == 1``), so ``prob.status``
is never used: HiGHS is read through its own model (``prob.solverModel``: model status, primal
solution status, ``mip_dual_bound``), CBC through its log (``Result - ...``, ``Objective value``,
``Lower bound``).

Notes
-----
OR-Tools bundles its own HiGHS shared library. highspy releases that ship a separate
``libhighs.so.1`` of another version clash with it in one process (whichever loads second fails
with an undefined symbol); highspy 1.12.0 (statically linked, the version OR-Tools 9.15 bundles)
coexists with it. OR-Tools is imported first here regardless.
"""

import math
import re
import tempfile
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter

import numpy as np
from ortools.sat.python import cp_model  # before pulp: see Notes

# isort: split
import pulp
from anonratio.instances.solution import relative_gap

__all__ = [
    "RunResult",
    "check_run_options",
    "decide_status",
    "relative_gap",
    "run_cpsat",
    "run_pulp",
    "PULP_SOLVERS",
]

#: PuLP solver names accepted by :func:`run_pulp`
PULP_SOLVERS = ("highs", "cbc")

#: largest seed every solver accepts (HiGHS and CBC take a non-negative int32)
_MAX_SEED = 2**31 - 2


@dataclass(frozen=True)
class RunResult:
    """What one solver run established.

    Attributes
    ----------
    status : str
        ``optimal``, ``feasible``, ``time_limit``, ``infeasible`` or ``error``.
    objective : float or None
        Objective of the incumbent in model units; ``None`` without one.
    bound : float or None
        The solver's proven bound on the optimum (a lower bound when minimizing), rounded to an
        integer when the objective is integral; ``None`` when the solver proved none.
    gap : float or None
        :func:`relative_gap` of ``objective`` and ``bound``.
    time_s : float
        Wall time of the solve call.
    value : callable or None
        ``value(var)`` gives a variable's value in the incumbent; ``None`` without one.
    info : dict
        ``solver``, ``solver_status``, ``n_variables``, ``n_constraints`` and solver statistics.
    """

    status: str
    objective: float | None
    bound: float | None
    gap: float | None
    time_s: float
    value: Callable | None = None
    info: Mapping = field(default_factory=dict)

    @property
    def has_solution(self):
        return self.value is not None


def check_run_options(time_limit, seed, threads):
    """Validate the options every exact solver takes; return ``(time_limit, seed, threads)``.

    ``seed=None`` becomes 0 (every solver here is deterministic for a fixed seed and one worker).
    """
    if (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float | np.integer | np.floating)
        or not math.isfinite(time_limit)
        or time_limit <= 0
    ):
        raise ValueError(
            f"`time_limit` must be a positive finite number of seconds, got {time_limit!r}"
        )
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer) or threads < 1:
        raise ValueError(f"`threads` must be an integer >= 1, got {threads!r}")
    if seed is None:
        seed = 0
    elif (
        isinstance(seed, bool)
        or not isinstance(seed, int | np.integer)
        or not (0 <= seed <= _MAX_SEED)
    ):
        raise ValueError(f"`seed` must be None or an integer in [0, {_MAX_SEED}], got {seed!r}")
    return float(time_limit), int(seed), int(threads)


def decide_status(
    *,
    has_solution,
    objective=None,
    bound=None,
    proven_optimal=False,
    proven_infeasible=False,
    hit_limit=False,
    failed=False,
    integral=False,
    sense="min",
    tol=1e-6,
):
    """Decide a run's status from what the solver proved; return ``(status, bound)``.

    Parameters
    ----------
    has_solution : bool
        The solver holds an incumbent (``objective`` is its value).
    objective, bound : float or None
        Incumbent value and the solver's best bound (``None``, ``nan`` or infinite: no bound).
    proven_optimal, proven_infeasible, hit_limit, failed : bool
        The solver's own claims: optimal, infeasible, stopped by a limit, failed.
    integral : bool
        The objective takes integer values only, so a bound ``b`` proves ``ceil(b)`` (minimizing)
        or ``floor(b)`` (maximizing).
    sense : {"min", "max"}
    tol : float
        Relative tolerance (times ``max(1, |objective|)``) for bound == objective.

    Returns
    -------
    status : str
    bound : float or None
        The bound, rounded when integral and clipped to the objective (a bound beyond the incumbent
        by less than the tolerance is numerical noise; by more, the run is an ``error``).

    Notes
    -----
    ``optimal`` needs an incumbent *and* a bound that proves it; a solver claim of optimality
    without such a bound (a MIP stopped at a gap tolerance) gives ``feasible``.

    Examples
    --------
    >>> decide_status(has_solution=True, objective=10, bound=9.5, hit_limit=True, integral=True)
    ('optimal', 10)
    >>> decide_status(has_solution=True, objective=10, bound=8.0, proven_optimal=True)
    ('feasible', 8.0)
    """
    sign = 1.0 if sense == "min" else -1.0
    if bound is not None and not math.isfinite(bound):
        bound = None
    if bound is not None and integral:
        bound = math.ceil(bound - tol) if sign > 0 else math.floor(bound + tol)
    if failed:
        return "error", bound
    if not has_solution:
        if proven_infeasible:
            return "infeasible", None
        return ("time_limit" if hit_limit else "error"), bound
    if proven_infeasible:  # an incumbent and a proof of infeasibility contradict each other
        return "error", bound
    if bound is not None:
        slack = tol * max(1.0, abs(objective))
        if sign * (bound - objective) > slack:  # a bound beyond the incumbent: not a valid bound
            return "error", None
        bound = min(bound, objective) if sign > 0 else max(bound, objective)
        if sign * (objective - bound) <= slack:
            return "optimal", bound
    if hit_limit:
        return "time_limit", bound
    return "feasible", bound


def _result(status_kw, objective, time_s, value, info, *, integral, sense="min"):
    if integral and objective is not None and math.isfinite(objective):
        # an integral objective over integer variables: the solver's value up to its tolerance
        # (HiGHS reports 20.000000000000007 for 20)
        objective = float(round(objective))
    status, bound = decide_status(objective=objective, integral=integral, sense=sense, **status_kw)
    if status == "optimal":
        bound = objective
    has = value is not None and status not in ("error", "infeasible")
    return RunResult(
        status=status,
        objective=objective if has else None,
        bound=bound,
        gap=relative_gap(objective, bound) if has else None,
        time_s=time_s,
        value=value if has else None,
        info=info,
    )


# ---------------------------------------------------------------------------------------------
# CP-SAT
# ---------------------------------------------------------------------------------------------
def run_cpsat(model, *, time_limit, seed=0, threads=1, log=False, parameters=None):
    """Solve a CP-SAT model (minimization or pure feasibility) under a time limit.

    Parameters
    ----------
    model : ortools.sat.python.cp_model.CpModel
    time_limit : float
        ``max_time_in_seconds``.
    seed : int
        ``random_seed``.
    threads : int
        ``num_workers`` (CP-SAT's portfolio of search workers).
    log : bool
        ``log_search_progress``.
    parameters : mapping, optional
        More ``SatParameters`` fields, set as given (lists extend repeated fields).

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
    proto = model.proto
    integral = not proto.has_floating_point_objective()
    t0 = perf_counter()
    code = solver.solve(model)
    time_s = perf_counter() - t0
    name = solver.status_name(code)
    info = {
        "solver": "cp-sat",
        "solver_status": name,
        "n_variables": len(proto.variables),
        "n_constraints": len(proto.constraints),
        "num_branches": int(solver.num_branches),
        "num_conflicts": int(solver.num_conflicts),
        "wall_time": float(solver.wall_time),
        "workers": int(threads),
    }
    if code == cp_model.OPTIMAL:
        # The search closed: the incumbent's value equals the best bound.
        kw = {"has_solution": True, "proven_optimal": True}
    elif code == cp_model.FEASIBLE:
        # Only a limit stops CP-SAT with an incumbent and an open bound.
        kw = {"has_solution": True, "hit_limit": True}
    elif code == cp_model.INFEASIBLE:
        kw = {"has_solution": False, "proven_infeasible": True}
    elif code == cp_model.MODEL_INVALID:
        info["reason"] = model.validate() or "MODEL_INVALID"
        kw = {"has_solution": False, "failed": True}
    else:  # UNKNOWN: the limit came before any solution or proof
        kw = {"has_solution": False, "hit_limit": True}
    has = kw["has_solution"]
    objective = float(solver.objective_value) if has else None
    bound = (
        float(solver.best_objective_bound)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        else None
    )
    return _result(
        {**kw, "bound": bound},
        objective,
        time_s,
        solver.value if has else None,
        info,
        integral=integral,
    )


# ---------------------------------------------------------------------------------------------
# PuLP: HiGHS (highspy) and CBC
# ---------------------------------------------------------------------------------------------
class _HiGHSWithStart(pulp.HiGHS):
    """``pulp.HiGHS`` plus a MIP start from the variables' initial values.

    PuLP's highspy interface has no ``warmStart``; this passes the values set with
    ``LpVariable.setInitialValue`` to ``Highs.setSolution`` just before ``run``.
    """

    def __init__(self, *args, start=False, **kwargs):
        super().__init__(*args, **kwargs)
        self._start = start

    def callSolver(self, lp):
        if self._start:
            given = [v for v in lp.variables() if v.varValue is not None]
            if given:
                index = np.array([v.index for v in given], dtype=np.int32)
                value = np.array([float(v.varValue) for v in given])
                lp.solverModel.setSolution(len(given), index, value)
        super().callSolver(lp)


_HIGHS_LIMITS = (
    "kTimeLimit",
    "kIterationLimit",
    "kSolutionLimit",
    "kInterrupt",
    "kObjectiveBound",
    "kObjectiveTarget",
)


def _highs_outcome(prob, integral):
    """Read status, incumbent and dual bound from the highspy model behind ``prob``."""
    import highspy

    h = prob.solverModel
    code = h.getModelStatus()
    name = h.modelStatusToString(code)
    info = h.getInfo()
    enum = highspy.HighsModelStatus
    is_ = lambda *names: any(code == getattr(enum, n, None) for n in names)  # noqa: E731
    # primal_solution_status 2 = kSolutionStatusFeasible: HiGHS holds a feasible incumbent
    has = info.primal_solution_status == 2
    mult = -1.0 if prob.sense == pulp.LpMaximize else 1.0
    const = float(prob.objective.constant) if prob.objective is not None else 0.0
    objective = mult * info.objective_function_value + const if has else None
    if prob.isMIP():
        bound = mult * info.mip_dual_bound + const
    else:  # an LP solved to optimality is its own bound
        bound = objective if is_("kOptimal") else None
    kw = {
        "has_solution": has,
        "bound": bound,
        "proven_optimal": is_("kOptimal"),
        "proven_infeasible": is_("kInfeasible", "kUnboundedOrInfeasible"),
        "hit_limit": is_(*_HIGHS_LIMITS),
    }
    kw["failed"] = not (kw["proven_optimal"] or kw["proven_infeasible"] or kw["hit_limit"])
    stats = {
        "solver_status": name,
        "nodes": int(info.mip_node_count) if prob.isMIP() else 0,
        "solver_gap": float(info.mip_gap) if prob.isMIP() else 0.0,
    }
    if kw["failed"]:
        stats["reason"] = f"HiGHS model status {name}"
    return kw, objective, stats


_CBC_RESULT = re.compile(r"^Result - (.+)$", re.M)
_CBC_OBJECTIVE = re.compile(r"^Objective value:\s*(\S+)", re.M)
_CBC_BOUND = re.compile(r"^(?:Lower|Upper) bound:\s*(\S+)", re.M)
_CBC_NODES = re.compile(r"^Enumerated nodes:\s*(\d+)", re.M)


def _cbc_outcome(prob, log_text):
    """Read status and bound from CBC's log (``Result - ...``, ``Objective value``, bound)."""
    result = _CBC_RESULT.search(log_text)
    result = result.group(1).strip() if result else "no result line"
    low = result.lower()
    has = prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    objective = float(pulp.value(prob.objective) or 0.0) if has else None
    proven_optimal = low.startswith("optimal")
    # presolve proofs print "Problem is infeasible" without a result line; the solution file
    # (read by PuLP) then starts with "Infeasible"
    infeasible = "infeasible" in low or (
        result == "no result line" and prob.sol_status == pulp.LpSolutionInfeasible
    )
    bound = None
    if has and proven_optimal:
        bound = objective
    elif has:
        # CBC's bound is in its own objective units (which may omit PuLP's constant):
        # carry over its distance from CBC's objective value.
        o, b = _CBC_OBJECTIVE.search(log_text), _CBC_BOUND.search(log_text)
        if o and b:
            bound = objective + (float(b.group(1)) - float(o.group(1)))
    kw = {
        "has_solution": has,
        "bound": bound,
        "proven_optimal": proven_optimal,
        "proven_infeasible": infeasible,
        "hit_limit": low.startswith("stopped"),
    }
    kw["failed"] = not (kw["proven_optimal"] or kw["proven_infeasible"] or kw["hit_limit"])
    nodes = _CBC_NODES.search(log_text)
    stats = {"solver_status": result, "nodes": int(nodes.group(1)) if nodes else 0}
    if kw["failed"]:
        stats["reason"] = f"CBC result: {result}"
    return kw, objective, stats


def run_pulp(
    prob,
    *,
    solver="highs",
    time_limit,
    seed=0,
    threads=1,
    warm_start=False,
    integral=False,
    log=False,
):
    """Solve a PuLP problem with HiGHS (highspy) or CBC under a time limit.

    Parameters
    ----------
    prob : pulp.LpProblem
    solver : {"highs", "cbc"}
        ``pulp.HiGHS`` (in process, through highspy) or ``pulp.PULP_CBC_CMD`` (PuLP's CBC binary).
    time_limit : float
        Seconds (HiGHS ``time_limit``, CBC ``-sec``).
    seed : int
        HiGHS ``random_seed``; CBC ``randomCbcSeed`` = ``seed + 1`` (CBC reads 0 as "seed from
        the clock").
    threads : int
        HiGHS ``threads``, CBC ``threads``.
    warm_start : bool
        Start from the values given with ``LpVariable.setInitialValue`` (a MIP start).
    integral : bool
        The objective takes integer values only: stop once ``objective - bound < 1`` and round the
        bound up.
    log : bool
        Print the solver's log.

    Returns
    -------
    RunResult
        ``value(var)`` reads ``var.value()``; ``info`` holds ``n_variables``, ``n_constraints``,
        ``nodes`` and the solver's status text.
    """
    if solver not in PULP_SOLVERS:
        raise ValueError(f"`solver` must be one of {PULP_SOLVERS}, got {solver!r}")
    abs_gap = 1.0 - 1e-6 if integral else 1e-9
    info = {
        "solver": solver,
        "n_variables": prob.numVariables(),
        "n_constraints": prob.numConstraints(),
        "workers": int(threads),
    }
    t0 = perf_counter()
    try:
        if solver == "highs":
            s = _HiGHSWithStart(
                msg=log,
                timeLimit=float(time_limit),
                threads=int(threads),
                gapRel=0.0,
                gapAbs=abs_gap,
                random_seed=int(seed),
                start=warm_start,
            )
            if not s.available():
                raise RuntimeError(
                    "HiGHS is not available to PuLP in this process: highspy failed to import "
                    "(a highspy release whose libhighs clashes with OR-Tools'?)"
                )
            prob.solve(s)
            kw, objective, stats = _highs_outcome(prob, integral)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "cbc.log"
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    s = pulp.PULP_CBC_CMD(
                        msg=False,
                        timeLimit=float(time_limit),
                        threads=int(threads),
                        gapRel=0.0,
                        gapAbs=abs_gap,
                        warmStart=warm_start,
                        logPath=str(path),
                        options=[f"randomCbcSeed {int(seed) + 1}"],
                    )
                prob.solve(s)
                text = path.read_text()
            if log:
                print(text)
            kw, objective, stats = _cbc_outcome(prob, text)
    except (pulp.PulpSolverError, RuntimeError, OSError) as exc:
        info.update(solver_status="exception", reason=f"{type(exc).__name__}: {exc}")
        return RunResult("error", None, None, None, perf_counter() - t0, None, info)
    time_s = perf_counter() - t0
    info.update(stats)
    value = (lambda var: var.value()) if kw["has_solution"] else None
    sense = "max" if prob.sense == pulp.LpMaximize else "min"
    return _result(kw, objective, time_s, value, info, integral=integral, sense=sense)
