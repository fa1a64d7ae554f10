"""3-anonymity by a minimum-weight 2-factor and Lemma 11's cycle decomposition (§6)."""

from itertools import permutations

import numpy as np
import pytest
from bruteforce import kanonymity_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

import anonratio.solvers.kanonymity.factor_3 as module
from anonratio.instances import (
    Hierarchy,
    KAnonymityInstance,
    Table,
    UnsupportedInstanceError,
    verify,
)
from anonratio.solvers import k_anonymize
from anonratio.solvers.kanonymity.factor_3 import (
    factor_lower_bound,
    two_factor,
    two_factor_guarantee,
)
from anonratio.solvers.kanonymity.min_weight_factor import Factor, _solve_factor, record_distances

TIME_LIMIT_RULE = r"`time_limit` must be a positive finite number of seconds or None, "
SETTINGS = settings(max_examples=35, deadline=None, derandomize=True)
TOL = 1e-9


# ---------------------------------------------------------------------------------------------
# helpers: tables and a brute-force optimum written independently of the package
# ---------------------------------------------------------------------------------------------
def make_table(codes, alphabet, hierarchies=None, weights=None):
    codes = np.asarray(codes)
    m = codes.shape[1]
    values = tuple(tuple(str(v) for v in range(alphabet)) for _ in range(m))
    return Table(codes, tuple(f"q{j}" for j in range(m)), values, hierarchies, weights)


def subset_cost(codes, members, weights=None, levels=None):
    """|g| * sum_j w_j L_j / l_j (suppression when ``levels`` is None)."""
    codes = np.asarray(codes)
    total = 0.0
    for j in range(codes.shape[1]):
        w = 1.0 if weights is None else weights[j]
        vals = codes[list(members), j]
        if levels is None:
            total += w * (len(set(vals.tolist())) > 1)
        else:
            ids = levels[j][vals]
            first = next(t for t in range(ids.shape[1]) if len(set(ids[:, t])) == 1)
            total += w * first / (ids.shape[1] - 1)
    return len(members) * total


@st.composite
def tables(draw, alphabet, max_n=9, weighted=False):
    n = draw(st.integers(3, max_n))
    m = draw(st.integers(1, 5))
    flat = draw(st.lists(st.integers(0, alphabet - 1), min_size=n * m, max_size=n * m))
    weights = None
    if weighted:
        weights = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=m, max_size=m))
    return np.array(flat).reshape(n, m), weights


def check_solution(inst, sol):
    ver = verify(inst, sol)
    assert ver.feasible and sol.objective == ver.cost  # its own claim, exactly
    sizes = np.bincount(sol.labels)
    sizes = sizes[sizes > 0]
    assert np.all((sizes >= 3) & (sizes <= 5))
    assert sol.algorithm == "factor-3" and sol.status == "feasible"
    assert sum(z * c for z, c in sol.info["cluster_sizes"].items()) == inst.n
    assert sum(z * c for z, c in sol.info["cycle_lengths"].items()) == inst.n
    assert min(sol.info["cycle_lengths"]) >= 3
    # Lemma 11 holds on every table: cost <= 3 x the 2-factor weight
    assert sol.objective <= 3 * sol.info["factor_weight"] + TOL
    return ver.cost


# ---------------------------------------------------------------------------------------------
# guarantees against the brute-force optimum
# ---------------------------------------------------------------------------------------------
@SETTINGS
@given(data=tables(2, weighted=True), seed=st.integers(0, 1000))
def test_binary_ratio_two(data, seed):
    codes, weights = data
    inst = KAnonymityInstance(make_table(codes, 2, weights=weights), 3)
    opt = kanonymity_optimum(inst)
    assert two_factor_guarantee(inst) == 2.0
    for select in ("cost", "edges"):
        sol = two_factor(inst, seed=seed, select=select)
        cost = check_solution(inst, sol)
        assert sol.info["guarantee"] == 2.0 and sol.info["select"] == select
        assert cost <= 2 * opt + TOL
        # Lemma 10: OPT >= 1.5 c_OFAC
        assert sol.lower_bound == pytest.approx(1.5 * sol.info["factor_weight"])
        assert sol.lower_bound <= opt + TOL
        assert "Lemma 10" in sol.info["lower_bound_source"]


