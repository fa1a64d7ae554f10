"""Run a PuLP problem with HiGHS (highspy, in process) or CBC, and read what the solver proved.

CBC runs through ``pulp.COIN_CMD`` with the executable of :func:`cbc_executable` (PuLP 3.3.2
deprecates ``PULP_CBC_CMD``, and PuLP 4.0 removes it with the CBC binary it bundles).

PuLP reports a time-limited HiGHS or CBC run as "Optimal" (``prob.status == 1``), so
``prob.status`` is never used: HiGHS is read through its own model (``prob.solverModel``: model
status through :func:`~anonratio.exact.status.highs_claims`, primal solution status,
``mip_dual_bound``), CBC through its log (``Result - ...``, ``Objective value``, ``Lower bound``).
The status is then decided by :func:`~anonratio.exact.status.decide_status`. Re-exported by
:mod:`anonratio.exact.run`.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np
from ortools.sat.python import cp_model  # noqa: F401  before pulp: see anonratio.exact.run

# isort: split
import pulp

from anonratio.exact.options import seconds_left, within_run, work_limits
from anonratio.exact.status import (
    HIGHS_PRESOLVE_RULES_OFF,
    RunResult,
    highs_claims,
    run_result,
)

__all__ = ["run_pulp", "PULP_SOLVERS", "cbc_executable"]

#: PuLP solver names accepted by :func:`run_pulp`
PULP_SOLVERS = ("highs", "cbc")


# ---------------------------------------------------------------------------------------------
# HiGHS (highspy)
# ---------------------------------------------------------------------------------------------
class _HiGHSByDeadline(pulp.HiGHS):
    """``pulp.HiGHS`` plus a MIP start from the variables' initial values, and a deadline.

    Just before ``run``:

    - the values set with ``LpVariable.setInitialValue`` go to ``Highs.setSolution`` (PuLP's
      highspy interface has no ``warmStart``);
    - HiGHS's ``time_limit`` becomes the seconds left until ``deadline`` (a ``perf_counter``
      reading): PuLP's copy of the model into highspy counts (1.3 s for a 13,698-column
      set-partitioning round of a 175-record Adult sample);
    - the presolve rules of :data:`~anonratio.exact.status.HIGHS_PRESOLVE_RULES_OFF` are off,
      and the whole presolve when ``presolve`` is False.
    """

    def __init__(self, *args, start, deadline, presolve, **kwargs):
        super().__init__(*args, **kwargs)
        self._start = start
        self._deadline = deadline
        self._presolve = presolve

    def callSolver(self, lp):
        if self._start:
            given = [v for v in lp.variables() if v.varValue is not None]
            if given:
                index = np.array([v.index for v in given], dtype=np.int32)
                value = np.array([float(v.varValue) for v in given])
                lp.solverModel.setSolution(len(given), index, value)
        lp.solverModel.setOptionValue("presolve_rule_off", HIGHS_PRESOLVE_RULES_OFF)
        if not self._presolve:
            lp.solverModel.setOptionValue("presolve", "off")
        lp.solverModel.setOptionValue("time_limit", seconds_left(self._deadline))
        nodes = work_limits()[1]
        if nodes is not None:
            lp.solverModel.setOptionValue("mip_max_nodes", int(nodes))
        super().callSolver(lp)

    def findSolutionValues(self, lp):
        # PuLP's table of HiGHS statuses lacks kSolutionLimit, HiGHS's status for a run stopped
        # by ``mip_max_nodes``; the values are assigned before its lookup fails, and the outcome
        # is read from HiGHS itself (``_highs_outcome``), so only the lookup is replaced
        try:
            return super().findSolutionValues(lp)
        except KeyError:
            if getattr(lp.solverModel.getModelStatus(), "name", None) != "kSolutionLimit":
                raise
            return pulp.LpStatusNotSolved, pulp.LpSolutionIntegerFeasible


def _highs_outcome(prob, integral):
    """Read status, incumbent and dual bound from the highspy model behind ``prob``."""
    h = prob.solverModel
    kw: dict[str, Any] = dict(highs_claims(h))
    name = h.modelStatusToString(h.getModelStatus())
    info = h.getInfo()
    # PuLP hands HiGHS the objective without its constant, negated when maximizing
    mult = -1.0 if prob.sense == pulp.LpMaximize else 1.0
    const = float(prob.objective.constant) if prob.objective is not None else 0.0
    objective = mult * info.objective_function_value + const if kw["has_solution"] else None
    if prob.isMIP():
        kw["bound"] = mult * info.mip_dual_bound + const
    else:  # an LP solved to optimality is its own bound
        kw["bound"] = objective if kw["proven_optimal"] else None
    stats = {
        "solver_status": name,
        "nodes": int(info.mip_node_count) if prob.isMIP() else 0,
        "solver_gap": float(info.mip_gap) if prob.isMIP() else 0.0,
    }
    if kw["failed"]:
        stats["reason"] = f"HiGHS model status {name}"
    return kw, objective, stats


def _solve_highs(prob, *, deadline, seed, threads, abs_gap, warm_start, log, highs_presolve):
    s = _HiGHSByDeadline(
        msg=log,
        threads=int(threads),
        gapRel=0.0,
        gapAbs=abs_gap,
        random_seed=int(seed),
        start=warm_start,
        deadline=deadline,
        presolve=highs_presolve,
    )
    if not s.available():
        raise RuntimeError(
            "HiGHS is not available to PuLP in this process: highspy failed to import "
            "(a highspy release whose libhighs clashes with OR-Tools'?)"
        )
    prob.solve(s)


# ---------------------------------------------------------------------------------------------
# CBC
# ---------------------------------------------------------------------------------------------
_CBC_RESULT = re.compile(r"^Result - (.+)$", re.M)
_CBC_OBJECTIVE = re.compile(r"^Objective value:\s*(\S+)", re.M)
_CBC_BOUND = re.compile(r"^(?:Lower|Upper) bound:\s*(\S+)", re.M)
_CBC_NODES = re.compile(r"^Enumerated nodes:\s*(\d+)", re.M)
_CBC_PREPROCESSED_INFEASIBLE = "Pre-processing says infeasible or unbounded"
_CBC_LIMIT = re.compile(r"^seconds was changed from \S+ to (\S+)", re.M)
_CBC_WALL = re.compile(r"^Total time \(CPU seconds\):.*\(Wallclock seconds\):\s*(\S+)", re.M)
#: a CBC run that used this share of its ``-sec`` or more may have been cut short by it
CBC_CUT_SHARE = 0.9


def _bounded(prob):
    """Whether every variable of ``prob`` has both bounds (then it cannot be unbounded)."""
    return all(v.lowBound is not None and v.upBound is not None for v in prob.variables())


def _cbc_time_share(log_text):
    """CBC's wall time over its ``-sec``, from its log: 0 without a limit, None when the log
    has no readable wall time."""
    limit, wall = _CBC_LIMIT.search(log_text), _CBC_WALL.search(log_text)
    if limit is None:
        return 0.0
    try:
        return float(wall.group(1)) / max(float(limit.group(1)), 1e-12) if wall else None
    except ValueError:
        return None


def _cbc_outcome(prob, log_text):
    """Read status and bound from CBC's log (``Result - ...``, ``Objective value``, bound)."""
    found = _CBC_RESULT.search(log_text)
    result = found.group(1).strip() if found else "no result line"
    low = result.lower()
    has = prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    objective = float(pulp.value(prob.objective) or 0.0) if has else None
    proven_optimal = low.startswith("optimal")
    # presolve proofs print "Problem is infeasible" without a result line; the solution file
    # (read by PuLP) then starts with "Infeasible". The preprocessing's "infeasible or
    # unbounded" leaves no solution file: it proves infeasibility when every variable is bounded.
    # Neither is a proof when the time limit cut the run short: CBC 2.10's preprocessing, stopped
    # by ``-sec`` in its cut generators, prints "infeasible or unbounded" for a feasible model
    # (an l-diversity model with a feasible MIP start, ``-sec 0.15``).
    unfinished = result == "no result line"
    share = _cbc_time_share(log_text)
    infeasible = "infeasible" in low or (
        unfinished
        and share is not None
        and share < CBC_CUT_SHARE
        and (
            prob.sol_status == pulp.LpSolutionInfeasible
            or (_CBC_PREPROCESSED_INFEASIBLE in log_text and _bounded(prob))
        )
    )
    bound = None
    if has and proven_optimal:
        bound = objective
    elif has:
        # CBC's bound is in its own objective units (which may omit PuLP's constant):
        # carry over its distance from CBC's objective value.
        o, b = _CBC_OBJECTIVE.search(log_text), _CBC_BOUND.search(log_text)
        if o and b and objective is not None:  # ``has``: the objective is set
            bound = objective + (float(b.group(1)) - float(o.group(1)))
    kw = {
        "has_solution": has,
        "bound": bound,
        "proven_optimal": proven_optimal,
        "proven_infeasible": infeasible,
        "hit_limit": low.startswith("stopped")
        or (unfinished and share is not None and share >= CBC_CUT_SHARE),
    }
    kw["failed"] = not (kw["proven_optimal"] or kw["proven_infeasible"] or kw["hit_limit"])
    nodes = _CBC_NODES.search(log_text)
    stats: dict[str, Any] = {"solver_status": result, "nodes": int(nodes.group(1)) if nodes else 0}
    if kw["failed"]:
        stats["reason"] = f"CBC result: {result}"
    return kw, objective, stats


