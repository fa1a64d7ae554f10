"""What a solver run established: :class:`RunResult` and the one status decision.

:func:`decide_status` turns what a solver *proved* (an incumbent, a bound, its own claims of
optimality, infeasibility, a limit or a failure) into the run's status; :func:`highs_claims` reads
those claims from a finished ``highspy.Highs`` through the one table of HiGHS limit statuses,
:data:`HIGHS_LIMITS`. Both the PuLP path (:mod:`anonratio.exact.pulp_run`) and the factor ILP of
:mod:`anonratio.solvers.kanonymity.min_weight_factor` (highspy driven directly) map HiGHS statuses
through them. Everything here is re-exported by :mod:`anonratio.exact.run`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from anonratio.instances.solution import relative_gap

__all__ = [
    "RunResult",
    "decide_status",
    "highs_claims",
    "run_result",
    "HIGHS_LIMITS",
    "HIGHS_PRESOLVE_RULES_OFF",
]

#: HiGHS ``presolve_rule_off`` bits set for every MIP solved here: rule 16, the enumeration
#: presolve, which does not check the time limit (HiGHS 1.14 spent 37 s in it on an 8 s limit,
#: over a 28,079-column k-anonymity round of a 175-record Adult sample)
HIGHS_PRESOLVE_RULES_OFF = 1 << 16

#: HiGHS model statuses that count as "a limit stopped the search" (``hit_limit``).
#:
#: Each of them ends the search early on a budget (time, simplex iterations, MIP solutions,
#: memory), on an interrupt from the caller, or at a user objective cutoff; none of them says that
#: anything is wrong with the model or with what HiGHS holds: an incumbent reported feasible
#: (``primal_solution_status``) is feasible and ``mip_dual_bound`` is still a valid bound, so
#: :func:`decide_status` can still prove optimality from them, and otherwise reports
#: ``time_limit`` with both. (``kObjectiveBound`` and ``kObjectiveTarget`` need options that no
#: caller here sets; they are limits of the same kind.) Every other status that is neither
#: ``kOptimal`` nor a proof of infeasibility (``kModelError``, ``kSolveError``, ``kUnbounded``,
#: ``kUnknown``, ``kHighsInterrupt`` ...) is a failure: nothing it holds is trusted.
HIGHS_LIMITS = (
    "kTimeLimit",
    "kIterationLimit",
    "kSolutionLimit",
    "kMemoryLimit",
    "kInterrupt",
    "kObjectiveBound",
    "kObjectiveTarget",
)

#: HiGHS model statuses that prove the model has no feasible solution (the models here are
#: bounded, so "unbounded or infeasible" means infeasible)
_HIGHS_INFEASIBLE = ("kInfeasible", "kUnboundedOrInfeasible")

#: ``primal_solution_status`` value ``kSolutionStatusFeasible``: HiGHS holds a feasible incumbent
_HIGHS_FEASIBLE_SOLUTION = 2


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
    value: Callable[[Any], Any] | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    @property
    def has_solution(self) -> bool:
        return self.value is not None


def decide_status(
    *,
    has_solution: bool,
    objective: float | None = None,
    bound: float | None = None,
    proven_optimal: bool = False,
    proven_infeasible: bool = False,
    hit_limit: bool = False,
    failed: bool = False,
    integral: bool = False,
    sense: str = "min",
    tol: float = 1e-6,
    abs_tol: float | None = None,
) -> tuple[str, float | None]:
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
    abs_tol : float, optional
        An absolute tolerance for bound == objective instead (e.g. the MIP's absolute gap, or
        the resolution of float costs rounded to integers for the solver).

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
        assert objective is not None, "an incumbent needs its objective value"
        slack = tol * max(1.0, abs(objective)) if abs_tol is None else abs_tol
        if sign * (bound - objective) > slack:  # a bound beyond the incumbent: not a valid bound
            return "error", None
        bound = min(bound, objective) if sign > 0 else max(bound, objective)
        if sign * (objective - bound) <= slack:
            return "optimal", bound
    if hit_limit:
        return "time_limit", bound
    return "feasible", bound


class HighsClaims(TypedDict):
    """The keywords of :func:`decide_status` that :func:`highs_claims` reads off a run."""

    has_solution: bool
    proven_optimal: bool
    proven_infeasible: bool
    hit_limit: bool
    failed: bool


def highs_claims(highs: Any) -> HighsClaims:
    """What a finished ``highspy.Highs`` run claims, as keywords of :func:`decide_status`.

    Returns ``has_solution`` (HiGHS holds a feasible incumbent), ``proven_optimal``
    (``kOptimal``), ``proven_infeasible``, ``hit_limit`` (a status in :data:`HIGHS_LIMITS`) and
    ``failed`` (any other status). The objective and the bound are the caller's to read: their
    units (sense, objective constant) and meaning (LP or MIP) depend on how the model was built.
    """
    import highspy  # not at import time: see the OR-Tools note of anonratio.exact.run

    code = highs.getModelStatus()
    enum = highspy.HighsModelStatus

    def is_(names: tuple[str, ...]) -> bool:
        return any(code == getattr(enum, n, None) for n in names)

    optimal, infeasible, limit = is_(("kOptimal",)), is_(_HIGHS_INFEASIBLE), is_(HIGHS_LIMITS)
    return {
        "has_solution": highs.getInfo().primal_solution_status == _HIGHS_FEASIBLE_SOLUTION,
        "proven_optimal": optimal,
        "proven_infeasible": infeasible,
        "hit_limit": limit,
        "failed": not (optimal or infeasible or limit),
    }


def run_result(
    status_kw: Mapping[str, Any],
    objective: float | None,
    time_s: float,
    value: Callable[[Any], Any] | None,
    info: Mapping[str, Any],
    *,
    integral: bool,
    sense: str = "min",
) -> RunResult:
    """The :class:`RunResult` of a finished run, its status decided by :func:`decide_status`.

    ``status_kw`` holds the solver's claims and its bound (keywords of :func:`decide_status`);
    the incumbent (``objective`` and ``value``) is dropped when the run is an ``error`` or
    ``infeasible``.
    """
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
