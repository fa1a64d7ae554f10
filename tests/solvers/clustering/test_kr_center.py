"""Tests of solvers/clustering/kr_center.py: §2.4's 2-approximation against the brute force, the
k-center cap on the number of centers and the farthest-first bound."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from anonratio.instances import verify
from anonratio.instances.clustering import KRCenterInstance, RGatherInstance
from anonratio.solvers.clustering.kr_center import farthest_first_bound, kr_center


@st.composite
def instances(draw, max_n=8):
    """Integer grids (ties, duplicates), floats, or a random graph's shortest-path metric."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    kind = draw(st.sampled_from(["grid", "float", "graph"]))
    k, r = draw(st.integers(1, n)), draw(st.integers(1, n))
    if kind == "grid":
        metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming"]))
        return KRCenterInstance(rng.integers(0, 4, size=(n, 2)), k, r, metric=metric)
    if kind == "float":
        return KRCenterInstance(rng.random((n, 2)), k, r)
    w = np.zeros((n, n))
    for v in range(1, n):
        w[v, rng.integers(v)] = rng.integers(1, 6)
    w = np.triu(w + w.T, 1)
    return KRCenterInstance(shortest_path(w, directed=False), k, r, metric="precomputed")


def check_solution(inst, sol):
    check = verify(inst, sol)  # strict: sizes >= r, at most k clusters
    assert check.cost == pytest.approx(sol.objective, abs=1e-12)
    assert check.n_clusters <= inst.k and check.min_cluster_size >= inst.r
    assert check.cost <= 2 * sol.lower_bound + 1e-12
    assert sol.algorithm == "kr-center" and sol.params == {"k": inst.k, "r": inst.r}
    return check.cost


@settings(max_examples=40, deadline=None, derandomize=True)
@given(instances(), st.integers(0, 99))
def test_two_approximation_and_lower_bound(inst, seed):
    sol = kr_center(inst, seed=seed)
    cost = check_solution(inst, sol)
    opt = clustering_optimum(inst)
    assert opt <= cost + 1e-12 and cost <= 2 * opt + 1e-9
    assert sol.lower_bound <= opt + 1e-12
    assert farthest_first_bound(inst, min(inst.k, inst.n // inst.r)) <= opt + 1e-12


def test_k_one_single_cluster():
    inst = KRCenterInstance([[0.0], [1.0], [10.0], [11.0]], k=1, r=2)
    sol = kr_center(inst, seed=0)
    assert set(sol.labels.tolist()) == {0}
    assert check_solution(inst, sol) <= 2 * clustering_optimum(inst)


@pytest.mark.parametrize("seed", range(8))
def test_k_caps_what_r_gather_would_open(seed):
    # Three well-separated pairs: r-gather opens 3 clusters; k = 2 forces a merge.
    pts = [[0.0], [1.0], [100.0], [101.0], [200.0], [201.0]]
    sol = kr_center(KRCenterInstance(pts, k=2, r=2), seed=seed)
    cost = check_solution(KRCenterInstance(pts, k=2, r=2), sol)
    assert len(sol.info["centers"]) <= 2 and 100 <= cost <= 2 * 100.5


def test_farthest_first_bound():
    inst = KRCenterInstance([[0.0], [1.0], [10.0], [11.0]], k=1, r=1)
    assert farthest_first_bound(inst, 1) == 5.5  # 0 and 11 must share the only cluster
    assert farthest_first_bound(inst, 4) == 0.0
    sol = kr_center(inst, seed=0)
    assert sol.info["start"] >= 5.5 and check_solution(inst, sol) <= 11


def test_large_k_matches_r_gather_guarantee():
    pts = np.random.default_rng(1).random((400, 2))
    inst = KRCenterInstance(pts, k=400, r=5)
    sol = kr_center(inst, seed=3)
    check_solution(inst, sol)
    assert sol.lower_bound >= inst.distances.kth_neighbor_distances(4).max() / 2


def test_duplicates_and_r_one():
    inst = KRCenterInstance(np.repeat([[0.0, 0.0], [3.0, 4.0]], 3, axis=0), k=2, r=1)
    sol = kr_center(inst, seed=0)
    assert check_solution(inst, sol) == 0.0


def test_validation():
    with pytest.raises(TypeError, match="KRCenterInstance"):
        kr_center(RGatherInstance([[0.0], [1.0]], r=1))