def cbc_executable() -> str | None:
    """The CBC executable ``COIN_CMD`` runs: the one PuLP 3 bundles (``PULP_CBC_CMD``'s, which
    made the results so far), else the ``cbcbox`` package's (``pip install pulp[cbc]``, PuLP 4's
    own choice), else ``cbc`` on ``PATH``; None when there is none."""
    bundled = getattr(getattr(pulp.apis, "coin_api", None), "pulp_cbc_path", None)
    if bundled is not None:
        bundled = pulp.COIN_CMD.executableExtension(bundled)
        if os.path.isfile(bundled) and os.access(bundled, os.X_OK):
            return bundled
    try:
        import cbcbox  # type: ignore[import-not-found]

        boxed = cbcbox.cbc_bin_path()
        if os.path.isfile(boxed):
            return boxed
    except Exception:  # not installed, or a release without cbc_bin_path
        pass
    return shutil.which(pulp.COIN_CMD.executableExtension("cbc"))


class _CBCByDeadline(pulp.COIN_CMD):
    """``pulp.COIN_CMD`` whose ``-sec`` is the time left until ``deadline`` when CBC starts.

    PuLP reads ``timeLimit`` after writing the MPS file and the MIP start, so that writing
    counts against the limit.
    """

    def __init__(self, *args, deadline, **kwargs):
        self._deadline = deadline
        super().__init__(*args, **kwargs)

    @property
    def timeLimit(self):
        return seconds_left(self._deadline)

    @timeLimit.setter
    def timeLimit(self, value):
        pass  # the deadline rules


