"""Tests of exact/clustering/ilp.py: HiGHS and CBC agree with CP-SAT and the brute force."""

import math
import re
from time import perf_counter

import numpy as np
import pytest
from bruteforce_clustering import any_instances as instances
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings

from anonratio.exact.clustering import deadline
from anonratio.exact.clustering import ilp as ilp_module
from anonratio.exact.clustering.cpsat import solve_cpsat
from anonratio.exact.clustering.ilp import solve_cbc, solve_highs, solve_ilp
from anonratio.exact.options import run_deadline
from anonratio.instances import Solution, verify
from anonratio.instances.clustering import (
    CellularInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from anonratio.instances.clustering.verify import clustering_lower_bound

SOLVERS = {"cpsat": solve_cpsat, "highs": solve_highs, "cbc": solve_cbc}
PROBLEMS = ("r-gather", "r-eps-gather", "kr-center", "cellular", "r-cellular")


def check_optimal(inst, sol, optimum):
    assert sol.status == "optimal", sol.info
    assert verify(inst, sol).cost == sol.objective
    assert sol.objective == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert sol.lower_bound == pytest.approx(sol.objective, rel=1e-6, abs=1e-9)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(instances())
def test_all_models_agree_with_brute_force(inst):
    optimum = clustering_optimum(inst)
    for name, solve in SOLVERS.items():
        sol = solve(inst, time_limit=20)
        assert sol.algorithm == f"{inst.problem}-{name}"
        check_optimal(inst, sol, optimum)


@pytest.mark.parametrize("name", ["highs", "cbc"])
@pytest.mark.parametrize("problem", PROBLEMS)
def test_each_problem_with_a_hint(name, problem):
    pts = np.random.default_rng(5).random((8, 2))
    inst = {
        "r-gather": RGatherInstance(pts, 3),
        "r-eps-gather": REpsGatherInstance(pts, 3, 0.25),
        "kr-center": KRCenterInstance(pts, 2, 3),
        "cellular": CellularInstance(pts, np.full(8, 0.3)),
        "r-cellular": RCellularInstance(pts, 2),
    }[problem]
    optimum = clustering_optimum(inst)
    best = solve_cpsat(inst, time_limit=10)
    for hint in (best, np.asarray(best.labels)):
        sol = SOLVERS[name](inst, time_limit=20, hint=hint, seed=2)
        check_optimal(inst, sol, optimum)
        assert sol.info["hint_used"] is True and sol.params["hint"] is True and sol.seed == 2
        assert sol.info["hint_cost"] == pytest.approx(optimum)


@pytest.mark.parametrize("name", ["highs", "cbc"])
def test_duplicates_and_integer_scaling(name):
    pts = [[0, 0], [0, 0], [0, 1], [3, 3], [3, 3], [4, 3]]
    inst = RCellularInstance(pts, 3, [1.5] * 6, metric="manhattan")
    sol = SOLVERS[name](inst, time_limit=10)
    check_optimal(inst, sol, clustering_optimum(inst))
    assert sol.objective == 2 * 1.5 + 3 + 3
    assert sol.info["objective_scaling"] == "integer x 10"


@pytest.mark.parametrize("name", ["highs", "cbc"])
def test_tiny_time_limit_gives_a_valid_bound(name):
    inst = RCellularInstance(np.random.default_rng(1).random((25, 2)), 3)
    sol = SOLVERS[name](inst, time_limit=1e-3)
    assert sol.status in ("time_limit", "optimal")
    if sol.labels is not None:
        cost = verify(inst, sol).cost
        assert cost == sol.objective
        assert sol.lower_bound is None or sol.lower_bound <= cost + 1e-9


@pytest.mark.parametrize("name", ["highs", "cbc"])
@pytest.mark.parametrize("problem", ["kr-center", "r-cellular"])
def test_upper_bound_below_the_optimum_is_infeasible(name, problem):
    pts = np.random.default_rng(2).random((7, 2))
    inst = KRCenterInstance(pts, 2, 3) if problem == "kr-center" else RCellularInstance(pts, 2)
    opt = clustering_optimum(inst)
    sol = SOLVERS[name](inst, time_limit=10, upper_bound=opt * 0.9)
    assert sol.status == "infeasible" and sol.labels is None and sol.lower_bound is None
    check_optimal(inst, SOLVERS[name](inst, time_limit=10, upper_bound=opt * 1.01), opt)


def test_bad_input():
    inst = RGatherInstance(np.arange(5.0), 2)
    with pytest.raises(ValueError, match="solver"):
        solve_ilp(inst, solver="glpk")
    with pytest.raises(TypeError, match="`instance`"):
        solve_highs(Solution(None, "x"))
    with pytest.raises(ValueError, match="time_limit"):
        solve_cbc(inst, time_limit=-1)
    with pytest.raises(ValueError, match="hint"):
        solve_highs(inst, hint=np.arange(5))


# ---------------------------------------------------------------------------------------------
# the run's deadline (no wall times: a deadline already passed, patched rates and clocks)
# ---------------------------------------------------------------------------------------------
def _deadline_instance(problem):
    pts = np.random.default_rng(6).random((10, 2))
    return {
        "r-gather": RGatherInstance(pts, 3),
        "r-eps-gather": REpsGatherInstance(pts, 3, 0.2),
        "kr-center": KRCenterInstance(pts, 2, 3),
        "cellular": CellularInstance(pts, np.full(10, 0.5)),
        "r-cellular": RCellularInstance(pts, 3, np.full(10, 0.5)),
    }[problem]


@pytest.fixture
def no_solver(monkeypatch):
    """The solver must not run: the deadline stops the run before it."""

    def fail(*args, **kwargs):
        raise AssertionError("the solver was called after the deadline")

    monkeypatch.setattr(ilp_module, "run_pulp", fail)


@pytest.mark.parametrize("name", ["highs", "cbc"])
@pytest.mark.parametrize("problem", PROBLEMS)
def test_a_passed_deadline_stops_before_the_solver(name, problem, no_solver):
    inst = _deadline_instance(problem)
    trivial = np.zeros(10, dtype=np.int64)  # one cluster at its best center: feasible
    lb = clustering_lower_bound(inst)[0]
    with run_deadline(perf_counter() - 1):  # the registry's run deadline, already passed
        sol = SOLVERS[name](inst, time_limit=10, hint=trivial)
        bare = SOLVERS[name](inst, time_limit=10)
    assert sol.status == "time_limit" and np.array_equal(sol.labels, trivial)
    assert sol.objective == verify(inst, sol).cost
    assert lb <= sol.lower_bound <= sol.objective
    assert sol.info["solver_status"] == "not run"
    assert sol.info["reason"] == "the time limit came while computing the distances"
    assert bare.status == "time_limit" and bare.labels is None and bare.lower_bound == lb


@pytest.mark.parametrize("name", ["highs", "cbc"])
def test_a_passed_deadline_keeps_the_proven_bound_of_a_hint(name, no_solver):
    inst = _deadline_instance("cellular")
    proven = Solution.with_bound(
        np.zeros(10, dtype=np.int64), "one-cluster", objective=None, bound=0.75, t0=perf_counter()
    )
    sol = SOLVERS[name](inst, time_limit=1e-9, hint=proven)
    assert sol.status == "time_limit" and sol.lower_bound == 0.75
    assert clustering_lower_bound(inst)[0] < 0.75 < sol.objective


@pytest.mark.parametrize("name", ["highs", "cbc"])
@pytest.mark.parametrize("problem", ["kr-center", "r-cellular"])
def test_a_model_too_large_to_load_is_refused(name, problem, monkeypatch, no_solver):
    monkeypatch.setitem(deadline.LOAD_SECONDS, name, 1e3)  # 1000 s a nonzero
    inst = _deadline_instance(problem)
    sol = SOLVERS[name](inst, time_limit=60, hint=np.zeros(10, dtype=np.int64))
    assert sol.status == "time_limit" and sol.labels is not None
    assert re.fullmatch(
        r"a model of \d+ nonzeros needs about \S+ s to build and load into \w+, \S+ s left",
        sol.info["reason"],
    )


@pytest.mark.parametrize("name", ["highs", "cbc"])
@pytest.mark.parametrize("problem", ["r-eps-gather", "cellular"])
def test_the_deadline_is_checked_while_the_model_is_built(name, problem, monkeypatch, no_solver):
    # the clock runs out right after the size check: the first variables built see it
    expired = []
    real = deadline.perf_counter
    monkeypatch.setattr(deadline, "perf_counter", lambda: math.inf if expired else real())
    checked = ilp_module.check_size

    def check_then_expire(*args, **kwargs):
        checked(*args, **kwargs)
        expired.append(True)

    monkeypatch.setattr(ilp_module, "check_size", check_then_expire)
    sol = SOLVERS[name](_deadline_instance(problem), time_limit=60)
    assert sol.status == "time_limit" and sol.info["solver_status"] == "not run"
    assert sol.info["reason"] == "the time limit came while building the variables"
