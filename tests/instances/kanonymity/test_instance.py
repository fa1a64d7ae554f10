"""Tests of instances/kanonymity.py: validation, verifier, costs, distances, lower bound."""

import numpy as np
import pytest
from bruteforce import kanonymity_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import (
    Hierarchy,
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    KAnonymityInstance,
    Solution,
    Table,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    lower_bound,
    nearest_neighbors,
    pairwise_distances,
    verify,
)
from anonratio.instances.kanonymity.generators import random_hierarchy
from anonratio.instances.kanonymity.instance import group_levels, kanonymity_lower_bound

AGE = Hierarchy.from_rows(
    [["1", "[1-2]", "*"], ["2", "[1-2]", "*"], ["3", "[3-4]", "*"], ["4", "[3-4]", "*"]],
    attribute="age",
)


def _example(model="generalization", row_deletion=True, k=2):
    """5 records (age, sex); age has a 2-level hierarchy, weights (2, 1)."""
    codes = np.array([[0, 1], [1, 1], [2, 0], [3, 0], [0, 0]])
    table = Table(codes, ("age", "sex"), (AGE.labels[0], ("F", "M")), (AGE, None), [2.0, 1.0])
    return KAnonymityInstance(table, k, model, row_deletion)


# -- brute force ------------------------------------------------------------------------------
def _naive_distance(instance, a, b):
    total = 0.0
    for j, h in enumerate(instance.hierarchies):
        level = next(t for t in range(h.height + 1) if h.groups[a[j], t] == h.groups[b[j], t])
        total += instance.table.weights[j] * level / h.height
    return total


@st.composite
def tiny_instances(draw, max_n=7):
    n = draw(st.sampled_from(range(max_n, 1, -1)))  # uniform-ish, shrinking to large n
    m = draw(st.integers(1, 3))
    model = draw(st.sampled_from(["suppression", "generalization"]))
    row_deletion = draw(st.booleans()) and n <= 6
    k = draw(st.integers(2, min(n, 4)))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    hier, values = [], []
    for _ in range(m):
        c = int(rng.integers(2, 6))
        h = random_hierarchy(c, int(rng.integers(1, c)), seed=rng)
        hier.append(h)
        values.append(h.labels[0])
    codes = np.column_stack([rng.integers(0, h.n_values, size=n) for h in hier])
    n_dup = draw(st.integers(0, n // 2))  # copy some records onto others
    codes[:n_dup] = codes[n - n_dup :] if n_dup else codes[:0]
    weights = rng.choice([0.5, 1.0, 2.0], size=m)
    table = Table(codes, tuple(f"a{j}" for j in range(m)), tuple(values), tuple(hier), weights)
    return KAnonymityInstance(table, k, model, row_deletion)


# -- validation ------------------------------------------------------------------------------
def test_instance_validation():
    t = _example().table
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, n_records=5\], got 1"):
        KAnonymityInstance(t, 1)
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, n_records=5\], got 6"):
        KAnonymityInstance(t, 6)
    with pytest.raises(ValueError, match=r"`k` must be an integer .* got 2\.0"):
        KAnonymityInstance(t, 2.0)
    with pytest.raises(ValueError, match=r"`k` must be an integer .* got True"):
        KAnonymityInstance(t, True)
    with pytest.raises(ValueError, match="`model` must be one of .* got 'stars'"):
        KAnonymityInstance(t, 2, "stars")
    with pytest.raises(ValueError, match="`row_deletion` must be a bool, got 'yes'"):
        KAnonymityInstance(t, 2, row_deletion="yes")
    with pytest.raises(TypeError, match="`table` must be a Table"):
        KAnonymityInstance(t.codes, 2)
    one = Table(np.zeros((1, 1)), ("a",), (("0",),))
    with pytest.raises(InfeasibleInstanceError, match="the table has 1 records, fewer than k=2"):
        KAnonymityInstance(one, 2)
    with pytest.raises(InfeasibleInstanceError, match="the table has 1 records, fewer than k=3"):
        KAnonymityInstance(one, 3)  # no k fits a table of fewer than 2 records
    with pytest.raises(ValueError, match=r"^`k` must be an integer >= 2, got 1$"):
        KAnonymityInstance(one, 1)
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, n_records=5\], got np"):
        KAnonymityInstance(t, np.int64(9))
    assert type(KAnonymityInstance(t, np.int64(2)).k) is int


def test_instance_properties():
    inst = _example()
    assert inst.n == 5
    assert inst.params == {"k": 2, "model": "generalization", "row_deletion": True}
    np.testing.assert_array_equal(inst.heights, [2, 1])
    assert inst.deletion_cost == 3.0
    assert not inst.is_binary() and not inst.is_suppression()
    sup = _example("suppression")
    np.testing.assert_array_equal(sup.heights, [1, 1])
    assert sup.is_suppression() and not sup.is_binary()
    binary = KAnonymityInstance(Table(np.eye(3, dtype=int), "abc", (("0", "1"),) * 3), 2)
    assert binary.is_binary()


def test_instance_dict_round_trip():
    inst = _example()
    back = instance_from_dict(instance_to_dict(inst))
    assert back.params == inst.params
    assert instance_id(back) == instance_id(inst)
    assert instance_id(_example(k=3)) != instance_id(inst)


