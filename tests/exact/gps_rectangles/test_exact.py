"""Tests of exact/gps_rectangles: CP-SAT and candidate ILP, checked with the guillotine DP."""

from functools import cache

import numpy as np
import pytest
from bruteforce import rectangle_optimum as brute_force_opt
from hypothesis import given, settings
from hypothesis import strategies as st

import anonratio.solvers.gps_rectangles.guillotine as guillotine_module
from anonratio.exact.gps_rectangles.cpsat import solve_cpsat
from anonratio.exact.gps_rectangles.ilp import solve_cbc, solve_highs
from anonratio.instances import Solution, lower_bound, verify
from anonratio.instances.gps_rectangles.generators import (
    cross_gadget,
    pinwheel_gadget,
    uniform_points,
)
from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance
from anonratio.solvers.gps_rectangles.guillotine import guillotine as solve_guillotine
from anonratio.solvers.gps_rectangles.kdtree_split import kdtree_split


def grid_of(inst):
    nx, ny = inst.grid_shape
    g = np.zeros((nx, ny), dtype=np.int64)
    g[inst.ix, inst.iy] = inst.weights
    return g


def brute_force_guillotine(inst):
    """Best guillotine partition by plain memoized recursion (independent of the DP)."""
    g = grid_of(inst)
    inf = float("inf")

    @cache
    def f(i0, i1, j0, j1):  # half-open cell ranges
        w = int(g[i0:i1, j0:j1].sum())
        best = w if w >= inst.k else inf
        for c in range(i0 + 1, i1):
            best = min(best, max(f(i0, c, j0, j1), f(c, i1, j0, j1)))
        for c in range(j0 + 1, j1):
            best = min(best, max(f(i0, i1, j0, c), f(i0, i1, c, j1)))
        return best

    return f(0, g.shape[0], 0, g.shape[1])


@st.composite
def tiny_instances(draw, max_n=5, span=4):
    pts = draw(
        st.lists(st.tuples(st.integers(0, span), st.integers(0, span)), min_size=1, max_size=max_n)
    )
    w = draw(st.lists(st.integers(0, 4), min_size=len(pts), max_size=len(pts)))
    if sum(w) == 0:
        w[0] = 1
    k = draw(st.integers(1, max(1, min(5, sum(w)))))
    return GpsRectanglesInstance(pts, w, k)


def checked(inst, sol):
    """Verified cost; an optimal run's bound equals its objective."""
    cost = verify(inst, sol).cost
    assert cost == sol.objective
    if sol.status == "optimal":
        assert sol.lower_bound == sol.objective and sol.gap == 0
    return cost


@settings(max_examples=30, deadline=None, derandomize=True)
@given(tiny_instances())
def test_exact_models_agree_with_brute_force(inst):
    opt = brute_force_opt(inst)
    cp = solve_cpsat(inst, time_limit=20)
    hi = solve_highs(inst, time_limit=20)
    assert cp.status == hi.status == "optimal"
    assert checked(inst, cp) == checked(inst, hi) == opt
    assert lower_bound(inst)[0] <= opt
    gu = solve_guillotine(inst, time_limit=20)
    g = checked(inst, gu)
    # the guillotine optimum: an upper bound on the optimum, below kd-tree splitting's cost
    assert g == brute_force_guillotine(inst)
    assert opt <= g <= kdtree_split(inst).objective
    assert gu.lower_bound <= opt and gu.info["guillotine_optimal"]
    if inst.total_weight < 5 * inst.k:  # at most 4 rectangles: every partition is guillotine
        assert g == opt and gu.status == "optimal"
    if gu.status == "optimal":
        assert g == opt


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=8), st.integers(1, 4))
def test_collinear_points_guillotine_is_optimal(w, k):
    """On a line every partition into intervals is guillotine."""
    w = [max(1, x) for x in w]
    if sum(w) < k:
        k = sum(w)
    inst = GpsRectanglesInstance([[i, 0] for i in range(len(w))], w, k)
    assert checked(inst, solve_guillotine(inst)) == checked(inst, solve_cpsat(inst, time_limit=20))


