"""CP-SAT exact l-diversity: optimum against brute force (both objectives), hints, bounds,
limits, validation."""

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optimum, random_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.ldiversity import METHODS, solve_ldiversity
from anonratio.exact.ldiversity.cpsat import solve_cpsat
from anonratio.instances import Solution, Table, lower_bound, verify
from anonratio.instances.ldiversity import LDiversityInstance

SEEDS = st.integers(0, 2**32 - 1)


def check_optimal(instance, sol, optimum=None, algorithm="ldiv-cpsat"):
    """Claims optimality, verifies (strict) at the claimed cost, bounds are sane."""
    assert sol.status == "optimal", sol.info
    assert sol.algorithm == algorithm
    cost = verify(instance, sol).cost
    assert sol.objective == cost
    assert sol.lower_bound == sol.objective and sol.gap == 0
    assert lower_bound(instance)[0] <= cost
    if optimum is not None:
        assert cost == optimum
    return cost


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_optimum_matches_brute_force(proof, seed):
    with proof.work():
        instance = random_instance(seed)
        check_optimal(
            instance,
            solve_cpsat(instance, time_limit=proof.time_limit),
            ldiversity_optimum(instance),
        )


@pytest.mark.parametrize("objective", ["stars", "tuples"])
@pytest.mark.parametrize("seed", [1, 5, 11])
def test_both_objectives_at_n9(objective, seed):
    instance = random_instance(seed, n=9, l=3, m=3, d=3, objective=objective)
    check_optimal(instance, solve_cpsat(instance, time_limit=20), ldiversity_optimum(instance))


def test_example_table():
    # two QI-groups of one value each: the only 2-diverse partition merges them
    t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 0, 1, 1])
    for objective, cost in (("stars", 4), ("tuples", 4)):
        assert (
            check_optimal(
                LDiversityInstance(t, 2, objective),
                solve_cpsat(LDiversityInstance(t, 2, objective), time_limit=10),
            )
            == cost
        )
    # already 2-diverse QI-groups: nothing to suppress
    t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 1, 0, 1])
    assert check_optimal(LDiversityInstance(t, 2), solve_cpsat(LDiversityInstance(t, 2))) == 0


@pytest.mark.parametrize("objective", ["stars", "tuples"])
def test_hint_is_accepted(objective):
    instance = random_instance(7, n=9, l=3, m=3, d=3, objective=objective)
    optimum = ldiversity_optimum(instance)
    one_group = np.zeros(instance.n, dtype=np.int64)  # the whole table: always l-eligible
    for hint in (one_group, Solution(one_group, "x")):
        sol = solve_cpsat(instance, time_limit=20, hint=hint)
        check_optimal(instance, sol, optimum)
        assert sol.info["hint_cost"] == verify(instance, one_group).cost
        assert sol.params["hint"] is True
    # an optimal hint comes back optimal
    best = solve_cpsat(instance, time_limit=20)
    check_optimal(instance, solve_cpsat(instance, time_limit=20, hint=best), optimum)


def test_infeasible_hint_is_refused():
    instance = random_instance(3, n=8, l=2, m=2)
    with pytest.raises(ValueError, match="feasible"):
        solve_cpsat(instance, hint=np.arange(instance.n))


def test_upper_bound():
    instance = random_instance(2, n=9, l=3, m=3, d=3, objective="stars")
    optimum = ldiversity_optimum(instance)
    check_optimal(instance, solve_cpsat(instance, upper_bound=optimum), optimum)
    if optimum > 0:
        sol = solve_cpsat(instance, upper_bound=optimum - 1)
        assert sol.status == "infeasible" and sol.labels is None


def test_small_time_limit_gives_a_valid_bound():
    rng = np.random.default_rng(0)
    n, d = 1000, 4
    codes = rng.integers(0, 3, size=(n, d))
    t = Table(
        codes, [f"a{j}" for j in range(d)], [list("012")] * d, sensitive=rng.integers(0, 6, n)
    )
    instance = LDiversityInstance(t, 4)
    sol = solve_cpsat(instance, time_limit=0.5)
    assert sol.status in ("optimal", "time_limit")
    # an incumbent always: the solver's, or the start (phase 1 of TP) when it found none
    assert verify(instance, sol).cost == sol.objective
    assert sol.lower_bound <= sol.objective <= sol.info["start_cost"]
    assert sol.lower_bound >= lower_bound(instance)[0]


def test_too_many_patterns_is_memory_limit(monkeypatch):
    import anonratio.exact.ldiversity.patterns as patterns

    monkeypatch.setattr(patterns, "MAX_PAIRS", 4)
    instance = random_instance(4, n=8, l=2, m=2, d=3, card=3, objective="stars")
    hint = np.zeros(instance.n, dtype=np.int64)
    sol = solve_cpsat(instance, hint=hint)
    assert sol.status == "memory_limit"
    # the cheaper of the hint and the phase-1 partition comes back
    assert sol.objective == verify(instance, sol).cost == sol.info["start_cost"]
    assert sol.objective <= verify(instance, hint).cost
    assert sol.lower_bound == lower_bound(instance)[0]


def test_dispatch_and_validation():
    instance = random_instance(9, n=6, l=2, m=2)
    assert set(METHODS) == {"ldiv-cpsat", "ldiv-highs", "ldiv-cbc"}
    assert solve_ldiversity(instance).algorithm == "ldiv-cpsat"
    assert solve_ldiversity(instance, method="ldiv-highs").algorithm == "ldiv-highs"
    for bad in ("nope", "highs"):  # the former name too
        with pytest.raises(ValueError, match="`method` must be one of"):
            solve_ldiversity(instance, method=bad)
    with pytest.raises(ValueError):
        solve_cpsat(instance, time_limit=0)
    with pytest.raises(ValueError):
        solve_cpsat(instance, threads=0)
    with pytest.raises(TypeError):
        solve_cpsat("not an instance")
