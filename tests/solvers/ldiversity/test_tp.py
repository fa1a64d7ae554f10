"""Tests of solvers/ldiversity/tp.py: TP's phases (Xiao, Yi and Tao 2010, §5) against the exact
optima of tiny tables."""

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optima, make, tables
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import lower_bound, verify
from anonratio.instances.ldiversity.instance import phase_one_residue, qi_groups
from anonratio.solvers.ldiversity import ldiversify
from anonratio.solvers.ldiversity.tp import (
    tp,
    tp_bound,
    tp_guarantee,
)


def check_tp(inst, sol, opt):
    v = verify(inst, sol)  # strict: every group l-eligible
    assert v.cost == sol.objective
    assert v.stars == sol.info["stars"] and v.suppressed_tuples == sol.info["suppressed_tuples"]
    info, l = sol.info, inst.l
    # TP's partition: kept QI-groups (no stars) and R (the residue) as one group
    assert v.suppressed_tuples <= info["residue"] == sum(info["moved"])
    if info["phase"] == 1:  # Corollary 5.9
        assert v.suppressed_tuples == opt["tuples"] or info["residue"] == opt["tuples"]
        assert info["residue"] == opt["tuples"]
    if info["phase"] <= 2:  # Lemma 5.12 / Corollary 5.13
        assert info["residue"] <= opt["tuples"] + l - 1
    g = tp_guarantee(inst, sol)
    assert g == pytest.approx(info["guarantee"])
    assert v.cost <= g * opt[inst.objective] + 1e-9
    assert g <= tp_bound(inst, info) + 1e-12
    assert sol.lower_bound <= opt[inst.objective]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(tables())
def test_tp_against_optimum(inst):
    sol = tp(inst, seed=3)
    assert sol.algorithm == "tp" and sol.seed == 3
    check_tp(inst, sol, ldiversity_optima(inst))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(tables(max_n=12))
def test_phase_one_matches_reference_residue_and_bound(inst):
    sol = tp(inst)
    assert sol.info["moved"][0] == int(phase_one_residue(inst).sum())
    assert sol.lower_bound == lower_bound(inst)[0]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(1, 4).flatmap(
        lambda h: st.tuples(
            st.permutations([0] * h + [1] * h),
            st.lists(st.integers(0, 2), min_size=4 * h, max_size=4 * h),
            st.sampled_from(["stars", "tuples"]),
        )
    )
)
def test_two_sensitive_values_end_by_phase_two(args):
    s, codes, objective = args
    inst = make(codes, list(s), 2, objective, card=3)
    sol = tp(inst)
    assert sol.info["phase"] <= 2  # Theorem 5.16
    check_tp(inst, sol, ldiversity_optima(inst))


def test_phase_three_example():
    # Q1 = {1,3,4}, Q2 = {2,3,5} thin; {1}, {2} go to R in phase 1: R = {1,2} has two pillars
    # and every QI-group conflicts with it, so phase 2 cannot move anything (§5.4)
    inst = make([0, 0, 0, 1, 1, 1, 2, 3], [1, 3, 4, 2, 3, 5, 1, 2], 3, "tuples")
    sol = tp(inst)
    assert sol.info["phase"] == 3 and sol.info["rounds"] == 1 and sol.info["moved"][1] == 0
    assert not sol.info["fallback"]
    check_tp(inst, sol, ldiversity_optima(inst))


def test_phase_three_sweep():
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(6000):
        n = int(rng.integers(6, 11))
        l = int(rng.integers(3, 5))
        m = int(rng.integers(l, l + 3))
        qi = rng.integers(0, int(rng.integers(2, 5)), size=n)
        s = rng.integers(0, m, size=n)
        if l * np.bincount(s).max() > n:
            continue
        for objective in ("stars", "tuples"):
            inst = make(qi, s.tolist(), l, objective)
            sol = tp(inst)
            if sol.info["phase"] == 3:
                seen += 1
                check_tp(inst, sol, ldiversity_optima(inst))
    assert seen >= 10


def test_phase_one_ending_is_optimal_and_keeps_groups():
    # QI-groups {a: x,y}, {b: x,y}, {c: x}, {d: y}: c and d go to R, which is 2-eligible
    inst = make([0, 0, 1, 1, 2, 3], [0, 1, 0, 1, 0, 1], 2, "tuples")
    sol = tp(inst)
    assert sol.info["phase"] == 1 and sol.objective == 2 == sol.lower_bound
    assert sol.info["guarantee"] == 1.0
    labels = sol.labels
    assert labels[0] == labels[1] != labels[2] == labels[3] != labels[4] == labels[5]


def test_nothing_suppressed():
    inst = make([0, 0, 1, 1], [0, 1, 0, 1], 2)
    sol = ldiversify(inst, method="tp")
    assert sol.objective == 0 and sol.info["residue"] == 0 and sol.info["guarantee"] == 1.0
    verify(inst, sol)


def test_qi_groups_are_the_groups_of_equal_rows():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(200, 4))
    g = qi_groups(codes)
    _, ref = np.unique(codes, axis=0, return_inverse=True)
    pairs = np.unique(g * 1000 + ref.reshape(-1))
    assert pairs.size == np.unique(g).size == np.unique(ref).size  # the same partition
    big = np.array([[0, 2**40], [1, 0], [0, 2**40]]) * np.array([1, 2**22])  # no packing
    assert qi_groups(big).tolist() == [0, 1, 0]


def test_rejects_non_instance():
    with pytest.raises(TypeError):
        tp([[0, 1]])


def test_guarantee_without_solution_is_tps():
    inst = make([0, 0, 0, 1, 1, 1, 2, 3], [1, 3, 4, 2, 3, 5, 1, 2], 3)
    assert tp_guarantee(inst) == tp(inst).info["guarantee"] <= 3 * (3 - 1) * (1 + 1 / 3)
