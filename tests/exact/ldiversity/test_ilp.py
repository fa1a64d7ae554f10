"""ILP exact l-diversity (HiGHS and CBC through PuLP): optimum against brute force (both
objectives), agreement with CP-SAT, hints, bounds, limits."""

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optimum, random_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.ldiversity.cpsat import solve_cpsat
from anonratio.exact.ldiversity.ilp import solve_cbc, solve_highs, solve_ilp
from anonratio.instances import Solution, Table, lower_bound, verify
from anonratio.instances.ldiversity import LDiversityInstance

SEEDS = st.integers(0, 2**32 - 1)
SOLVERS = {"highs": solve_highs, "cbc": solve_cbc}


def check_optimal(instance, sol, name, optimum=None):
    assert sol.status == "optimal", sol.info
    assert sol.algorithm == f"ldiv-{name}"
    cost = verify(instance, sol).cost
    assert sol.objective == cost
    assert sol.lower_bound == sol.objective and sol.gap == 0
    if optimum is not None:
        assert cost == optimum
    return cost


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_all_models_agree_with_brute_force(proof, seed):
    with proof.work():
        instance = random_instance(seed)
        optimum = ldiversity_optimum(instance)
        for name, solve in SOLVERS.items():
            check_optimal(instance, solve(instance, time_limit=proof.time_limit), name, optimum)
        assert solve_cpsat(instance, time_limit=proof.time_limit).objective == optimum


@pytest.mark.parametrize("objective", ["stars", "tuples"])
@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_both_objectives_at_n9(name, objective):
    for seed in (1, 5):
        instance = random_instance(seed, n=9, l=3, m=3, d=3, objective=objective)
        sol = SOLVERS[name](instance, time_limit=20)
        check_optimal(instance, sol, name, ldiversity_optimum(instance))


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_hint_is_accepted(name):
    instance = random_instance(7, n=9, l=3, m=3, d=3, objective="stars")
    optimum = ldiversity_optimum(instance)
    one_group = np.zeros(instance.n, dtype=np.int64)
    sol = SOLVERS[name](instance, time_limit=20, hint=Solution(one_group, "x"))
    check_optimal(instance, sol, name, optimum)
    assert sol.info["hint_cost"] == verify(instance, one_group).cost
    best = solve_cpsat(instance, time_limit=20)
    check_optimal(instance, SOLVERS[name](instance, time_limit=20, hint=best), name, optimum)


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_upper_bound_below_optimum_is_infeasible(name):
    instance = random_instance(2, n=9, l=3, m=3, d=3, objective="stars")
    optimum = ldiversity_optimum(instance)
    assert optimum > 0
    sol = SOLVERS[name](instance, time_limit=20, upper_bound=optimum - 1)
    assert sol.status == "infeasible" and sol.labels is None


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_small_time_limit_gives_a_valid_bound(name):
    rng = np.random.default_rng(0)
    n, d = 1000, 4
    codes = rng.integers(0, 3, size=(n, d))
    t = Table(
        codes, [f"a{j}" for j in range(d)], [list("012")] * d, sensitive=rng.integers(0, 6, n)
    )
    instance = LDiversityInstance(t, 4)
    sol = SOLVERS[name](instance, time_limit=1)
    assert sol.status in ("optimal", "time_limit"), sol.info
    # an incumbent always: the solver's, or the start (phase 1 of TP) when it found none
    assert verify(instance, sol).cost == sol.objective
    assert sol.lower_bound <= sol.objective <= sol.info["start_cost"]
    assert sol.lower_bound >= lower_bound(instance)[0]


def test_unknown_solver():
    with pytest.raises(ValueError, match="solver"):
        solve_ilp(random_instance(0, n=4, l=2, m=2), solver="glpk")
