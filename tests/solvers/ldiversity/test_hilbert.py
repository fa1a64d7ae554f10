"""Tests of solvers/ldiversity/hilbert.py: the Hilbert order (Skilling's transform) and the
optimal consecutive cut."""

import itertools

import numpy as np
import pytest
from bruteforce_ldiversity import make, tables
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import verify
from anonratio.solvers.ldiversity.hilbert import (
    hilbert,
    hilbert_order,
    hilbert_partition,
    optimal_cuts,
)


def brute_cuts(codes, s, l, objective):
    """Minimum cost over all cuts of the sequence into consecutive l-eligible groups."""
    n = len(s)
    best = None
    for mask in range(1 << (n - 1)):
        bounds = [0] + [i + 1 for i in range(n - 1) if mask >> i & 1] + [n]
        total = 0
        for a, b in itertools.pairwise(bounds):
            if l * np.bincount(s[a:b]).max() > b - a:
                break
            differ = int(np.count_nonzero(codes[a:b].min(0) != codes[a:b].max(0)))
            total += (b - a) * (differ if objective == "stars" else differ > 0)
        else:
            best = total if best is None else min(best, total)
    return best


@pytest.mark.parametrize("d,bits", [(2, 1), (2, 2), (2, 3), (3, 2), (4, 2)])
def test_order_is_a_hilbert_curve(d, bits):
    side = 1 << bits
    pts = np.array(list(itertools.product(range(side), repeat=d)))
    order = hilbert_order(pts, np.zeros(len(pts), dtype=np.int64))
    assert sorted(order.tolist()) == list(range(len(pts)))
    steps = np.abs(np.diff(pts[order], axis=0)).sum(axis=1)
    assert set(steps.tolist()) == {1}  # consecutive cells are neighbours
    assert pts[order[0]].tolist() == [0] * d


def test_ties_interleave_sensitive_values():
    codes = np.zeros((6, 1), dtype=np.int64)
    s = np.array([0, 0, 0, 1, 1, 2])
    assert s[hilbert_order(codes, s)].tolist() == [0, 1, 2, 0, 1, 0]


@settings(max_examples=120, deadline=None, derandomize=True)
@given(tables(max_n=10), st.integers(0, 4))
def test_dp_is_optimal_among_consecutive_cuts(inst, extra):
    codes = np.asarray(inst.table.codes)
    s = np.asarray(inst.sensitive)
    labels, cost = optimal_cuts(codes, s, inst.l, objective=inst.objective)
    assert cost == brute_cuts(codes, s, inst.l, inst.objective)
    assert np.all(np.diff(labels) >= 0)  # consecutive groups
    # a bounded window is still feasible (first/last group unbounded) and never better
    lab_w, cost_w = optimal_cuts(codes, s, inst.l, objective=inst.objective, window=inst.l + extra)
    assert cost_w >= cost
    sol = verify(inst, lab_w)
    assert sol.cost == cost_w


@settings(max_examples=120, deadline=None, derandomize=True)
@given(tables(max_n=10), st.sampled_from([None, 2, 3, 100]))
def test_hilbert_solution_verifies(inst, window):
    window = None if window is None else max(window, inst.l)
    sol = hilbert(inst, window=window, seed=1)
    check = verify(inst, sol)
    assert check.cost == sol.objective
    assert sol.info["stars"] == check.stars
    assert sol.algorithm == "hilbert" and sol.seed == 1
    assert sol.lower_bound <= check.cost


def test_long_runs_need_the_unbounded_end_groups():
    # sensitive 0,0,0,0,1,1,1,1: every l-eligible consecutive group (l = 2) holding the middle
    # is long, so a window of 2 must fall back on the first/last group
    inst = make([0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 1, 1, 1, 1], 2, card=8)
    labels, cost = optimal_cuts(
        np.asarray(inst.table.codes), np.asarray(inst.sensitive), 2, window=2
    )
    assert verify(inst, labels).cost == cost == 8


def test_records_subset_is_partial():
    inst = make([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], 2)
    sol = hilbert(inst, records=np.array([2, 3, 4, 5]))
    assert sol.labels[:2].tolist() == [-1, -1] and sol.info["partial"]
    assert sol.objective == 0 and sol.lower_bound is None
    sub, info = hilbert_partition(inst, np.array([2, 3, 4, 5]))
    assert info["n_groups"] == 2 and sub.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])


def test_window_must_reach_l():
    inst = make([0, 0, 1, 1], [0, 1, 0, 1], 2)
    with pytest.raises(ValueError, match="window"):
        hilbert(inst, window=1)
