"""Tests of solvers/ordered_greedy.py: optimality against brute force, feasibility check."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.ordered_labels.ordered_greedy import intervals_feasible, ordered_greedy
from anonratio.instances import lower_bound, verify
from anonratio.instances.ordered_labels.instance import OrderedLabelsInstance


def brute_force(sizes, k):
    """Optimum over all 2^(n-1) cut sets, and whether each cap in 0..S is feasible."""
    n, best = len(sizes), np.inf
    prefix = np.r_[0, np.cumsum(sizes)]
    for r in range(n):
        for cuts in combinations(range(1, n), r):
            b = np.diff(prefix[[0, *cuts, n]])
            if b.min() >= k:
                best = min(best, b.max())
    return best


def naive_greedy(sizes, k):
    """Close an interval once it reaches k; merge a light tail into the last interval."""
    loads, cur = [], 0
    for x in sizes:
        cur += x
        if cur >= k:
            loads.append(cur)
            cur = 0
    if cur:
        loads[-1] += cur
    return max(loads)


@st.composite
def small_ordered(draw):
    sizes = draw(st.lists(st.integers(0, 12), min_size=1, max_size=10))
    if sum(sizes) == 0:
        sizes[-1] = 1
    k = draw(st.integers(1, sum(sizes)))
    return OrderedLabelsInstance(sizes, k)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(small_ordered())
def test_optimal_against_brute_force(inst):
    sol = ordered_greedy(inst, seed=3)
    v = verify(inst, sol)
    assert v.cost == sol.objective == brute_force(inst.sizes, inst.k)
    assert sol.status == "optimal" and sol.lower_bound == sol.objective and sol.gap == 0.0
    assert sol.objective >= lower_bound(inst)[0]
    assert sol.seed == 3 and sol.algorithm == "ordered-greedy" and sol.params == {"k": inst.k}
    # intervals are numbered left to right
    assert np.all(np.diff(sol.labels) >= 0) and sol.labels[0] == 0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(small_ordered(), st.integers(0, 40))
def test_feasibility_check_is_exact(inst, cap):
    prefix = np.r_[0, np.cumsum(inst.sizes)]
    starts = intervals_feasible(prefix, inst.k, cap)
    opt = brute_force(inst.sizes, inst.k)
    assert (starts is not None) == (cap >= opt)
    if starts is not None:
        loads = np.add.reduceat(inst.sizes, starts)
        assert starts[0] == 0 and loads.min() >= inst.k and loads.max() <= cap


def test_naive_greedy_is_not_optimal_but_we_are():
    inst = OrderedLabelsInstance([2, 1, 2, 2, 2], 3)
    assert naive_greedy(inst.sizes, inst.k) == 6
    sol = ordered_greedy(inst)
    assert sol.objective == 5.0 and sol.labels.tolist() == [0, 0, 0, 1, 1]


def test_edge_cases():
    one = ordered_greedy(OrderedLabelsInstance([7], 7))
    assert one.objective == 7.0 and one.labels.tolist() == [0] and one.info["checks"] == 0
    zeros = OrderedLabelsInstance([0, 0, 3, 0, 0, 3, 0], 3)
    sol = ordered_greedy(zeros)
    assert verify(zeros, sol).cost == 3.0 and sol.labels.max() == 1


def test_large_instance_is_feasible_and_certified():
    rng = np.random.default_rng(0)
    inst = OrderedLabelsInstance(rng.integers(0, 50, size=20_000), 500)
    sol = ordered_greedy(inst, seed=0)
    assert verify(inst, sol).cost == sol.objective
    # optimal: one less is infeasible
    prefix = np.r_[0, np.cumsum(inst.sizes)]
    assert intervals_feasible(prefix, inst.k, int(sol.objective) - 1) is None
    assert sol.info["checks"] <= int(np.ceil(np.log2(inst.total_size))) + 1


def test_type_error():
    with pytest.raises(TypeError, match="`instance` must be an OrderedLabelsInstance"):
        ordered_greedy([1, 2, 3])
