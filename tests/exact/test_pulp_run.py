"""exact/pulp_run.py: the status of a HiGHS or CBC run read from the solver's own proof (on fakes
and on real solves), and PuLP's deprecations: every kind of PuLP solve runs with
DeprecationWarning as an error (PuLP 3.3.2 warns for what PuLP 4.0 removes: ``PULP_CBC_CMD``,
``LpProblem.constraints`` as a dict, ``LpVariable(...)``), and CBC is found without
``PULP_CBC_CMD``."""

import math
import os
import sys
import time
import warnings
from time import perf_counter
from types import SimpleNamespace

import highspy
import numpy as np
import pulp
import pytest

from anonratio.exact import pulp_run
from anonratio.exact.options import work_limit
from anonratio.exact.pulp_run import _cbc_outcome, _highs_outcome, cbc_executable, run_pulp
from anonratio.exact.status import (
    HIGHS_LIMITS,
    HIGHS_PRESOLVE_RULES_OFF,
    decide_status,
    highs_claims,
)


def _knapsack():
    """max 5a + 4b + 3c, 2a + 3b + c <= 5, a, b, c in {0, 1}: optimum 9 (a and b)."""
    prob = pulp.LpProblem("knapsack", pulp.LpMaximize)
    a, b, c = (prob.add_variable(name, 0, 1, cat=pulp.LpBinary) for name in "abc")
    prob += 5 * a + 4 * b + 3 * c
    prob += 2 * a + 3 * b + c <= 5, "weight"
    return prob, (a, b, c)


@pytest.fixture
def migration_calls(monkeypatch):
    """Every call of PuLP 3.3's migration-warning hook, even under a filter that ignores the
    warning (``PULP_CBC_CMD`` used to be built inside one)."""
    calls = []

    def record(message, stacklevel=2):
        calls.append(message)

    monkeypatch.setattr(pulp.pulp, "_v4_deprecation", record, raising=False)
    monkeypatch.setattr(pulp.apis.coin_api, "v4_deprecation", record, raising=False)
    return calls


