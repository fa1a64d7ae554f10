"""Tests of solvers/clustering/min_size_kmeans.py: always feasible (r-gather and r-cellular),
the reported cost is the verified one, deterministic per seed."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import verify
from anonratio.instances.clustering import KRCenterInstance, RCellularInstance, RGatherInstance
from anonratio.solvers.clustering.min_size_kmeans import min_size_kmeans


@st.composite
def instances(draw, max_n=8):
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    r = draw(st.integers(1, n))
    metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming"]))
    pts = rng.integers(0, 4, size=(n, 2)) if draw(st.booleans()) else rng.random((n, 2))
    if draw(st.booleans()):
        return RGatherInstance(pts, r, metric=metric)
    costs = rng.integers(0, 4, size=n) if draw(st.booleans()) else None
    return RCellularInstance(pts, r, costs, metric=metric)


def check_solution(inst, sol):
    check = verify(inst, sol)  # strict: every cluster has >= r points
    assert check.cost == pytest.approx(sol.objective, rel=1e-12, abs=1e-12)
    assert sol.algorithm == "min-size-kmeans" and sol.lower_bound is None
    return check.cost


@settings(max_examples=40, deadline=None, derandomize=True)
@given(instances(), st.integers(0, 99))
def test_always_feasible_and_never_below_opt(inst, seed):
    cost = check_solution(inst, min_size_kmeans(inst, seed=seed))
    assert cost >= clustering_optimum(inst) - 1e-9


@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(1, 15), st.sampled_from(["euclidean", "hamming"]))
def test_feasible_on_larger_instances(seed, r, metric):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(150, 2)) if metric == "euclidean" else rng.integers(0, 3, (150, 4))
    inst = RGatherInstance(pts, r=r, metric=metric)
    sol = min_size_kmeans(inst, seed=seed, max_iter=5)
    check_solution(inst, sol)
    assert 1 <= sol.info["n_clusters"] <= 150 // r and sol.info["iterations"] <= 5


def test_deterministic_per_seed():
    inst = RGatherInstance(np.random.default_rng(5).random((120, 2)), r=4)
    a, b = min_size_kmeans(inst, seed=9), min_size_kmeans(inst, seed=9)
    assert np.array_equal(a.labels, b.labels) and a.objective == b.objective


def test_well_separated_groups_found():
    rng = np.random.default_rng(0)
    pts = np.concatenate([c + 0.01 * rng.random((5, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    inst = RGatherInstance(pts, r=5)
    sol = min_size_kmeans(inst, seed=1)
    assert check_solution(inst, sol) < 0.05  # the three groups of five


def test_r_equals_n_and_duplicates():
    inst = RGatherInstance(np.random.default_rng(2).random((6, 2)), r=6)
    assert set(min_size_kmeans(inst, seed=0).labels.tolist()) == {0}
    inst = RGatherInstance(np.repeat([[1.0, 1.0], [2.0, 2.0]], 3, axis=0), r=3)
    assert check_solution(inst, min_size_kmeans(inst, seed=0)) == 0.0


def test_validation():
    with pytest.raises(TypeError, match="RGatherInstance"):
        min_size_kmeans(KRCenterInstance([[0.0], [1.0]], k=1, r=1))
    with pytest.raises(ValueError, match="max_iter"):
        min_size_kmeans(RGatherInstance([[0.0], [1.0]], r=1), max_iter=0)