def test_cbc_agrees():
    inst = uniform_points(6, k=3, weight_max=2, seed=4)
    assert checked(inst, solve_cbc(inst, time_limit=20)) == checked(
        inst, solve_cpsat(inst, time_limit=20)
    )


@pytest.mark.parametrize("k", [2, 3, 4])
def test_gadgets(k):
    inst, meta = cross_gadget(k)
    for solve in (solve_cpsat, solve_highs, solve_guillotine):
        sol = solve(inst, time_limit=20)
        assert sol.status == "optimal" and checked(inst, sol) == meta["optimum"] == 5 * k - 4
    inst, meta = pinwheel_gadget(k)
    for solve in (solve_cpsat, solve_highs):
        sol = solve(inst, time_limit=20)
        assert sol.status == "optimal" and checked(inst, sol) == meta["optimum"] == k
    gu = solve_guillotine(inst)
    # the pinwheel is not guillotine: the DP can only reach 2k - 1, kd-tree splitting's cost
    assert checked(inst, gu) == 2 * k - 1 == meta["kdtree_cost"] and gu.status == "feasible"
    assert gu.lower_bound == k


def test_hint_is_used_and_checked():
    inst = uniform_points(8, k=3, seed=5)
    kd = kdtree_split(inst)
    for solve in (solve_cpsat, solve_highs):
        sol = solve(inst, time_limit=20, hint=kd)
        assert sol.status == "optimal" and sol.params["hint"] is True
        assert checked(inst, sol) <= kd.objective
        assert sol.info["upper_bound_used"] <= kd.objective
    bad = Solution(kd.labels, "x", info={"rectangles": kd.info["rectangles"][:1]})
    with pytest.raises(ValueError, match=r"`hint` must be a feasible solution"):
        solve_cpsat(inst, hint=bad)
    with pytest.raises(ValueError, match=r"`hint` must be a Solution with info\['rectangles'\]"):
        solve_highs(inst, hint=kd.labels)


def test_solution_fields():
    inst = uniform_points(7, k=2, seed=1)
    sol = solve_cpsat(inst, time_limit=20, seed=3, threads=1)
    assert sol.algorithm == "gps-cpsat" and sol.seed == 3
    assert sol.params == {"k": 2, "time_limit": 20.0, "threads": 1, "hint": False}
    assert sol.info["solver"] == "cp-sat" and sol.info["grid"] == list(inst.grid_shape)
    assert len(sol.info["cells"]) == len(sol.info["rectangles"]) == sol.labels.max() + 1
    gu = solve_guillotine(inst, time_limit=20)
    assert gu.algorithm == "gps-guillotine" and gu.seed is None and gu.time_s >= 0


def test_guillotine_limits(monkeypatch):
    inst = uniform_points(10, k=2, seed=0)
    sol = solve_guillotine(inst, time_limit=1e-9)
    assert sol.status == "time_limit" and sol.labels is None
    assert sol.lower_bound == lower_bound(inst)[0] and "time limit" in sol.info["reason"]
    monkeypatch.setattr(guillotine_module, "GUILLOTINE_MAX_CELLS", 10)
    sol = solve_guillotine(inst)
    assert sol.status == "memory_limit" and sol.labels is None
    assert "exceeds 10" in sol.info["reason"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"time_limit": 0}, r"`time_limit` must be a positive finite number"),
        ({"threads": 0}, r"`threads` must be an integer >= 1, got 0"),
        ({"seed": -1}, r"`seed` must be an integer in \[0, 2147483646\] or None, got -1"),
    ],
)
@pytest.mark.parametrize("solve", [solve_cpsat, solve_highs])
def test_option_validation(solve, kwargs, match):
    inst = uniform_points(4, k=2, seed=0)
    with pytest.raises(ValueError, match=match):
        solve(inst, **kwargs)


def test_instance_type_checked():
    for solve in (solve_cpsat, solve_highs, solve_guillotine):
        with pytest.raises(TypeError, match=r"`instance` must be a GpsRectanglesInstance"):
            solve([[0, 0]])
    with pytest.raises(ValueError, match=r"`time_limit` must be a positive finite number"):
        solve_guillotine(uniform_points(3, k=1, seed=0), time_limit=-1)
