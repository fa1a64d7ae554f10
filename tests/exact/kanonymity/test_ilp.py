"""ILP exact k-anonymity (PuLP + HiGHS / CBC): agreement with CP-SAT and brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact import solve_k_anonymity
from anonratio.exact.kanonymity.cpsat import solve_cpsat
from anonratio.exact.kanonymity.ilp import solve_cbc, solve_highs
from anonratio.instances import KAnonymityInstance, Solution, Table, lower_bound, verify

SEEDS = st.integers(0, 2**32 - 1)


def check_optimal(instance, sol, algorithm, optimum=None):
    assert sol.status == "optimal"
    assert sol.algorithm == f"kanon-{algorithm}"
    cost = verify(instance, sol).cost
    assert sol.objective == pytest.approx(cost, abs=1e-9)
    assert sol.lower_bound == pytest.approx(sol.objective)
    assert lower_bound(instance)[0] <= cost + 1e-9
    if optimum is not None:
        assert cost == pytest.approx(optimum, abs=1e-9)
    return cost


@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_highs_matches_cpsat_and_brute_force(proof, kx, seed):
    with proof.work():
        rng = np.random.default_rng(seed)
        row_deletion = bool(rng.integers(0, 2))
        instance = kx.random_instance(
            seed, n_max=6 if row_deletion else 8, row_deletion=row_deletion
        )
        optimum = kx.brute_force(instance)
        check_optimal(
            instance, solve_highs(instance, time_limit=proof.time_limit), "highs", optimum
        )
        check_optimal(
            instance, solve_cpsat(instance, time_limit=proof.time_limit), "cpsat", optimum
        )


@pytest.mark.parametrize(
    "options",
    [
        {"model": "suppression", "row_deletion": False, "weighted": False},
        {"model": "generalization", "row_deletion": False, "weighted": True},
        {"model": "generalization", "row_deletion": True, "weighted": False},
    ],
)
def test_cbc_matches_highs_and_brute_force(proof, kx, options):
    with proof.work():
        instance = kx.random_instance(29, n=6, m=3, k=2, **options)
        optimum = kx.brute_force(instance)
        check_optimal(instance, solve_cbc(instance, time_limit=proof.time_limit), "cbc", optimum)
        check_optimal(
            instance, solve_highs(instance, time_limit=proof.time_limit), "highs", optimum
        )


def test_three_solvers_agree_on_a_larger_binary_table(kx):
    instance = kx.binary_instance(24, 8, 3, seed=24)
    costs = {
        method: check_optimal(
            instance, solve_k_anonymity(instance, method=f"kanon-{method}"), method
        )
        for method in ("cpsat", "highs", "cbc")
    }
    assert costs["cpsat"] == costs["highs"] == costs["cbc"]


def test_highs_takes_arbitrary_weights(kx):
    codes = np.array([[0, 1, 2], [1, 0, 2], [1, 1, 0], [0, 0, 1], [2, 1, 1], [0, 2, 2]])
    values = (("0", "1", "2"),) * 3
    table = Table(codes, ("a", "b", "c"), values, weights=[np.pi, 1 / 7, np.sqrt(2)])
    instance = KAnonymityInstance(table, 2)
    sol = solve_highs(instance, time_limit=20)
    check_optimal(instance, sol, "highs", kx.brute_force(instance))
    assert sol.info["objective_scale"] == 1.0


@pytest.mark.parametrize("solve", [solve_highs, solve_cbc])
def test_hint_is_a_mip_start(kx, solve):
    instance = kx.binary_instance(12, 6, 3, seed=1)  # the greedy start is not optimal here
    optimum = solve_cpsat(instance, time_limit=20).objective
    labels = np.zeros(instance.n, dtype=int)
    for hint in (labels, Solution(labels, "one-group")):
        sol = solve(instance, time_limit=20, hint=hint)
        check_optimal(instance, sol, solve.__name__[6:], optimum)
        assert sol.info["rounds"] >= 1  # the rounds started from the incumbent (a MIP start)
    # the optimum as a hint is the start, and kept
    best = solve(instance, time_limit=20, hint=sol)
    check_optimal(instance, best, solve.__name__[6:], optimum)
    assert best.info["start_cost"] == optimum


@pytest.mark.parametrize("solve", [solve_highs, solve_cbc])
def test_upper_bound_equal_to_optimum_still_finds_it(kx, solve):
    instance = kx.random_instance(12, n=8, m=3, row_deletion=False)
    optimum = kx.brute_force(instance)
    sol = solve(instance, time_limit=20, upper_bound=optimum)
    check_optimal(instance, sol, solve.__name__[6:], optimum)


def test_upper_bound_below_optimum_is_infeasible(kx):
    instance = kx.binary_instance(9, 4, 3, seed=1)
    optimum = kx.brute_force(instance)
    sol = solve_highs(instance, time_limit=20, upper_bound=optimum - 1)
    assert sol.status == "infeasible" and sol.labels is None


@pytest.mark.parametrize("solve", [solve_highs, solve_cbc])
def test_time_limit_never_claims_optimality(kx, solve):
    instance = kx.binary_instance(120, 10, 5, seed=7)
    sol = solve(instance, time_limit=0.05)
    assert sol.status == "time_limit"
    assert sol.lower_bound >= lower_bound(instance)[0] - 1e-9
    if sol.labels is not None:
        assert verify(instance, sol).cost == pytest.approx(sol.objective)


def test_highs_records_solver_details(kx):
    instance = kx.binary_instance(12, 6, 3, seed=1)  # the greedy start is not optimal here
    sol = solve_highs(instance, time_limit=10, seed=4, threads=1)
    assert sol.seed == 4
    assert sol.info["solver"] == "highs"
    assert sol.info["n_variables"] > 0 and sol.info["n_constraints"] >= instance.n // 2
    assert sol.info["solver_status"] == "Optimal"


@pytest.mark.parametrize("solve", [solve_highs, solve_cbc])
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"time_limit": 0}, r"`time_limit` must be a positive finite number of seconds, got 0"),
        ({"threads": 0}, r"`threads` must be an integer >= 1, got 0"),
        (
            {"seed": 2**31},
            r"`seed` must be an integer in \[0, 2147483646\] or None, got 2147483648",
        ),
        ({"upper_bound": "5"}, r"`upper_bound` must be a number >= 0 or None, got '5'"),
        ({"hint": np.zeros(3, dtype=int)}, r"`hint` must be a feasible solution: labels must"),
    ],
)
def test_bad_parameters(kx, solve, kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve(kx.binary_instance(8, 4, 2, seed=0), **kwargs)
