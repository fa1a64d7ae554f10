"""Exact minimum-weight [1,2]-factors and 2-factors against brute force on tiny graphs."""

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import Hierarchy, KAnonymityInstance, Table
from anonratio.solvers.kanonymity.min_weight_factor import (
    Factor,
    _solve_factor,
    factor_components,
    factor_lower_bound,
    group_costs,
    min_weight_factor,
    record_distances,
)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


# ---------------------------------------------------------------------------------------------
# brute force
# ---------------------------------------------------------------------------------------------
@lru_cache
def _subgraphs(n):
    """Every edge subset of K_n with maximum degree <= 2: (bits (S, E), degrees (S, n))."""
    iu, ju = np.triu_indices(n, 1)
    n_e = len(iu)
    inc = np.zeros((n_e, n), dtype=np.int64)
    inc[np.arange(n_e), iu] = 1
    inc[np.arange(n_e), ju] = 1
    keep_bits, keep_deg = [], []
    step = 1 << 16
    for lo in range(0, 1 << n_e, step):
        masks = np.arange(lo, min(lo + step, 1 << n_e), dtype=np.int64)
        bits = (masks[:, None] >> np.arange(n_e)) & 1
        deg = bits @ inc
        ok = deg.max(axis=1, initial=0) <= 2
        keep_bits.append(bits[ok])
        keep_deg.append(deg[ok])
    return np.concatenate(keep_bits), np.concatenate(keep_deg)


def brute_force_factor(cost, lower, upper):
    """Minimum weight of a [lower, upper]-factor (upper <= 2), or None when none exists."""
    n = cost.shape[0]
    bits, deg = _subgraphs(n)
    iu, ju = np.triu_indices(n, 1)
    c = cost[iu, ju]
    ok = np.all((deg >= lower) & (deg <= upper), axis=1)
    missing = ~np.isfinite(c)
    if missing.any():
        ok &= ~bits[:, missing].any(axis=1)
    if not ok.any():
        return None
    weights = bits[ok][:, ~missing] @ c[~missing]
    return float(weights.min())


def check_factor(f, cost, lower, upper):
    n = cost.shape[0]
    assert f.edges.shape[1] == 2
    assert np.all(f.edges[:, 0] < f.edges[:, 1])
    assert len({tuple(e) for e in f.edges.tolist()}) == len(f.edges)  # a simple graph
    deg = np.bincount(f.edges.ravel(), minlength=n)
    assert np.all((deg >= lower) & (deg <= upper))
    assert f.weight == pytest.approx(cost[f.edges[:, 0], f.edges[:, 1]].sum())
    assert np.all(np.isfinite(cost[f.edges[:, 0], f.edges[:, 1]]))


@st.composite
def cost_matrices(draw, min_n=1, max_n=7, kind=None, missing=False):
    n = draw(st.integers(min_n, max_n))
    kind = kind or draw(st.sampled_from(["int", "real"]))
    n_e = n * (n - 1) // 2
    if kind == "int":  # small integers: many ties, zero weights like identical records
        vals = draw(st.lists(st.integers(0, 4), min_size=n_e, max_size=n_e))
    else:  # arbitrary reals, negative ones included: not a metric
        vals = draw(
            st.lists(
                st.floats(-3, 3, allow_nan=False, allow_subnormal=False),
                min_size=n_e,
                max_size=n_e,
            )
        )
    vals = np.array(vals, dtype=float)
    if missing:
        drop = draw(st.lists(st.booleans(), min_size=n_e, max_size=n_e))
        vals[np.array(drop, dtype=bool)] = np.inf
    cost = np.zeros((n, n))
    iu, ju = np.triu_indices(n, 1)
    cost[iu, ju] = vals
    cost[ju, iu] = vals
    return cost


