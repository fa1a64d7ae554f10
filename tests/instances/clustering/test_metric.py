"""Tests of instances/clustering/metric.py: PointMetric against scipy's cdist and a dense matrix."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from anonratio.instances.clustering import PointMetric, RGatherInstance
from anonratio.instances.clustering.metric import BLOCK

CDIST = {"euclidean": "euclidean", "manhattan": "cityblock", "hamming": "hamming"}
METRICS = ["euclidean", "manhattan", "hamming", "precomputed"]


def reference(points, metric):
    """The distance matrix by scipy (hamming: a count of differing coordinates)."""
    if metric == "precomputed":
        return np.asarray(points, dtype=float)
    d = cdist(points, points, CDIST[metric])
    return np.rint(d * points.shape[1]) if metric == "hamming" else d


def make_points(seed, n, dim, metric, span=3):
    """Small integer coordinates (duplicates and ties are likely), or for ``precomputed`` the
    euclidean matrix of such points."""
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, span, size=(n, dim)).astype(float)
    if metric == "precomputed":
        return cdist(pts, pts)
    if metric == "euclidean":
        pts += rng.integers(0, 2, size=pts.shape) * 0.5
    return pts


def metric_of(points, metric):
    return RGatherInstance(points, r=1, metric=metric).distances


cases = st.tuples(
    st.integers(0, 10**6), st.integers(1, 12), st.integers(1, 3), st.sampled_from(METRICS)
)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(cases)
def test_pairs_block_dense_match_cdist(case):
    seed, n, dim, metric = case
    pts = make_points(seed, n, dim, metric)
    m = metric_of(pts, metric)
    ref = reference(pts, metric)
    dense = m.dense()
    assert dense.shape == (n, n)
    np.testing.assert_allclose(dense, ref, rtol=1e-12, atol=1e-12)
    full = m.block(np.arange(n))
    assert np.array_equal(full, dense)  # the same floats, not only close
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, size=4), rng.integers(0, n, size=3)
    assert np.array_equal(m.block(rows, cols), dense[np.ix_(rows, cols)])
    i, j = rng.integers(0, n, size=7), rng.integers(0, n, size=7)
    assert np.array_equal(m.pairs(i, j), dense[i, j])
    assert np.array_equal(m.pairs(i[:, None], j[None, :]), dense[np.ix_(i, j)])  # broadcast
    assert np.array_equal(m.row(int(i[0])), dense[i[0]])
    assert np.all(np.diag(dense) == 0) and np.array_equal(dense, dense.T)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(cases)
def test_kth_neighbor_distances_is_sorted_dense(case):
    seed, n, dim, metric = case
    m = metric_of(make_points(seed, n, dim, metric), metric)
    srt = np.sort(m.dense(), axis=1)  # column 0 is the point itself
    for k in range(n):
        assert np.array_equal(m.kth_neighbor_distances(k), srt[:, k]), k
    assert np.array_equal(m.kth_neighbor_distances(0), np.zeros(n))
    with pytest.raises(ValueError, match=rf"`m` must be at most n - 1 = {n - 1}, got {n}"):
        m.kth_neighbor_distances(n)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(cases, st.integers(0, 10**6))
def test_within_equals_dense_threshold(case, pick):
    seed, n, dim, metric = case
    m = metric_of(make_points(seed, n, dim, metric), metric)
    dense = m.dense()
    values = np.unique(dense)  # radii exactly at a distance (the boundary is included) and 0
    for radius in {0.0, float(values[pick % values.size]), float(values.max()) + 1.0}:
        got = m.within(radius)
        assert got.shape == (n, n) and got.dtype == bool
        assert np.array_equal(got.toarray(), dense <= radius), radius
        assert got.has_sorted_indices
        assert got.diagonal().all()  # zero distances (the diagonal, duplicates) are entries


@settings(derandomize=True, deadline=None, max_examples=25)
@given(cases, st.floats(0, 3), st.floats(0, 3))
def test_candidate_distances(case, a, b):
    seed, n, dim, metric = case
    m = metric_of(make_points(seed, n, dim, metric), metric)
    low, high = min(a, b), max(a, b)
    dense = m.dense()
    upper = dense[np.triu_indices(n, 1)]
    want = np.unique(upper[(upper >= low) & (upper <= high)])
    got = m.candidate_distances(low, high)
    assert np.array_equal(got, want)
    assert np.all(np.diff(got) > 0)


def test_duplicates_and_zero_distances():
    pts = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 4.0], [3.0, 4.0], [3.0, 4.0]])
    for metric in ("euclidean", "manhattan", "hamming"):
        m = metric_of(pts, metric)
        assert m.kth_neighbor_distances(1).tolist() == [0.0] * 5
        assert m.kth_neighbor_distances(2).tolist()[2:] == [0.0] * 3
        w = m.within(0.0).toarray()
        assert w.sum() == 4 + 9 and w[0, 1] and w[2, 4] and not w[0, 2]
        assert m.candidate_distances(0.0, 100.0)[0] == 0.0
    assert metric_of(pts, "euclidean").pairs(0, 2) == 5.0
    assert metric_of(pts, "manhattan").pairs(0, 2) == 7.0
    assert metric_of(pts, "hamming").pairs(0, 2) == 2.0


@pytest.mark.parametrize("metric", METRICS)
def test_more_points_than_one_block(metric):
    n = BLOCK + 37
    pts = make_points(1, n, 2, metric, span=20)
    m = metric_of(pts, metric)
    dense = m.dense()
    np.testing.assert_allclose(dense, reference(pts, metric), rtol=1e-12, atol=1e-12)
    srt = np.sort(dense, axis=1)
    assert np.array_equal(m.kth_neighbor_distances(5), srt[:, 5])
    assert np.array_equal(m.within(2.0).toarray(), dense <= 2.0)
    upper = dense[np.triu_indices(n, 1)]
    assert np.array_equal(
        m.candidate_distances(1.0, 3.0), np.unique(upper[(upper >= 1) & (upper <= 3)])
    )


def test_hamming_dense_is_exact_with_many_attributes():
    """cdist's hamming *fraction* times the number of attributes is not always an integer
    (15 / 22 * 22 != 15): dense() must give the same floats as block()/pairs()."""
    rng = np.random.default_rng(0)
    pts = rng.integers(0, 2, size=(40, 25)).astype(float)
    m = metric_of(pts, "hamming")
    block = m.block(np.arange(40))
    assert np.array_equal(block, np.rint(block))  # counts
    assert np.array_equal(m.dense(), block)


def test_direct_construction():
    pts = np.array([[0.0], [2.0], [5.0]])
    m = PointMetric(pts, "manhattan")
    assert m.n == 3 and m.tree is not None
    assert m.pairs([0, 1], [2, 2]).tolist() == [5.0, 3.0]
    assert PointMetric(pts, "hamming").tree is None


def test_nearest_and_ball_agree_between_the_tree_and_rows():
    pts = np.random.default_rng(3).random((50, 2))
    tree = RGatherInstance(pts, r=1).distances
    rows = RGatherInstance(tree.dense(), r=1, metric="precomputed").distances
    a, da = tree.nearest(7, 6)
    b, db = rows.nearest(7, 6)
    assert a.tolist() == b.tolist() and a[0] == 7 and np.allclose(da, db)
    a, da = tree.ball(7, 0.2)
    b, db = rows.ball(7, 0.2)
    assert sorted(a.tolist()) == sorted(b.tolist()) and 7 in a.tolist()
    assert np.all(da <= 0.2) and np.array_equal(np.sort(a), np.flatnonzero(rows.row(7) <= 0.2))
