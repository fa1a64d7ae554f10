"""Tests of exact/clustering/candidates.py: the model data (radii, pairs, clusters, hints)."""

from time import perf_counter

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist, squareform

from anonratio.exact.clustering import solve_cpsat, solve_highs
from anonratio.exact.clustering.candidates import (
    cellular_data,
    gather_data,
    groups,
    hint_clusters,
    solve_iv,
)
from anonratio.exact.options import run_deadline
from anonratio.instances import InfeasibleInstanceError, Solution, verify
from anonratio.instances.clustering import (
    CellularInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from anonratio.instances.clustering.instance import ClusteringInstance
from anonratio.solvers.clustering.r_eps_gather import r_eps_gather


@st.composite
def points(draw, max_n=8):
    n = draw(st.integers(3, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return rng.integers(0, 5, size=(n, 2)).astype(float) / draw(st.sampled_from([1, 4, 7]))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(points(), st.integers(1, 3))
def test_gather_data_brackets_the_optimum(pts, r):
    inst = RGatherInstance(pts, min(r, len(pts)))
    data = gather_data(inst)
    d = inst.distances.block(np.arange(inst.n))
    opt = clustering_optimum(inst)
    assert np.all(np.diff(data.cand) > 0) and np.isin(data.cand, d).all()
    # the pairs are exactly those within the upper bound at a potential center
    ub = data.info["upper_bound_used"]
    assert np.all(d[data.pi, data.pv] <= ub) and np.all(data.cand[data.pt] == d[data.pi, data.pv])
    assert data.cand[data.t_lb] <= opt <= ub and opt in data.cand
    assert data.infeasible is None


@settings(max_examples=15, deadline=None, derandomize=True)
@given(points(), st.integers(1, 3), st.booleans())
def test_cellular_clusters_are_tight_and_big_enough(pts, r, costs):
    n = len(pts)
    f = np.linspace(0.5, 2.0, n) if costs else None
    inst = RCellularInstance(pts, min(r, n), f)
    data = cellular_data(inst)
    d = inst.distances.block(np.arange(n))
    # each radius is a distance from its center; each pair a potential member
    assert all(np.isin(x, d[v]) for v, x in zip(data.cv, data.crad, strict=True))
    assert np.all(d[data.cv[data.pc], data.pi] <= data.crad[data.pc])
    sizes = np.diff(data.start)
    members = np.array([(d[v] <= x).sum() for v, x in zip(data.cv, data.crad, strict=True)])
    assert np.array_equal(sizes, members) and np.all(sizes >= inst.r)
    assert np.all(np.diff(data.pc) >= 0)  # pairs grouped by cluster
    assert data.info["n_clusters"] <= n * n
    assert data.info["upper_bound_used"] >= clustering_optimum(inst) - 1e-12


def test_objective_scaling():
    grid = CellularInstance([[0, 0], [1, 2], [3, 1]], [0.5, 0.25, 1.0], metric="manhattan")
    assert cellular_data(grid).scale == 100.0
    rng = np.random.default_rng(0)
    rand = CellularInstance(rng.random((4, 2)), rng.random(4))
    data = cellular_data(rand)
    assert data.scale is None and data.info["objective_scaling"] == "float"
    assert data.unscale(3.5) == 3.5 and cellular_data(grid).unscale(350.0) == 3.5


def test_hint_maps_onto_the_model():
    pts = np.random.default_rng(1).random((8, 2))
    inst = RCellularInstance(pts, 2, np.full(8, 0.2))
    labels = np.repeat(np.arange(4), 2)
    hint = hint_clusters(inst, labels)
    data = cellular_data(inst, hint=hint)
    assert np.array_equal(data.pi[data.hint_pair], np.arange(8))
    dec_labels, dec_centers = data.decode(data.hint_pair, 8)
    # the same clusters with the same centers (cluster ids in the model's order)
    assert np.array_equal(dec_centers[dec_labels], hint[1][labels])
    assert len(np.unique(dec_labels)) == 4
    gather = REpsGatherInstance(pts, 2, 0.25)
    out = np.array([0, 0, 1, 1, 2, 2, -1, -1])
    gdata = gather_data(gather, hint=hint_clusters(gather, out))
    assert np.array_equal(gdata.hint_pair < 0, out < 0)
    dec = gdata.decode(gdata.hint_pair[out >= 0], 8)[0]
    same = dec[:, None] == dec[None, :]
    assert np.array_equal(same, out[:, None] == out[None, :]) and np.all((dec < 0) == (out < 0))


def test_upper_bound_prunes_to_infeasible():
    inst = RGatherInstance(np.arange(6.0), 3)
    assert gather_data(inst, upper_bound=0.5).infeasible
    assert cellular_data(CellularInstance(np.arange(4.0), [1.0] * 4), upper_bound=0.5).infeasible


def test_groups_and_validation():
    parts = groups(np.array([2, 0, 2, 1]), 4)
    assert [p.tolist() for p in parts] == [[1], [3], [0, 2], []]
    with pytest.raises(TypeError, match="`instance`"):
        solve_iv("points", 1, 0, 1, None, None)
    with pytest.raises(ValueError, match="hint"):
        hint_clusters(RGatherInstance(np.arange(4.0), 2), Solution(None, "x"))


def _unchecked_r_eps(pts, r, eps):
    """The (r, eps)-gather instance with ``r`` set past the constructor's checks (for the
    brute force, which decides feasibility by itself)."""
    inst = REpsGatherInstance(pts, 1, eps)
    object.__setattr__(inst, "r", r)
    return inst


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.integers(1, 7),
    st.integers(0, 2**16),
    st.sampled_from([0.0, 0.15, 0.3, 0.5, 0.75, 0.9]),
    st.integers(0, 2),
)
def test_r_eps_gather_accepts_exactly_the_feasible_instances(n, seed, eps, below):
    # r close to n (r = n + 1 - below): one cluster of all n points is always a solution, so
    # feasibility is r <= n whatever floor(eps n) is (Aggarwal et al. 2006, §2.3)
    r = max(1, n + 1 - below)
    pts = np.random.default_rng(seed).integers(0, 4, size=(n, 2)) / 3.0
    optimum = clustering_optimum(_unchecked_r_eps(pts, r, eps))
    if r > n:
        assert optimum == np.inf
        with pytest.raises(InfeasibleInstanceError, match=rf"`r` = {r} exceeds"):
            REpsGatherInstance(pts, r, eps)
        return
    assert optimum < np.inf
    inst = REpsGatherInstance(pts, r, eps)
    data = gather_data(inst)
    assert data.infeasible is None and data.info["upper_bound_used"] >= optimum
    for solve in (solve_cpsat, solve_highs):
        sol = solve(inst, time_limit=20)
        assert sol.status == "optimal", sol.info
        assert sol.objective == pytest.approx(optimum, abs=1e-12)
        assert verify(inst, sol).feasible
    approx = r_eps_gather(inst, seed=seed)
    cost = verify(inst, approx).cost  # strict
    assert optimum - 1e-12 <= cost <= 4 * optimum + 1e-12  # Theorem 2.3
    assert approx.lower_bound <= optimum + 1e-12


def test_r_eps_gather_with_r_above_the_points_that_must_be_clustered():
    # 4 points, r = 4, eps = 0.3: one point may stay out, but 3 < r points cannot form a
    # cluster, so the only solutions cluster all four
    pts = [[0.0], [1.0], [2.0], [10.0]]
    inst = REpsGatherInstance(pts, 4, 0.3)
    assert inst.max_outliers == 1
    data = gather_data(inst)
    assert data.info["upper_bound_used"] == pytest.approx(8.0)  # center 2.0, all four points
    for solve in (solve_cpsat, solve_highs):
        sol = solve(inst, time_limit=10)
        assert sol.status == "optimal" and sol.objective == pytest.approx(8.0)
        assert np.all(np.asarray(sol.labels) == 0)
    approx = r_eps_gather(inst, seed=0)
    assert verify(inst, approx).n_unclustered == 0 and approx.objective <= 4 * 8.0


@pytest.mark.parametrize("problem", ["r-gather", "r-cellular"])
def test_deadline_solution_of_a_precomputed_matrix_skips_the_triangle_check(problem, monkeypatch):
    d = squareform(pdist(np.random.default_rng(3).random((8, 2))))
    if problem == "r-gather":
        inst = RGatherInstance(d, 2, metric="precomputed")
    else:
        inst = RCellularInstance(d, 2, np.full(8, 0.25), metric="precomputed")

    def cubic(self, **kwargs):
        raise AssertionError("the O(n^3) triangle check ran after the deadline")

    monkeypatch.setattr(ClusteringInstance, "triangle_violation", cubic)
    hint = np.zeros(8, dtype=np.int64)
    with run_deadline(perf_counter() - 1):
        sol = solve_cpsat(inst, time_limit=10, hint=hint)
    assert sol.status == "time_limit" and np.array_equal(sol.labels, hint)
    assert sol.lower_bound == (None if problem == "r-gather" else 0.25)
