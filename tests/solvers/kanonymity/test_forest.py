"""FOREST + DECOMPOSE-COMPONENT (Aggarwal et al. 2005, §4): feasibility, sizes, the guarantee."""

import itertools

import networkx as nx
import numpy as np
import pytest
from bruteforce import kanonymity_optimum as brute_force_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import Hierarchy, KAnonymityInstance, Table, lower_bound, verify
from anonratio.instances.kanonymity import distance_terms
from anonratio.instances.kanonymity import neighbors as neighbors_module
from anonratio.instances.kanonymity.instance import nearest_neighbors, pairwise_distances
from anonratio.solvers import k_anonymize
from anonratio.solvers.kanonymity.decompose_component import (
    decompose_component,
    decompose_forest,
    max_component_size,
    split_star,
)
from anonratio.solvers.kanonymity.forest import build_forest, forest, forest_guarantee

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
TOL = 1e-9


# ---------------------------------------------------------------------------------------------
# instances
# ---------------------------------------------------------------------------------------------
def _hierarchy(n_values, height, rng):
    """A random hierarchy: each level merges the groups of the level below at random."""
    cols = [np.arange(n_values)]
    for _ in range(1, height):
        prev = cols[-1]
        n_prev = prev.max() + 1
        parent = rng.integers(0, max(1, n_prev // 2 + 1), n_prev)
        cols.append(np.unique(parent, return_inverse=True)[1].reshape(-1)[prev])
    cols.append(np.zeros(n_values, dtype=int))
    groups = np.column_stack(cols)
    labels = tuple(tuple(f"L{t}g{g}" for g in range(groups[:, t].max() + 1)) for t in range(height))
    return Hierarchy(groups, (*labels, ("*",)))


def _instance(rng, n, m, n_values, k, *, model="suppression", weights=False, deletion=False):
    codes = rng.integers(0, n_values, (n, m))
    values = tuple(tuple(f"v{c}" for c in range(n_values)) for _ in range(m))
    hier = None
    if model == "generalization":
        hier = tuple(_hierarchy(n_values, int(rng.integers(1, 5)), rng) for _ in range(m))
    w = rng.uniform(0.5, 3.0, m) if weights else None
    table = Table(codes, tuple(f"a{j}" for j in range(m)), values, hier, w)
    return KAnonymityInstance(table, k, model, deletion)


def _check_solution(instance, sol):
    k = instance.k
    ver = verify(instance, sol)
    assert ver.feasible
    assert sol.objective == ver.cost  # its own claim, exactly
    assert sol.status == "feasible" and sol.algorithm == "forest"
    assert sol.params == instance.params
    labels = sol.labels
    assert labels.min() >= 0  # nobody is deleted, even with row deletion
    sizes = np.bincount(labels)
    sizes = sizes[sizes > 0]
    assert sizes.min() >= k and sizes.max() <= forest_guarantee(instance)
    info = sol.info
    assert info["n_components"] == len(sizes)
    assert info["max_component"] == sizes.max() and info["min_component"] == sizes.min()
    assert ver.cost <= info["cost_bound"] + TOL  # a part costs <= |part| * its edge weight
    assert info["cost_bound"] <= info["max_component"] * info["forest_weight"] + TOL
    assert info["forest_weight"] <= sol.lower_bound + TOL  # each sink pays <= its nn bound
    assert sol.lower_bound <= ver.cost + TOL
    return ver.cost


# ---------------------------------------------------------------------------------------------
# brute-force optimum
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# the guarantee on tiny instances
# ---------------------------------------------------------------------------------------------
@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 4),
    extra=st.integers(0, 6),
    m=st.integers(1, 3),
    n_values=st.integers(2, 4),
    model=st.sampled_from(["suppression", "generalization"]),
    weights=st.booleans(),
    deletion=st.booleans(),
)
def test_guarantee_against_brute_force(seed, k, extra, m, n_values, model, weights, deletion):
    rng = np.random.default_rng(seed)
    n = min(8, k + extra)
    inst = _instance(rng, n, m, n_values, k, model=model, weights=weights, deletion=deletion)
    sol = forest(inst, seed=seed)
    cost = _check_solution(inst, sol)
    opt = brute_force_opt(inst)
    assert cost <= forest_guarantee(inst) * opt + TOL
    assert sol.info["forest_weight"] <= opt + TOL  # Lemma 3
    lb, _ = lower_bound(inst)
    assert lb <= opt + TOL and lb <= cost + TOL
    assert sol.lower_bound == pytest.approx(lb)


