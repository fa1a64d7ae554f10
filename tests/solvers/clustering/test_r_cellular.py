"""Tests of solvers/clustering/r_cellular.py: §3.1 (Aggarwal et al., PODS 2006) — augment, share,
unshare (Figure 4's greedy grouping), Theorem 3.6's ratio 80 — against the brute force."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum, points
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import verify
from anonratio.instances.clustering import CellularInstance, RCellularInstance
from anonratio.instances.clustering.metric import PointMetric
from anonratio.solvers.clustering import dual_growth
from anonratio.solvers.clustering.dual_events import grow_duals_by_events
from anonratio.solvers.clustering.dual_growth import grow_duals
from anonratio.solvers.clustering.primal_dual import cellular_cost, growth_clustering
from anonratio.solvers.clustering.r_cellular import (
    SharedClusters,
    group_weights,
    r_cellular,
    share,
    unshare,
)


@st.composite
def instances(draw, max_n=9):
    pts, metric = draw(points(max_n))
    n = pts.shape[0]
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    scale = draw(st.sampled_from([None, 0.0, 0.1, 1.0, 1e4]))
    f = None if scale is None else rng.random(n) * scale
    return RCellularInstance(pts, draw(st.integers(1, n)), f, metric=metric)


def check_solution(inst, sol):
    """Verified (every cluster >= r); objective = the true cost; returns the cost."""
    check = verify(inst, sol)
    assert check.cost == pytest.approx(sol.objective, rel=1e-12, abs=1e-12)
    assert check.min_cluster_size >= inst.r
    assert sol.algorithm == "r-cellular" and sol.params == {"r": inst.r}
    half_dual = sol.info["dual_augmented"] / 2
    assert sol.lower_bound >= half_dual - 1e-12
    assert sol.info["n_open"] + sol.info["n_leftover"] == sol.info["n_step1"]
    return check.cost


@settings(max_examples=60, deadline=None, derandomize=True)
@given(instances())
def test_eighty_approximation_and_lower_bound(inst):
    sol = r_cellular(inst)
    cost = check_solution(inst, sol)
    optimum = clustering_optimum(inst)
    # the augmented instance costs at most 2 OPT_r, and its dual bounds its LP: dual/2 <= OPT_r
    assert sol.lower_bound <= optimum + 1e-9
    assert cost <= 80 * optimum + 1e-9


def test_figure_1():
    # Figure 1(a): (alpha, beta), (alpha+2, beta), (delta, gamma+3), (delta, gamma),
    # (delta, gamma-3) with alpha=30, beta=0, delta=50, gamma=0; Figure 1(d) publishes
    # {0, 1} and {2, 3, 4} at cost 2 x 1 + 3 x 3 = 11, the first cluster centered at
    # (alpha+1, beta), which is not a record. With centers among the records that clustering
    # costs 2 x 2 + 3 x 3 = 13, the optimum.
    inst = RCellularInstance([[30, 0], [32, 0], [50, 3], [50, 0], [50, -3]], r=2)
    published = verify(inst, [0, 0, 1, 1, 1])
    assert published.cost == 13 == clustering_optimum(inst)
    assert published.radii == (2.0, 3.0)
    sol = r_cellular(inst)
    assert check_solution(inst, sol) <= 80 * 13
    assert sol.labels.tolist() == [0, 0, 1, 1, 1] and sol.objective == 13
    assert sol.lower_bound <= 13


def test_group_weights():
    # second-level nodes until the weight reaches r; the rest with r - W_s first-level nodes
    assert group_weights(5, [2, 2, 1, 2], 3) == [([0, 1], 0), ([2, 3], 0), ([], 5)]
    assert group_weights(5, [2, 2, 1], 3) == [([0, 1], 0), ([2], 2), ([], 3)]  # 1 + 5 >= 6
    assert group_weights(4, [2, 2, 1], 3) == [([0, 1], 0), ([2], 4)]  # 1 + 4 < 6: all together
    assert group_weights(3, [], 3) == [([], 3)]
    for m, weights, r in [(7, [1, 1, 1, 4, 3], 4), (4, [3, 3, 3], 4), (9, [1], 2)]:
        plan = group_weights(m, weights, r)
        positions = sorted(q for g in plan for q in g[0])
        assert positions == list(range(len(weights))) and sum(k for _, k in plan) == m
        for group, k in plan:
            size = sum(weights[q] for q in group) + k
            assert size >= r
            if group:
                assert size <= 2 * r - 1  # Lemma 3.4


def shared_on_line(x, clusters, r):
    inst = RCellularInstance(np.asarray(x, dtype=float), r=r)
    centers = np.array([c for c, _ in clusters])
    parts = [np.array(sorted(m)) for _, m in clusters]
    ptr = np.concatenate(([0], np.cumsum([p.size for p in parts])))
    radii = np.array(
        [inst.distances.pairs(c, p).max() for c, p in zip(centers, parts, strict=True)]
    )
    return inst, SharedClusters(ptr, np.concatenate(parts), centers, radii)


def test_unshare_merges_a_small_leftover():
    # A = (center 0, {0, 1}) opens; B = (center 2, {1, 2}) keeps one point: W_s + m = 3 < 2r
    inst, shared = shared_on_line([0, 1, 2], [(0, {0, 1}), (2, {1, 2})], r=2)
    labels, centers, stats = unshare(inst, shared)
    assert stats == {"n_open": 1, "n_leftover": 1, "n_second_level": 1, "n_mixed": 1}
    assert labels.tolist() == [0, 0, 0] and centers.tolist() == [2]  # B's center (Lemma 3.5)


def test_unshare_splits_the_first_level():
    # r = 3: A = (1, {0..3}) opens, B = (4, {3, 4, 5}) keeps {4, 5}; 2 + 4 >= 6, so {4, 5} and
    # the first-level point nearest B's center form a cluster, the rest another
    inst, shared = shared_on_line([0, 1, 2, 3, 5, 6], [(1, {0, 1, 2, 3}), (4, {3, 4, 5})], r=3)
    labels, centers, stats = unshare(inst, shared)
    assert stats["n_open"] == 1 and stats["n_mixed"] == 1
    assert labels.tolist() == [1, 1, 1, 0, 0, 0] and centers.tolist() == [4, 1]


def test_share_adds_the_r_nearest():
    rng = np.random.default_rng(4)
    inst = RCellularInstance(rng.random((60, 2)), r=4)
    g = grow_duals_by_events(inst.distances, inst.facility, lam=4.0, min_members=4)
    labels, centers, kept = growth_clustering(g)
    shared = share(inst, g.rows, labels, centers)
    d = inst.distances.dense()
    for c, v in enumerate(centers):
        mem = shared.of(c)
        assert set(np.flatnonzero(labels == c)) <= set(mem.tolist()) and mem.size >= 4
        nearest = np.sort(d[v])[3]
        assert np.all(d[v, mem[~np.isin(mem, np.flatnonzero(labels == c))]] <= nearest)
        assert nearest <= g.radii[kept[c]]  # the opened cluster had r potential members
        assert shared.radii[c] == d[v, mem].max()


def test_medium_instances_reach_every_branch():
    rng = np.random.default_rng(5)
    mixed = 0
    for n, r, f in [(300, 3, None), (400, 5, 0.05), (250, 8, None)]:
        inst = RCellularInstance(rng.random((n, 2)), r, None if f is None else np.full(n, f))
        sol = r_cellular(inst)
        check_solution(inst, sol)
        mixed += sol.info["n_mixed"]
        assert sol.info["cost_shared"] >= sol.info["cost_step1"] - 1e-9
    assert mixed > 0


def test_r_one_and_r_n():
    rng = np.random.default_rng(6)
    pts = rng.random((7, 2))
    one = RCellularInstance(pts, r=1, facility_costs=np.full(7, 0.2))
    check_solution(one, r_cellular(one))
    everything = RCellularInstance(pts, r=7)
    sol = r_cellular(everything)
    check_solution(everything, sol)
    assert np.all(sol.labels == 0)


def test_input_validation():
    with pytest.raises(TypeError, match="`instance` must be a RCellularInstance"):
        r_cellular(CellularInstance([[0.0], [1.0]]))
    with pytest.raises(ValueError, match="`seed` must be None"):
        r_cellular(RCellularInstance([[0.0], [1.0]], r=1), seed="x")


def all_pairs_r_cellular(inst):
    """The §3.1 pipeline over the all-pairs growth of dual_growth.py (labels, centers, cost)."""
    r = inst.r
    g = grow_duals(inst.distances, inst.facility, lam=float(r), min_members=r)
    step1, centers1, _ = growth_clustering(g)
    own = [np.flatnonzero(step1 == c) for c in range(centers1.size)]
    near = [g.lists.nbr[g.lists.ptr[v] : g.lists.ptr[v] + r] for v in centers1.tolist()]
    parts = [np.union1d(o, q) for o, q in zip(own, near, strict=True)]
    ptr = np.concatenate(([0], np.cumsum([p.size for p in parts])))
    members = np.concatenate(parts).astype(np.int64)
    owner = np.repeat(np.arange(centers1.size), np.diff(ptr))
    radii = np.zeros(centers1.size)
    np.maximum.at(radii, owner, inst.distances.pairs(centers1[owner], members))
    labels, centers, _ = unshare(inst, SharedClusters(ptr, members, centers1, radii))
    return labels, centers, cellular_cost(inst, labels, centers)[0]


def r_instance(seed):
    """Seeded r-cellular instances of every metric, with ties and duplicates (grids)."""
    rng = np.random.default_rng(seed)
    n, dim = int(rng.integers(4, 200)), int(rng.integers(1, 4))
    metric = ("euclidean", "manhattan", "hamming", "precomputed")[seed % 4]
    pts = rng.integers(0, 3, (n, dim)) if metric == "hamming" else rng.random((n, dim))
    if metric != "hamming" and seed % 3 == 0:
        pts = np.round(pts * 3) / 3  # many equal distances: rows end inside tie groups
    if metric == "precomputed":
        pts = PointMetric(pts, "manhattan").dense()
    r = int(rng.integers(1, min(n, 20) + 1))
    f = (None, rng.random(n) * float(rng.choice([0.01, 1.0])))[seed % 2]
    return RCellularInstance(pts, r, f, metric=metric)


@pytest.mark.parametrize("seed", range(40))
def test_same_clustering_as_the_all_pairs_growth(seed):
    inst = r_instance(seed)
    labels, centers, cost = all_pairs_r_cellular(inst)
    sol = r_cellular(inst)
    assert sol.labels.tolist() == labels.tolist() and sol.info["centers"] == centers.tolist()
    assert sol.objective == cost


def test_no_list_of_all_pairs(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("built all the pairs within a radius")

    rng = np.random.default_rng(8)
    inst = RCellularInstance(rng.random((3000, 2)), 5, rng.random(3000) * 0.05)
    monkeypatch.setattr(dual_growth, "neighbour_lists", refuse)
    for name in ("block", "dense", "within", "candidate_distances"):
        monkeypatch.setattr(PointMetric, name, refuse)
    sol = r_cellular(inst)
    assert np.bincount(sol.labels).min() >= 5 and sol.info["n_step1"] > 1