# ---------------------------------------------------------------------------------------------
# the factor ILP
# ---------------------------------------------------------------------------------------------
@SETTINGS
@given(cost=cost_matrices(min_n=2), seed=st.integers(0, 2**16))
def test_one_two_factor_is_minimum(cost, seed):
    f = min_weight_factor(cost, lower=1, upper=2, seed=seed)
    assert f.status == "optimal"
    check_factor(f, cost, 1, 2)
    assert f.weight == pytest.approx(brute_force_factor(cost, 1, 2), abs=1e-7)
    assert f.bound <= f.weight + 1e-9


@SETTINGS
@given(cost=cost_matrices(min_n=3), seed=st.integers(0, 2**16))
def test_two_factor_is_minimum(cost, seed):
    f = min_weight_factor(cost, lower=2, upper=2, seed=seed)
    assert f.status == "optimal"
    check_factor(f, cost, 2, 2)
    assert f.weight == pytest.approx(brute_force_factor(cost, 2, 2), abs=1e-7)
    assert all(cyc and len(v) >= 3 for v, cyc in factor_components(len(cost), f.edges))


@SETTINGS
@given(
    cost=cost_matrices(min_n=1, max_n=6, missing=True),
    bounds=st.sampled_from([(0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]),
)
def test_sparse_graphs_and_other_degree_bounds(cost, bounds):
    lower, upper = bounds
    f = min_weight_factor(cost, lower=lower, upper=upper, seed=0)
    expect = brute_force_factor(cost, lower, upper)
    if expect is None:
        assert f.status == "infeasible" and f.edges is None and f.weight is None
    else:
        assert f.status == "optimal"
        check_factor(f, cost, lower, upper)
        assert f.weight == pytest.approx(expect, abs=1e-7)


@SETTINGS
@given(
    cost=cost_matrices(min_n=2, missing=True),
    bounds=st.sampled_from([(1, 2), (2, 2)]),
)
def test_priced_scheme_is_minimum(cost, bounds):
    """Candidate edges + Lagrangian pricing (used on large graphs) forced on tiny ones."""
    lower, upper = bounds
    f = _solve_factor(cost, lower, upper, None, 0, direct_edges=0)
    expect = brute_force_factor(cost, lower, upper)
    if expect is None:
        assert f.status == "infeasible" and f.edges is None
    else:
        assert f.status == "optimal"
        check_factor(f, cost, lower, upper)
        assert f.weight == pytest.approx(expect, abs=1e-7)


@pytest.mark.parametrize("kind", ["hamming", "duplicates", "real", "normal"])
@pytest.mark.parametrize("bounds", [(1, 2), (2, 2)])
def test_priced_scheme_matches_one_model(kind, bounds):
    rng = np.random.default_rng(len(kind))
    for n in (20, 45, 70):
        if kind in ("hamming", "duplicates"):
            x = rng.integers(0, 2, size=(n, 9 if kind == "hamming" else 3))
            cost = (x[:, None, :] != x[None, :, :]).sum(axis=2).astype(float)
        else:
            cost = rng.random((n, n)) if kind == "real" else rng.normal(size=(n, n))
            cost = cost + cost.T
        one = _solve_factor(cost, *bounds, None, 1, direct_edges=10**9)
        priced = _solve_factor(cost, *bounds, None, 1, direct_edges=0)
        assert one.status == priced.status == "optimal"
        check_factor(priced, cost, *bounds)
        assert priced.weight == pytest.approx(one.weight, abs=1e-7)
        assert priced.bound == pytest.approx(priced.weight, abs=1e-6)


def test_two_factor_needs_three_vertices():
    f = min_weight_factor(np.zeros((2, 2)), lower=2, upper=2)
    assert f.status == "infeasible" and f.edges is None and not f.optimal


def test_ties_are_optimal_for_every_seed():
    cost = np.zeros((7, 7))  # every factor has weight 0
    for seed in range(3):
        f = min_weight_factor(cost, lower=1, upper=2, seed=seed)
        assert f.status == "optimal" and f.weight == 0.0 and f.bound == 0.0
        check_factor(f, cost, 1, 2)


def test_time_limit_is_reported_honestly():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, size=(220, 12))
    cost = (x[:, None, :] != x[None, :, :]).sum(axis=2).astype(float)
    f = min_weight_factor(cost, lower=2, upper=2, time_limit=1e-3, seed=0)
    assert isinstance(f, Factor)
    assert f.status in ("optimal", "time_limit")
    if f.status == "time_limit":
        assert not f.optimal
        if f.edges is not None:
            check_factor(f, cost, 2, 2)
            assert f.bound <= f.weight + 1e-9
    else:
        assert f.bound == pytest.approx(f.weight)


