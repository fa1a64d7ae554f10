"""The m = 2 matching (Xiao et al. 2010, §4): optimal for both objectives against brute force and
the exact models, both transportation paths, the m check, scale."""

from time import perf_counter

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optima
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.ldiversity import solve_cpsat
from anonratio.instances import Table, verify
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.ldiversity import LDiversityInstance
from anonratio.solvers.ldiversity.matching import (
    matching,
    matching_labels,
    needs_two_values,
    transport,
)

SEEDS = st.integers(0, 2**32 - 1)


def two_value_instance(
    seed, *, n=None, n_max=9, d=None, card=None, objective="stars", codes=(0, 1)
):
    """A random table with two sensitive values, each on half the records (so l = 2)."""
    rng = np.random.default_rng(seed)
    n = n or 2 * int(rng.integers(1, n_max // 2 + 1))
    d = d or int(rng.integers(1, 5))
    card = card or int(rng.integers(2, 5))
    qi = rng.integers(0, card, size=(n, d))
    s = rng.permutation(np.repeat(np.asarray(codes), n // 2))
    table = Table(
        qi,
        [f"a{j}" for j in range(d)],
        [[str(x) for x in range(card)]] * d,
        sensitive=s,
        sensitive_values=[f"s{x}" for x in range(max(codes) + 1)],
    )
    return LDiversityInstance(table, 2, objective)


def check(instance, sol, optimum):
    assert sol.algorithm == "matching"
    assert sol.status == "optimal"
    v = verify(instance, sol)
    assert v.cost == sol.objective == sol.lower_bound == optimum
    assert sol.info["stars"] == v.stars and sol.info["suppressed_tuples"] == v.suppressed_tuples


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_optimal_for_both_objectives(seed):
    instance = two_value_instance(seed, n_max=10)
    optima = ldiversity_optima(instance)
    for objective in ("stars", "tuples"):
        inst = LDiversityInstance(instance.table, 2, objective)
        check(inst, matching(inst, seed=seed), optima[objective])


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_equals_the_exact_model_on_larger_tables(seed):
    for objective in ("stars", "tuples"):
        instance = two_value_instance(seed, n=60, d=3, card=3, objective=objective)
        exact = solve_cpsat(instance, time_limit=30)
        assert exact.status == "optimal"
        check(instance, matching(instance), exact.objective)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_flow_and_assignment_agree(seed):
    # the two ways of solving the leftover transportation problem give the same cost
    instance = two_value_instance(seed, n=40, d=3, card=4)
    by_flow, info_f = matching_labels(instance)
    by_assignment, info_a = matching_labels(instance, max_arcs=0)
    if info_f["leftover_pairs"]:
        assert info_f["transport"] == "min-cost flow" and info_a["transport"] == "assignment"
    assert verify(instance, by_flow).cost == verify(instance, by_assignment).cost


def test_transport_respects_margins():
    rng = np.random.default_rng(0)
    cost = rng.integers(0, 9, size=(5, 7))
    supply = np.array([3, 1, 4, 1, 5])
    demand = np.array([2, 2, 2, 2, 2, 2, 2])
    for max_arcs in (0, 10**6):
        flows = transport(cost, supply, demand, max_arcs=max_arcs)
        assert (flows.sum(axis=1) == supply).all() and (flows.sum(axis=0) == demand).all()
    assert (transport(cost, supply, demand) * cost).sum() == (
        transport(cost, supply, demand, max_arcs=0) * cost
    ).sum()


def test_sensitive_codes_need_not_be_0_and_1():
    instance = two_value_instance(5, n=8, codes=(1, 3))
    check(instance, matching(instance), ldiversity_optima(instance)["stars"])


def test_paper_example_pairs_equal_records():
    # two identical pairs of opposite values: no stars; the odd pair differs on one attribute
    t = Table(
        [[0, 0], [0, 0], [1, 1], [1, 0]], ["a", "b"], [["x", "y"]] * 2, sensitive=[0, 1, 0, 1]
    )
    sol = matching(LDiversityInstance(t, 2))
    assert sol.objective == 2 and sol.info["zero_cost_pairs"] == 1
    assert sol.labels[0] == sol.labels[1] != sol.labels[2] == sol.labels[3]
    assert matching(LDiversityInstance(t, 2, "tuples")).objective == 2


def test_needs_two_values():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 2, size=(6, 2))
    t = Table(codes, ["a", "b"], [["x", "y"]] * 2, sensitive=[0, 1, 2] * 2)
    three = LDiversityInstance(t, 2)
    assert needs_two_values(three) == "needs m=2 sensitive values, got m=3"
    with pytest.raises(UnsupportedInstanceError, match="m = 3"):
        matching(three)
    assert needs_two_values(two_value_instance(0, n=6)) is None


def test_validation():
    with pytest.raises(TypeError):
        matching("not an instance")
    with pytest.raises(ValueError):
        matching(two_value_instance(0, n=6), seed=-1)


@pytest.mark.slow
@pytest.mark.parametrize(("d", "card"), [(3, 3), (8, 20)])
def test_scales_to_10000_records(d, card):
    # measured, not asserted: 10,000 records take well under a second with few QI-groups (d=3,
    # card=3) and a few seconds when most records are distinct (d=8, card=20)
    instance = two_value_instance(0, n=10_000, d=d, card=card)
    t0 = perf_counter()
    sol = matching(instance)
    print(f"matching n=10000 d={d} card={card}: {perf_counter() - t0:.2f}s")
    assert verify(instance, sol).cost == sol.objective
