"""Tests of solvers/clustering/primal_dual.py: Theorem 3.3 (Aggarwal et al., PODS 2006), the
primal-dual 4-approximation for CELLULAR CLUSTERING, against the brute force."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum, points
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from anonratio.instances import verify
from anonratio.instances.clustering import CellularInstance, RCellularInstance
from anonratio.solvers.clustering.primal_dual import primal_dual


@st.composite
def instances(draw, max_n=9):
    pts, metric = draw(points(max_n))
    n = pts.shape[0]
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    scale = draw(st.sampled_from([0.0, 0.1, 1.0, 5.0, 1e4]))
    f = rng.random(n) * scale if draw(st.booleans()) else np.full(n, scale)
    return CellularInstance(pts, f, metric=metric)


def check_solution(inst, sol):
    """Verified; objective = the true cost <= 4 sum alpha (Theorem 3.3); returns the cost."""
    check = verify(inst, sol)
    assert check.cost == pytest.approx(sol.objective, rel=1e-12, abs=1e-12)
    assert sol.algorithm == "primal-dual" and sol.status == "feasible" and sol.params == {}
    dual = sol.info["dual"]
    assert sol.lower_bound == pytest.approx(max(dual, inst.facility.min()))
    assert check.cost <= 4 * dual + 1e-9
    if dual > 0:
        assert sol.info["ratio_to_dual"] == pytest.approx(check.cost / dual)
    assert sol.info["n_opened"] == check.n_clusters
    return check.cost


@settings(max_examples=60, deadline=None, derandomize=True)
@given(instances())
def test_four_approximation_and_lower_bound(inst):
    sol = primal_dual(inst)
    cost = check_solution(inst, sol)
    optimum = clustering_optimum(inst)
    assert sol.lower_bound <= optimum + 1e-9
    assert cost <= 4 * optimum + 1e-9


def test_zero_setup_costs_cost_nothing():
    # every point its own center (duplicates share one): optimum 0
    inst = CellularInstance([[0, 0], [0, 0], [1, 0], [5, 5], [5, 5], [9, 1]])
    sol = primal_dual(inst)
    assert check_solution(inst, sol) == 0 == clustering_optimum(inst)
    assert sol.labels.tolist() == [0, 0, 1, 2, 2, 3] and sol.lower_bound == 0
    assert sol.info["ratio_to_dual"] is None


def test_duplicates_stay_together():
    rng = np.random.default_rng(1)
    base = rng.random((4, 2))
    inst = CellularInstance(np.repeat(base, 2, axis=0), facility_costs=np.full(8, 0.3))
    sol = primal_dual(inst)
    check_solution(inst, sol)
    assert np.all(sol.labels[0::2] == sol.labels[1::2])
    assert sol.objective <= 4 * clustering_optimum(inst) + 1e-9


def test_huge_setup_costs_make_one_cluster():
    rng = np.random.default_rng(2)
    inst = CellularInstance(rng.random((9, 2)), facility_costs=np.full(9, 1e6))
    sol = primal_dual(inst)
    check_solution(inst, sol)
    assert np.all(sol.labels == 0)
    assert sol.objective <= 4 * clustering_optimum(inst)


def test_graph_metric_example():
    # a path 0 - 1 - 2 - 3 - 4 with unit edges, setup 2: {0,1,2} and {3,4} around 1 and 3
    w = np.diag(np.ones(4), 1)
    inst = CellularInstance(shortest_path(w, directed=False), np.full(5, 2.0), metric="precomputed")
    sol = primal_dual(inst)
    cost = check_solution(inst, sol)
    assert cost <= 4 * clustering_optimum(inst)
    assert sol.lower_bound <= clustering_optimum(inst)


def test_docstring_example_and_info():
    inst = CellularInstance([[0.0], [1.0], [10.0], [11.0]], facility_costs=[1, 1, 1, 1])
    sol = primal_dual(inst, seed=7)
    assert sol.labels.tolist() == [0, 0, 1, 1] and sol.objective == 6.0
    assert sol.lower_bound == 4.0 == clustering_optimum(inst)  # the dual is tight here
    assert sol.seed == 7 and sol.time_s >= 0
    assert sol.info["centers"] == [0, 2] and sol.info["radii"] == [1.0, 1.0]
    assert sol.info["events"] == 3 and sol.info["n_opened"] == 2  # one opened cluster was empty
    assert sol.info["max_alpha"] == 1.0 and sol.info["cap"] == 1.0


def test_medium_instance():
    rng = np.random.default_rng(3)
    inst = CellularInstance(rng.random((400, 2)), rng.random(400) * 0.1)
    sol = primal_dual(inst)
    check_solution(inst, sol)
    assert 1 < sol.info["n_opened"] < 400


def test_input_validation():
    with pytest.raises(TypeError, match="`instance` must be a CellularInstance"):
        primal_dual(RCellularInstance([[0.0], [1.0]], r=1))
    with pytest.raises(ValueError, match="`seed` must be None"):
        primal_dual(CellularInstance([[0.0]]), seed=-1)
