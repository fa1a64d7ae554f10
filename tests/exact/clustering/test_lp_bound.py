"""Tests of exact/clustering/lp_bound.py: the pricing is exact (brute force over the subsets of
every ball), the Lagrangian bound is valid at any prices (hence at any stop), and the converged
bound lies between the verifier's bound and the optimum (brute force), above the primal-dual's
dual for cellular clustering."""

from itertools import combinations

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist, squareform

from anonratio.exact.clustering.candidates import cellular_data
from anonratio.exact.clustering.lp_bound import (
    MAX_POINTS,
    ClusterPricer,
    lagrangian,
    lp_bound,
)
from anonratio.instances.clustering import CellularInstance, RCellularInstance, RGatherInstance
from anonratio.instances.clustering.verify import clustering_lower_bound
from anonratio.solvers.clustering.primal_dual import primal_dual

TOL = 1e-7


@st.composite
def cellular_instances(draw, max_n=8):
    """A tiny cellular or r-cellular instance: rounded coordinates (ties, duplicates)."""
    n = draw(st.integers(2, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    metric = draw(st.sampled_from(["euclidean", "manhattan", "precomputed"]))
    pts = rng.random((n, 2)).round(draw(st.sampled_from([1, 3])))
    if metric == "manhattan":
        pts = rng.integers(0, 4, size=(n, 2)).astype(float)
    if metric == "precomputed":
        pts = squareform(pdist(pts))
    f = rng.random(n).round(1) * 2 if draw(st.booleans()) else np.zeros(n)
    if draw(st.booleans()):
        return CellularInstance(pts, f, metric=metric)
    return RCellularInstance(pts, draw(st.integers(1, min(3, n))), f, metric=metric)


def _pricer(inst):
    d = inst.distances.dense()
    r = max(getattr(inst, "r", 1), 1)
    return ClusterPricer(d, np.asarray(inst.facility, float), r, np.inf), d, r


@settings(max_examples=30, deadline=None, derandomize=True)
@given(cellular_instances(max_n=7), st.integers(0, 2**16))
def test_pricing_is_the_least_reduced_cost_over_every_ball(inst, seed):
    pricer, d, r = _pricer(inst)
    alpha = np.random.default_rng(seed).random(inst.n) * 2 - 0.3
    g = pricer.reduced_costs(alpha)
    f = inst.facility
    for v in range(inst.n):
        for radius in np.unique(d[v]):
            ball = np.flatnonzero(d[v] <= radius)
            k = ball.size - 1
            if ball.size < r:
                assert not pricer.valid[v, k]
                continue
            brute = min(
                f[v] + sum(radius - alpha[i] for i in s)
                for size in range(r, ball.size + 1)
                for s in combinations(ball, size)
            )
            assert g[v, k] == pytest.approx(brute, abs=1e-9)
            members, cost = pricer.configuration(v, k, alpha)
            assert members.size >= r and np.all(d[v, members] <= radius)
            assert cost - alpha[members].sum() == pytest.approx(brute, abs=1e-9)
    assert np.all(np.isinf(g[~pricer.valid]))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(cellular_instances(), st.integers(0, 2**16))
def test_the_lagrangian_bound_is_valid_at_any_prices(inst, seed):
    """Any prices (those of a master stopped at any time) give a bound <= OPT."""
    pricer, _, r = _pricer(inst)
    opt = clustering_optimum(inst)
    rng = np.random.default_rng(seed)
    k_max = inst.n // r
    for scale in (0.1, 1.0, 5.0):
        alpha = rng.random(inst.n) * scale * opt / inst.n * 3
        g = pricer.reduced_costs(alpha)
        assert lagrangian(alpha, g, k_max, pricer.margin(alpha, k_max)) <= opt + TOL


def _cheap(inst):
    if inst.metric == "precomputed" and inst.triangle_violation() is not None:
        return float(inst.facility.min())
    return clustering_lower_bound(inst)[0]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(cellular_instances())
def test_between_the_verifiers_bound_and_the_optimum(inst):
    opt = clustering_optimum(inst)
    b = lp_bound(inst, time_limit=10, seed=1)
    assert b.solved and b.lagrangian is not None
    assert _cheap(inst) - TOL <= b.value <= opt + TOL
    assert b.value == max(b.cheap, b.lagrangian)
    assert b.source == ("lp-lagrangian" if b.lagrangian > b.cheap else b.cheap_source)
    # the cap of n // r clusters may lift the bound above the LP (n = 3, r = 2: one cluster)
    assert b.lagrangian >= b.lp_value - 1e-6 * max(1.0, b.lp_value)
    assert b.n == inst.n and b.n_clusters > 0 and b.iterations >= 1


@settings(max_examples=20, deadline=None, derandomize=True)
@given(cellular_instances())
def test_at_least_the_primal_duals_dual(inst):
    if not isinstance(inst, CellularInstance):
        inst = CellularInstance(inst.points, inst.facility, metric=inst.metric)
    b = lp_bound(inst, time_limit=10)
    assert b.value >= primal_dual(inst).lower_bound - 1e-6


def test_an_upper_bound_prunes_without_passing_the_optimum():
    pts = np.random.default_rng(2).random((9, 2)) / 10
    pts[6:] += 10  # two far groups: the clusters spanning both cost more than the optimum
    inst = RCellularInstance(pts, 3, np.full(9, 0.2))
    opt = clustering_optimum(inst)
    full, pruned = lp_bound(inst, time_limit=10), lp_bound(inst, upper_bound=opt, time_limit=10)
    assert pruned.n_clusters < full.n_clusters
    assert full.value - TOL <= pruned.value <= opt + TOL


def test_stopped_before_the_first_round_it_keeps_the_cheap_bound():
    pts = np.random.default_rng(0).random((30, 2))
    inst = RCellularInstance(pts, 3, None)
    b = lp_bound(inst, time_limit=0)
    assert not b.solved and b.iterations == 0
    assert (b.value, b.source) == clustering_lower_bound(inst)


def test_far_stronger_than_the_verifiers_bound_for_r_cellular():
    pts = np.random.default_rng(5).random((40, 2))
    inst = RCellularInstance(pts, 4, None)
    b = lp_bound(inst, time_limit=20)
    assert b.solved and b.source == "lp-lagrangian"
    assert b.value > 1.3 * clustering_lower_bound(inst)[0]


def test_refusals_name_the_problem():
    pts = np.random.default_rng(0).random((6, 2))
    with pytest.raises(ValueError, match="RGatherInstance"):
        lp_bound(RGatherInstance(pts, 2))
    with pytest.raises(ValueError, match="time_limit"):
        lp_bound(CellularInstance(pts, None), time_limit=-1)
    big = CellularInstance(np.zeros((MAX_POINTS + 1, 1)), None)
    with pytest.raises(ValueError, match=f"at most {MAX_POINTS}"):
        lp_bound(big)


@pytest.mark.parametrize("time_limit", [0.001, 0.003, 0.01, 0.03])
def test_valid_when_stopped_early(time_limit):
    pts = np.random.default_rng(4).random((10, 2))
    for inst in (RCellularInstance(pts, 2, np.full(10, 0.1)), CellularInstance(pts, None)):
        opt = clustering_optimum(inst)
        b = lp_bound(inst, time_limit=time_limit)
        assert b.value <= opt + TOL
        assert b.lagrangian <= opt + TOL


@settings(max_examples=15, deadline=None, derandomize=True)
@given(cellular_instances(), st.sampled_from([None, 0.5, 2.0]))
def test_the_clusters_are_those_of_the_exact_models(inst, share):
    """Same clusters (v, d) and pruning as candidates.cellular_data."""
    upper = None if share is None else share * clustering_optimum(inst) + 0.1
    data = cellular_data(inst, upper_bound=upper)
    b = lp_bound(inst, upper_bound=upper, time_limit=5)
    assert b.n_clusters == data.info["n_clusters"]