# -- verify and cost ---------------------------------------------------------------------------
def test_verify_cost_by_hand():
    inst = _example()
    # groups {1,2}, {3,4}: age at level 1 (cost 2 * 1/2 = 1 per record), sex equal; record 5
    # deleted: 2 + 1 = 3.  Total 2 * 1 + 2 * 1 + 3 = 7.
    assert verify(inst, np.array([0, 0, 1, 1, -1])).cost == 7.0
    # {1,2,3}: age top (2), sex differs (1) -> 3 each; {4,5}: ages 4 and 1 -> top (2) -> 2 each.
    assert verify(inst, np.array([0, 0, 0, 1, 1])).cost == 13.0
    # everything together: age top, sex differs: 5 * 3
    assert verify(inst, np.zeros(5, dtype=int)).cost == 15.0
    # suppression: a differing age costs its full weight 2
    assert verify(_example("suppression"), np.array([0, 0, 1, 1, -1])).cost == 11.0


def test_group_levels_by_hand():
    groups, sizes, levels = group_levels(_example(), np.array([5, 5, 5, 2, 2]))
    np.testing.assert_array_equal(groups, [2, 5])
    np.testing.assert_array_equal(sizes, [2, 3])
    np.testing.assert_array_equal(levels, [[2, 0], [2, 1]])


def test_verify_accepts_solution_object():
    inst = _example()
    sol = Solution(np.array([0, 0, 1, 1, -1]), "manual", objective=-1.0)
    assert verify(inst, sol).cost == 7.0  # the solver's claimed objective is ignored


def test_verify_violations():
    inst = _example(row_deletion=False)
    res = verify(inst, np.array([0, 0, 1, 1, -1]), strict=False)
    assert not res.feasible and res.cost is None
    assert any("row deletion is not allowed" in v for v in res.violations)
    with pytest.raises(InfeasibleSolutionError, match="1 records are labelled -1 but row deletion"):
        verify(inst, np.array([0, 0, 1, 1, -1]))
    with pytest.raises(InfeasibleSolutionError, match="group 1 has 1 records, fewer than k=2"):
        verify(inst, np.array([0, 0, 0, 0, 1]))
    with pytest.raises(InfeasibleSolutionError, match="labels below -1 are not allowed"):
        verify(_example(), np.array([0, 0, 1, 1, -2]))
    with pytest.raises(InfeasibleSolutionError, match=r"one entry per record \(5\)"):
        verify(inst, np.zeros(4, dtype=int))
    with pytest.raises(InfeasibleSolutionError, match="labels must be integers"):
        verify(inst, np.zeros(5))
    with pytest.raises(InfeasibleSolutionError, match="the run returned no solution"):
        verify(inst, Solution(None, "nothing", status="error"))
    err = pytest.raises(InfeasibleSolutionError, verify, inst, np.arange(5))
    assert len(err.value.violations) == 5  # one message per undersized group


# -- distances ----------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None, derandomize=True)
@given(tiny_instances(max_n=8))
def test_pairwise_distances_match_naive_loop(inst):
    codes = inst.table.codes
    d = pairwise_distances(inst, codes, codes[::-1])
    naive = np.array([[_naive_distance(inst, a, b) for b in codes[::-1]] for a in codes])
    np.testing.assert_allclose(d, naive)
    np.testing.assert_allclose(pairwise_distances(inst, codes), pairwise_distances(inst, codes).T)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(tiny_instances(max_n=8), st.integers(1, 8))
def test_nearest_neighbors_sorted_and_correct(inst, q):
    unique = inst.table.unique_records()[0]
    u = len(unique)
    index, dist = nearest_neighbors(inst, q, unique)
    assert index.shape == dist.shape == (u, min(q, u - 1))
    full = pairwise_distances(inst, unique)
    np.fill_diagonal(full, np.inf)
    for i in range(u):
        assert i not in index[i]
        assert len(set(index[i])) == len(index[i])
        assert np.all(np.diff(dist[i]) >= 0)
        np.testing.assert_allclose(dist[i], full[i, index[i]])
        np.testing.assert_allclose(dist[i], np.sort(full[i])[: index.shape[1]])


# -- lower bound --------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, derandomize=True)
@given(tiny_instances())
def test_lower_bound_below_brute_force_optimum(inst):
    value, source = lower_bound(inst)
    assert source == "nn-distance"
    assert value >= 0
    assert value <= kanonymity_optimum(inst) + 1e-9


def test_lower_bound_by_hand():
    # records (age, sex): r1 (1,M), r2 (2,M), r3 (3,F), r4 (4,F), r5 (1,F); weights (2, 1).
    # w(r1,r2) = w(r3,r4) = 2 * 1/2 = 1 (ages meet at level 1), w(r1,r5) = 1 (sex); every
    # record has a neighbour at distance 1, so with k = 2 the bound is 5.  The optimum is 8:
    # {r1,r2,r5} (age level 1, sex *: 2 each) + {r3,r4} (1 each), or {r1,r2} + {r3,r4,r5}.
    inst = _example(row_deletion=False)
    assert kanonymity_lower_bound(inst) == 5.0
    assert kanonymity_optimum(inst) == 8.0


def test_lower_bound_counts_identical_copies():
    codes = np.array([[0, 0]] * 3 + [[1, 1]] * 3)
    table = Table(codes, ("a", "b"), (("0", "1"),) * 2)
    assert kanonymity_lower_bound(KAnonymityInstance(table, 3)) == 0.0
    # with k = 4 every record needs one record of the other kind: distance 2, 6 records
    inst = KAnonymityInstance(table, 4)
    assert kanonymity_lower_bound(inst) == 12.0
    assert kanonymity_optimum(inst) == 12.0


def test_nearest_neighbors_ties_broken_by_index():
    n = 300  # every pair at distance 2; introselect only reorders ties on larger rows
    table = Table(np.eye(n, dtype=int), tuple(f"a{i}" for i in range(n)), (("0", "1"),) * n)
    index, dist = nearest_neighbors(KAnonymityInstance(table, 2), 3)
    assert np.all(dist == 2.0)
    expected = np.array([[j for j in range(n) if j != i][:3] for i in range(n)])
    np.testing.assert_array_equal(index, expected)