@pytest.mark.parametrize("warm_start", [False, True])
@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pulp_solves_raise_no_deprecation_warning(solver, warm_start, migration_calls):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        prob, (a, b, c) = _knapsack()
        if warm_start:
            for var, value in zip((a, b, c), (1, 0, 1), strict=True):
                var.setInitialValue(value)
        run = run_pulp(prob, solver=solver, time_limit=10, warm_start=warm_start, integral=True)
        assert (run.status, run.objective, run.bound) == ("optimal", 9.0, 9.0)
        assert [run.value(v) for v in (a, b, c)] == [1, 1, 0]
        assert run.info["n_constraints"] == len(prob.constraints()) == 1
    assert migration_calls == []


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_exact_pulp_models_raise_no_deprecation_warning(solver, migration_calls):
    """The clustering ILP with a MIP start, end to end: its model, start and solve."""
    from anonratio.exact.clustering.ilp import solve_ilp
    from anonratio.instances.clustering import RCellularInstance

    inst = RCellularInstance(np.random.default_rng(0).random((6, 2)), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        sol = solve_ilp(inst, solver=solver, time_limit=10, hint=np.zeros(6, dtype=np.int64))
    assert sol.status == "optimal" and sol.info["hint_used"] is True
    assert migration_calls == []


def test_cbc_executable_is_found_without_pulp_cbc_cmd():
    path = cbc_executable()
    assert path is not None and os.access(path, os.X_OK)


def test_cbc_executable_falls_back_to_path_then_reports_none(monkeypatch):
    monkeypatch.setattr(pulp.apis.coin_api, "pulp_cbc_path", "/nonexistent/cbc")
    monkeypatch.setitem(sys.modules, "cbcbox", None)  # `import cbcbox` fails
    monkeypatch.setattr(pulp_run.shutil, "which", lambda name: f"/somewhere/{name}")
    assert cbc_executable() == "/somewhere/cbc"
    monkeypatch.setattr(pulp_run.shutil, "which", lambda name: None)
    monkeypatch.setattr(pulp_run, "cbc_executable", lambda: None)
    prob, _ = _knapsack()
    run = run_pulp(prob, solver="cbc", time_limit=10)
    assert run.status == "error"
    assert "CBC is not available" in run.info["reason"] and "pulp[cbc]" in run.info["reason"]


# ---------------------------------------------------------------------------------------------
# HiGHS and CBC outcomes read from fakes
# ---------------------------------------------------------------------------------------------
class FakeHighs:
    def __init__(self, status, *, primal=2, obj=10.0, dual=8.0):
        self.status = getattr(highspy.HighsModelStatus, status)
        self.info = SimpleNamespace(
            primal_solution_status=primal,
            objective_function_value=obj,
            mip_dual_bound=dual,
            mip_node_count=7,
            mip_gap=0.2,
        )

    def getModelStatus(self):
        return self.status

    def modelStatusToString(self, status):
        return str(status)

    def getInfo(self):
        return self.info


def fake_prob(model, *, sense=pulp.LpMinimize, mip=True, constant=0.0, sol_status=1, obj=10.0):
    return SimpleNamespace(
        solverModel=model,
        sense=sense,
        objective=SimpleNamespace(constant=constant),
        isMIP=lambda: mip,
        sol_status=sol_status,
    )


def test_highs_time_limit_with_incumbent_is_not_optimal():
    # PuLP maps kTimeLimit to LpStatusOptimal; the model status and the bound say otherwise
    kw, objective, stats = _highs_outcome(fake_prob(FakeHighs("kTimeLimit")), True)
    assert decide_status(objective=objective, **kw)[0] == "time_limit"
    assert (objective, kw["bound"], stats["nodes"]) == (10.0, 8.0, 7)


@pytest.mark.parametrize(
    ("status", "primal", "dual", "expected"),
    [
        ("kOptimal", 2, 10.0, "optimal"),
        ("kOptimal", 2, 9.0, "feasible"),  # stopped at a gap tolerance
        ("kTimeLimit", 0, 8.0, "time_limit"),
        ("kInfeasible", 0, math.inf, "infeasible"),
        ("kModelError", 0, math.inf, "error"),
        ("kSolutionLimit", 2, 9.0, "time_limit"),
        # the one table of HiGHS limits, shared with the factor ILP
        ("kMemoryLimit", 2, 9.0, "time_limit"),
        ("kInterrupt", 0, -math.inf, "time_limit"),
        ("kObjectiveBound", 2, 9.0, "time_limit"),
        ("kIterationLimit", 2, 10.0, "optimal"),  # a limit, but the bound proves the incumbent
        ("kHighsInterrupt", 2, 9.0, "error"),
        ("kUnknown", 2, 9.0, "error"),
        ("kUnboundedOrInfeasible", 0, math.inf, "infeasible"),
    ],
)
def test_highs_outcomes(status, primal, dual, expected):
    kw, objective, stats = _highs_outcome(
        fake_prob(FakeHighs(status, primal=primal, dual=dual)), False
    )
    assert decide_status(objective=objective, **kw)[0] == expected
    assert ("reason" in stats) == (expected == "error")


def test_highs_limit_table():
    # every name in the table is a HiGHS model status; kOptimal and infeasibility are not limits
    names = {m for m in dir(highspy.HighsModelStatus) if m.startswith("k")}
    assert set(HIGHS_LIMITS) <= names
    assert not {"kOptimal", "kInfeasible", "kUnboundedOrInfeasible"} & set(HIGHS_LIMITS)
    claims = highs_claims(FakeHighs("kMemoryLimit", primal=0))
    assert claims == {
        "has_solution": False,
        "proven_optimal": False,
        "proven_infeasible": False,
        "hit_limit": True,
        "failed": False,
    }


def test_highs_maximization_and_constant_are_mapped_back():
    # PuLP hands HiGHS -objective without its constant; map incumbent and bound back
    fake = FakeHighs("kTimeLimit", obj=-10.0, dual=-12.0)
    kw, objective, _ = _highs_outcome(fake_prob(fake, sense=pulp.LpMaximize, constant=1.0), True)
    assert (objective, kw["bound"]) == (11.0, 13.0)
    assert decide_status(objective=objective, sense="max", **kw)[0] == "time_limit"


CBC_TIME = """...
Result - Stopped on time limit

Objective value:                268759.00000000
Lower bound:                    268700.5
Gap:                            0.00
Enumerated nodes:               248
"""
CBC_OPT = "Result - Optimal solution found\n\nObjective value:  3486.0\nEnumerated nodes: 0\n"
CBC_INF = "Result - Linear relaxation infeasible\n\nEnumerated nodes: 0\n"
CBC_PRE = "Cgl0000I Cut generators found to be infeasible! (or unbounded)\n" + (
    "Pre-processing says infeasible or unbounded\n"
)


def _timed(log, limit, wall=None):
    """``log`` as CBC prints it with ``-sec limit``, ending after ``wall`` seconds."""
    head = f"seconds was changed from 1e+100 to {limit}\n"
    tail = f"Total time (CPU seconds):       0.18   (Wallclock seconds):       {wall}\n"
    return head + log + (tail if wall is not None else "")


@pytest.mark.parametrize(
    ("log", "sol_status", "obj", "expected", "bound"),
    [
        (CBC_TIME, pulp.LpSolutionIntegerFeasible, 268759.0, "time_limit", 268700.5),
        # the bound is carried over as a distance from CBC's own objective value
        (CBC_TIME, pulp.LpSolutionIntegerFeasible, 268760.0, "time_limit", 268701.5),
        (CBC_OPT, pulp.LpSolutionOptimal, 3486.0, "optimal", 3486.0),
        (CBC_INF, pulp.LpSolutionInfeasible, 0.0, "infeasible", None),
        # preprocessing's "infeasible or unbounded": infeasible when every variable is bounded
        (CBC_PRE, pulp.LpSolutionNoSolutionFound, 0.0, "infeasible", None),
        (CBC_PRE + "free", pulp.LpSolutionNoSolutionFound, 0.0, "error", None),
        # ... but not when the time limit cut it short: CBC 2.10 prints it for feasible models
        # whose preprocessing ``-sec`` stopped (0.19 s on a 0.15 s limit)
        (_timed(CBC_PRE, 0.15, 0.19), pulp.LpSolutionNoSolutionFound, 0.0, "time_limit", None),
        (_timed(CBC_PRE, 30, 0.19), pulp.LpSolutionNoSolutionFound, 0.0, "infeasible", None),
        (_timed(CBC_PRE, 30), pulp.LpSolutionNoSolutionFound, 0.0, "error", None),
        (_timed("", 0.15, 0.2), pulp.LpSolutionInfeasible, 0.0, "time_limit", None),
        (_timed("", 30, 0.2), pulp.LpSolutionInfeasible, 0.0, "infeasible", None),
        ("garbage", pulp.LpSolutionNoSolutionFound, 0.0, "error", None),
        (
            "Result - Stopped on time limit\n",
            pulp.LpSolutionNoSolutionFound,
            0.0,
            "time_limit",
            None,
        ),
    ],
)
def test_cbc_log_outcomes(log, sol_status, obj, expected, bound):
    x = pulp.LpProblem("p").add_variable("x", 0, None if log.endswith("free") else 1)
    prob = SimpleNamespace(sol_status=sol_status, objective=obj, variables=lambda: [x])
    kw, objective, stats = _cbc_outcome(prob, log)
    status, b = decide_status(objective=objective, integral=False, **kw)
    assert status == expected
    assert kw["bound"] == (pytest.approx(bound) if bound is not None else None)
    assert stats["solver_status"] in log or stats["solver_status"] == "no result line"


# ---------------------------------------------------------------------------------------------
# real solves
# ---------------------------------------------------------------------------------------------
def small_mip(sense=pulp.LpMinimize):
    prob = pulp.LpProblem("small", sense)
    x = prob.add_variable("x", 0, 10, cat=pulp.LpInteger)
    y = prob.add_variable("y", 0, 10, cat=pulp.LpInteger)
    prob += x + 2 * y + 1 if sense == pulp.LpMinimize else x + y  # min: x = 3, y = 0
    prob += 3 * x + 2 * y >= 7 if sense == pulp.LpMinimize else 2 * x + 3 * y <= 12
    return prob, x, y


def hard_mip(n=300, seed=0):
    rng = np.random.default_rng(seed)
    prob = pulp.LpProblem("knapsack", pulp.LpMaximize)
    x = [prob.add_variable(f"x{i}", 0, 1, cat=pulp.LpBinary) for i in range(n)]
    w = rng.integers(1000, 2000, n)
    prob += pulp.lpSum(int(w[i] + rng.integers(0, 10)) * x[i] for i in range(n))
    for _ in range(20):
        a = rng.integers(1000, 2000, n)
        prob += pulp.lpSum(int(a[i]) * x[i] for i in range(n)) <= int(a.sum() // 2)
    return prob, x


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pulp_optimal(solver):
    prob, x, y = small_mip()
    run = run_pulp(prob, solver=solver, time_limit=10, seed=2, integral=True)
    assert run.status == "optimal" and run.objective == pytest.approx(4.0)
    assert run.bound == pytest.approx(4.0) and run.gap == pytest.approx(0.0)
    assert (run.value(x), run.value(y)) == (pytest.approx(3.0), pytest.approx(0.0))
    assert run.info["solver"] == solver and run.info["n_variables"] == 2


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pulp_maximization(solver):
    prob, x, y = small_mip(pulp.LpMaximize)
    run = run_pulp(prob, solver=solver, time_limit=10)
    assert run.status == "optimal" and run.objective == pytest.approx(6.0)


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pulp_infeasible(solver):
    prob, x, y = small_mip()
    prob += x + y <= 1
    prob += x + y >= 3
    run = run_pulp(prob, solver=solver, time_limit=10)
    assert run.status == "infeasible" and not run.has_solution and run.objective is None


def test_pulp_lp_is_its_own_bound():
    prob = pulp.LpProblem("lp", pulp.LpMinimize)
    x = prob.add_variable("x", 0, None)
    prob += 2 * x
    prob += x >= 1.5
    run = run_pulp(prob, solver="highs", time_limit=10)
    assert (run.status, run.objective, run.bound) == ("optimal", 3.0, 3.0)


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pulp_time_limit_is_not_optimal_even_if_pulp_says_so(solver):
    prob, _ = hard_mip()
    run = run_pulp(prob, solver=solver, time_limit=0.3, threads=1)
    assert run.status == "time_limit"
    if run.has_solution:
        # PuLP's own status reads "Optimal" here; the bound says the search is open
        assert prob.status == pulp.LpStatusOptimal
        assert run.bound is not None and run.bound > run.objective and run.gap > 0


def test_highs_mip_start_is_used():
    prob, x = hard_mip(200, seed=3)
    for v in x:  # the empty knapsack: feasible
        v.setInitialValue(0.0)
    x[0].setInitialValue(1.0)
    run = run_pulp(prob, solver="highs", time_limit=0.05, warm_start=True)
    assert run.has_solution and run.objective >= pulp.value(prob.objective) - 1e-6
    assert run.status in ("time_limit", "optimal")


def test_cbc_mip_start_is_used():
    prob, x, y = small_mip()
    x.setInitialValue(1.0)
    y.setInitialValue(2.0)
    run = run_pulp(prob, solver="cbc", time_limit=10, warm_start=True, integral=True)
    assert run.status == "optimal" and run.objective == pytest.approx(4.0)


def test_run_pulp_rejects_unknown_solver():
    prob, _, _ = small_mip()
    with pytest.raises(ValueError, match=r"`solver` must be one of \('highs', 'cbc'\), got 'glpk'"):
        run_pulp(prob, solver="glpk", time_limit=1)


def test_highs_time_limit_counts_pulps_copy_of_the_model(monkeypatch):
    # PuLP copies the model into highspy before HiGHS runs; that copy counts against the limit
    prob, _ = hard_mip(50)
    build = pulp_run._HiGHSByDeadline.buildSolverModel

    def slow_build(self, lp):
        build(self, lp)
        time.sleep(0.3)

    monkeypatch.setattr(pulp_run._HiGHSByDeadline, "buildSolverModel", slow_build)
    run_pulp(prob, solver="highs", time_limit=2.0)
    _, given = prob.solverModel.getOptionValue("time_limit")
    assert given <= 2.0 - 0.3


@pytest.mark.slow
def test_cbc_cut_short_by_its_limit_never_claims_infeasibility():
    # a feasible model (its MIP start is a solution) under limits that stop CBC anywhere from
    # reading the model to its search: CBC 2.10's preprocessing, stopped in its cut generators,
    # prints "infeasible or unbounded" (at 0.13-0.16 s on this l-diversity model), which once
    # made the run "infeasible"; it must be a time limit, with or without the start
    from anonratio.exact.ldiversity.ilp import solve_cbc
    from anonratio.instances import Table
    from anonratio.instances.ldiversity import LDiversityInstance

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(1000, 4))
    table = Table(
        codes, [f"a{j}" for j in range(4)], [list("012")] * 4, sensitive=rng.integers(0, 6, 1000)
    )
    instance = LDiversityInstance(table, 4)
    statuses = set()
    for limit in (0.02, 0.1, 0.13, 0.14, 0.15, 0.16, 0.2, 0.3):
        with pytest.MonkeyPatch.context() as mp:
            limited = property(lambda self, t=limit: t, lambda self, value: None)
            mp.setattr(pulp_run._CBCByDeadline, "timeLimit", limited)
            sol = solve_cbc(instance, time_limit=30)
        statuses.add(sol.status)
        assert sol.status in ("time_limit", "optimal", "error"), (limit, sol.info)
        if sol.status == "time_limit":
            assert sol.labels is not None  # the feasible start is kept
    assert "time_limit" in statuses


def test_cbc_time_limit_is_read_when_cbc_starts():
    s = pulp_run._CBCByDeadline(msg=False, timeLimit=50.0, deadline=perf_counter() + 2.0)
    time.sleep(0.3)
    assert s.timeLimit <= 2.0 - 0.3  # the deadline, not the value given


@pytest.mark.parametrize("presolve", [True, False])
def test_highs_presolve_can_be_switched_off(presolve):
    prob, x, y = small_mip()
    run = run_pulp(prob, solver="highs", time_limit=10, integral=True, highs_presolve=presolve)
    assert run.status == "optimal" and run.objective == pytest.approx(4.0)
    assert prob.solverModel.getOptionValue("presolve")[1] == ("choose" if presolve else "off")


def test_highs_runs_without_enumeration_presolve():
    # HiGHS's enumeration presolve does not look at the time limit (it ran 37 s on an 8 s
    # limit on a 28,079-column k-anonymity round)
    prob, x, y = small_mip()
    run_pulp(prob, solver="highs", time_limit=10)
    _, off = prob.solverModel.getOptionValue("presolve_rule_off")
    assert off & HIGHS_PRESOLVE_RULES_OFF == HIGHS_PRESOLVE_RULES_OFF != 0


def _six_row_knapsack():
    """A 30-item knapsack with six capacity rows: HiGHS and CBC branch (or cut) to prove it."""
    rng = np.random.default_rng(1)
    n = 30
    prob = pulp.LpProblem("knapsack", pulp.LpMaximize)
    x = [prob.add_variable(f"x{i}", 0, 1, cat=pulp.LpBinary) for i in range(n)]
    value = rng.integers(10**3, 10**4, size=n)
    prob += pulp.lpSum(int(value[i]) * x[i] for i in range(n))
    for _ in range(6):
        w = rng.integers(10**3, 10**4, size=n)
        prob += pulp.lpSum(int(w[i]) * x[i] for i in range(n)) <= int(w.sum() // 2)
    return prob


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_a_node_limit_stops_the_search_and_is_a_limit(solver):
    free = run_pulp(_six_row_knapsack(), solver=solver, time_limit=600, integral=True)
    assert free.status == "optimal"
    with work_limit(mip_nodes=1):
        stopped = run_pulp(_six_row_knapsack(), solver=solver, time_limit=600, integral=True)
    assert stopped.status == "time_limit", stopped.info
    assert stopped.info["nodes"] <= 1
