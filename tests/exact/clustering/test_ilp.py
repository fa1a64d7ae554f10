"""Tests of exact/clustering/ilp.py: HiGHS and CBC agree with CP-SAT and the brute force."""

import numpy as np
import pytest
from anonratio.exact.clustering.cpsat import solve_cpsat
from anonratio.exact.clustering.ilp import solve_cbc, solve_highs, solve_ilp
from anonratio.instances import Solution, verify
from anonratio.instances.clustering import (
    CellularInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from bruteforce_clustering import any_instances as instances
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings

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
