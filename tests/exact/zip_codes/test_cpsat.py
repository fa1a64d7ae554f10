"""Tests of exact/planar_cpsat.py: agreement with brute force, planted optima, statuses, errors."""

import networkx as nx
import numpy as np
import pytest
from bruteforce import planar_optimum as brute_force_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.zip_codes.cpsat import solve_cpsat, tree_hint
from anonratio.instances import Solution, verify
from anonratio.instances.zip_codes.generators import (
    delaunay_graph,
    grid_instance,
    planted_planar_instance,
)
from anonratio.instances.zip_codes.instance import ZipCodesInstance


@st.composite
def tiny_planar(draw):
    n = draw(st.integers(2, 7))
    seed = draw(st.integers(0, 10_000))
    if n == 2:
        g = nx.path_graph(2)
    else:
        g = delaunay_graph(np.random.default_rng(seed).random((n, 2)))
    w = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))  # zeros: cycle cuts matter
    if sum(w) == 0:
        w[0] = 1
    k = draw(st.integers(1, sum(w)))
    return ZipCodesInstance(g, w, k)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(tiny_planar(), st.sampled_from(["flow", "depth", "canonical"]))
def test_agrees_with_brute_force(inst, connectivity):
    sol = solve_cpsat(inst, time_limit=20, connectivity=connectivity)
    assert sol.status == "optimal"
    assert verify(inst, sol).cost == sol.objective == sol.lower_bound == brute_force_opt(inst)
    assert sol.gap == 0.0 and sol.algorithm == "zip-cpsat"


def test_zero_weight_nodes_are_assigned():
    # a cycle of zero-weight nodes hanging off the weighted ones: the cycle cut must act
    g = nx.cycle_graph(6)
    g.add_edge(0, 3)
    inst = ZipCodesInstance(g, [3, 0, 0, 3, 0, 0], 3)
    for connectivity in ("flow", "depth", "canonical"):
        sol = solve_cpsat(inst, time_limit=20, connectivity=connectivity)
        assert sol.status == "optimal" and verify(inst, sol).cost == 3.0


@pytest.mark.parametrize("seed", range(3))
def test_planted_instances_reach_k(seed):
    inst, planted = planted_planar_instance(14, 4, 5, seed=seed)
    sol = solve_cpsat(inst, time_limit=30)
    assert sol.status == "optimal" and verify(inst, sol).cost == 5.0 == sol.lower_bound


def test_hint_upper_bound_and_infeasible():
    inst = grid_instance(3, 3, 7, weights="uniform", max_weight=5, seed=1)
    opt = solve_cpsat(inst, time_limit=30)
    assert opt.status == "optimal"
    hint = Solution(labels=np.zeros(inst.n, dtype=np.int64), algorithm="one-part")
    hinted = solve_cpsat(inst, time_limit=30, hint=hint, upper_bound=opt.objective)
    assert hinted.status == "optimal" and hinted.objective == opt.objective
    assert hinted.info["hint_cost"] == inst.total_weight
    assert hinted.params["hint"] is True and hinted.params["upper_bound"] == opt.objective
    below = solve_cpsat(inst, time_limit=30, upper_bound=opt.objective - 1)
    assert below.status == "infeasible" and below.labels is None and below.lower_bound is None
    assert "upper_bound" in below.info["reason"]


def test_tree_hint_is_canonical():
    inst = grid_instance(2, 3, 2, weights="unit")
    labels = np.array([0, 0, 0, 1, 1, 1])
    parent, lab, sub_w, sub_n, depth = tree_hint(inst, labels)
    assert parent.tolist() == [-1, 0, 1, -1, 3, 4] and lab.tolist() == [0, 0, 0, 3, 3, 3]
    assert sub_w.tolist() == [3, 2, 1, 3, 2, 1] and depth.tolist() == [0, 1, 2, 0, 1, 2]


def test_time_limit_reports_bound():
    rng = np.random.default_rng(0)
    g = delaunay_graph(rng.random((30, 2)))
    inst = ZipCodesInstance(g, rng.integers(1, 7, size=30), 15)
    sol = solve_cpsat(inst, time_limit=0.05)
    assert sol.status in ("time_limit", "optimal")
    if sol.labels is not None:
        assert verify(inst, sol).cost == sol.objective
    assert sol.lower_bound is None or sol.lower_bound >= 15


def test_errors():
    inst = grid_instance(2, 2, 2, weights="unit")
    with pytest.raises(TypeError, match="`instance` must be a ZipCodesInstance"):
        solve_cpsat([1, 2])
    with pytest.raises(ValueError, match="`connectivity` must be one of"):
        solve_cpsat(inst, connectivity="mtz")
    with pytest.raises(ValueError, match="`time_limit` must be a positive"):
        solve_cpsat(inst, time_limit=0)
    with pytest.raises(ValueError, match="`threads` must be an integer >= 1"):
        solve_cpsat(inst, threads=0)
    with pytest.raises(ValueError, match="`upper_bound` must be a number >= 0"):
        solve_cpsat(inst, upper_bound=-1)
    with pytest.raises(ValueError, match="`hint` must be a feasible solution"):
        solve_cpsat(inst, hint=np.array([0, 1, 2, 3]))
    with pytest.raises(ValueError, match="`hint` must be a Solution with labels"):
        solve_cpsat(inst, hint=Solution(labels=None, algorithm="x", status="error"))