HIER = Hierarchy(
    np.array([[0, 0, 0, 0], [1, 0, 0, 0], [2, 1, 0, 0], [3, 2, 1, 0]]),
    (("0", "1", "2", "3"), ("a", "b", "c"), ("x", "y"), ("*",)),
)


@SETTINGS
@given(data=tables(3), hier=st.booleans(), seed=st.integers(0, 1000))
def test_other_alphabets_feasible_without_guarantee(data, hier, seed):
    codes, _ = data
    m = codes.shape[1]
    if hier:
        inst = KAnonymityInstance(make_table(codes, 4, (HIER,) * m), 3, model="generalization")
    else:
        inst = KAnonymityInstance(make_table(codes, 3), 3)
    sol = two_factor(inst, seed=seed)
    check_solution(inst, sol)
    if not inst.is_binary():
        assert two_factor_guarantee(inst) is None and sol.info["guarantee"] is None
        assert sol.lower_bound is None and sol.info["lower_bound_source"] is None


def test_paper_tight_example():
    """§6: the 8-cycle 0000, 0001, ..., 1000 is the optimal 2-factor and ALG = 3 c_F."""
    rows = ["0000", "0001", "0011", "0111", "1111", "1110", "1100", "1000"]
    codes = np.array([[int(c) for c in r] for r in rows])
    inst = KAnonymityInstance(make_table(codes, 2), 3)
    for select in ("cost", "edges"):
        sol = two_factor(inst, seed=0, select=select)
        check_solution(inst, sol)
        assert sol.info["factor_weight"] == 8.0 and sol.info["cycle_lengths"] == {8: 1}
        assert sol.info["cluster_sizes"] == {4: 2}  # 8 = 3x + 2, x = 2: two 4-clusters
        assert sol.objective == 24.0 == 3 * sol.info["factor_weight"]  # Lemma 11 is tight
        arcs = [{(s + t) % 8 for t in range(4)} for s in range(8)]
        for g in range(2):  # each cluster: 4 consecutive vertices of the cycle
            assert set(np.flatnonzero(sol.labels == g).tolist()) in arcs
        assert sol.lower_bound == 12.0
    assert kanonymity_optimum(inst) == 24.0  # here ALG happens to be optimal


@pytest.mark.parametrize("n", [3, 4, 5])
def test_small_tables_are_one_cycle_cluster(n):
    codes = np.arange(n)[:, None] >> np.arange(3) & 1
    inst = KAnonymityInstance(make_table(codes, 2), 3)
    sol = two_factor(inst, seed=0)
    check_solution(inst, sol)
    assert np.all(sol.labels == sol.labels[0])


# ---------------------------------------------------------------------------------------------
# Lemma 11's decomposition of one long cycle, against enumeration
# ---------------------------------------------------------------------------------------------
def shape_of(length):
    x, r = divmod(length, 3)
    return [3] * x if r == 0 else [4] + [3] * (x - 1) if r == 1 else [4, 4] + [3] * (x - 2)


def all_decompositions(length):
    """Every decomposition of the length-L cycle with the Lemma 11 sizes: (start, size) lists."""
    out = set()
    for order in set(permutations(shape_of(length))):
        for rot in range(length):
            starts = rot + np.concatenate([[0], np.cumsum(order)[:-1]])
            out.add(frozenset((int(s) % length, z) for s, z in zip(starts, order, strict=True)))
    return out


@pytest.mark.parametrize("length", [6, 7, 8, 9, 10, 11, 13, 14])
def test_decomposition_minimizes_the_criterion(length):
    rng = np.random.default_rng(length)
    codes = rng.integers(0, 2, (length, 7))
    inst = KAnonymityInstance(make_table(codes, 2), 3)
    dist = record_distances(inst)
    verts = rng.permutation(length)
    edge = dist[verts, np.roll(verts, -1)]

    def inner(dec):  # weight of cycle edges inside the clusters
        return sum(edge[(s + t) % length] for s, z in dec for t in range(z - 1))

    def real(dec):
        return sum(subset_cost(codes, verts[(s + np.arange(z)) % length]) for s, z in dec)

    decs = all_decompositions(length)
    for select, key in (("edges", inner), ("cost", real)):
        groups = module._decompose_cycle(inst, dist, verts, select)
        assert sorted(len(g) for g in groups) == sorted(shape_of(length))
        assert sorted(np.concatenate(groups).tolist()) == list(range(length))
        pos = {int(v): i for i, v in enumerate(verts)}
        dec = frozenset((pos[int(g[0])], len(g)) for g in groups)
        assert dec in decs  # consecutive runs of the cycle, with the stated sizes
        assert key(dec) == pytest.approx(min(key(d) for d in decs))
        assert real(dec) <= 3 * edge.sum() + TOL


