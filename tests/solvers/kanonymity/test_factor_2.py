"""2-anonymity by a minimum-weight [1,2]-factor (Aggarwal et al. 2005, §5)."""

import numpy as np
import pytest
from bruteforce import kanonymity_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

import anonratio.solvers.kanonymity.factor_2 as module
from anonratio.instances import (
    Hierarchy,
    KAnonymityInstance,
    Table,
    UnsupportedInstanceError,
    verify,
)
from anonratio.solvers import k_anonymize
from anonratio.solvers.kanonymity.factor_2 import (
    factor_lower_bound,
    one_two_factor,
    one_two_factor_guarantee,
)
from anonratio.solvers.kanonymity.min_weight_factor import Factor, _solve_factor, record_distances

TIME_LIMIT_RULE = r"`time_limit` must be a positive finite number of seconds or None, "
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
TOL = 1e-9


# ---------------------------------------------------------------------------------------------
# helpers: tables and a brute-force optimum written independently of the package
# ---------------------------------------------------------------------------------------------
def make_table(codes, alphabet, hierarchies=None, weights=None):
    codes = np.asarray(codes)
    m = codes.shape[1]
    values = tuple(tuple(str(v) for v in range(alphabet)) for _ in range(m))
    return Table(codes, tuple(f"q{j}" for j in range(m)), values, hierarchies, weights)


@st.composite
def tables(draw, alphabet, k=2, max_n=9, weighted=False):
    n = draw(st.integers(k, max_n))
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
    assert np.all((sizes >= 2) & (sizes <= 3))
    assert sol.algorithm == "factor-2" and sol.status == "feasible"
    assert sum(z * c for z, c in sol.info["group_sizes"].items()) == inst.n
    # Lemma 8 holds on every table: cost <= 3 x the factor weight
    assert sol.objective <= 3 * sol.info["factor_weight"] + TOL
    return ver.cost


# ---------------------------------------------------------------------------------------------
# guarantees against the brute-force optimum
# ---------------------------------------------------------------------------------------------
@SETTINGS
@given(data=tables(2, weighted=True), seed=st.integers(0, 1000))
def test_binary_ratio_one_and_a_half(data, seed):
    codes, weights = data
    inst = KAnonymityInstance(make_table(codes, 2, weights=weights), 2)
    sol = one_two_factor(inst, seed=seed)
    cost = check_solution(inst, sol)
    opt = kanonymity_optimum(inst)
    assert one_two_factor_guarantee(inst) == 1.5 == sol.info["guarantee"]
    assert cost <= 1.5 * opt + TOL
    # Lemma 9: OPT >= 2 c_OFAC
    assert sol.lower_bound == pytest.approx(2 * sol.info["factor_weight"])
    assert sol.lower_bound <= opt + TOL
    assert "Lemma 9" in sol.info["lower_bound_source"]


@SETTINGS
@given(data=tables(3), seed=st.integers(0, 1000))
def test_ternary_suppression_ratio_two(data, seed):
    codes, _ = data
    inst = KAnonymityInstance(make_table(codes, 3), 2)
    sol = one_two_factor(inst, seed=seed)
    cost = check_solution(inst, sol)
    opt = kanonymity_optimum(inst)
    assert one_two_factor_guarantee(inst) == (1.5 if inst.is_binary() else 2.0)
    assert cost <= one_two_factor_guarantee(inst) * opt + TOL
    assert sol.lower_bound <= opt + TOL
    assert sol.lower_bound >= 1.5 * sol.info["factor_weight"] - TOL


HIER = Hierarchy(
    np.array([[0, 0, 0, 0], [1, 0, 0, 0], [2, 1, 0, 0], [3, 2, 1, 0]]),
    (("0", "1", "2", "3"), ("a", "b", "c"), ("x", "y"), ("*",)),
)


@SETTINGS
@given(data=tables(4, max_n=8), seed=st.integers(0, 1000))
def test_hierarchies_feasible_without_guarantee(data, seed):
    codes, _ = data
    m = codes.shape[1]
    inst = KAnonymityInstance(make_table(codes, 4, (HIER,) * m), 2, model="generalization")
    sol = one_two_factor(inst, seed=seed)
    cost = check_solution(inst, sol)
    assert one_two_factor_guarantee(inst) is None and sol.info["guarantee"] is None
    assert sol.lower_bound is None and sol.info["lower_bound_source"] is None
    # not claimed as a guarantee; the §5 argument extends to hierarchies (ultrametric levels)
    assert cost <= 2 * kanonymity_optimum(inst) + TOL


# ---------------------------------------------------------------------------------------------
# component shapes
# ---------------------------------------------------------------------------------------------
def test_duplicates_give_zero_cost_and_small_groups():
    codes = np.array([[0, 1]] * 7 + [[1, 1]] * 2 + [[1, 0]])
    inst = KAnonymityInstance(make_table(codes, 2), 2)
    sol = one_two_factor(inst, seed=0)
    check_solution(inst, sol)
    assert sol.info["factor_weight"] == 1.0  # [1,0] must attach to a copy of [1,1]
    assert sol.objective == 3.0  # {[1,1], [1,1], [1,0]} stars one column; the rest pair up
    assert sol.info["n_unique"] == 3


