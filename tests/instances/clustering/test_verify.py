"""Tests of instances/clustering/verify.py: the verifier accepts good clusterings, rejects
corrupted ones, recomputes costs, and the lower bounds hold on every feasible solution."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import InfeasibleSolutionError, Solution, lower_bound, verify
from anonratio.instances.clustering import (
    CellularInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
    best_centers,
    cluster_radii,
    clustering_info,
    clustering_lower_bound,
)

# two groups on a line: {0, 1, 2} around 1.0 and {3, 4, 5} around 11.0, an outlier at 50
LINE = [[0.0], [1.0], [2.5], [10.0], [11.0], [12.0], [50.0]]
GOOD = [0, 0, 0, 1, 1, 1, 1]
GOOD_CENTERS = [1, 4]


def sol(labels, centers=None, radii=None):
    info = {}
    if centers is not None:
        info["centers"] = centers
    if radii is not None:
        info["radii"] = radii
    return Solution(labels, "test", info=info)


def rejected(inst, solution, match):
    with pytest.raises(InfeasibleSolutionError, match=match):
        verify(inst, solution)
    check = verify(inst, solution, strict=False)
    assert not check.feasible and check.cost is None and check.violations
    return check


# ---------------------------------------------------------------------------------------------
# accepted solutions and their cost
# ---------------------------------------------------------------------------------------------
def test_r_gather_cost_is_the_largest_radius():
    inst = RGatherInstance(LINE, r=3)
    check = verify(inst, sol(GOOD, GOOD_CENTERS))
    assert check.feasible and check.cost == 39.0  # 50 - 11
    assert check.radii == (1.5, 39.0) and check.centers == (1, 4)
    assert check.n_clusters == 2 and check.n_unclustered == 0 and check.min_cluster_size == 3
    assert check.max_radius == 39.0 and check.facility_cost is None
    # the declared radii are checked and accepted when exact
    info = clustering_info(inst, GOOD, GOOD_CENTERS)
    assert info == {"centers": [1, 4], "radii": [1.5, 39.0]}
    assert verify(inst, sol(GOOD, **info)).cost == 39.0


def test_plain_labels_use_the_best_center():
    inst = RGatherInstance(LINE, r=3)
    check = verify(inst, GOOD)  # plain labels: cluster 1's best center is 12 (radius 38)
    assert check.cost == 38.0 and check.centers == (1, 5)
    assert best_centers(inst, GOOD).tolist() == [1, 5]
    assert verify(inst, Solution(GOOD, "test")).cost == 38.0


def test_center_outside_its_cluster_and_shared_centers():
    inst = RGatherInstance(LINE, r=3)
    # cluster 0 centered at point 3 (10.0), which belongs to cluster 1; both share center 3
    check = verify(inst, sol(GOOD, [3, 3]))
    assert check.feasible and check.radii == (10.0, 40.0) and check.cost == 40.0


def test_r_eps_gather_leaves_outliers():
    inst = REpsGatherInstance(LINE, r=3, epsilon=0.15)  # floor(0.15 * 7) = 1
    labels = [0, 0, 0, 1, 1, 1, -1]
    check = verify(inst, sol(labels, [1, 4]))
    assert check.feasible and check.cost == 1.5 and check.n_unclustered == 1


def test_kr_center():
    inst = KRCenterInstance(LINE, k=2, r=3)
    assert verify(inst, sol(GOOD, GOOD_CENTERS)).cost == 39.0
    one = verify(inst, sol([0] * 7, [4]))  # fewer clusters than k is fine
    assert one.cost == 39.0 and one.n_clusters == 1


def test_cellular_cost_splits_into_facility_and_service():
    f = [5.0, 1.0, 2.0, 0.5, 3.0, 4.0, 7.0]
    inst = CellularInstance(LINE, f)
    labels = [0, 0, 0, 1, 1, 1, 2]
    check = verify(inst, sol(labels, [1, 4, 6]))
    facility = 1.0 + 3.0 + 7.0
    service = 3 * 1.5 + 3 * 1.0 + 1 * 0.0
    assert check.facility_cost == facility and check.service_cost == service
    assert check.cost == facility + service
    # plain labels: the best center minimizes f(v) + size x radius (cluster 1: point 3 costs
    # 0.5 + 3 x 2 = 6.5 > point 4's 3 + 3 x 1 = 6)
    plain = verify(inst, labels)
    assert plain.centers == (1, 4, 6) and plain.cost == check.cost
    # singletons: only setup costs
    assert verify(inst, sol(list(range(7)), list(range(7)))).cost == sum(f)


def test_r_cellular():
    inst = RCellularInstance(LINE, r=3)  # f = 0
    check = verify(inst, sol(GOOD, GOOD_CENTERS))
    assert check.cost == 3 * 1.5 + 4 * 39.0 and check.facility_cost == 0.0
    rejected(inst, sol([0, 0, 0, 1, 1, 1, 2], [1, 4, 6]), r"cluster 2 has 1 points, fewer than r")


# ---------------------------------------------------------------------------------------------
# corrupted solutions are rejected
# ---------------------------------------------------------------------------------------------
def test_cluster_below_r():
    inst = RGatherInstance(LINE, r=3)
    check = rejected(inst, sol([0, 0, 1, 1, 1, 1, 1], [0, 4]), r"cluster 0 has 2 points")
    assert check.violations == ["cluster 0 has 2 points, fewer than r = 3"]


def test_wrong_declared_radius():
    inst = RGatherInstance(LINE, r=3)
    rejected(inst, sol(GOOD, GOOD_CENTERS, [1.5, 38.0]), r"cluster 1 declares radius 38")
    rejected(inst, sol(GOOD, GOOD_CENTERS, [1.5 * (1 + 1e-6), 39.0]), r"cluster 0 declares")
    rejected(inst, sol(GOOD, GOOD_CENTERS, [1.5]), r"info\['radii'\] has 1 entries for 2")
    assert verify(inst, sol(GOOD, GOOD_CENTERS, [1.5 * (1 + 1e-12), 39.0])).feasible  # float noise


def test_too_many_outliers():
    inst = REpsGatherInstance(LINE, r=3, epsilon=0.15)
    rejected(
        inst,
        sol([0, 0, 0, 1, 1, -1, -1], [1, 4]),
        r"2 points are unclustered, more than floor\(epsilon n\) = 1",
    )


def test_unclustered_label_where_not_allowed():
    for inst in (
        RGatherInstance(LINE, r=3),
        KRCenterInstance(LINE, k=3, r=3),
        CellularInstance(LINE),
        RCellularInstance(LINE, r=3),
    ):
        rejected(inst, sol([0, 0, 0, 1, 1, 1, -1], [1, 4]), r"1 points are unclustered")
    rejected(RGatherInstance(LINE, r=3), [0, 0, 0, 1, 1, 1, -2], r"cluster ids >= 0")


def test_too_many_clusters():
    inst = KRCenterInstance(LINE, k=1, r=3)
    rejected(inst, sol(GOOD, GOOD_CENTERS), r"2 clusters, more than k = 1")


def test_center_index_out_of_range():
    inst = RGatherInstance(LINE, r=3)
    rejected(inst, sol(GOOD, [1, 7]), r"center of cluster 1 is 7, not a point")
    rejected(inst, sol(GOOD, [-1, 4]), r"center of cluster 0 is -1, not a point")
    rejected(inst, sol(GOOD, [1]), r"cluster ids up to 1 but only 1 centers")
    rejected(inst, sol(GOOD, [1.0, 4.0]), r"1-D sequence of point indices")


def test_center_without_members():
    inst = RGatherInstance(LINE, r=3)
    rejected(inst, sol(GOOD, [1, 4, 0]), r"cluster 2 has a center but no members")
    rejected(inst, sol([0, 0, 0, 2, 2, 2, 2], [1, 2, 4]), r"cluster 1 has a center but no members")


def test_malformed_labels():
    inst = RGatherInstance(LINE, r=3)
    rejected(inst, [0, 0, 0], r"one entry per record \(7\)")
    rejected(inst, np.zeros(7), r"labels must be integers")
    rejected(inst, None, r"no solution")


# ---------------------------------------------------------------------------------------------
# cost recomputation and lower bounds on random instances
# ---------------------------------------------------------------------------------------------
@st.composite
def small_instances(draw):
    seed = draw(st.integers(0, 10**6))
    n = draw(st.integers(2, 8))
    problem = draw(
        st.sampled_from(["r-gather", "r-eps-gather", "kr-center", "cellular", "r-cellular"])
    )
    metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming"]))
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, 4, size=(n, 2)).astype(float)
    f = rng.uniform(0, 3, size=n).round(2)
    r = int(rng.integers(1, n + 1))
    if problem == "r-gather":
        inst = RGatherInstance(pts, r=r, metric=metric)
    elif problem == "kr-center":
        inst = KRCenterInstance(pts, k=int(rng.integers(1, 4)), r=r, metric=metric)
    elif problem == "cellular":
        inst = CellularInstance(pts, f, metric=metric)
    elif problem == "r-cellular":
        inst = RCellularInstance(pts, r=r, facility_costs=f, metric=metric)
    else:
        eps = float(rng.choice([0.0, 0.2, 0.4]))
        inst = REpsGatherInstance(pts, r=r, epsilon=eps, metric=metric)
    return inst, seed


def random_feasible(inst, rng):
    """A random feasible labelling and random centers (any points)."""
    n, r = inst.n, getattr(inst, "r", 1)
    q = int(rng.integers(0, getattr(inst, "max_unclustered", 0) + 1))
    perm = rng.permutation(n)
    labels = np.full(n, -1)
    rest = perm[q:]
    max_clusters = min(len(rest) // r, getattr(inst, "k", n))
    m = int(rng.integers(1, max_clusters + 1))
    sizes = r + rng.multinomial(len(rest) - r * m, np.full(m, 1 / m))  # each >= r
    labels[rest] = np.repeat(np.arange(m), sizes)
    return labels, rng.integers(0, n, size=m)


def manual_cost(inst, labels, centers):
    d = inst.distances.dense()
    radii = [d[c, labels == g].max() for g, c in enumerate(centers)]
    if inst.problem in ("cellular", "r-cellular"):
        sizes = np.bincount(labels[labels >= 0], minlength=len(centers))
        return sum(
            inst.facility[c] + s * rad for c, s, rad in zip(centers, sizes, radii, strict=True)
        )
    return max(radii)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(small_instances())
def test_costs_and_lower_bounds_on_random_feasible_solutions(case):
    inst, seed = case
    rng = np.random.default_rng(seed)
    lb, source = lower_bound(inst)
    assert (lb, source) == clustering_lower_bound(inst)
    opt = clustering_optimum(inst)
    assert lb <= opt + 1e-9, source
    best_seen = np.inf
    for _ in range(10):
        labels, centers = random_feasible(inst, rng)
        check = verify(inst, sol(labels, centers))
        assert check.feasible
        assert check.cost == pytest.approx(manual_cost(inst, labels, centers), rel=1e-12, abs=1e-12)
        assert list(check.radii) == cluster_radii(inst, labels, centers).tolist()
        plain = verify(inst, labels)  # the best centers never cost more
        assert plain.cost <= check.cost + 1e-9
        assert lb <= plain.cost + 1e-9 and opt <= plain.cost + 1e-9
        best_seen = min(best_seen, plain.cost)
    assert opt <= best_seen + 1e-9


def test_a_matrix_without_the_triangle_inequality_keeps_a_valid_bound():
    # d(1, 2) = 10 > d(1, 0) + d(0, 2): all three around point 0 have radius 1, the optimum
    d = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 10.0], [1.0, 10.0, 0.0]])
    inst = RGatherInstance(d, r=3, metric="precomputed")
    assert inst.triangle_violation() is not None
    assert verify(inst, sol(np.zeros(3, dtype=int), [0])).cost == 1.0
    assert clustering_lower_bound(inst) == (1.0, "max d_1")  # not d_2(1) / 2 = 5
    inst = RCellularInstance(d, 3, np.zeros(3), metric="precomputed")
    value, source = clustering_lower_bound(inst)
    assert source == "sum d_1 + min f" and value <= clustering_optimum(inst) + 1e-12
