"""exact/run.py (status.py, options.py, pulp_run.py): status decisions from the solver's own proof,
on fakes and on real solvers."""

import math
import os
import subprocess
import sys
import time
from time import perf_counter
from types import SimpleNamespace

import highspy
import numpy as np
import pulp
import pytest
from ortools.sat.python import cp_model

from anonratio.exact import pulp_run
from anonratio.exact.options import check_upper_bound, seconds_left
from anonratio.exact.pulp_run import _cbc_outcome, _highs_outcome
from anonratio.exact.run import (
    HIGHS_LIMITS,
    HIGHS_PRESOLVE_RULES_OFF,
    _cpsat_solver,
    check_run_options,
    decide_status,
    highs_claims,
    relative_gap,
    run_cpsat,
    run_pulp,
)


# ---------------------------------------------------------------------------------------------
# decide_status and relative_gap (pure)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        # the bound proves the incumbent: optimal, whatever the solver says
        (
            {"has_solution": True, "objective": 10.0, "bound": 10.0, "proven_optimal": True},
            "optimal",
        ),
        ({"has_solution": True, "objective": 10.0, "bound": 10.0, "hit_limit": True}, "optimal"),
        # a limit with an open bound: time_limit
        ({"has_solution": True, "objective": 10.0, "bound": 8.0, "hit_limit": True}, "time_limit"),
        ({"has_solution": True, "objective": 10.0, "bound": None, "hit_limit": True}, "time_limit"),
        # the solver claims optimality but its bound does not prove it (a gap tolerance)
        (
            {"has_solution": True, "objective": 10.0, "bound": 9.0, "proven_optimal": True},
            "feasible",
        ),
        (
            {"has_solution": True, "objective": 10.0, "bound": math.inf, "proven_optimal": True},
            "feasible",
        ),
        ({"has_solution": True, "objective": 10.0, "bound": math.nan}, "feasible"),
        # no incumbent
        ({"has_solution": False, "proven_infeasible": True}, "infeasible"),
        ({"has_solution": False, "hit_limit": True, "bound": 3.0}, "time_limit"),
        ({"has_solution": False}, "error"),
        ({"has_solution": False, "failed": True}, "error"),
        # contradictions are errors
        ({"has_solution": True, "objective": 1.0, "bound": 1.0, "failed": True}, "error"),
        ({"has_solution": True, "objective": 1.0, "proven_infeasible": True}, "error"),
    ],
)
def test_decide_status(kwargs, expected):
    assert decide_status(**kwargs)[0] == expected


def test_integral_objective_rounds_the_bound():
    # bound 9.2 on an integer objective proves 10
    assert decide_status(has_solution=True, objective=10, bound=9.2, integral=True) == (
        "optimal",
        10,
    )
    status, bound = decide_status(
        has_solution=True, objective=11, bound=9.2, integral=True, hit_limit=True
    )
    assert (status, bound) == ("time_limit", 10)
    # maximizing: a bound 10.8 on an integer objective proves 10
    assert decide_status(
        has_solution=True, objective=10, bound=10.8, integral=True, sense="max"
    ) == (
        "optimal",
        10,
    )


def test_bound_beyond_the_incumbent():
    # by less than the tolerance: numerical noise, clipped
    assert decide_status(has_solution=True, objective=5.0, bound=5.0 + 1e-9) == ("optimal", 5.0)
    assert decide_status(has_solution=True, objective=5.0, bound=5 - 1e-9, sense="max") == (
        "optimal",
        5.0,
    )
    # by more: the bound is not valid (a solver or mapping bug), never a proof of optimality
    assert decide_status(has_solution=True, objective=5.0, bound=6.0, hit_limit=True)[0] == "error"
    assert decide_status(has_solution=True, objective=5.0, bound=4.0, sense="max")[0] == "error"


def test_absolute_tolerance():
    # abs_tol replaces tol * max(1, |objective|): the factor ILP's absolute MIP gap
    kw = {"has_solution": True, "objective": 100.0, "bound": 100.0 - 5e-5, "hit_limit": True}
    assert decide_status(**kw)[0] == "optimal"  # within 1e-6 * 100
    assert decide_status(**kw, abs_tol=1e-7) == ("time_limit", 100.0 - 5e-5)
    assert decide_status(**{**kw, "bound": 100.0 - 5e-8}, abs_tol=1e-7)[0] == "optimal"
    assert decide_status(**{**kw, "bound": 100.0 + 5e-7}, abs_tol=1e-7) == ("error", None)