def _solve_cbc(prob, *, deadline, seed, threads, abs_gap, warm_start, log):
    """Solve with PuLP's CBC binary; return CBC's log text (read back from a temporary file)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cbc.log"
        executable = cbc_executable()
        if executable is None:
            raise RuntimeError(
                "CBC is not available: no CBC bundled with PuLP, no cbcbox package and no `cbc` "
                "on PATH (install it with `pip install pulp[cbc]`)"
            )
        s = _CBCByDeadline(
            msg=False,
            threads=int(threads),
            gapRel=0.0,
            gapAbs=abs_gap,
            warmStart=warm_start,
            logPath=str(path),
            options=[f"randomCbcSeed {int(seed) + 1}"],
            maxNodes=work_limits()[1],
            path=executable,
            deadline=deadline,
        )
        prob.solve(s)
        text = path.read_text()
    if log:
        print(text)
    return text


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------
def run_pulp(
    prob: pulp.LpProblem,
    *,
    solver: str = "highs",
    time_limit: float,
    seed: int = 0,
    threads: int = 1,
    warm_start: bool = False,
    integral: bool = False,
    log: bool = False,
    highs_presolve: bool = True,
) -> RunResult:
    """Solve a PuLP problem with HiGHS (highspy) or CBC under a time limit.

    Parameters
    ----------
    prob : pulp.LpProblem
    solver : {"highs", "cbc"}
        ``pulp.HiGHS`` (in process, through highspy) or ``pulp.COIN_CMD`` (CBC's executable:
        :func:`cbc_executable`).
    time_limit : float
        Seconds from the call, PuLP's copy of the model to the solver included (HiGHS
        ``time_limit``, CBC ``-sec``, set to what is left when the solver starts); no later than
        the run's deadline when one is set (:func:`~anonratio.exact.options.run_deadline`).
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
    highs_presolve : bool
        HiGHS's presolve (its default, ``"choose"``); False switches it off. CBC keeps its own
        preprocessing either way.

    Within :func:`~anonratio.exact.options.work_limit`, HiGHS's ``mip_max_nodes`` and CBC's
    ``maxNodes`` are its ``mip_nodes``.

    Returns
    -------
    RunResult
        ``value(var)`` reads ``var.value()``; ``info`` holds ``n_variables``, ``n_constraints``,
        ``nodes`` and the solver's status text.
    """
    if solver not in PULP_SOLVERS:
        raise ValueError(f"`solver` must be one of {PULP_SOLVERS}, got {solver!r}")
    t0 = perf_counter()
    options = {
        "deadline": within_run(t0 + time_limit),
        "seed": seed,
        "threads": threads,
        "abs_gap": 1.0 - 1e-6 if integral else 1e-9,
        "warm_start": warm_start,
        "log": log,
    }
    info = {
        "solver": solver,
        "n_variables": prob.numVariables(),
        "n_constraints": prob.numConstraints(),
        "workers": int(threads),
    }
    try:
        if solver == "highs":
            _solve_highs(prob, highs_presolve=highs_presolve, **options)
            kw, objective, stats = _highs_outcome(prob, integral)
        else:
            kw, objective, stats = _cbc_outcome(prob, _solve_cbc(prob, **options))
    except (pulp.PulpSolverError, RuntimeError, OSError) as exc:
        info.update(solver_status="exception", reason=f"{type(exc).__name__}: {exc}")
        return RunResult("error", None, None, None, perf_counter() - t0, None, info)
    time_s = perf_counter() - t0
    info.update(stats)
    value = (lambda var: var.value()) if kw["has_solution"] else None
    sense = "max" if prob.sense == pulp.LpMaximize else "min"
    return run_result(kw, objective, time_s, value, info, integral=integral, sense=sense)