@pytest.mark.parametrize("cycle", [False, True])
@pytest.mark.parametrize("length", [4, 5, 6, 7, 8, 11])
def test_split_long_components_into_runs(length, cycle):
    rng = np.random.default_rng(length)
    inst = KAnonymityInstance(make_table(rng.integers(0, 2, (length, 6)), 2), 2)
    verts = rng.permutation(length)
    groups = module._split(inst, verts, cycle)
    assert sorted(np.concatenate(groups).tolist()) == list(range(length))
    assert all(len(g) in (2, 3) for g in groups)
    pos = {int(v): i for i, v in enumerate(verts)}
    for g in groups:  # runs of consecutive vertices of the path / cycle
        steps = {(pos[int(b)] - pos[int(a)]) % length for a, b in zip(g[:-1], g[1:], strict=True)}
        assert steps == {1}
        if not cycle:
            assert pos[int(g[-1])] > pos[int(g[0])]


def test_non_optimal_factor_is_split_and_flagged(monkeypatch):
    """A factor cut short by the time limit: long components still split, no guarantee."""
    codes = np.array([[0, 0], [0, 1], [1, 1], [1, 0], [0, 0], [1, 1], [0, 1]])
    inst = KAnonymityInstance(make_table(codes, 2), 2)
    path = np.column_stack([np.arange(6), np.arange(1, 7)])  # a Hamiltonian path

    def fake(cost, lower, upper, time_limit, seed):
        w = float(cost[path[:, 0], path[:, 1]].sum())
        return Factor(7, lower, upper, path, w, 1.0, "time_limit", 0.0)

    monkeypatch.setattr(module, "_solve_factor", fake)
    sol = one_two_factor(inst, seed=0, time_limit=1.0)
    assert sol.status == "time_limit" and sol.info["guarantee"] is None
    assert sol.info["components"] == {"path-7": 1}
    assert verify(inst, sol).feasible
    assert sol.lower_bound == 2.0  # 2 x HiGHS' dual bound: still a valid bound

    monkeypatch.setattr(
        module, "_solve_factor", lambda *a: Factor(7, 1, 2, None, None, 0.5, "time_limit", 0.0)
    )
    sol = one_two_factor(inst, seed=0, time_limit=1.0)
    assert sol.labels is None and sol.objective is None and sol.status == "time_limit"
    assert sol.lower_bound == 1.0


def test_larger_table_uses_the_priced_factor():
    """n = 90 > 64: candidate edges + pricing; same factor weight as the one-model ILP."""
    codes = np.random.default_rng(7).integers(0, 2, (90, 12))
    inst = KAnonymityInstance(make_table(codes, 2), 2)
    sol = one_two_factor(inst, seed=3)
    check_solution(inst, sol)
    one_model = _solve_factor(record_distances(inst), 1, 2, None, 0, direct_edges=10**9)
    assert sol.info["factor_weight"] == one_model.weight
    assert sol.lower_bound <= sol.objective


# ---------------------------------------------------------------------------------------------
# API
# ---------------------------------------------------------------------------------------------
def test_row_deletion_runs_without_guarantee():
    codes = np.array([[0, 0], [0, 1], [1, 1], [1, 0], [1, 1]])
    inst = KAnonymityInstance(make_table(codes, 2), 2, row_deletion=True)
    sol = one_two_factor(inst, seed=0)
    check_solution(inst, sol)
    assert np.all(sol.labels >= 0)
    assert one_two_factor_guarantee(inst) is None and sol.lower_bound is None


def test_dispatch_seed_and_params():
    codes = np.array([[0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 0, 0]])
    inst = KAnonymityInstance(make_table(codes, 2), 2)
    a = k_anonymize(inst, method="factor-2", seed=5)
    b = one_two_factor(inst, seed=5)
    assert a.seed == 5 and a.params == inst.params
    np.testing.assert_array_equal(a.labels, b.labels)
    assert one_two_factor(inst, seed=np.random.default_rng(1)).seed is None
    assert factor_lower_bound(inst)[0] == a.lower_bound
    assert a.time_s >= 0 and a.info["factor_status"] == "optimal"
    assert record_distances(inst)[0, 2] == 3.0


def test_validation():
    codes = np.array([[0, 0], [0, 1], [1, 1]])
    with pytest.raises(UnsupportedInstanceError, match="`k` must be 2 for factor-2, got 3"):
        one_two_factor(KAnonymityInstance(make_table(codes, 2), 3))
    inst = KAnonymityInstance(make_table(codes, 2), 2)
    with pytest.raises(TypeError, match="`instance` must be a KAnonymityInstance, got Table"):
        one_two_factor(inst.table)
    with pytest.raises(ValueError, match=TIME_LIMIT_RULE + "got -1"):
        one_two_factor(inst, time_limit=-1)
    with pytest.raises(ValueError, match="`seed` must be None, a non-negative integer"):
        one_two_factor(inst, seed=1.5)
    assert one_two_factor_guarantee(KAnonymityInstance(make_table(codes, 2), 3)) is None