def test_highs_statuses_go_through_the_shared_mapping(monkeypatch):
    """The factor ILP reads HiGHS statuses through anonratio.exact.run, like the exact models."""
    from anonratio.exact import run
    from anonratio.solvers.kanonymity import factor_ilp

    cost = np.array([[0, 1, 4, 4], [1, 0, 4, 4], [4, 4, 0, 1], [4, 4, 1, 0]], dtype=float)
    seen = []

    def spy(h):
        claims = run.highs_claims(h)
        seen.append(claims)
        return claims

    monkeypatch.setattr(factor_ilp, "highs_claims", spy)
    assert min_weight_factor(cost, seed=0).status == "optimal"
    assert seen and seen[0]["proven_optimal"] and seen[0]["has_solution"]

    # a limit: the bound still decides, and here it proves the incumbent optimal
    def limit(h):
        return {**run.highs_claims(h), "proven_optimal": False, "hit_limit": True}

    monkeypatch.setattr(factor_ilp, "highs_claims", limit)
    f = min_weight_factor(cost, seed=0)
    assert (f.status, f.weight, f.bound) == ("optimal", 2.0, 2.0)

    # a failure is never a factor
    def failed(h):
        return {**run.highs_claims(h), "proven_optimal": False, "failed": True}

    monkeypatch.setattr(factor_ilp, "highs_claims", failed)
    with pytest.raises(RuntimeError, match=r"HiGHS stopped with status 'Optimal'.*'error'"):
        min_weight_factor(cost, seed=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"cost": np.zeros((2, 3))}, "`cost` must be a square matrix"),
        ({"cost": np.array([[0, 1], [2, 0]])}, "`cost` must be symmetric"),
        ({"cost": np.array([[0, np.nan], [np.nan, 0]])}, r"`cost` must hold real numbers or \+inf"),
        ({"cost": np.array([[0, -np.inf], [-np.inf, 0]])}, r"`cost` must hold real numbers"),
        ({"cost": np.zeros((3, 3)), "lower": -1}, "`lower` must be a non-negative integer"),
        ({"cost": np.zeros((3, 3)), "upper": 1.5}, "`upper` must be a non-negative integer"),
        ({"cost": np.zeros((3, 3)), "lower": 2, "upper": 1}, "0 <= lower <= upper"),
        (
            {"cost": np.zeros((3, 3)), "time_limit": 0},
            "`time_limit` must be a positive finite number of seconds or None, got 0",
        ),
        (
            {"cost": np.zeros((3, 3)), "time_limit": "1"},
            "`time_limit` must be a positive finite number of seconds or None, got '1'",
        ),
    ],
)
def test_min_weight_factor_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        min_weight_factor(**kwargs)


# ---------------------------------------------------------------------------------------------
# components and costs
# ---------------------------------------------------------------------------------------------
def test_factor_components_walk_order():
    # path 4-0-2, cycle 1-3-6-5-1, isolated 7
    edges = np.array([[0, 4], [0, 2], [1, 3], [3, 6], [5, 6], [1, 5]])
    comps = factor_components(8, edges)
    shapes = sorted((len(v), c) for v, c in comps)
    assert shapes == [(1, False), (3, False), (4, True)]
    adjacent = {frozenset(e) for e in edges.tolist()}
    for verts, cycle in comps:
        pairs = list(zip(verts[:-1], verts[1:], strict=True))
        if cycle:
            pairs.append((verts[-1], verts[0]))
        assert all(frozenset((int(a), int(b))) in adjacent for a, b in pairs)
    assert sorted(np.concatenate([v for v, _ in comps]).tolist()) == list(range(8))
    with pytest.raises(ValueError, match="maximum degree 2"):
        factor_components(4, np.array([[0, 1], [0, 2], [0, 3]]))


