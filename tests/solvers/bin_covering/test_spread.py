"""Tests of solvers/spread.py: Theorem 10 (Du et al. 2009), ratio 5/2, every case of its proof."""

from functools import partial

import numpy as np
import pytest
from bruteforce import bin_covering_instances
from bruteforce import bin_covering_optimum as brute_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import verify
from anonratio.instances.bin_covering.generators import census_instance, planted_three_partition
from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.solvers.bin_covering.spread import (
    _exhaustive,
    _two_bins,
    lemma9_split,
    spread,
    spread_guarantee,
)


def opt(inst):
    return brute_opt(tuple(inst.sizes.tolist()), inst.k)


instances = partial(bin_covering_instances, max_n=9, max_k=40, spread=2)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(instances(), st.sampled_from(["sorted", "random", "input"]), st.integers(0, 3))
def test_ratio_five_halves(inst, order, seed):
    sol = spread(inst, order=order, seed=seed)
    check = verify(inst, sol)
    assert check.cost == sol.objective
    assert check.cost <= spread_guarantee(inst) * opt(inst)


# (sizes, k, case) reaching each branch of the proof with order="sorted"
CASES = [
    ([7, 6, 7], 5, "all-big"),
    ([6, 6, 6, 2, 1, 7], 5, "small-below-k"),
    ([5, 5, 5, 5], 10, "greedy"),
    ([8, 14, 12, 6, 7, 15, 12, 11], 18, "case-1"),
    ([9, 6, 6, 6, 6, 6, 6, 2, 1], 10, "case-2.1"),
    ([6, 6, 6, 6, 6, 6, 6, 1], 10, "case-2.2"),
    ([15, 18, 29, 22, 19, 16], 27, "merge-into-big"),
    ([1, 1, 3, 1, 12], 15, "one-bin"),
    ([12, 6, 7, 1, 2, 1, 4, 18], 20, "lpt-2"),
    ([10, 25, 6, 12, 21, 18], 29, "lpt-3"),
    ([5, 12, 3, 14, 12, 13, 4, 3], 16, "lpt-4"),
    ([21, 18, 16, 16, 27], 29, "two-bins"),
    ([8, 5, 2, 6, 9, 7, 11], 15, "exhaustive"),
]


@pytest.mark.parametrize(("sizes", "k", "case"), CASES)
def test_every_case(sizes, k, case):
    inst = BinCoveringInstance(sizes, k)
    sol = spread(inst)
    assert sol.info["case"] == case
    assert verify(inst, sol).cost <= 2.5 * opt(inst)


def test_case_details():
    # case 1: the leftover {3, 2} is split over the three lightest closed bins
    inst = BinCoveringInstance([6, 6, 6, 6, 6, 6, 3, 2], 10)
    sol = spread(inst)
    assert sol.info["case"] == "case-1" and sol.objective == 15 and sol.info["n_bins"] == 3
    # case 2.1: x1 = 9 and f = 6 swap: {6, 6} {6, 6} {6, 6} {9, 2, 1}
    sol = spread(BinCoveringInstance([9, 6, 6, 6, 6, 6, 6, 2, 1], 10))
    assert sol.objective == 12 and sorted(np.bincount(sol.labels).tolist()) == [2, 2, 2, 3]
    # case 2.2 is Fold: the leftover {6, 1} joins a bin of 12
    sol = spread(BinCoveringInstance([6] * 7 + [1], 10))
    assert sol.objective == 19 and sol.info["candidates"] == {"case-2.2": 19}
    # with a big item both candidates are built and the cheaper kept
    sol = spread(BinCoveringInstance([30, 6, 6, 6, 6, 6, 6, 3, 2], 10))
    assert sol.info["candidates"] == {"merge-into-big": 35, "case-1": 30}
    assert sol.info["case"] == "case-1" and sol.objective == 30


def test_small_case_exhaustive_search():
    inst = BinCoveringInstance([8, 5, 2, 6, 9, 7, 11], 15)
    sol = spread(inst)
    assert sol.info["exhaustive"] == "optimal" and sol.objective == opt(inst) == 16
    # without the search the proven candidates remain (and keep the 5/2 bound): LPT-3's 17
    plain = spread(inst, node_limit=0)
    assert plain.info["exhaustive"] == "skipped" and plain.objective == 17
    best, found, proven = _exhaustive(np.array([11, 9, 8, 7, 6, 5, 2]), 15, 10**9, 10_000)
    assert best == 16 and proven and len(found) == 7
    _, _, proven = _exhaustive(np.array([11, 9, 8, 7, 6, 5, 2]), 15, 10**9, 3)
    assert not proven


def test_random_order_falls_back_to_sorted_for_case_2():
    inst = BinCoveringInstance([21, 27, 15, 21, 23, 15, 2, 21], 28)
    sol = spread(inst, order="random", seed=1)
    assert sol.info["fallback"] == "sorted" and sol.info["case"] == "case-2.1"
    assert sol.seed == 1 and sol.params["order"] == "random"


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 30), min_size=2, max_size=9), st.integers(1, 60))
def test_two_bins_is_the_best_split(values, k):
    total = sum(values)
    sums = {0}
    for v in values[1:]:  # bipartitions up to swapping: item 0 stays on the first side
        sums |= {a + v for a in sums}
    splits = [max(a + values[0], total - a - values[0]) for a in sums]
    feasible = [c for c in splits if total - c >= k]  # the lighter side reaches k
    got = _two_bins(np.array(values), np.arange(len(values)), k)
    if not feasible:
        assert got is None
    else:
        loads = np.bincount(got[1], weights=values, minlength=2)
        assert got[0] == min(feasible) == loads.max() and loads.min() >= k


def test_small_case_candidates_reported():
    sol = spread(BinCoveringInstance([21, 18, 16, 16, 27], 29))
    assert sol.info["small_candidates"] == {"one-bin": 98, "lpt-2": 55, "two-bins": 50}
    assert sol.info["exhaustive"] == "optimal" and sol.objective == 50


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 50), min_size=1, max_size=12))
def test_lemma9_split(values):
    values = np.array(values)
    parts = lemma9_split(values)
    assert sorted(np.concatenate(parts).tolist()) == list(range(values.size))
    bound = max(values.max(), values.sum() / 2)
    assert all(values[p].sum() <= bound for p in parts)


def test_planted_and_census():
    inst, meta = planted_three_partition(8, B=90, seed=2)
    assert verify(inst, spread(inst)).cost <= 2.5 * meta["optimum"]
    inst = census_instance("MALE-1990", k=4000)
    for order in ("sorted", "random"):
        sol = spread(inst, order=order, seed=0)
        check = verify(inst, sol)
        assert check.cost <= 2.5 * inst.k and check.n_bins == sol.info["n_bins"]


def test_errors():
    inst = BinCoveringInstance([1, 2], 2)
    with pytest.raises(ValueError, match=r"`node_limit` must be an integer >= 0, got -1"):
        spread(inst, node_limit=-1)
    with pytest.raises(ValueError, match=r"`order` must be one of"):
        spread(inst, order="desc")
    with pytest.raises(TypeError, match=r"`instance` must be a BinCoveringInstance"):
        spread(None)
