"""Tests of solvers/clustering/r_gather.py: §2.2's 2-approximation against the brute force, the
threshold certificate, the corrected Condition (2), and both search modes."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from anonratio.instances import verify
from anonratio.instances.clustering import RGatherInstance
from anonratio.solvers.clustering import r_gather as rg
from anonratio.solvers.clustering.r_gather import gather_test, r_gather

SEED_RULE = r"`seed` must be None, a non-negative integer or a numpy Generator, "


@st.composite
def points(draw, max_n=8):
    """Small point sets: integer grids (many ties and duplicates), floats, or a shortest-path
    metric of a random connected weighted graph (``metric="precomputed"``)."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    kind = draw(st.sampled_from(["grid", "float", "graph"]))
    if kind == "grid":
        metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming"]))
        return rng.integers(0, 4, size=(n, 2)).astype(float), metric
    if kind == "float":
        return rng.random((n, draw(st.integers(1, 3)))), "euclidean"
    w = np.zeros((n, n))
    for v in range(1, n):  # a random tree plus random chords, integer weights
        w[v, rng.integers(v)] = rng.integers(1, 6)
    extra = rng.random((n, n)) < 0.3
    w[extra] = rng.integers(1, 6, size=int(extra.sum()))
    w = np.triu(w + w.T, 1)
    return shortest_path(w, directed=False), "precomputed"


@st.composite
def instances(draw, max_n=8):
    pts, metric = draw(points(max_n))
    n = pts.shape[0]
    return RGatherInstance(pts, draw(st.integers(1, n)), metric=metric)


def check_solution(inst, sol):
    """Verified, objective = the true cost, at most 2R; returns the cost."""
    check = verify(inst, sol)
    assert check.cost == pytest.approx(sol.objective, abs=1e-12)
    assert sol.algorithm == "r-gather" and sol.params == {"r": inst.r}
    assert sol.info["R"] == sol.lower_bound == sol.info["threshold_lower_bound"]
    assert check.cost <= 2 * sol.info["R"] + 1e-12  # every cluster lies within 2R of its center
    return check.cost


@settings(max_examples=40, deadline=None, derandomize=True)
@given(instances(), st.integers(0, 99))
def test_two_approximation_and_lower_bound(inst, seed):
    sol = r_gather(inst, seed=seed)
    cost = check_solution(inst, sol)
    opt = clustering_optimum(inst)
    assert opt <= cost + 1e-12
    assert cost <= 2 * opt + 1e-9  # Theorem 2.2
    assert sol.lower_bound <= opt + 1e-12  # R <= d*/2 <= OPT
    refuted = sol.info["largest_refuted"]
    assert refuted is None or refuted < sol.lower_bound


@settings(max_examples=30, deadline=None, derandomize=True)
@given(instances(), st.integers(0, 99))
def test_float_bisection_gives_the_same_guarantee(inst, seed):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rg, "PAIR_BUDGET", -1)  # never list the candidates
        sol = r_gather(inst, seed=seed)
    cost = check_solution(inst, sol)
    opt = clustering_optimum(inst)
    assert sol.info["search"] in ("r = 1", "start", "bisection")
    assert cost <= 2 * opt + 1e-9 and sol.lower_bound <= opt + 1e-12
    if sol.info["search"] == "bisection":  # R is a candidate: half a pairwise distance
        assert np.any(inst.distances.dense() == 2 * sol.lower_bound)


@pytest.mark.parametrize("seed", range(12))
def test_text_counterexample_line(seed):
    # r = 2, points 0..3: the text's "r unmarked points" rule can fail at R = d*/2 = 1/2.
    inst = RGatherInstance([[0.0], [1.0], [2.0], [3.0]], r=2)
    sol = r_gather(inst, seed=seed)
    assert check_solution(inst, sol) <= 2 * 1.0
    assert sol.lower_bound == 0.5