def test_non_optimal_factor_is_flagged(monkeypatch):
    codes = np.arange(7)[:, None] >> np.arange(3) & 1
    inst = KAnonymityInstance(make_table(codes, 2), 3)
    cycle = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [0, 6]])

    def fake(cost, lower, upper, time_limit, seed):
        w = float(cost[cycle[:, 0], cycle[:, 1]].sum())
        return Factor(7, lower, upper, cycle, w, 2.0, "time_limit", 0.0)

    monkeypatch.setattr(module, "_solve_factor", fake)
    sol = two_factor(inst, seed=0, time_limit=1.0)
    assert sol.status == "time_limit" and sol.info["guarantee"] is None
    assert sol.info["cycle_lengths"] == {7: 1} and sol.info["cluster_sizes"] == {3: 1, 4: 1}
    assert verify(inst, sol).feasible and sol.lower_bound == 3.0

    monkeypatch.setattr(
        module, "_solve_factor", lambda *a: Factor(7, 2, 2, None, None, -np.inf, "time_limit", 0)
    )
    sol = two_factor(inst, seed=0, time_limit=1.0)
    assert sol.labels is None and sol.lower_bound is None and sol.status == "time_limit"


def test_larger_table_uses_the_priced_factor():
    """n = 90 > 64: candidate edges + pricing; same factor weight as the one-model ILP."""
    codes = np.random.default_rng(7).integers(0, 2, (90, 12))
    inst = KAnonymityInstance(make_table(codes, 2), 3)
    sol = two_factor(inst, seed=3)
    check_solution(inst, sol)
    one_model = _solve_factor(record_distances(inst), 2, 2, None, 0, direct_edges=10**9)
    assert sol.info["factor_weight"] == one_model.weight
    assert sol.lower_bound <= sol.objective


# ---------------------------------------------------------------------------------------------
# API
# ---------------------------------------------------------------------------------------------
def test_dispatch_row_deletion_and_seed():
    codes = np.arange(6)[:, None] >> np.arange(3) & 1
    inst = KAnonymityInstance(make_table(codes, 2), 3)
    a = k_anonymize(inst, method="factor-3", seed=2)
    np.testing.assert_array_equal(a.labels, two_factor(inst, seed=2).labels)
    assert a.seed == 2 and a.params == inst.params
    assert factor_lower_bound(inst)[0] == a.lower_bound
    deleting = KAnonymityInstance(make_table(codes, 2), 3, row_deletion=True)
    sol = two_factor(deleting, seed=0)
    assert np.all(sol.labels >= 0) and verify(deleting, sol).feasible
    assert two_factor_guarantee(deleting) is None and sol.lower_bound is None


def test_validation():
    codes = np.arange(4)[:, None] >> np.arange(2) & 1
    with pytest.raises(UnsupportedInstanceError, match="`k` must be 3 for factor-3, got 2"):
        two_factor(KAnonymityInstance(make_table(codes, 2), 2))
    inst = KAnonymityInstance(make_table(codes, 2), 3)
    with pytest.raises(TypeError, match="`instance` must be a KAnonymityInstance, got ndarray"):
        two_factor(codes)
    rule = r"`select` must be one of \['cost', 'edges'\], got 'rotation'"
    with pytest.raises(ValueError, match=rule):
        two_factor(inst, select="rotation")
    with pytest.raises(ValueError, match=TIME_LIMIT_RULE + r"got 0\.0"):
        two_factor(inst, time_limit=0.0)
    with pytest.raises(ValueError, match="`seed` must be None, a non-negative integer"):
        two_factor(inst, seed="x")
    assert two_factor_guarantee(KAnonymityInstance(make_table(codes, 2), 2)) is None
