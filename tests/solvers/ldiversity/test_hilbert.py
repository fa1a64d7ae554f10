"""Tests of solvers/ldiversity/hilbert.py: the Hilbert order (Skilling's transform, domains scaled
onto one grid) and the one-dimensional l-diverse grouping of Ghinita et al."""

import itertools

import numpy as np
import pytest
from bruteforce_ldiversity import make, tables
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from anonratio.instances import verify
from anonratio.instances.ldiversity.generators import sal_like
from anonratio.solvers.ldiversity.hilbert import (
    diverse_groups,
    hilbert,
    hilbert_order,
    hilbert_partition,
)
from anonratio.solvers.ldiversity.tp import tp
from anonratio.solvers.ldiversity.tp_plus import tp_plus


@pytest.mark.parametrize("d,bits", [(2, 1), (2, 2), (2, 3), (3, 2), (4, 2)])
@pytest.mark.parametrize("scaled", [False, True])
def test_order_is_a_hilbert_curve(d, bits, scaled):
    side = 1 << bits
    pts = np.array(list(itertools.product(range(side), repeat=d)))
    domains = [side] * d if scaled else None  # a full grid: scaling changes nothing
    order = hilbert_order(pts, np.zeros(len(pts), dtype=np.int64), domains)
    assert sorted(order.tolist()) == list(range(len(pts)))
    steps = np.abs(np.diff(pts[order], axis=0)).sum(axis=1)
    assert set(steps.tolist()) == {1}  # consecutive cells are neighbours
    assert pts[order[0]].tolist() == [0] * d


def test_scaled_domains_split_a_small_attribute_at_the_top_of_the_curve():
    # Gender (2 values) beside Age (64): scaled, Gender is a top-level bit of the curve and
    # changes at most 2**d - 1 = 3 times along it; as raw codes it is the last bit and flips
    # between neighbouring cells all along the curve
    pts = np.array(list(itertools.product(range(2), range(64))))
    s = np.zeros(len(pts), dtype=np.int64)
    flips = lambda order: int(np.count_nonzero(np.diff(pts[order, 0])))  # noqa: E731
    assert flips(hilbert_order(pts, s, [2, 64])) <= 3
    assert flips(hilbert_order(pts, s)) > 30


def test_ties_spread_sensitive_values_in_proportion():
    codes = np.zeros((6, 1), dtype=np.int64)
    s = np.array([0, 0, 0, 1, 1, 2])
    # fractions 1/6, 1/2, 5/6 for value 0, 1/4, 3/4 for value 1, 1/2 for value 2
    assert s[hilbert_order(codes, s)].tolist() == [0, 1, 0, 2, 1, 0]


def test_qi_groups_that_are_l_eligible_stay_almost_whole():
    # one attribute (Birth Place): TP keeps the l-eligible QI-groups whole (324 stars); a
    # round-robin over the values at each point ran the rare values out early and mixed
    # neighbouring places (30,318 stars)
    inst, _ = sal_like(60_000, d=1, l=6, projection=4, seed=0)
    assert verify(inst, hilbert(inst)).stars <= 1000


@st.composite
def eligible_sequences(draw):
    l = draw(st.integers(2, 4))
    s = np.array(draw(st.lists(st.integers(0, 9), min_size=l, max_size=40)), dtype=np.int64)
    assume(l * np.bincount(s).max() <= s.size)
    return s, l


@settings(max_examples=200, deadline=None, derandomize=True)
@given(eligible_sequences())
def test_groups_hold_l_distinct_values_and_the_rest_is_eligible(case):
    s, l = case
    labels = diverse_groups(s, l)
    sizes = np.bincount(labels)
    assert sizes.min() >= l
    for g in range(labels.max()):  # every group but the last: exactly l distinct values
        assert sizes[g] == l and np.unique(s[labels == g]).size == l
    last = s[labels == labels.max()]
    assert l * np.bincount(last).max() <= last.size  # l-eligible
    assert last.size < max(2 * l, l * (l + 1))


def test_groups_take_the_nearest_records():
    s = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2])
    assert diverse_groups(s, 3).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    # l = 2, no bucket critical: the first record takes the nearest record of another value
    s = np.array([0, 0, 1, 2, 3, 1, 2, 3])
    assert diverse_groups(s, 2).tolist() == [0, 1, 0, 1, 2, 2, 3, 3]


def test_a_critical_bucket_gives_a_record_before_nearer_ones():
    # l = 2: taking positions 0 and 1 (values 1, 2) would leave 0, 0, not 2-eligible, so the
    # group takes the first record and a record of the critical value 0
    assert diverse_groups(np.array([1, 2, 0, 0]), 2).tolist() == [0, 1, 0, 1]


def test_an_ineligible_sequence_is_refused():
    with pytest.raises(ValueError, match="2-eligible"):
        diverse_groups(np.array([0, 0, 1]), 2)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(tables(max_n=10))
def test_hilbert_solution_verifies(inst):
    sol = hilbert(inst, seed=1)
    check = verify(inst, sol)
    assert check.cost == sol.objective
    assert sol.info["stars"] == check.stars
    assert sol.algorithm == "hilbert" and sol.seed == 1
    assert sol.lower_bound <= check.cost


def test_sal_like_tables_are_not_suppressed_wholesale():
    # the consecutive-cut dynamic program this replaced starred 13,929 of the 14,000 cells
    inst, _ = sal_like(2000, d=7, l=6, seed=0)
    sol = hilbert(inst)
    assert verify(inst, sol).stars == sol.info["stars"] <= 0.85 * 2000 * 7
    assert sol.info["n_groups"] == 2000 // 6
    assert tp_plus(inst).objective < tp(inst).objective  # TP+ now splits TP's residue


def test_records_subset_is_partial():
    inst = make([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], 2)
    sol = hilbert(inst, records=np.array([2, 3, 4, 5]))
    assert sol.labels[:2].tolist() == [-1, -1] and sol.info["partial"]
    assert sol.objective == 0 and sol.lower_bound is None
    sub, info = hilbert_partition(inst, np.array([2, 3, 4, 5]))
    assert info["n_groups"] == 2 and sub.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