def test_brute_force_sanity():
    # two identical pairs: k = 2 costs 0; k = 3 or 4 suppresses the differing column
    codes = np.array([[0, 0], [0, 0], [0, 1], [0, 1]])
    table = Table(codes, ("a", "b"), (("x", "y"), ("x", "y")))
    assert brute_force_opt(KAnonymityInstance(table, 2)) == 0.0
    assert brute_force_opt(KAnonymityInstance(table, 4)) == 4.0
    assert brute_force_opt(KAnonymityInstance(table, 3, row_deletion=True)) == 4.0
    # three identical records and an outlier: deleting the outlier (2) beats grouping all (8)
    table = Table(np.array([[0, 0]] * 3 + [[1, 1]]), ("a", "b"), (("x", "y"), ("x", "y")))
    assert brute_force_opt(KAnonymityInstance(table, 3)) == 8.0
    assert brute_force_opt(KAnonymityInstance(table, 3, row_deletion=True)) == 2.0


# ---------------------------------------------------------------------------------------------
# feasibility on larger random tables
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
@pytest.mark.parametrize(
    "model, weights, deletion, n_values",
    [
        ("suppression", False, False, 4),
        ("generalization", True, False, 6),
        ("generalization", False, True, 5),
        ("suppression", True, True, 2),  # duplicates-heavy
    ],
)
def test_feasible_random_tables(k, model, weights, deletion, n_values):
    rng = np.random.default_rng(1000 * k + n_values)
    for n in (k, 2 * k + 1, 60, 300):
        inst = _instance(rng, n, 4, n_values, k, model=model, weights=weights, deletion=deletion)
        _check_solution(inst, forest(inst, seed=7))


def test_heavy_duplicates_are_split_at_zero_cost():
    # one record repeated 3k + 2 times (>= 2k copies must become several groups) plus a few others
    k = 4
    codes = np.array([[0, 0]] * (3 * k + 2) + [[1, 1], [1, 2], [2, 2], [2, 1], [3, 3]])
    table = Table(codes, ("a", "b"), (("0", "1", "2", "3"),) * 2)
    inst = KAnonymityInstance(table, k)
    sol = forest(inst)
    _check_solution(inst, sol)
    copies = sol.labels[: 3 * k + 2]
    assert len(np.unique(copies)) >= 2
    alone = KAnonymityInstance(Table(codes[: 3 * k + 2], ("a", "b"), table.values), k)
    sol = forest(alone)
    assert _check_solution(alone, sol) == 0.0
    assert sol.info["n_components"] == (3 * k + 2) // k and sol.info["forest_weight"] == 0.0


def test_deterministic_and_seed_recorded():
    inst = _instance(np.random.default_rng(5), 80, 3, 4, 3, model="generalization")
    a, b = forest(inst, seed=1), forest(inst, seed=2)
    assert np.array_equal(a.labels, b.labels)
    assert (a.seed, b.seed) == (1, 2)
    assert forest(inst).seed is None
    assert np.array_equal(k_anonymize(inst, method="forest", seed=3).labels, a.labels)


def test_forest_guarantee():
    rng = np.random.default_rng(0)
    ratios = [forest_guarantee(_instance(rng, 12, 2, 2, k)) for k in (2, 3, 4, 5, 10)]
    assert ratios == [3, 5, 7, 10, 25]
    # guarantee(instance, solution): a priori, the run's solution changes nothing
    inst = _instance(rng, 12, 2, 2, 6)
    sol = forest(inst, seed=0)
    assert forest_guarantee(inst, sol) == forest_guarantee(inst) == 13 == sol.info["guarantee"]


def test_validation():
    with pytest.raises(TypeError, match=r"`instance` must be a KAnonymityInstance, got str"):
        forest("table")
    inst = _instance(np.random.default_rng(0), 10, 2, 3, 2)
    with pytest.raises(
        ValueError,
        match=r"`seed` must be None, a non-negative integer or a numpy Generator, got 'abc'",
    ):
        forest(inst, seed="abc")


# ---------------------------------------------------------------------------------------------
# nearest neighbours and FOREST
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cap, sample", [(2048, 256), (6, 3), (1, 2)])
def test_nearest_neighbors(monkeypatch, cap, sample):
    # the table cap lives with the distance terms, the brute-force size with the search
    monkeypatch.setattr(distance_terms, "_TABLE_CAP", cap)
    monkeypatch.setattr(neighbors_module, "_BRUTE_MAX", sample)
    rng = np.random.default_rng(cap)
    for model, weights in [("suppression", False), ("generalization", True)]:
        inst = _instance(rng, 120, 3, 5, 4, model=model, weights=weights)
        unique = inst.table.unique_records()[0]
        index, dist = nearest_neighbors(inst, 3, unique)
        full = pairwise_distances(inst, unique)
        np.fill_diagonal(full, np.inf)
        ref = np.lexsort((np.broadcast_to(np.arange(len(unique)), full.shape), full), axis=1)
        ref_dist = np.take_along_axis(full, ref[:, :3], axis=1)
        np.testing.assert_allclose(dist, ref_dist, rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.take_along_axis(full, index, axis=1), dist, atol=1e-12)
        if not weights:  # integer distances: ties break by index exactly
            assert np.array_equal(index, ref[:, :3])
    index, dist = nearest_neighbors(inst, 5, unique[:1])
    assert index.shape == (1, 0)


