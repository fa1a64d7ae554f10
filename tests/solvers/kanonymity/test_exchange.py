"""Pair exchange (solvers/kanonymity/exchange.py): the best split of a union equals the brute
force over every split; the local search's exchange round applies it."""

import itertools

import numpy as np
import pytest
from bruteforce import small_kanonymity_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import KAnonymityInstance, Table, verify
from anonratio.solvers.kanonymity.exchange import MAX_UNION, best_pair_splits
from anonratio.solvers.kanonymity.group_objective import groups_cost
from anonratio.solvers.kanonymity.local_search import _exchanges

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _brute_best(instance, members):
    """The cheapest split into two parts of at least k (every subset)."""
    k, s = instance.k, len(members)
    best = np.inf
    for size in range(k, s - k + 1):
        for part in itertools.combinations(range(s), size):
            inside = np.zeros(s, dtype=bool)
            inside[list(part)] = True
            best = min(best, groups_cost(instance, [members[inside], members[~inside]]))
    return best


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 4),
    extra=st.integers(0, 3),
    rows=st.integers(1, 3),
    m=st.integers(1, 3),
    model=st.sampled_from(["suppression", "generalization"]),
    weights=st.booleans(),
)
def test_best_split_equals_brute_force(seed, k, extra, rows, m, model, weights):
    s = 2 * k + extra
    inst = small_kanonymity_instance(seed, s + 4, m, k, model, weights, n_values=5)
    rng = np.random.default_rng(seed)
    members = np.array([rng.choice(inst.n, size=s, replace=False) for _ in range(rows)])
    cost, part = best_pair_splits(inst, members)
    for r in range(rows):
        assert cost[r] == pytest.approx(_brute_best(inst, members[r]), rel=1e-12, abs=1e-9)
        inside, outside = members[r][part[r]], members[r][~part[r]]
        assert len(inside) >= k and len(outside) >= k and part[r][0]
        assert groups_cost(inst, [inside, outside]) == pytest.approx(cost[r], rel=1e-12, abs=1e-9)


def test_swap_that_no_relocation_finds():
    # two groups of exactly k = 2, each mixing the two values: only a swap separates them
    table = Table(np.array([[0], [1], [0], [1]]), ("a",), (("x", "y"),))
    inst = KAnonymityInstance(table, 2, "suppression")
    labels = np.array([0, 0, 1, 1])
    assert verify(inst, labels).cost == 4
    applied, touched = _exchanges(inst, labels, 2, np.ones(2, dtype=bool))
    assert applied == 1 and touched.all()
    assert verify(inst, labels).cost == 0 and labels[0] == labels[2] != labels[1] == labels[3]


def test_relocation_inside_a_pair():
    table = Table(np.array([[0], [0], [0], [0], [1], [1]]), ("a",), (("x", "y"),))
    inst = KAnonymityInstance(table, 2, "suppression")
    labels = np.array([0, 0, 1, 1, 0, 1])  # two groups of three, each with one "y"
    applied, _ = _exchanges(inst, labels, 2, np.ones(2, dtype=bool))
    assert applied == 1
    assert verify(inst, labels).cost == 0


def test_union_size_is_checked():
    inst = small_kanonymity_instance(3, 8, 2, 3, "generalization", False)
    with pytest.raises(ValueError, match="2k=6"):
        best_pair_splits(inst, np.arange(5)[None, :])


def test_largest_union_is_priced():
    inst = small_kanonymity_instance(3, MAX_UNION, 2, 2, "generalization", False)
    members = np.arange(MAX_UNION)[None, :]
    cost, part = best_pair_splits(inst, members)
    assert cost[0] <= groups_cost(inst, [members[0]]) + 1e-9  # never above the union whole
    groups = [members[0][part[0]], members[0][~part[0]]]
    assert groups_cost(inst, groups) == pytest.approx(cost[0])


def test_a_passed_deadline_prices_no_pair():
    table = Table(np.array([[0], [1], [0], [1]]), ("a",), (("x", "y"),))
    inst = KAnonymityInstance(table, 2, "suppression")
    labels = np.array([0, 0, 1, 1])
    applied, touched = _exchanges(inst, labels, 2, np.ones(2, dtype=bool), deadline=0.0)
    assert applied == 0 and not touched.any() and list(labels) == [0, 0, 1, 1]