def test_relative_gap():
    assert relative_gap(10.0, 8.0) == pytest.approx(0.2)
    assert relative_gap(0.0, 0.0) == 0.0
    assert relative_gap(None, 1.0) is None and relative_gap(1.0, None) is None
    assert relative_gap(-10.0, -12.0) == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 0, 1), r"`time_limit` must be a positive finite number of seconds, got 0"),
        ((math.inf, 0, 1), r"`time_limit` must be a positive finite number of seconds, got inf"),
        ((True, 0, 1), r"`time_limit` must be a positive finite number of seconds, got True"),
        ((1, 0, 0), r"`threads` must be an integer >= 1, got 0"),
        ((1, 0, "2"), r"`threads` must be an integer >= 1, got '2'"),
        ((1, -3, 1), r"`seed` must be an integer in \[0, 2147483646\] or None, got -3"),
        ((1, 1.5, 1), r"`seed` must be an integer in \[0, 2147483646\] or None, got 1.5"),
    ],
)
def test_check_run_options_rejects(args, message):
    with pytest.raises(ValueError, match=message):
        check_run_options(*args)


def test_check_run_options_normalizes():
    assert check_run_options(5, None, np.int64(2)) == (5.0, 0, 2)
    assert check_run_options(np.float32(0.5), np.int64(7), 1) == (0.5, 7, 1)


def test_check_upper_bound():
    assert check_upper_bound(None) is None
    assert check_upper_bound(np.int64(3)) == 3.0 and check_upper_bound(math.inf) == math.inf
    for bad in (-1, math.nan, "5", True):
        with pytest.raises(ValueError, match=r"`upper_bound` must be a number >= 0 or None, got"):
            check_upper_bound(bad)


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
# real solvers
# ---------------------------------------------------------------------------------------------
def knapsack_cpsat(n, seed=0):
    rng = np.random.default_rng(seed)
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{i}") for i in range(n)]
    for _ in range(10):
        a = rng.integers(1000, 2000, n)
        model.add(cp_model.LinearExpr.weighted_sum(x, a.tolist()) <= int(a.sum() // 2))
    v = rng.integers(1000, 2000, n)
    model.minimize(cp_model.LinearExpr.weighted_sum(x, (-v).tolist()))
    return model, x


def test_cpsat_optimal():
    model = cp_model.CpModel()
    x = model.new_int_var(0, 10, "x")
    model.add(x >= 3)
    model.minimize(2 * x + 1)
    run = run_cpsat(model, time_limit=10, seed=1, threads=1)
    assert (run.status, run.objective, run.bound, run.gap) == ("optimal", 7.0, 7.0, 0.0)
    assert run.value(x) == 3 and run.has_solution
    assert run.info["solver_status"] == "OPTIMAL" and run.info["n_variables"] == 1


def test_cpsat_infeasible():
    model = cp_model.CpModel()
    x = model.new_int_var(0, 10, "x")
    model.add(x >= 11)
    model.minimize(x)
    run = run_cpsat(model, time_limit=10)
    assert (run.status, run.objective, run.value) == ("infeasible", None, None)


def test_cpsat_model_invalid():
    model = cp_model.CpModel()
    model.new_int_var(0, 10, "x")
    model.proto.variables[0].domain.extend([3])  # a domain needs an even number of bounds
    run = run_cpsat(model, time_limit=10)
    assert run.status == "error" and not run.has_solution
    assert "domain" in run.info["reason"]


def test_cpsat_time_limit_is_never_optimal():
    model, _ = knapsack_cpsat(400)
    run = run_cpsat(model, time_limit=0.05, threads=1)
    assert run.status == "time_limit"
    if run.has_solution:
        assert run.bound is not None and run.bound < run.objective
    assert run.info["solver_status"] in ("FEASIBLE", "UNKNOWN")


def test_cpsat_parameters_set_repeated_fields():
    model, _ = knapsack_cpsat(10)
    run = run_cpsat(model, time_limit=10, threads=2, parameters={"subsolvers": ["max_lp", "core"]})
    assert run.status == "optimal" and run.info["workers"] == 2


def test_cpsat_never_takes_over_sigint():
    solver = _cpsat_solver(5, 0, 1, False, {"catch_sigint_signal": True})
    assert solver.parameters.catch_sigint_signal is False


_SIGINT_AFTER_A_SOLVE = """
import os, signal, time
from ortools.sat.python import cp_model
from anonratio.exact.run import run_cpsat
model = cp_model.CpModel()
x = model.new_int_var(0, 10, "x")
model.add(3 * x >= 7)
model.minimize(x)
assert run_cpsat(model, time_limit=5).status == "optimal"
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""


def test_ctrl_c_after_a_cpsat_solve_is_still_a_keyboard_interrupt():
    # CP-SAT's own SIGINT handler, left behind after a solve, made the next Ctrl-C kill the
    # process (rc -2) instead of raising KeyboardInterrupt
    proc = subprocess.run(
        [sys.executable, "-c", _SIGINT_AFTER_A_SOLVE],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert (proc.returncode, proc.stdout) == (0, "KeyboardInterrupt\n"), proc.stderr


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


def test_seconds_left_is_positive_even_past_the_deadline():
    assert 4.0 < seconds_left(perf_counter() + 5.0) <= 5.0
    assert seconds_left(perf_counter() - 1.0) == 1e-3
