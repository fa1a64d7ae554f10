"""Tests of solvers/clustering/r_eps_gather.py: §2.3's 4-approximation against the brute force,
the peeling core, the outliers and the leftover assignment."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from anonratio.instances import verify
from anonratio.instances.clustering import REpsGatherInstance, RGatherInstance
from anonratio.instances.errors import InfeasibleInstanceError
from anonratio.solvers.clustering.r_eps_gather import peel, r_eps_gather


@st.composite
def instances(draw, max_n=8):
    """Integer grids (ties, duplicates), floats, or a random graph's shortest-path metric."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    kind = draw(st.sampled_from(["grid", "float", "graph"]))
    r, eps = draw(st.integers(1, n)), draw(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5]))
    if kind == "grid":
        metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming"]))
        pts = rng.integers(0, 6, size=(n, 2)).astype(float)
    elif kind == "float":
        pts, metric = rng.random((n, 2)), "euclidean"
    else:
        w = np.zeros((n, n))
        for v in range(1, n):
            w[v, rng.integers(v)] = rng.integers(1, 6)
        pts, metric = shortest_path(np.triu(w + w.T, 1), directed=False), "precomputed"
    try:
        return REpsGatherInstance(pts, r, eps, metric=metric)
    except InfeasibleInstanceError:
        assume(False)


def check_solution(inst, sol):
    check = verify(inst, sol)  # strict: sizes >= r, at most floor(eps n) unclustered
    assert check.cost == pytest.approx(sol.objective, abs=1e-12)
    assert check.n_unclustered == inst.n - sol.info["n_core"] <= inst.max_outliers
    assert check.cost <= 4 * sol.lower_bound + 1e-12  # Theorem 2.3: radius <= 4R
    return check.cost


@settings(max_examples=40, deadline=None, derandomize=True)
@given(instances(), st.integers(0, 99))
def test_four_approximation_and_lower_bound(inst, seed):
    sol = r_eps_gather(inst, seed=seed)
    cost = check_solution(inst, sol)
    opt = clustering_optimum(inst)
    assert opt <= cost + 1e-12 and cost <= 4 * opt + 1e-9
    assert sol.lower_bound <= opt + 1e-12


def naive_peel(dense, radius, r):
    alive = np.ones(len(dense), dtype=bool)
    changed = True
    while changed:
        changed = False
        for i in np.flatnonzero(alive):
            if np.count_nonzero(alive & (dense[i] <= radius)) - 1 < r - 1:
                alive[i], changed = False, True
    return alive


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(1, 5), st.floats(0.05, 0.5))
def test_peel_is_the_core_and_monotone(seed, r, radius):
    pts = np.random.default_rng(seed).random((30, 2))
    inst = RGatherInstance(pts, r=r)
    core = peel(inst.distances.within(radius), r)
    assert np.array_equal(core, naive_peel(inst.distances.dense(), radius, r))
    assert np.all(core <= peel(inst.distances.within(radius * 1.5), r))


def test_outliers_left_out():
    inst = REpsGatherInstance([[0.0], [0.5], [1.0], [50.0], [51.0]], r=3, epsilon=0.4)
    sol = r_eps_gather(inst, seed=0)
    assert sol.labels.tolist() == [0, 0, 0, -1, -1] and sol.lower_bound == 0.5
    assert check_solution(inst, sol) <= 4 * clustering_optimum(inst)


@pytest.mark.parametrize("seed", range(10))
def test_leftover_points_join_a_cluster(seed):
    # a line with unit gaps: with r = 3 the walk leaves points that must join a neighbour's
    # cluster (radius up to 4R)
    inst = REpsGatherInstance(np.arange(10.0), r=3, epsilon=0.0)
    sol = r_eps_gather(inst, seed=seed)
    cost = check_solution(inst, sol)
    assert np.all(sol.labels >= 0) and cost <= 4 * clustering_optimum(inst)


def test_four_r_is_attained():
    # seed 0 opens clusters at 4 (points 2..6) and 7 (7..9); 0 and 1 join via 2: radius 4R
    inst = REpsGatherInstance(np.arange(10.0), r=3, epsilon=0.0)
    sol = r_eps_gather(inst, seed=0)
    assert sol.lower_bound == 1.0 and check_solution(inst, sol) == 4.0


def test_eps_zero_r_one_and_duplicates():
    inst = REpsGatherInstance(np.repeat([[0.0], [9.0]], 4, axis=0), r=4, epsilon=0.0)
    assert check_solution(inst, r_eps_gather(inst, seed=1)) == 0.0
    inst = REpsGatherInstance(np.random.default_rng(0).random((6, 2)), r=1, epsilon=0.5)
    sol = r_eps_gather(inst, seed=1)
    assert check_solution(inst, sol) == 0.0 and sol.lower_bound == 0.0


def test_medium_instance_searches_candidates():
    pts = np.random.default_rng(2).normal(size=(800, 2))
    inst = REpsGatherInstance(pts, r=6, epsilon=0.05)
    sol = r_eps_gather(inst, seed=0)
    check_solution(inst, sol)
    lb = np.sort(inst.distances.kth_neighbor_distances(5))[::-1][inst.max_outliers] / 2
    assert sol.lower_bound >= lb
    assert sol.info["tests"] >= 1


def test_validation():
    with pytest.raises(TypeError, match="REpsGatherInstance"):
        r_eps_gather(RGatherInstance([[0.0], [1.0]], r=1))
