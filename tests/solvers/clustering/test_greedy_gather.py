"""Tests of solvers/clustering/greedy_gather.py: always feasible, and within its ``2 tau``
bound (so within 4 OPT)."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from anonratio.instances import verify
from anonratio.instances.clustering import REpsGatherInstance, RGatherInstance
from anonratio.solvers.clustering.greedy_gather import greedy_gather


@st.composite
def instances(draw, max_n=8):
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    kind = draw(st.sampled_from(["grid", "float", "graph"]))
    r = draw(st.integers(1, n))
    if kind == "grid":
        metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming"]))
        return RGatherInstance(rng.integers(0, 4, size=(n, 2)), r, metric=metric)
    if kind == "float":
        return RGatherInstance(rng.random((n, 2)), r)
    w = np.zeros((n, n))
    for v in range(1, n):
        w[v, rng.integers(v)] = rng.integers(1, 6)
    w = np.triu(w + w.T, 1)
    return RGatherInstance(shortest_path(w, directed=False), r, metric="precomputed")


def check_solution(inst, sol):
    check = verify(inst, sol)  # strict: every cluster has >= r points
    assert check.cost == pytest.approx(sol.objective, abs=1e-12)
    assert check.cost <= sol.info["bound"] + 1e-12 == 2 * sol.info["tau"] + 1e-12
    assert sol.algorithm == "greedy-gather"
    return check.cost


@settings(max_examples=40, deadline=None, derandomize=True)
@given(instances(), st.integers(0, 99))
def test_feasible_and_within_four_opt(inst, seed):
    sol = greedy_gather(inst, seed=seed)
    cost = check_solution(inst, sol)
    opt = clustering_optimum(inst)
    assert opt <= cost + 1e-12 and cost <= 4 * opt + 1e-9
    assert sol.lower_bound <= opt + 1e-12


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(1, 12), st.sampled_from(["euclidean", "hamming"]))
def test_feasible_on_larger_instances(seed, r, metric):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(200, 3)) if metric == "euclidean" else rng.integers(0, 3, (200, 4))
    inst = RGatherInstance(pts, r=r, metric=metric)
    check_solution(inst, greedy_gather(inst, seed=seed))


def test_tail_of_leftovers_attaches():
    # 7 points, r = 3: at most two clusters of 3, the seventh point must attach
    inst = RGatherInstance(np.arange(7.0), r=3)
    sol = greedy_gather(inst, seed=0)
    check_solution(inst, sol)
    assert sol.info["n_leftover"] >= 1 and np.bincount(sol.labels).sum() == 7


def test_r_one_and_duplicates():
    inst = RGatherInstance(np.random.default_rng(0).random((5, 2)), r=1)
    assert check_solution(inst, greedy_gather(inst, seed=0)) == 0.0
    inst = RGatherInstance(np.repeat([[1.0], [5.0]], 3, axis=0), r=3)
    assert check_solution(inst, greedy_gather(inst, seed=0)) == 0.0


def test_validation():
    with pytest.raises(TypeError, match="RGatherInstance"):
        greedy_gather(REpsGatherInstance([[0.0], [1.0]], r=1, epsilon=0.0))
