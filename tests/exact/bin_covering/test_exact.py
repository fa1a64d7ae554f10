"""Tests of exact/bin_covering_cpsat.py and exact/bin_covering_ilp.py (tiny instances)."""

from functools import partial

import numpy as np
import pytest
from bruteforce import bin_covering_instances
from bruteforce import bin_covering_optimum as brute_opt
from hypothesis import given, settings

from anonratio.exact.bin_covering.cpsat import solve_cpsat
from anonratio.exact.bin_covering.ilp import solve_cbc, solve_highs
from anonratio.instances import lower_bound, verify
from anonratio.instances.bin_covering.generators import (
    planted_three_partition,
    three_partition_no_instance,
)
from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.solvers.bin_covering.spread import spread

SOLVERS = {"cpsat": solve_cpsat, "highs": solve_highs, "cbc": solve_cbc}


instances = partial(bin_covering_instances, max_n=8, max_k=30, spread=2)


def _check_optimal(inst, sol, optimum):
    assert sol.status == "optimal", sol.info
    check = verify(inst, sol)
    assert check.cost == sol.objective == optimum
    assert sol.lower_bound == optimum and sol.gap == 0


@settings(max_examples=12, deadline=None, derandomize=True)
@given(instances())
def test_all_models_agree_with_brute_force(inst):
    optimum = brute_opt(tuple(inst.sizes.tolist()), inst.k)
    for name, solve in SOLVERS.items():
        sol = solve(inst, time_limit=20)
        assert sol.algorithm == f"bc-{name}"
        _check_optimal(inst, sol, optimum)


@pytest.mark.parametrize("name", ["cpsat", "highs", "cbc"])
def test_planted_three_partition_solved_to_B(name):
    inst, meta = planted_three_partition(4, B=60, seed=5)
    sol = SOLVERS[name](inst, time_limit=30, hint=spread(inst))
    _check_optimal(inst, sol, meta["optimum"])
    assert verify(inst, sol).n_bins == 4


def test_three_partition_no_instance_above_B():
    inst, meta = three_partition_no_instance(2, B=41, seed=0)
    sol = solve_cpsat(inst, time_limit=20)
    assert sol.status == "optimal" and sol.objective >= meta["optimum_lower_bound"]


@pytest.mark.parametrize("name", ["cpsat", "highs", "cbc"])
def test_hint_and_info(name):
    inst = BinCoveringInstance([9, 7, 6, 5, 5, 4, 3, 2, 2, 1], 12)
    hint = spread(inst)
    sol = SOLVERS[name](inst, time_limit=20, hint=hint, seed=3, threads=1)
    _check_optimal(inst, sol, brute_opt(tuple(inst.sizes.tolist()), 12))
    info = sol.info
    assert info["hint_cost"] == hint.objective and info["upper_bound_used"] <= hint.objective
    assert info["lower_bound_used"] == lower_bound(inst)[0] and info["n_values"] == 8
    assert sol.params["hint"] is True and sol.params["k"] == 12 and sol.seed == 3
    # a labels array works as a hint too
    again = SOLVERS[name](inst, time_limit=20, hint=np.asarray(hint.labels))
    assert again.objective == sol.objective


@pytest.mark.parametrize("name", ["cpsat", "highs"])
def test_upper_bound_below_optimum_is_infeasible(name):
    inst = BinCoveringInstance([5, 4, 3, 3, 2, 1], 6)
    sol = SOLVERS[name](inst, time_limit=10, upper_bound=5)
    assert sol.status == "infeasible" and sol.labels is None and sol.lower_bound is None
    assert "upper_bound=5" in sol.info["reason"]
    ok = SOLVERS[name](inst, time_limit=10, upper_bound=6.5)
    assert ok.status == "optimal" and ok.objective == 6


@pytest.mark.parametrize("name", ["cpsat", "highs"])
def test_time_limit_contract(name):
    # a short limit: either proven optimal, or the best cover found (if any) with its bound
    inst, _ = planted_three_partition(12, B=1000, seed=0)
    sol = SOLVERS[name](inst, time_limit=0.2, hint=spread(inst))
    assert sol.status in ("optimal", "time_limit")
    if sol.labels is not None:
        assert verify(inst, sol).cost == sol.objective
        assert 1000 <= sol.lower_bound <= sol.objective
    if sol.status == "optimal":
        assert sol.objective == 1000 and sol.gap == 0


@pytest.mark.parametrize("name", ["cpsat", "highs", "cbc"])
def test_validation(name):
    inst = BinCoveringInstance([5, 4, 3], 6)
    solve = SOLVERS[name]
    with pytest.raises(ValueError, match=r"`hint` must be a feasible solution: bin 1 has load"):
        solve(inst, hint=[0, 1, 0])
    with pytest.raises(ValueError, match=r"`time_limit` must be a positive finite number"):
        solve(inst, time_limit=0)
    with pytest.raises(ValueError, match=r"`threads` must be an integer >= 1"):
        solve(inst, threads=0)
    with pytest.raises(ValueError, match=r"`upper_bound` must be a number >= 0 or None"):
        solve(inst, upper_bound=-1)
    with pytest.raises(TypeError, match=r"`instance` must be a BinCoveringInstance"):
        solve([5, 4, 3])
