"""Tests of instances/clustering/generators.py: random point clouds, setup costs, instance
builders and planted instances whose optimum is checked against brute force."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from anonratio.instances import Solution, lower_bound, verify
from anonratio.instances.clustering import (
    CLUSTERING_PROBLEMS,
    KRCenterInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from anonratio.instances.clustering.generators import (
    GRID_SPACING,
    PLANTED_PROBLEMS,
    facility_costs,
    gaussian_points,
    heavy_tailed_points,
    make_instance,
    outlier_points,
    planted_instance,
    uniform_points,
)


def same(a, b):
    return np.array_equal(a[0], b[0]) and a[1] == b[1]


# ---------------------------------------------------------------------------------------------
# point generators
# ---------------------------------------------------------------------------------------------
def test_gaussian_points():
    pts, meta = gaussian_points([4, 7, 2], dim=3, spread=0.5, separation=12.0, seed=1)
    assert pts.shape == (13, 3) and meta["family"] == "gaussian"
    groups = np.asarray(meta["groups"])
    assert np.bincount(groups).tolist() == [4, 7, 2]
    centers = np.asarray(meta["centers"])
    gaps = cdist(centers, centers)[np.triu_indices(3, 1)]
    assert gaps.min() >= 12.0 * 0.5 - 1e-9  # centers separation x spread apart
    # every point is nearer its own center than any other (well separated)
    assert np.array_equal(cdist(pts, centers).argmin(axis=1), groups)
    assert same(
        gaussian_points([4, 7, 2], dim=3, seed=5), gaussian_points([4, 7, 2], dim=3, seed=5)
    )
    assert not same(gaussian_points([4, 7], seed=5), gaussian_points([4, 7], seed=6))


def test_uniform_points():
    pts, meta = uniform_points(50, dim=4, seed=2)
    assert pts.shape == (50, 4) and pts.min() >= 0 and pts.max() < 1
    assert meta == {"family": "uniform"}
    assert same(uniform_points(5, seed=1), uniform_points(5, seed=1))
    assert uniform_points(3, dim=1)[0].shape == (3, 1)


def test_outlier_points():
    pts, meta = outlier_points(40, n_outliers=5, spread=0.5, seed=3)
    out = np.asarray(meta["outlier"])
    assert pts.shape == (40, 2) and out.sum() == 5
    norm = np.linalg.norm(pts, axis=1)
    assert norm[out].min() >= 20 * 0.5 and norm[out].max() <= 100 * 0.5
    assert norm[~out].max() < norm[out].min()
    assert same(outlier_points(9, n_outliers=2, seed=0), outlier_points(9, n_outliers=2, seed=0))
    assert outlier_points(4, n_outliers=4, dim=1, seed=0)[0].shape == (4, 1)
    assert sum(outlier_points(4, n_outliers=0, seed=0)[1]["outlier"]) == 0


def test_heavy_tailed_points():
    pts, meta = heavy_tailed_points(2000, dim=3, tail=1.2, seed=4)
    radii = np.asarray(meta["radii"])
    assert pts.shape == (2000, 3)
    np.testing.assert_allclose(np.linalg.norm(pts, axis=1), radii)
    assert radii.min() >= 1 and radii.max() > 50 * np.median(radii)  # a few very far points
    assert same(heavy_tailed_points(7, seed=1), heavy_tailed_points(7, seed=1))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: gaussian_points([]), r"`sizes` must be a non-empty sequence"),
        (lambda: gaussian_points([3, 0]), r"`sizes\[1\]` must be an integer >= 1, got 0"),
        (lambda: gaussian_points([3], dim=0), r"`dim` must be an integer >= 1, got 0"),
        (lambda: gaussian_points([3], spread=0), r"`spread` must be a positive finite number"),
        (lambda: gaussian_points([3], separation=-1), r"`separation` must be a positive"),
        (lambda: uniform_points(0), r"`n` must be an integer >= 1, got 0"),
        (lambda: uniform_points(3, seed=-1), r"`seed` must be None, a non-negative integer"),
        (lambda: outlier_points(5, n_outliers=6), r"`n_outliers` must be an integer in \[0, n=5\]"),
        (lambda: outlier_points(5, n_outliers=1, spread=0), r"`spread` must be a positive"),
        (lambda: heavy_tailed_points(5, tail=0), r"`tail` must be a positive finite number"),
        (lambda: heavy_tailed_points(5, dim=1.5), r"`dim` must be an integer >= 1, got 1.5"),
        (lambda: facility_costs(0), r"`points_or_n` must be an integer >= 1, got 0"),
        (lambda: facility_costs([]), r"`points_or_n` must be a positive integer or a non-empty"),
        (lambda: facility_costs(3, kind="normal"), r"`kind` must be one of"),
        (lambda: facility_costs(3, scale=-1), r"`scale` must be a finite number >= 0, got -1"),
    ],
)
def test_parameter_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_facility_costs():
    assert facility_costs(4, kind="zero").tolist() == [0.0] * 4
    assert facility_costs(np.zeros((3, 2)), kind="constant", scale=2.0).tolist() == [2.0] * 3
    f = facility_costs(200, scale=5.0, seed=0)
    assert f.shape == (200,) and f.min() >= 0 and f.max() < 5 and f.std() > 1
    assert np.array_equal(f, facility_costs(200, scale=5.0, seed=0))
    pts, _ = uniform_points(10, seed=0)
    inst = make_instance("cellular", pts, facility_costs=facility_costs(pts, seed=1))
    assert inst.facility.shape == (10,)


# ---------------------------------------------------------------------------------------------
# instance builders
# ---------------------------------------------------------------------------------------------
def test_make_instance_every_problem():
    pts, _ = uniform_points(12, seed=0)
    params = {
        "r-gather": {"r": 3},
        "r-eps-gather": {"r": 3, "epsilon": 0.25},
        "kr-center": {"k": 2, "r": 3},
        "cellular": {"facility_costs": np.ones(12)},
        "r-cellular": {"r": 3},
    }
    for problem, p in params.items():
        inst = make_instance(problem, pts, metric="manhattan", **p)
        assert isinstance(inst, CLUSTERING_PROBLEMS[problem]) and inst.metric == "manhattan"
        assert inst.n == 12
    assert isinstance(make_instance("r-eps-gather", pts, r=2, epsilon=0.1), REpsGatherInstance)


def test_make_instance_errors():
    pts, _ = uniform_points(5, seed=0)
    with pytest.raises(ValueError, match=r"`problem` must be one of \['cellular', 'kr-center'"):
        make_instance("k-center", pts)
    with pytest.raises(ValueError, match=r"`k` is not a parameter of 'r-gather'; it takes \['r'\]"):
        make_instance("r-gather", pts, r=2, k=3)
    with pytest.raises(ValueError, match=r"`metric` must be one of"):
        make_instance("r-gather", pts, r=2, metric="cosine")


# ---------------------------------------------------------------------------------------------
# planted instances
# ---------------------------------------------------------------------------------------------
def witness(meta):
    return Solution(meta["labels"], "planted", info={"centers": meta["centers"]})


def check_planted(inst, meta, problem, groups, r, n_outliers):
    assert inst.problem == problem and inst.n == groups * r + n_outliers
    labels = np.asarray(meta["labels"])
    assert np.bincount(labels[labels >= 0]).tolist() == [r] * groups
    assert (labels < 0).sum() == n_outliers
    check = verify(inst, witness(meta))
    assert check.cost == pytest.approx(meta["optimum"], rel=1e-12)
    rho = np.asarray(meta["radii"])
    assert check.radii == pytest.approx(rho.tolist(), rel=1e-9)  # exactly rho_g from c_g
    want = r * rho.sum() if problem == "r-cellular" else rho.max()
    assert meta["optimum"] == pytest.approx(want, rel=1e-9)
    assert lower_bound(inst)[0] <= meta["optimum"] * (1 + 1e-12)
    # separation: points of different groups (and outliers) more than 10 max rho apart
    d = inst.distances.dense()
    other = (labels[:, None] != labels[None, :]) | (labels[:, None] < 0)
    np.fill_diagonal(other, False)
    if other.any():
        assert d[other].min() > 10 * rho.max()
    if problem == "kr-center":
        assert inst.k == groups
    if problem == "r-eps-gather":
        assert inst.max_outliers == n_outliers


@settings(derandomize=True, deadline=None, max_examples=25)
@given(
    st.sampled_from(PLANTED_PROBLEMS),
    st.integers(1, 3),
    st.integers(2, 4),
    st.integers(1, 3),
    st.integers(0, 2),
    st.integers(0, 10**6),
)
def test_planted_optimum_matches_brute_force(problem, groups, r, dim, n_outliers, seed):
    if problem != "r-eps-gather":
        n_outliers = 0
    if groups * r + n_outliers > 9:
        groups = (9 - n_outliers) // r
    inst, meta = planted_instance(
        problem, groups=groups, r=r, dim=dim, n_outliers=n_outliers, seed=seed
    )
    check_planted(inst, meta, problem, groups, r, n_outliers)
    assert clustering_optimum(inst) == pytest.approx(meta["optimum"], rel=1e-9)


@pytest.mark.parametrize("problem", PLANTED_PROBLEMS)
def test_planted_larger(problem):
    n_out = 7 if problem == "r-eps-gather" else 0
    inst, meta = planted_instance(
        problem, groups=20, r=6, radius=(0.5, 4.0), dim=3, n_outliers=n_out, seed=11
    )
    check_planted(inst, meta, problem, 20, 6, n_out)
    assert inst.distances.dense().max() > GRID_SPACING  # the grid spans several cells


def test_planted_epsilon_floor_is_exact():
    # eps = n_outliers / n with floor(eps n) = n_outliers despite floating point
    for groups, r, q in [(7, 3, 10), (5, 7, 13), (9, 4, 23), (3, 2, 29), (1, 2, 1)]:
        inst, _ = planted_instance("r-eps-gather", groups=groups, r=r, n_outliers=q, seed=0)
        assert inst.max_outliers == q and inst.epsilon < 1


def test_planted_determinism_and_example():
    a, ma = planted_instance("r-gather", groups=4, r=3, seed=9)
    b, mb = planted_instance("r-gather", groups=4, r=3, seed=9)
    c, _ = planted_instance("r-gather", groups=4, r=3, seed=10)
    assert np.array_equal(a.points, b.points) and ma == mb
    assert not np.array_equal(a.points, c.points)
    assert isinstance(a, RGatherInstance) and a.params == {"r": 3}
    kr, meta = planted_instance("kr-center", groups=2, r=5, dim=1, seed=0)
    assert isinstance(kr, KRCenterInstance) and kr.params == {"k": 2, "r": 5}
    assert meta["family"] == "kr-center-planted"


def test_planted_errors():
    with pytest.raises(ValueError, match=r"`problem` 'cellular' has no planted optimum"):
        planted_instance("cellular", groups=2, r=3)
    with pytest.raises(ValueError, match=r"`problem` must be one of"):
        planted_instance("k-median", groups=2, r=3)
    with pytest.raises(ValueError, match=r"`r` must be an integer >= 2, got 1"):
        planted_instance("r-gather", groups=2, r=1)
    with pytest.raises(ValueError, match=r"`groups` must be an integer >= 1, got 0"):
        planted_instance("r-gather", groups=0, r=3)
    with pytest.raises(ValueError, match=r"`n_outliers` must be 0 for 'r-gather'"):
        planted_instance("r-gather", groups=2, r=3, n_outliers=1)
    with pytest.raises(ValueError, match=r"`radius\[1\]` must be a finite number >= 2.0"):
        planted_instance("r-gather", groups=2, r=3, radius=(2.0, 1.0))
    with pytest.raises(ValueError, match=r"`radius\[0\]` must be a positive finite number"):
        planted_instance("r-gather", groups=2, r=3, radius=(0.0, 1.0))
    with pytest.raises(ValueError, match=r"`radius` must be a pair"):
        planted_instance("r-gather", groups=2, r=3, radius=1.0)
    with pytest.raises(ValueError, match=r"`dim` must be an integer >= 1"):
        planted_instance("r-gather", groups=2, r=3, dim=0)
