"""Tests of instances/clustering/gadgets.py: random 3-SAT formulas and the r-gather gadget of
Aggarwal et al. (PODS 2006, §2.1), with radius-1 feasibility checked by an independent CP-SAT
model."""

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from anonratio.instances import Solution, lower_bound, verify
from anonratio.instances.clustering import RGatherInstance
from anonratio.instances.clustering.gadgets import Formula, random_formula, sat_gadget


def brute_force_sat(formula):
    """Satisfiability by itertools, independent of Formula's vectorized enumeration."""
    return any(formula.evaluate(x) for x in product([False, True], repeat=formula.n_vars))


def radius_one_feasible(instance):
    """Whether an r-gather clustering of radius <= 1 exists: CP-SAT on x[i, c] (point i served
    by center c, only when d(i, c) <= 1) and y[c] (c opened, serving >= r points)."""
    d = instance.distances.dense()
    n, r = instance.n, instance.r
    model = cp_model.CpModel()
    y = [model.new_bool_var(f"y{c}") for c in range(n)]
    x = {}
    for i, c in zip(*np.nonzero(d <= 1.0), strict=True):
        x[int(i), int(c)] = model.new_bool_var(f"x{i}_{c}")
        model.add_implication(x[int(i), int(c)], y[int(c)])
    for i in range(n):
        model.add_exactly_one(v for (a, _), v in x.items() if a == i)
    for c in range(n):
        model.add(sum(v for (_, b), v in x.items() if b == c) >= r * y[c])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE)
    if status == cp_model.INFEASIBLE:
        return None
    labels = np.full(n, -1)
    opened = [c for c in range(n) if solver.value(y[c])]
    for (i, c), v in x.items():
        if solver.value(v):
            labels[i] = opened.index(c)
    return labels, opened


# ---------------------------------------------------------------------------------------------
# formulas
# ---------------------------------------------------------------------------------------------
def check_shape(formula, n_vars, n_clauses):
    assert formula.n_vars == n_vars and len(formula.clauses) == n_clauses
    for c in formula.clauses:
        assert 2 <= len(c) <= 3
        assert len({abs(t) for t in c}) == len(c)  # distinct variables
        assert all(1 <= abs(t) <= n_vars for t in c)
    occ = formula.occurrences()
    assert occ.max() <= 3
    counted = np.bincount([abs(t) - 1 for c in formula.clauses for t in c], minlength=n_vars)
    assert np.array_equal(occ, counted)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(st.integers(2, 9), st.integers(1, 13), st.integers(0, 10**6))
def test_satisfiable_formulas(n_vars, n_clauses, seed):
    n_clauses = min(n_clauses, 3 * n_vars // 2)
    f = random_formula(n_vars, n_clauses, seed=seed)
    check_shape(f, n_vars, n_clauses)
    assert f.satisfiable() and brute_force_sat(f)
    assert f.evaluate(f.satisfying_assignment())


@settings(derandomize=True, deadline=None, max_examples=25)
@given(st.integers(4, 10), st.integers(5, 14), st.integers(0, 10**6))
def test_unsatisfiable_formulas(n_vars, n_clauses, seed):
    pad = n_vars - 4
    n_clauses = 5 if pad < 2 else min(n_clauses, 5 + 3 * pad // 2)
    f = random_formula(n_vars, n_clauses, satisfiable=False, seed=seed)
    check_shape(f, n_vars, n_clauses)
    assert not f.satisfiable() and not brute_force_sat(f)
    assert f.satisfying_assignment() is None


@settings(derandomize=True, deadline=None, max_examples=25)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.lists(
                    st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])),
                    min_size=1,
                    max_size=3,
                ),
                max_size=12,
            ),
        )
    )
)
def test_satisfiable_matches_brute_force_on_any_formula(case):
    n, clauses = case
    f = Formula(n, tuple(tuple(c) for c in clauses))
    assert f.satisfiable() == brute_force_sat(f)


def test_formula_determinism_and_validation():
    assert random_formula(6, 8, seed=3) == random_formula(6, 8, seed=3)
    assert random_formula(9, 12, seed=3) != random_formula(9, 12, seed=4)
    with pytest.raises(ValueError, match=r"`clauses\[1\]` has literal 4; literals are \+v or -v"):
        Formula(3, ((1, 2), (4,)))
    with pytest.raises(ValueError, match=r"`clauses\[0\]` has literal 0"):
        Formula(3, ((0, 1),))
    with pytest.raises(ValueError, match=r"`clauses\[0\]` is empty"):
        Formula(3, ((),))
    with pytest.raises(ValueError, match=r"`n_vars` must be an integer >= 1"):
        Formula(0, ())
    with pytest.raises(ValueError, match=r"brute force needs n_vars <= 20, got n_vars = 21"):
        Formula(21, ((1, 2),)).satisfiable()
    with pytest.raises(ValueError, match=r"`assignment` must have n_vars = 3 entries"):
        Formula(3, ((1, 2),)).evaluate([True])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_vars": 1, "n_clauses": 1}, r"`n_vars` must be an integer >= 2, got 1"),
        ({"n_vars": 4, "n_clauses": 0}, r"`n_clauses` must be an integer >= 1, got 0"),
        ({"n_vars": 4, "n_clauses": 7}, r"`n_clauses` must be at most 3 n_vars / 2 = 6"),
        ({"n_vars": 3, "n_clauses": 5, "satisfiable": False}, r"`n_vars` must be an integer >= 4"),
        ({"n_vars": 6, "n_clauses": 4, "satisfiable": False}, r"`n_clauses` must be .*>= 5"),
        ({"n_vars": 5, "n_clauses": 6, "satisfiable": False}, r"1 padding clauses for 1 free"),
        ({"n_vars": 6, "n_clauses": 9, "satisfiable": False}, r"4 padding clauses for 2 free"),
        ({"n_vars": 6, "n_clauses": 5, "seed": -3}, r"`seed` must be None"),
    ],
)
def test_random_formula_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        random_formula(**kwargs)


