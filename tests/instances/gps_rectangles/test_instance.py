"""Tests of instances/gps.py and instances/gps_data.py (Du et al. 2009, §3: GPS rectangles)."""

import json

import numpy as np
import pytest
from bruteforce import rectangle_optimum as brute_force_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import (
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    InstanceFormatError,
    Solution,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    lower_bound,
    verify,
)
from anonratio.instances.gps_rectangles import (
    GpsRectanglesInstance,
    cells_to_rectangles,
    gps_lower_bound,
    labels_from_cells,
    rectangle_weights,
    rectangles_to_cells,
    verify_rectangles,
)
from anonratio.instances.gps_rectangles.generators import (
    clustered_points,
    cross_gadget,
    pinwheel_gadget,
    uniform_points,
)


def solution(labels, rects):
    return Solution(labels, "test", info={"rectangles": rects})


@st.composite
def tiny_instances(draw, max_n=5, span=4):
    pts = draw(
        st.lists(st.tuples(st.integers(0, span), st.integers(0, span)), min_size=1, max_size=max_n)
    )
    w = draw(st.lists(st.integers(0, 4), min_size=len(pts), max_size=len(pts)))
    if sum(w) == 0:
        w[0] = 1
    k = draw(st.integers(1, sum(w)))
    return GpsRectanglesInstance(pts, w, k)


# ---------------------------------------------------------------------------------------------
# the instance
# ---------------------------------------------------------------------------------------------
def test_duplicates_are_merged_in_first_occurrence_order():
    inst = GpsRectanglesInstance([[2, 1], [0, 0], [2, 1], [0, 0], [5, 5]], [1, 2, 3, 0, 1], 2)
    assert inst.points.tolist() == [[2, 1], [0, 0], [5, 5]]
    assert inst.weights.tolist() == [4, 2, 1]
    assert inst.source_index.tolist() == [0, 1, 0, 1, 2]
    assert inst.n == 3 and inst.total_weight == 7 and inst.max_weight == 4
    assert inst.params == {"k": 2}
    assert not inst.points.flags.writeable and not inst.weights.flags.writeable


def test_unit_weights_grid_and_edges():
    inst = GpsRectanglesInstance([[0.0, 3.0], [1.0, 1.0], [4.0, 1.0], [-0.0, 2.0]], None, 1)
    assert inst.weights.tolist() == [1, 1, 1, 1]
    assert inst.xs.tolist() == [0.0, 1.0, 4.0] and inst.ys.tolist() == [1.0, 2.0, 3.0]
    assert inst.ix.tolist() == [0, 1, 2, 0] and inst.iy.tolist() == [2, 0, 0, 1]
    assert inst.x_edges.tolist() == [0.0, 0.5, 2.5, 4.0]
    assert inst.y_edges.tolist() == [1.0, 1.5, 2.5, 3.0]
    assert inst.box == (0.0, 1.0, 4.0, 3.0) and inst.grid_shape == (3, 3)
    assert np.signbit(inst.points).sum() == 0  # -0.0 became 0.0


def test_float_integral_weights_accepted():
    inst = GpsRectanglesInstance([[0, 0], [1, 1]], np.array([2.0, 3.0]), 5)
    assert inst.weights.dtype == np.int64 and inst.weights.tolist() == [2, 3]


