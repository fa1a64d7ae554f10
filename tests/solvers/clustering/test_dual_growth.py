"""Tests of solvers/clustering/dual_growth.py: Procedure 1 (Aggarwal et al., PODS 2006, §3) as an
event simulation — dual feasibility, Lemmas 3.1-3.2, the neighbour lists and their growth."""

from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from anonratio.instances.clustering import CellularInstance
from anonratio.solvers.clustering import dual_growth as dg
from anonratio.solvers.clustering.dual_growth import grow_duals, growth_cap, neighbour_lists


@st.composite
def cases(draw, max_n=9):
    """A small instance (grids with ties and duplicates, floats, graph metrics; setup costs from
    0 to huge) and the augmentation ``(lam, min_members)``."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    kind = draw(st.sampled_from(["grid", "float", "graph"]))
    if kind == "grid":
        pts, metric = rng.integers(0, 3, size=(n, 2)).astype(float), "manhattan"
    elif kind == "float":
        pts, metric = rng.random((n, 2)), "euclidean"
    else:
        w = np.zeros((n, n))
        for v in range(1, n):
            w[v, rng.integers(v)] = rng.integers(1, 6)
        pts, metric = shortest_path(np.triu(w + w.T, 1), directed=False), "precomputed"
    scale = draw(st.sampled_from([0.0, 0.05, 1.0, 1e3]))
    f = rng.random(n) * scale if draw(st.booleans()) else np.full(n, scale)
    m = draw(st.integers(1, n))
    lam = draw(st.sampled_from([0.0, float(m)]))
    return CellularInstance(pts, f, metric=metric), lam, m


def dual_excess(inst, alpha, lam, m):
    """Largest ``sum_i (alpha_i - d)^+ - (f(v) + lam d)`` over the clusters with >= m members."""
    d = inst.distances.dense()
    worst = -np.inf
    for v in range(inst.n):
        for radius in np.unique(d[v]):
            members = d[v] <= radius
            if members.sum() >= m:
                paid = np.maximum(alpha[members] - radius, 0).sum()
                worst = max(worst, paid - inst.facility[v] - lam * radius)
    return worst


@settings(max_examples=40, deadline=None, derandomize=True)
@given(cases(), st.sampled_from([1, 16]))
def test_dual_feasible_and_lemmas(case, start):
    inst, lam, m = case
    with patch.object(dg, "START_NEIGHBOURS", start):  # 1: the lists grow during the run
        g = grow_duals(inst.distances, inst.facility, lam=lam, min_members=m)
    assert dual_excess(inst, g.alpha, lam, m) <= 1e-9  # a feasible dual: sum alpha <= LP
    assert np.all(g.labels >= 0) and np.all(g.labels < g.events)
    assert np.all(np.diff(g.times) >= 0) and g.events == g.centers.size
    assert np.all(g.alpha <= growth_cap(inst.distances, inst.facility, lam, m) + 1e-9)
    # every point froze at the opening time of its cluster (property 1)
    assert np.allclose(g.alpha, g.times[g.labels], rtol=0, atol=1e-12)
    # opened clusters exist in the instance and open no earlier than their radius
    d = inst.distances.dense()
    assert np.all((d[g.centers] <= g.radii[:, None]).sum(axis=1) >= m)
    assert np.all(g.times >= g.radii - 1e-12)
    # Lemma 3.1: every member is within 3 alpha of its center
    assert np.all(d[g.centers[g.labels], np.arange(inst.n)] <= 3 * g.alpha + 1e-9)
    # Lemma 3.2: the setup costs paid (of all opened clusters) sum to at most sum alpha
    assert (inst.facility[g.centers] + lam * g.radii).sum() <= g.dual + 1e-9


def test_growth_does_not_change_the_run():
    """Short starting lists that grow on demand give exactly the run with all radii listed."""
    rng = np.random.default_rng(3)
    grown = 0
    for trial in range(12):
        n = int(rng.integers(30, 200))
        m = int(rng.integers(1, 5))
        pts = rng.random((n, 2)) if trial % 2 else rng.integers(0, 6, (n, 2)).astype(float)
        inst = CellularInstance(pts, rng.random(n) * [0.02, 0.3, 3.0][trial % 3])
        runs = []
        for start in (1, 10**6):
            with patch.object(dg, "START_NEIGHBOURS", start):
                runs.append(
                    grow_duals(inst.distances, inst.facility, lam=trial % 2 * m, min_members=m)
                )
        a, b = runs
        grown += a.extensions
        assert np.array_equal(a.labels, b.labels) and np.array_equal(a.centers, b.centers)
        assert np.allclose(a.alpha, b.alpha, rtol=1e-12, atol=0)
    assert grown > 0


def test_neighbour_lists_match_the_dense_matrix():
    rng = np.random.default_rng(0)
    for metric, pts in [
        ("euclidean", rng.integers(0, 4, (40, 2)).astype(float)),  # ties and duplicates
        ("manhattan", rng.random((40, 3))),
        ("hamming", rng.integers(0, 2, (40, 4))),
    ]:
        inst = CellularInstance(pts, metric=metric)
        d = inst.distances.dense()
        cap = float(np.median(d))
        nl = neighbour_lists(inst.distances, cap)
        for v in range(inst.n):
            row = slice(nl.ptr[v], nl.ptr[v + 1])
            expect = np.lexsort((np.arange(inst.n), d[v]))
            expect = expect[d[v, expect] <= cap]
            assert nl.nbr[row].tolist() == expect.tolist()  # nearest first, ties by index
            assert np.array_equal(nl.dst[row], d[v, expect])
        assert np.all(np.diff(nl.key) >= 0)
        # row_position finds a distance inside any row
        rows = rng.integers(0, inst.n, 50)
        x = rng.random(50) * cap
        left = nl.row_position(rows, x, side="left")
        right = nl.row_position(rows, x, side="right")
        for q in range(50):
            s = nl.dst[nl.ptr[rows[q]] : nl.ptr[rows[q] + 1]]
            assert left[q] - nl.ptr[rows[q]] == np.searchsorted(s, x[q], "left")
            assert right[q] - nl.ptr[rows[q]] == np.searchsorted(s, x[q], "right")


def test_zero_setup_costs_open_singletons_at_time_zero():
    inst = CellularInstance([[0.0], [0.0], [1.0], [3.0]])  # a duplicate pair
    g = grow_duals(inst.distances, inst.facility)
    assert g.dual == 0 and np.all(g.times == 0) and np.all(g.radii == 0)
    assert g.labels[0] == g.labels[1] and len(set(g.labels.tolist())) == 3


def test_idle_support_opens_a_cluster_without_members():
    # (0, 0) opens at t = 1 and takes point 1 as idle (alpha 1): point 1's own cluster (1, 0)
    # is then paid in full by its idle edge and opens empty, as step 6 of Procedure 1 says
    inst = CellularInstance([[0.0], [1.0], [10.0], [11.0]], facility_costs=[1, 1, 1, 1])
    g = grow_duals(inst.distances, inst.facility)
    assert g.events == 3 and np.bincount(g.labels, minlength=3).tolist() == [2, 0, 2]
    assert g.dual == 4.0