# ---------------------------------------------------------------------------------------------
# the gadget
# ---------------------------------------------------------------------------------------------
def test_gadget_structure():
    f = Formula(3, ((1, -2), (2, 3, -1)))
    inst, meta = sat_gadget(f, r=8)
    assert isinstance(inst, RGatherInstance) and inst.metric == "precomputed" and inst.r == 8
    assert inst.n == 3 * 8 + 2
    d = inst.distances.dense()
    t, fa, s, u = (meta[k] for k in ("true_nodes", "false_nodes", "s_nodes", "clause_nodes"))
    assert len(s) == 3 and all(len(x) == 6 for x in s) and u == [24, 25]
    adjacent = d == 1
    assert all(adjacent[t[i], fa[i]] for i in range(3))
    assert all(adjacent[t[i], s[i]].all() and adjacent[fa[i], s[i]].all() for i in range(3))
    assert not adjacent[np.ix_(s[0], s[0])].any()  # S_i is independent
    # u_0 = (x1 | ~x2): adjacent to v_1^T and v_2^F only
    assert np.flatnonzero(adjacent[u[0]]).tolist() == sorted([t[0], fa[1]])
    assert np.flatnonzero(adjacent[u[1]]).tolist() == sorted([t[1], t[2], fa[0]])
    assert int(adjacent.sum()) == 2 * (3 * (1 + 2 * 6) + 5)
    assert inst.check_triangle() is inst
    assert np.array_equal(d, np.rint(d)) and meta["far_distance"] == d.max()
    with pytest.raises(ValueError, match=r"`r` must be an integer >= 7, got 6"):
        sat_gadget(f, r=6)
    with pytest.raises(TypeError, match=r"`formula` must be a Formula, got tuple"):
        sat_gadget(((1, 2),))


def test_disconnected_components_get_distance_at_least_two():
    # x3 occurs nowhere: its own component; S_1 and S_2 are joined by s1-T1-u-T2-s2 (4 edges)
    inst, meta = sat_gadget(Formula(3, ((1, 2),)), r=7)
    d = inst.distances.dense()
    assert d[meta["s_nodes"][0][0], meta["s_nodes"][1][0]] == 4.0
    assert d[meta["true_nodes"][0], meta["true_nodes"][2]] == meta["far_distance"] == 4.0
    assert inst.check_triangle() is inst
    single, meta1 = sat_gadget(Formula(1, ((1,),)), r=7)
    assert meta1["far_distance"] == 2.0 and single.distances.dense().max() == 2.0


def check_witness(inst, meta):
    sol = Solution(meta["witness_labels"], "witness", info={"centers": meta["witness_centers"]})
    check = verify(inst, sol)
    assert check.cost == 1.0 == meta["optimum"] and check.min_cluster_size >= inst.r
    chosen = set(meta["witness_centers"])
    assert all(
        (t in chosen) != (f in chosen)
        for t, f in zip(meta["true_nodes"], meta["false_nodes"], strict=True)
    )
    assert lower_bound(inst)[0] <= 1.0


@pytest.mark.parametrize("seed", range(4))
def test_satisfiable_gadget_has_radius_one(seed):
    f = random_formula(5, 7, seed=seed)
    inst, meta = sat_gadget(f, r=7)
    assert meta["satisfiable"] and meta["lower_bound"] == 1.0
    assert f.evaluate(meta["assignment"])
    check_witness(inst, meta)
    found = radius_one_feasible(inst)  # the CP-SAT model agrees, and its clustering verifies
    assert found is not None
    labels, centers = found
    sol = Solution(labels, "cp-sat", info={"centers": centers})
    assert verify(inst, sol).cost == 1.0


@pytest.mark.parametrize(
    ("n_vars", "n_clauses", "seed"), [(4, 5, 0), (5, 5, 1), (6, 6, 2), (6, 8, 3)]
)
def test_unsatisfiable_gadget_has_no_radius_one_clustering(n_vars, n_clauses, seed):
    f = random_formula(n_vars, n_clauses, satisfiable=False, seed=seed)
    inst, meta = sat_gadget(f, r=7)
    assert not meta["satisfiable"] and meta["lower_bound"] == 2.0
    assert "optimum" not in meta and "witness_labels" not in meta
    assert radius_one_feasible(inst) is None
    # every radius above 1 is at least 2: all distances are integers
    d = inst.distances.dense()
    assert not np.any((d > 1) & (d < 2))


def test_gadget_roles_partition_the_nodes():
    f = random_formula(6, 8, seed=5)
    inst, meta = sat_gadget(f, r=9)
    nodes = (
        meta["true_nodes"] + meta["false_nodes"] + sum(meta["s_nodes"], []) + meta["clause_nodes"]
    )
    assert sorted(nodes) == list(range(inst.n))
    assert meta["clauses"] == [list(c) for c in f.clauses] and meta["r"] == 9