def test_build_forest_with_copies():
    # counts (3, 1, 1, 1), k = 3: record 0 needs no edge, the others attach as FOREST allows
    counts = np.array([3, 1, 1, 1])
    index = np.array([[1, 2], [2, 0], [1, 3], [2, 1]])
    dist = np.array([[1.0, 2.0], [0.5, 1.0], [0.5, 0.7], [0.7, 2.0]])
    parent, weight = build_forest(counts, index, dist, 3)
    assert parent[0] == -1 and weight[0] == 0
    # 1 -> 2 (its nearest); the tree {1, 2} (sink 2) skips 1, inside it, and points to 3
    assert parent.tolist() == [-1, 2, 3, -1]
    assert weight.tolist() == [0.0, 0.5, 0.7, 0.0]


# ---------------------------------------------------------------------------------------------
# DECOMPOSE-COMPONENT, one literal step
# ---------------------------------------------------------------------------------------------
def _path(n):
    return [(i, i + 1) for i in range(n - 1)]


def _star(branches):
    """Centre 0; branch i is a root with ``size - 1`` leaves."""
    edges, nxt = [], 1
    for size in branches:
        root = nxt
        edges.append((0, root))
        edges += [(root, root + j) for j in range(1, size)]
        nxt += size
    return edges


def test_case_a():
    split = decompose_component(_path(10), 3, candidate=4)
    assert split.case == "A" and split.candidate == 4
    a, b = split.parts
    assert a.vertices == set(range(5, 10)) and b.vertices == set(range(5))
    assert not a.steiner and not b.steiner
    assert len(a.edges) + len(b.edges) == 8  # the edge (4, 5) is dropped


def test_case_b_steiner_not_counted():
    split = decompose_component(_path(10), 3, candidate=0)  # walks to 1, where s - phi = k - 1
    assert split.case == "B" and split.candidate == 1
    first, second = split.parts
    assert first.steiner == {2} and 2 not in first.vertices
    assert first.size == 7 and second.size == 3 and second.vertices == {0, 1, 2}
    assert frozenset((2, 3)) in first.edges and frozenset((1, 2)) in second.edges
    assert not first.edges & second.edges


def test_case_c_and_the_steiner_centre_gap():
    edges = _star([3, 3, 3, 2])  # k = 4: s = 12 > 7, largest branch 3 = k - 1
    split = decompose_component(edges, 4)
    assert split.case == "C" and split.candidate == 0
    first, second = split.parts
    assert first.size == 4 and 0 in first.vertices
    assert second.size == 8 and second.steiner == {0}
    # the part left around the Steiner centre cannot be split by the literal step ...
    for start in sorted({x for e in second.edges for x in e}):
        with pytest.raises(ValueError, match="to be a real vertex"):
            decompose_component([tuple(e) for e in second.edges], 4, steiner={0}, candidate=start)
    # ... nor by any split at all: try every assignment of its edges to two parts or none
    assert not _splittable([tuple(e) for e in second.edges], {0}, 4)
    assert _splittable([tuple(e) for e in second.edges], set(), 4)  # with a real centre: 4 + 5
    # the driver splits the original star into two parts of 6
    parent = [-1] * 12
    for a, b in edges:
        parent[b] = a
    dec = decompose_forest(parent, [1] * 12, 4)
    assert sorted(dec.sizes) == [6, 6]
    _check_decomposition(parent, [1] * 12, 4, dec)


def _splittable(edges, steiner, k):
    """Is there any split into two connected, edge-disjoint parts with >= k real vertices each?"""
    real = {x for e in edges for x in e} - set(steiner)
    for colour in itertools.product((0, 1, 2), repeat=len(edges)):
        parts = []
        for c in (0, 1):
            g = nx.Graph([e for e, col in zip(edges, colour, strict=True) if col == c])
            if g.number_of_nodes() == 0 or not nx.is_connected(g):
                break
            parts.append(set(g) & real)
        else:
            only0, only1 = len(parts[0] - parts[1]), len(parts[1] - parts[0])
            both = len(parts[0] & parts[1])
            covered = parts[0] | parts[1] == real
            if (
                covered
                and only0 + both >= k
                and only1 + both >= k
                and only0 + only1 + both >= 2 * k
            ):
                return True
    return False


