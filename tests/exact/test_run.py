"""exact/run.py (status.py, options.py): status decisions from the solver's own proof, pure and
on CP-SAT; the HiGHS and CBC runs of pulp_run.py are tested in test_pulp_run.py."""

import math
import os
import subprocess
import sys
from time import perf_counter

import numpy as np
import pytest
from ortools.sat.python import cp_model

from anonratio.exact.options import check_upper_bound, seconds_left, work_limit, work_limits
from anonratio.exact.run import (
    _cpsat_solver,
    check_run_options,
    decide_status,
    relative_gap,
    run_cpsat,
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
# Python's own handler, as in a foreground process (a shell starts background jobs with SIGINT
# ignored, and Python then keeps it ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
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


def test_seconds_left_is_positive_even_past_the_deadline():
    assert 4.0 < seconds_left(perf_counter() + 5.0) <= 5.0
    assert seconds_left(perf_counter() - 1.0) == 1e-3


# ---------------------------------------------------------------------------------------------
# deterministic work limits
# ---------------------------------------------------------------------------------------------
def _subset_sum_model(n):
    """The cheapest subset of ``n`` random weights reaching half their sum: a search to prove."""
    w = [int(x) for x in np.random.default_rng(0).integers(10**5, 10**6, size=n)]
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{i}") for i in range(n)]
    model.add(sum(wi * xi for wi, xi in zip(w, x, strict=True)) >= sum(w) // 2 + 1)
    model.minimize(sum(wi * xi for wi, xi in zip(w, x, strict=True)))
    return model


def test_work_limit_nests_keeping_the_smaller_limit_and_names_bad_values():
    assert work_limits() == (None, None)
    with work_limit(cpsat_deterministic_time=5.0):
        with work_limit(cpsat_deterministic_time=9.0, mip_nodes=100):
            assert work_limits() == (5.0, 100)
            with work_limit(mip_nodes=10):
                assert work_limits() == (5.0, 10)
        assert work_limits() == (5.0, None)
    assert work_limits() == (None, None)
    with pytest.raises(ValueError, match="cpsat_deterministic_time"):
        with work_limit(cpsat_deterministic_time=0):
            pass
    with pytest.raises(ValueError, match="mip_nodes"):
        with work_limit(mip_nodes=0):
            pass


def test_cpsat_stops_at_the_deterministic_limit_under_a_generous_clock():
    # the search needs tens of thousands of branches; the work limit stops it, not the clock
    with work_limit(cpsat_deterministic_time=1e-3):
        run = run_cpsat(_subset_sum_model(60), time_limit=600)
    assert run.status == "time_limit"  # 600 s of clock left: the work limit stopped it
    # a proof within the limit is the same proof on any machine: one worker, one seed
    runs = []
    for _ in range(2):
        with work_limit(cpsat_deterministic_time=10.0):
            runs.append(run_cpsat(_subset_sum_model(12), time_limit=600, seed=3))
    assert {r.status for r in runs} == {"optimal"}
    assert runs[0].objective == runs[1].objective
    assert runs[0].info["num_branches"] == runs[1].info["num_branches"]