@pytest.mark.parametrize(
    ("points", "weights", "k", "err", "match"),
    [
        ([[0, 0], [1, 1]], [1, -1], 1, InstanceFormatError, r"`weights` must be non-negative"),
        ([[0, 0], [1, 1]], [1, 2.5], 1, InstanceFormatError, r"non-negative integers, got 2.5"),
        ([[0, 0], [1, 1]], [1, np.nan], 1, InstanceFormatError, r"non-negative integers, got nan"),
        ([[0, 0], [1, 1]], [True, True], 1, InstanceFormatError, r"got dtype bool"),
        ([[0, 0], [1, 1]], ["a", "b"], 1, InstanceFormatError, r"non-negative integers, got dtype"),
        ([[0, 0], [1, 1]], [1, 1, 1], 1, InstanceFormatError, r"one entry per point \(2\)"),
        ([[0, 0], [1, 1]], [1, 2], 4, InfeasibleInstanceError, r"weigh 3 in total, less than k=4"),
        ([[0, 0], [1, 1]], [0, 0], 1, InfeasibleInstanceError, r"weigh 0 in total"),
        ([[0, 0], [np.inf, 1]], [1, 1], 1, InstanceFormatError, r"finite coordinates.*index 1"),
        ([[np.nan, 0]], [1], 1, InstanceFormatError, r"finite coordinates.*index 0"),
        ([[0, 0, 0]], [1], 1, InstanceFormatError, r"shape \(n, 2\), got \(1, 3\)"),
        (np.empty((0, 2)), [], 1, InstanceFormatError, r"non-empty array"),
        ([["a", "b"]], [1], 1, InstanceFormatError, r"`points` must be numeric"),
        ([[True, False]], [1], 1, InstanceFormatError, r"got booleans"),
        ([[0, 0]], [1], 0, ValueError, r"`k` must be an integer >= 1, got 0"),
        ([[0, 0]], [1], 1.5, ValueError, r"`k` must be an integer >= 1, got 1.5"),
        ([[0, 0]], [1], True, ValueError, r"`k` must be an integer >= 1, got True"),
    ],
)
def test_validation_errors(points, weights, k, err, match):
    with pytest.raises(err, match=match):
        GpsRectanglesInstance(points, weights, k)


def test_adjacent_float_coordinates_rejected():
    a = 1.0
    with pytest.raises(InstanceFormatError, match=r"adjacent float64 values"):
        GpsRectanglesInstance([[a, 0], [np.nextafter(a, 2.0), 1]], None, 1)


def test_serialization_round_trip_and_hash():
    inst = uniform_points(12, k=3, weight_max=3, grid=4, seed=3)
    d = instance_to_dict(inst)
    assert d["problem"] == "gps-rectangles"
    back = instance_from_dict(json.loads(json.dumps(d)))
    assert isinstance(back, GpsRectanglesInstance)
    assert np.array_equal(back.points, inst.points) and np.array_equal(back.weights, inst.weights)
    assert back.k == inst.k and instance_id(back) == instance_id(inst)
    with pytest.raises(InstanceFormatError, match=r"malformed gps-rectangles instance"):
        instance_from_dict({"problem": "gps-rectangles", "points": [[0, 0]]})


# ---------------------------------------------------------------------------------------------
# grid helpers
# ---------------------------------------------------------------------------------------------
def test_cells_rectangles_round_trip_and_labels():
    inst = GpsRectanglesInstance([[0, 0], [1, 2], [3, 1], [3, 3]], None, 1)
    assert inst.x_edges.tolist() == [0, 0.5, 2, 3] and inst.y_edges.tolist() == [
        0,
        0.5,
        1.5,
        2.5,
        3,
    ]
    cells = np.array([[0, 0, 0, 3], [1, 0, 2, 1], [1, 2, 2, 3]])
    rects = cells_to_rectangles(inst, cells)
    assert rects.tolist() == [[0, 0, 0.5, 3], [0.5, 0, 3, 1.5], [0.5, 1.5, 3, 3]]
    assert np.array_equal(rectangles_to_cells(inst, rects), cells)
    labels = labels_from_cells(inst, cells)
    assert labels.tolist() == [0, 2, 1, 2]
    assert rectangle_weights(inst, labels).tolist() == [1, 1, 2]
    assert verify(inst, solution(labels, rects)).cost == 2.0


# ---------------------------------------------------------------------------------------------
# the verifier
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def diag():
    return GpsRectanglesInstance([[0, 0], [1, 1], [2, 2], [3, 3]], None, 2)


def test_verify_accepts_a_tiling(diag):
    sol = solution([0, 0, 1, 1], [(0, 0, 1.5, 3), (1.5, 0, 3, 3)])
    check = verify(diag, sol)
    assert check.feasible and check.cost == 2.0 and check.violations == []
    assert verify(diag, sol, strict=True).cost == 2.0