def test_case_d():
    split = decompose_component(_star([2, 2, 2, 2]), 4)  # s = 9, every branch <= k - 2
    assert split.case == "D"
    first, second = split.parts
    assert (first.size, second.size) == (5, 4)
    assert 0 in first.vertices and second.steiner == {0}
    split = decompose_component(_star([2, 1, 1, 1, 1, 1]), 4)  # first part reaches k - 1 = 3
    first, second = split.parts
    assert split.case == "D" and (first.size, second.size) == (4, 4)
    assert 0 in first.vertices and second.steiner == {0} and 0 not in second.vertices


def test_decompose_component_rejects_small_trees():
    with pytest.raises(ValueError, match=r"at most max\(2k-1, 3k-5\) = 5"):
        decompose_component(_path(5), 3)


# ---------------------------------------------------------------------------------------------
# the driver and the star split
# ---------------------------------------------------------------------------------------------
def _check_decomposition(parent, weights, k, dec):
    big = max_component_size(k)
    assert all(k <= s <= big for s in dec.sizes)
    holders = [{} for _ in dec.sizes]  # part -> {vertex: copies}
    for x, w in enumerate(weights):
        placed = dec.spread.get(x, [(dec.labels[x], w)])
        assert sum(c for _, c in placed) == w
        for part, c in placed:
            assert c > 0
            holders[part][x] = holders[part].get(x, 0) + c
    edges = [[] for _ in dec.sizes]
    for x, part in enumerate(dec.edge_part):
        if part >= 0:
            edges[part].append((x, parent[x]))
    steiner = [set() for _ in dec.sizes]
    for part, x in dec.steiner:
        steiner[part].add(x)
    for part, size in enumerate(dec.sizes):
        assert sum(holders[part].values()) == size
        g = nx.Graph(edges[part])
        g.add_nodes_from(holders[part])
        assert nx.is_connected(g)  # through Steiner vertices where needed
        assert set(g) - set(holders[part]) == steiner[part]


@st.composite
def _forests(draw):
    k = draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    heavy = draw(st.sampled_from([0.0, 0.1, 0.5]))  # share of vertices with k .. 3k copies
    parent, weights = [], []
    for size in draw(st.lists(st.integers(1, 40), min_size=1, max_size=3)):
        base = len(parent)
        parent += [-1] + [base + int(rng.integers(0, i)) for i in range(1, size)]
        w = np.where(
            rng.random(size) < heavy, rng.integers(k, 3 * k + 1, size), 1 + (rng.random(size) < 0.3)
        )
        w[0] += max(0, k - int(w.sum()))
        weights += w.tolist()
    return parent, weights, k


@SETTINGS
@given(_forests())
def test_decompose_forest_properties(case):
    parent, weights, k = case
    dec = decompose_forest(parent, weights, k)
    _check_decomposition(parent, weights, k, dec)


def test_decompose_forest_rejects_small_trees():
    with pytest.raises(ValueError, match="fewer than k=3"):
        decompose_forest([-1, 0], [1, 1], 3)


@pytest.mark.parametrize("k", range(2, 8))
def test_split_star_exhaustive(k):
    big = max_component_size(k)

    def multisets(total, largest):
        if total == 0:
            yield []
            return
        for first in range(min(total, largest), 0, -1):
            for rest in multisets(total - first, first):
                yield [first, *rest]

    for total in range(0, 3 * k + 2):
        for sizes in multisets(total, k - 1):
            for units in (1, 2, 3, k + 1):
                if units + total < k:
                    continue
                pieces = split_star(units, sizes, k)
                used = sorted(i for members, _, _ in pieces for i in members)
                assert used == list(range(len(sizes)))
                assert sum(u for _, u, _ in pieces) == units
                for members, u, _ in pieces:
                    size = u + sum(sizes[i] for i in members)
                    assert k <= size <= big
                    assert u > 0 or len(members) >= 2


@pytest.mark.parametrize("centre", [1, 2, 9])
def test_decompose_forest_big_star(centre):
    k = 4
    edges = _star([3] * 20 + [2] * 5 + [1] * 3)
    parent = [-1] * (1 + 60 + 10 + 3)
    for a, b in edges:
        parent[b] = a
    weights = [centre] + [1] * (len(parent) - 1)
    dec = decompose_forest(parent, weights, k)
    _check_decomposition(parent, weights, k, dec)
    assert dec.cases["C"] + dec.cases["D"] >= 1
    if centre == 1:  # the literal C would leave u' with > L + k: peel while keeping u real
        assert dec.cases["peel"] > 0
    # rooted at a leaf instead: case A cuts the star off the path above it
    path = [-1, 0, 1] + [p + 3 if p >= 0 else 2 for p in parent]
    dec = decompose_forest(path, [1, 1, 1, *weights], k)
    _check_decomposition(path, [1, 1, 1, *weights], k, dec)