def _table(codes, alphabet, hierarchies=None, weights=None):
    m = codes.shape[1]
    values = tuple(tuple(str(v) for v in range(alphabet)) for _ in range(m))
    return Table(codes, tuple(f"q{j}" for j in range(m)), values, hierarchies, weights)


def test_record_distances_and_group_costs_with_duplicates():
    codes = np.array([[0, 1, 2], [0, 1, 2], [1, 1, 0], [0, 0, 2]])
    inst = KAnonymityInstance(_table(codes, 3, weights=[1.0, 2.0, 0.5]), 2)
    d = record_distances(inst)
    assert d.shape == (4, 4)
    assert d[0, 1] == 0.0 and d[0, 2] == 1.5 and d[0, 3] == 2.0 and d[2, 3] == 3.5
    np.testing.assert_array_equal(d, d.T)
    costs = group_costs(inst, np.array([[0, 1, 2], [0, 1, 3]]))
    np.testing.assert_allclose(costs, [3 * 1.5, 3 * 2.0])


def test_group_costs_with_hierarchy():
    groups = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]])
    h = Hierarchy(groups, (("0", "1", "2", "3"), ("a", "b"), ("*",)))
    codes = np.array([[0], [1], [2], [3]])
    inst = KAnonymityInstance(_table(codes, 4, (h,)), 2, model="generalization")
    np.testing.assert_allclose(group_costs(inst, np.array([[0, 1], [1, 2], [2, 2]])), [1, 2, 0])


# ---------------------------------------------------------------------------------------------
# lower bounds: only where the paper proves them
# ---------------------------------------------------------------------------------------------
def test_factor_lower_bound_cases():
    binary = _table(np.array([[0, 0], [0, 1], [1, 1], [1, 0], [1, 1]]), 2)
    ternary = _table(np.array([[0, 2], [0, 1], [1, 1], [2, 0], [1, 1]]), 3)
    v, src = factor_lower_bound(KAnonymityInstance(binary, 2), seed=1)
    assert v == 2 * 2.0 and "Lemma 9" in src  # min [1,2]-factor: 2 edges of weight 1
    v, src = factor_lower_bound(KAnonymityInstance(ternary, 2), seed=1)
    assert v == 1.5 * 3.0 and "any alphabet" in src  # 0-weight pair, weight 1 and 2 edges
    v, src = factor_lower_bound(KAnonymityInstance(binary, 3), seed=1)
    assert v == 1.5 * 4.0 and "Lemma 10" in src  # min 2-factor: 5-cycle 00-01-11-11-10
    assert factor_lower_bound(KAnonymityInstance(ternary, 3)) is None
    assert factor_lower_bound(KAnonymityInstance(binary, 2, row_deletion=True)) is None
    assert factor_lower_bound(KAnonymityInstance(binary, 4)) is None
    groups = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0]])
    h = Hierarchy(groups, (("0", "1", "2"), ("a", "b"), ("*",)))
    hier = _table(np.array([[0, 0], [1, 1], [2, 2], [0, 1]]), 3, (h, None))
    assert factor_lower_bound(KAnonymityInstance(hier, 2, model="generalization")) is None
    with pytest.raises(TypeError, match="`instance` must be a KAnonymityInstance"):
        factor_lower_bound(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="`seed` must be None, a non-negative integer"):
        factor_lower_bound(KAnonymityInstance(binary, 2), seed=-1)