@pytest.mark.parametrize(
    ("labels", "rects", "match"),
    [
        ([0, 0, 1, 1], [(0, 0, 1.5, 3), (1.2, 0, 3, 3)], r"they overlap just right of x = 1.2"),
        ([0, 0, 1, 1], [(0, 0, 1.5, 3), (1.7, 0, 3, 3)], r"leave a gap just right of x = 1.5"),
        ([0, 0, 0, 0], [(0, 0, 3, 3), (0, 0, 3, 3)], r"overlap just right of x = 0.0"),
        ([0, 0, 1, 1], [(0, 0, 1.5, 3), (1.5, 0, 3, 2.5)], r"leave a gap just right of x = 1.5"),
        ([0, 0, 1, 1], [(0, 0, 1.5, 3), (1.5, 0, 3.5, 3)], r"leaves the box"),
        ([0, 0, 1, 1], [(0, 0, 1.5, 3), (1.5, 0, 1.5, 3)], r"empty x-extent"),
        ([0, 0, 1, 1], [(0, 0, 1, 3), (1, 0, 3, 3)], r"point 1 .* lies on an edge"),
        ([1, 0, 1, 1], [(0, 0, 1.5, 3), (1.5, 0, 3, 3)], r"point 0 .* is not in its rectangle 1"),
        ([0, 0, 0, 1], [(0, 0, 2.5, 3), (2.5, 0, 3, 3)], r"rectangle 1 weighs 1, less than k=2"),
        (
            [0, 0, 2, 1],
            [(0, 0, 1.5, 3), (1.5, 0, 3, 3)],
            r"label 2, not a rectangle id in \[0, 2\)",
        ),
        ([0, 0, 1, 1], [(0, 0, 1.5)], r"list of \(x0, y0, x1, y1\)"),
        ([0, 0, 1, 1], [(0, 0, 1.5, np.nan), (1.5, 0, 3, 3)], r"must be finite"),
    ],
)
def test_verify_violations(diag, labels, rects, match):
    sol = solution(labels, rects)
    check = verify(diag, sol, strict=False)
    assert not check.feasible and check.cost is None
    assert any(__import__("re").search(match, v) for v in check.violations), check.violations
    with pytest.raises(InfeasibleSolutionError, match=match):
        verify(diag, sol)


def test_verify_needs_rectangles(diag):
    with pytest.raises(InfeasibleSolutionError, match=r"labels alone cannot be verified"):
        verify(diag, np.array([0, 0, 1, 1]))
    check = verify(diag, Solution(None, "x", status="time_limit"), strict=False)
    assert check.violations == ["the run returned no solution"]
    check = verify_rectangles(diag, [0, 0, 1], [(0, 0, 3, 3)], strict=False)
    assert "one per point (4)" in check.violations[0]


def test_cutting_through_points_is_not_allowed():
    """With ties broken by labels the cross would cost 2k-2; the verifier forbids it."""
    inst, meta = cross_gadget(3)  # centre (0,0) w3; N, S, E, W w2
    quadrants = [(-1, 0, 0, 1), (0, 0, 1, 1), (-1, -1, 0, 0), (0, -1, 1, 0)]
    labels = [1, 0, 3, 3, 0]  # UL: N + W, LR: S + E, UR: centre
    check = verify(inst, solution(labels, quadrants), strict=False)
    assert not check.feasible
    assert any("lies on an edge" in v for v in check.violations)
    w = solution(meta["witness_labels"], meta["witness_rectangles"])
    assert verify(inst, w).cost == meta["optimum"] == 11


