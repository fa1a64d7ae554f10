"""Tests of instances/clustering/instance.py: the five clustering problems (Aggarwal et al.,
PODS 2006), their validation and their JSON round trip."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import (
    InfeasibleInstanceError,
    InstanceFormatError,
    instance_from_dict,
    instance_id,
    instance_to_dict,
)
from anonratio.instances.clustering import (
    CLUSTERING_PROBLEMS,
    CellularInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from anonratio.instances.io import load_instance, save_instance

PTS = [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0], [6.0, 5.0], [5.0, 7.5]]


def all_problems(points=PTS, metric="euclidean"):
    n = len(points)
    return [
        RGatherInstance(points, r=2, metric=metric),
        REpsGatherInstance(points, r=2, epsilon=0.2, metric=metric),
        KRCenterInstance(points, k=2, r=3, metric=metric),
        CellularInstance(points, np.linspace(0, 1, n), metric=metric),
        RCellularInstance(points, r=2, facility_costs=np.arange(n, dtype=float), metric=metric),
    ]


def test_construction_and_params():
    g, e, kr, c, rc = all_problems()
    assert {type(x).problem for x in (g, e, kr, c, rc)} == set(CLUSTERING_PROBLEMS)
    assert g.n == 6 and g.params == {"r": 2} and g.metric == "euclidean"
    assert e.params == {"r": 2, "epsilon": 0.2} and e.max_outliers == 1
    assert kr.params == {"k": 2, "r": 3}
    assert c.params == {} and c.facility.tolist() == np.linspace(0, 1, 6).tolist()
    assert rc.params == {"r": 2} and rc.facility.tolist() == [0, 1, 2, 3, 4, 5]
    assert g.facility.tolist() == [0.0] * 6
    assert not g.points.flags.writeable and not c.facility_costs.flags.writeable
    assert RCellularInstance(PTS, r=2).facility.tolist() == [0.0] * 6


def test_one_dimensional_points_are_one_attribute():
    inst = RGatherInstance([0.0, 1.0, 5.0], r=1)
    assert inst.points.shape == (3, 1)
    assert inst.distances.pairs(0, 2) == 5.0


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "hamming"])
def test_round_trip_through_files(tmp_path, metric):
    for inst in all_problems(metric=metric):
        path = tmp_path / f"{inst.problem}-{metric}.json"
        ident = save_instance(path, inst, meta={"seed": 3})
        back, meta = load_instance(path)
        assert type(back) is type(inst) and meta == {"seed": 3}
        assert ident == instance_id(back) == instance_id(inst)
        assert np.array_equal(back.points, inst.points) and back.metric == metric
        assert back.params == inst.params
        assert np.array_equal(back.facility, inst.facility)
        assert instance_to_dict(back) == instance_to_dict(inst)


def test_round_trip_precomputed_and_gzip(tmp_path):
    d = RGatherInstance(PTS).distances.dense()
    for inst in all_problems(d, metric="precomputed"):
        path = tmp_path / f"{inst.problem}.json.gz"
        save_instance(path, inst)
        back, _ = load_instance(path)
        assert back.metric == "precomputed" and np.array_equal(back.points, d)
        assert instance_id(back) == instance_id(inst)


def test_from_dict_defaults_and_missing_fields():
    back = instance_from_dict({"problem": "r-cellular", "points": PTS, "r": 2})
    assert back.metric == "euclidean" and back.facility.tolist() == [0.0] * 6
    with pytest.raises(InstanceFormatError, match=r"r-gather"):
        instance_from_dict({"problem": "r-gather", "points": PTS})  # r missing
    with pytest.raises((InstanceFormatError, ValueError), match=r"metric"):
        instance_from_dict({"problem": "r-gather", "points": PTS, "r": 2, "metric": "cosine"})


@pytest.mark.parametrize(
    ("make", "err", "match"),
    [
        (lambda: RGatherInstance(PTS, r=0), ValueError, r"`r` must be an integer >= 1, got 0"),
        (lambda: RGatherInstance(PTS, r=2.0), ValueError, r"`r` must be an integer >= 1"),
        (lambda: RGatherInstance(PTS, r=7), InfeasibleInstanceError, r"`r` = 7 exceeds.*n = 6"),
        (lambda: RCellularInstance(PTS, r=9), InfeasibleInstanceError, r"`r` = 9 exceeds"),
        (lambda: KRCenterInstance(PTS, k=0, r=2), ValueError, r"`k` must be an integer >= 1"),
        (lambda: KRCenterInstance(PTS, k=2, r=7), InfeasibleInstanceError, r"`r` = 7"),
        (
            lambda: REpsGatherInstance(PTS, r=2, epsilon=1.0),
            ValueError,
            r"`epsilon` must be a number in \[0, 1\), got 1.0",
        ),
        (
            lambda: REpsGatherInstance(PTS, r=2, epsilon=-0.1),
            ValueError,
            r"`epsilon` must be a number in \[0, 1\)",
        ),
        (
            lambda: REpsGatherInstance(PTS, r=7, epsilon=0.34),
            InfeasibleInstanceError,
            r"`r` = 7 exceeds the number of points n = 6",
        ),
        (lambda: RGatherInstance(PTS, metric="cosine"), ValueError, r"`metric` must be one of"),
        (lambda: RGatherInstance([[0.0], [np.nan]]), ValueError, r"finite, got nan at \[1, 0\]"),
        (lambda: RGatherInstance([[0.0], [np.inf]]), ValueError, r"finite, got inf"),
        (lambda: RGatherInstance(np.empty((0, 2))), ValueError, r"non-empty 2-D array"),
        (lambda: RGatherInstance([["a"], ["b"]]), ValueError, r"`points` must be numbers"),
        (
            lambda: CellularInstance(PTS, [1.0] * 5),
            ValueError,
            r"`facility_costs` must have one entry per point \(6\), got shape \(5,\)",
        ),
        (
            lambda: CellularInstance(PTS, [1.0, 1, 1, -2, 1, 1]),
            ValueError,
            r"`facility_costs\[3\]` must be a finite number >= 0, got -2",
        ),
        (
            lambda: RCellularInstance(PTS, 2, [1.0, 1, 1, 1, np.inf, 1]),
            ValueError,
            r"`facility_costs\[4\]`",
        ),
        (lambda: CellularInstance(PTS, 3.0), ValueError, r"one per point"),
    ],
)
def test_validation_errors(make, err, match):
    with pytest.raises(err, match=match):
        make()


MATRIX = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.5], [2.0, 1.5, 0.0]])


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (
            lambda d: d.__setitem__((0, 1), 1.2),
            r"symmetric, got 1.2 at \[0, 1\] and 1.0 at \[1, 0\]",
        ),
        (lambda d: d.__setitem__((1, 1), 0.5), r"zero diagonal, got 0.5 at \[1, 1\]"),
        (lambda d: d.__setitem__((2, 0), -1.0), r"non-negative, got -1.0 at \[2, 0\]"),
        (lambda d: d.__setitem__((2, 1), np.inf), r"finite, got inf at \[2, 1\]"),
        (lambda d: d.__setitem__((2, 1), np.nan), r"finite, got nan"),
    ],
)
def test_bad_distance_matrix(change, match):
    d = MATRIX.copy()
    change(d)
    with pytest.raises(ValueError, match=match):
        RGatherInstance(d, r=2, metric="precomputed")


def test_non_square_matrix():
    with pytest.raises(ValueError, match=r"must be square, got shape \(2, 3\)"):
        RGatherInstance(MATRIX[:2], r=1, metric="precomputed")


@pytest.mark.parametrize(
    ("n", "r", "eps", "outliers", "unclustered"),
    [
        (4, 4, 0.3, 1, 0),  # one cluster of all four; 3 < r points could not form one
        (6, 5, 0.34, 2, 1),  # 2 may stay out by eps, but then 4 < r remain
        (6, 6, 0.0, 0, 0),
        (10, 3, 0.3, 3, 3),  # 0.3 x 10 = 2.9999999999999996 in floats
        (1000, 1, 1 - 1e-12, 999, 999),  # floor(eps n) < n whenever eps < 1
    ],
)
def test_r_eps_gather_is_feasible_whenever_r_fits_the_points(n, r, eps, outliers, unclustered):
    # at most floor(eps n) points *may* stay out (Aggarwal et al. 2006, §2.3): clustering all n
    # points in one cluster is always a solution, so r <= n is the only condition
    inst = REpsGatherInstance(np.arange(n, dtype=float), r=r, epsilon=eps)
    assert (inst.max_outliers, inst.max_unclustered) == (outliers, unclustered)
    with pytest.raises(InfeasibleInstanceError, match=rf"`r` = {n + 1} exceeds"):
        REpsGatherInstance(np.arange(n, dtype=float), r=n + 1, epsilon=eps)


def test_kr_center_with_more_clusters_than_fit_is_valid():
    inst = KRCenterInstance(PTS, k=5, r=2)  # k r = 10 > n = 6: at most 3 clusters are used
    assert inst.k == 5 and inst.r == 2 and inst.params == {"k": 5, "r": 2}


def test_triangle_violation_found_and_named():
    d = np.array(
        [
            [0.0, 1.0, 1.0, 9.0],
            [1.0, 0.0, 1.0, 1.0],
            [1.0, 1.0, 0.0, 1.0],
            [9.0, 1.0, 1.0, 0.0],
        ]
    )
    inst = RGatherInstance(d, r=2, metric="precomputed")
    i, j, m, excess = inst.triangle_violation()
    assert {i, j} == {0, 3} and m in (1, 2) and excess == pytest.approx(7.0)
    with pytest.raises(ValueError, match=r"d\((0,3|3,0)\) exceeds d\(.*\) \+ d\(.*\) by 7"):
        inst.check_triangle()
    d[0, 3] = d[3, 0] = 2.0
    ok = RGatherInstance(d, r=2, metric="precomputed")
    assert ok.triangle_violation() is None and ok.check_triangle() is ok
    assert RGatherInstance(PTS, r=2).triangle_violation() is None  # coordinates: a metric


@settings(derandomize=True, deadline=None, max_examples=25)
@given(
    st.integers(2, 8),
    st.integers(1, 3),
    st.integers(0, 10**6),
    st.sampled_from(["euclidean", "manhattan", "hamming"]),
)
def test_distance_matrices_of_coordinates_are_metrics(n, dim, seed, metric):
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, 3, size=(n, dim)).astype(float)
    d = RGatherInstance(pts, r=1, metric=metric).distances.dense()
    inst = RGatherInstance(d, r=1, metric="precomputed")
    assert inst.triangle_violation() is None
    assert np.array_equal(inst.distances.dense(), d)