def test_condition2_picks_unmarked_points_not_counts():
    inst = RGatherInstance([[0.0], [1.0], [2.0], [3.0]], r=2)
    result = gather_test(inst, 0.5, np.array([1, 0, 2, 3]))  # 1 first marks 0, 1, 2
    assert result.ok and result.centers.tolist() == [1, 3]
    assert np.bincount(result.labels).min() >= 2
    assert not gather_test(inst, 0.25, np.arange(4)).ok  # pairs at distance 1 not within 2R


def test_search_goes_past_the_start():
    inst = RGatherInstance([[2.0], [0.0], [3.0], [1.0], [7.0], [5.0], [5.0]], r=3)
    sol = r_gather(inst, seed=0)
    assert sol.info["search"] == "candidates" and sol.info["largest_refuted"] == 1.0
    assert check_solution(inst, sol) <= 2 * clustering_optimum(inst)


def test_bisection_past_the_start():
    inst = RGatherInstance([[2.0], [0.0], [3.0], [1.0], [7.0], [5.0], [5.0]], r=3)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rg, "PAIR_BUDGET", -1)
        sol = r_gather(inst, seed=0)
    assert sol.info["search"] == "bisection" and sol.lower_bound == 1.5
    assert sol.info["largest_refuted"] == np.nextafter(1.5, 0)  # adjacent floats
    assert check_solution(inst, sol) <= 2 * clustering_optimum(inst)


@pytest.mark.parametrize("r", [1, 2, 3, 5])
def test_duplicate_points_radius_zero(r):
    inst = RGatherInstance(np.repeat([[1.0, 2.0], [4.0, 4.0]], 5, axis=0), r=r)
    sol = r_gather(inst, seed=1)
    assert check_solution(inst, sol) == 0.0 and sol.lower_bound == 0.0


def test_all_points_equal():
    inst = RGatherInstance(np.zeros((6, 3)), r=4)
    sol = r_gather(inst, seed=0)
    assert check_solution(inst, sol) == 0.0 and sol.info["n_centers"] == 1


def test_r_one_every_point_alone():
    inst = RGatherInstance(np.random.default_rng(0).random((7, 2)), r=1)
    sol = r_gather(inst, seed=3)
    assert check_solution(inst, sol) == 0.0
    assert sorted(sol.labels.tolist()) == list(range(7)) and sol.lower_bound == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_r_equals_n_one_cluster(seed):
    inst = RGatherInstance(np.random.default_rng(seed).random((8, 2)), r=8)
    sol = r_gather(inst, seed=seed)
    cost = check_solution(inst, sol)
    assert set(sol.labels.tolist()) == {0}
    assert cost <= 2 * clustering_optimum(inst) + 1e-12


def test_medium_instance_both_search_modes():
    pts = np.random.default_rng(4).normal(size=(1500, 2))
    inst = RGatherInstance(pts, r=7)
    sol = r_gather(inst, seed=2)
    cost = check_solution(inst, sol)
    assert cost <= 2 * sol.lower_bound
    lb = inst.distances.kth_neighbor_distances(6).max() / 2
    assert sol.lower_bound >= lb


def test_deterministic_per_seed_and_labels_contiguous():
    inst = RGatherInstance(np.random.default_rng(8).random((300, 2)), r=4)
    a, b = r_gather(inst, seed=5), r_gather(inst, seed=5)
    assert np.array_equal(a.labels, b.labels) and a.info["centers"] == b.info["centers"]
    assert np.array_equal(np.unique(a.labels), np.arange(len(a.info["centers"])))
    assert a.seed == 5 and r_gather(inst, seed=np.random.default_rng(1)).seed is None


def test_validation():
    from anonratio.instances.clustering import KRCenterInstance

    with pytest.raises(TypeError, match="RGatherInstance"):
        r_gather(KRCenterInstance([[0.0], [1.0]], k=1, r=1))
    with pytest.raises(ValueError, match=SEED_RULE):
        r_gather(RGatherInstance([[0.0], [1.0]], r=1), seed=-1)
