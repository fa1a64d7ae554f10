"""Tests of solvers/kdtree_split.py: Theorem 4 of Du et al. (2009) against the exact optimum."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.gps_rectangles.ilp import solve_highs
from anonratio.instances import lower_bound, verify
from anonratio.instances.gps_rectangles import GpsRectanglesInstance, rectangles_to_cells
from anonratio.instances.gps_rectangles.generators import (
    clustered_points,
    cross_gadget,
    pinwheel_gadget,
    uniform_points,
)
from anonratio.solvers.gps_rectangles.kdtree_split import (
    AXIS_RULES,
    kdtree_split,
    kdtree_split_bound,
    kdtree_split_guarantee,
)


@st.composite
def small_instances(draw, max_n=7, span=5):
    pts = draw(
        st.lists(st.tuples(st.integers(0, span), st.integers(0, span)), min_size=1, max_size=max_n)
    )
    w = draw(st.lists(st.integers(0, 5), min_size=len(pts), max_size=len(pts)))
    if sum(w) == 0:
        w[0] = 1
    k = draw(st.integers(1, max(1, min(6, sum(w)))))
    return GpsRectanglesInstance(pts, w, k)


def admits_cut(inst, members):
    """Whether the points ``members`` admit an axis cut with weight >= k on both sides."""
    w = inst.weights[members]
    for r in (inst.ix[members], inst.iy[members]):
        vals, inv = np.unique(r, return_inverse=True)
        prefix = np.cumsum(np.bincount(inv, weights=w))[:-1]
        if np.any((prefix >= inst.k) & (w.sum() - prefix >= inst.k)):
            return True
    return False


def check_structure(inst, sol):
    """Verified, within the proven bound, every leaf >= k and uncuttable."""
    check = verify(inst, sol)
    assert check.cost == sol.objective
    assert (
        check.cost
        <= kdtree_split_bound(inst)
        == min(inst.total_weight, 4 * (inst.k - 1) + inst.max_weight)
    )
    cells = np.asarray(sol.info["cells"])
    assert np.array_equal(rectangles_to_cells(inst, sol.info["rectangles"]), cells)
    for r in range(len(cells)):
        members = np.flatnonzero(sol.labels == r)
        assert inst.weights[members].sum() >= inst.k
        assert not admits_cut(inst, members)
    return check.cost


@settings(max_examples=40, deadline=None, derandomize=True)
@given(small_instances(), st.sampled_from(AXIS_RULES))
def test_theorem4_against_the_optimum(inst, axis):
    value = check_structure(inst, kdtree_split(inst, axis=axis))
    exact = solve_highs(inst, time_limit=30)
    assert exact.status == "optimal"
    opt = verify(inst, exact).cost
    assert lower_bound(inst)[0] <= opt <= value
    # Theorem 4: ratio 5 (strictly below it, in fact)
    assert value < 5 * opt
    assert value / opt <= kdtree_split_guarantee(inst) < 5


@pytest.mark.parametrize("k", [2, 3, 4, 7, 10])
def test_cross_gadget_reaches_the_worst_case(k):
    inst, meta = cross_gadget(k)
    sol = kdtree_split(inst)
    assert verify(inst, sol).cost == 5 * k - 4 == meta["kdtree_cost"] == kdtree_split_bound(inst)
    assert sol.info["n_rectangles"] == 1 and sol.info["depth"] == 0
    # against the lower bound max(k, max w) = k the ratio tends to 5
    assert sol.objective / max(k, inst.max_weight) == (5 * k - 4) / k
    assert kdtree_split_guarantee(inst) == (5 * k - 4) / lower_bound(inst)[0]


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_pinwheel_gadget(k):
    inst, meta = pinwheel_gadget(k)
    sol = kdtree_split(inst)
    assert verify(inst, sol).cost == 2 * k - 1 == meta["kdtree_cost"]
    assert meta["optimum"] == k


@pytest.mark.parametrize(
    "inst",
    [
        uniform_points(300, k=5, weight_max=3, seed=1),
        uniform_points(200, k=3, grid=6, seed=2),  # shared coordinates, merged duplicates
        clustered_points(250, k=4, n_clusters=3, spread=0.02, seed=3),
        GpsRectanglesInstance([[0, y] for y in range(20)], None, 3),  # one column
        GpsRectanglesInstance([[1, 1]], [4], 2),  # one point
    ],
    ids=["uniform", "grid", "clustered", "column", "single"],
)
@pytest.mark.parametrize("axis", AXIS_RULES)
def test_feasible_on_generated_instances(inst, axis):
    sol = kdtree_split(inst, axis=axis)
    check_structure(inst, sol)
    assert sol.algorithm == "kdtree-split" and sol.status == "feasible" and sol.seed is None
    assert sol.params == {"k": inst.k, "axis": axis}
    assert sol.info["n_rectangles"] == len(sol.info["rectangles"]) == sol.labels.max() + 1


def test_column_is_cut_into_runs_of_k():
    inst = GpsRectanglesInstance([[0, y] for y in range(12)], None, 3)
    sol = kdtree_split(inst)
    assert verify(inst, sol).cost == 3.0 and sol.info["n_rectangles"] == 4


def test_validation():
    inst = uniform_points(10, k=2, seed=0)
    rule = r"`axis` must be one of \['alternate', 'longest'\], got 'median'"
    with pytest.raises(ValueError, match=rule):
        kdtree_split(inst, axis="median")
    with pytest.raises(TypeError, match=r"`instance` must be a GpsRectanglesInstance"):
        kdtree_split([[0, 0]])