def test_degenerate_boxes():
    line = GpsRectanglesInstance([[0, 0], [0, 1], [0, 2], [0, 5]], None, 2)
    assert line.box == (0.0, 0.0, 0.0, 5.0) and line.x_edges.tolist() == [0.0, 0.0]
    ok = solution([0, 0, 1, 1], [(0, 0, 0, 1.5), (0, 1.5, 0, 5)])
    assert verify(line, ok).cost == 2.0
    bad = solution([0, 0, 1, 1], [(0, 0, 0, 1.5), (0, 1.0, 0, 5)])
    assert any("overlap" in v for v in verify(line, bad, strict=False).violations)
    wide = solution([0, 0, 1, 1], [(0, 0, 1, 1.5), (0, 1.5, 0, 5)])
    with pytest.raises(InfeasibleSolutionError, match=r"the box has zero x-extent"):
        verify(line, wide)
    single = GpsRectanglesInstance([[2, 3], [2, 3]], [1, 1], 2)
    assert single.n == 1
    assert verify(single, solution([0], [single.box])).cost == 2.0


# ---------------------------------------------------------------------------------------------
# lower bound and the brute-force optimum
# ---------------------------------------------------------------------------------------------
def test_lower_bound_terms():
    inst = GpsRectanglesInstance([[0, 0], [1, 1], [2, 2]], [5, 1, 1], 2)
    assert gps_lower_bound(inst) == (5, "max-weight")
    assert lower_bound(inst) == (5.0, "max-weight")
    inst = GpsRectanglesInstance([[0, 0], [1, 1], [2, 2]], [1, 1, 1], 2)
    assert gps_lower_bound(inst) == (3, "part-count")  # one rectangle at most
    inst = GpsRectanglesInstance([[0, 0], [1, 1], [2, 2], [3, 3]], None, 2)
    assert gps_lower_bound(inst) == (2, "k")


@settings(max_examples=60, deadline=None, derandomize=True)
@given(tiny_instances())
def test_lower_bound_is_valid(inst):
    value, source = lower_bound(inst)
    assert source in ("k", "max-weight", "part-count")
    assert value >= max(inst.k, inst.max_weight)
    assert value <= brute_force_opt(inst)


def test_brute_force_on_gadgets():
    for k in (2, 3):
        inst, meta = cross_gadget(k)
        assert brute_force_opt(inst) == meta["optimum"] == 5 * k - 4
        inst, meta = pinwheel_gadget(k)
        assert brute_force_opt(inst) == meta["optimum"] == k
        w = solution(meta["witness_labels"], meta["witness_rectangles"])
        assert verify(inst, w).cost == k


# ---------------------------------------------------------------------------------------------
# generators
# ---------------------------------------------------------------------------------------------
def test_generators_are_seeded_and_valid():
    a, b = (
        uniform_points(30, k=4, weight_max=3, seed=7),
        uniform_points(30, k=4, weight_max=3, seed=7),
    )
    assert np.array_equal(a.points, b.points) and np.array_equal(a.weights, b.weights)
    assert a.n == 30 and 1 <= a.weights.min() and a.weights.max() <= 3
    g = uniform_points(50, k=2, grid=3, seed=0)
    assert g.n <= 9 and g.total_weight == 50  # duplicates merged
    c = clustered_points(40, k=3, n_clusters=4, spread=0.01, seed=2)
    assert c.n == 40 and c.k == 3
    inst, meta = cross_gadget(4)
    assert inst.weights.tolist() == [4, 3, 3, 3, 3] and meta["kdtree_cost"] == 16
    inst, meta = pinwheel_gadget(4)
    assert inst.total_weight == 5 * 4 and meta["kdtree_cost"] == 7


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: uniform_points(0, k=2), r"`n` must be an integer >= 1, got 0"),
        (lambda: uniform_points(5, k=2, weight_max=0), r"`weight_max` must be an integer >= 1"),
        (lambda: uniform_points(5, k=2, grid=0), r"`grid` must be an integer >= 1, got 0"),
        (lambda: clustered_points(5, k=2, spread=-1), r"`spread` must be a positive finite"),
        (lambda: clustered_points(5, k=2, n_clusters=0), r"`n_clusters` must be an integer"),
        (lambda: cross_gadget(1), r"`k` must be an integer >= 2, got 1"),
        (lambda: pinwheel_gadget(1.5), r"`k` must be an integer >= 2, got 1.5"),
    ],
)
def test_generator_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_generator_infeasible():
    with pytest.raises(InfeasibleInstanceError, match=r"less than k=10"):
        uniform_points(3, k=10)
