"""Tests of exact/clustering/cpsat.py (and the dispatcher): tiny instances of the five problems
against the brute-force optimum."""

import math
import re
from time import perf_counter

import numpy as np
import pytest
from bruteforce_clustering import any_instances as instances
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist, squareform

from anonratio.exact.clustering import METHODS, deadline, solve_clustering, solve_highs
from anonratio.exact.clustering import cpsat as cpsat_module
from anonratio.exact.clustering.cpsat import solve_cpsat
from anonratio.exact.options import run_deadline
from anonratio.exact.run import run_cpsat
from anonratio.instances import Solution, verify
from anonratio.instances.clustering import (
    CellularInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from anonratio.instances.clustering.verify import clustering_lower_bound

PROBLEMS = ("r-gather", "r-eps-gather", "kr-center", "cellular", "r-cellular")


def check_optimal(inst, sol, optimum=None):
    """Optimal, verified (cost == objective, declared radii exact), bound == objective."""
    assert sol.status == "optimal", sol.info
    check = verify(inst, sol)
    assert check.cost == sol.objective
    assert sol.lower_bound == pytest.approx(sol.objective, rel=1e-6, abs=1e-9)
    labels = np.asarray(sol.labels)
    used = np.unique(labels[labels >= 0])
    assert used.tolist() == list(range(len(sol.info["centers"])))  # contiguous ids
    if optimum is not None:
        assert sol.objective == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    return check


@settings(max_examples=25, deadline=None, derandomize=True)
@given(instances())
def test_cpsat_matches_brute_force(inst):
    sol = solve_cpsat(inst, time_limit=20)
    assert sol.algorithm == f"{inst.problem}-cpsat"
    check_optimal(inst, sol, clustering_optimum(inst))
    assert sol.params["hint"] is False and sol.params["time_limit"] == 20


@pytest.mark.parametrize("problem", PROBLEMS)
def test_each_problem_on_a_fixed_instance(problem):
    pts = np.random.default_rng(3).random((8, 2))
    inst = {
        "r-gather": RGatherInstance(pts, 3),
        "r-eps-gather": REpsGatherInstance(pts, 3, 0.25),
        "kr-center": KRCenterInstance(pts, 2, 3),
        "cellular": CellularInstance(pts, np.full(8, 0.5)),
        "r-cellular": RCellularInstance(pts, 3, np.full(8, 0.5)),
    }[problem]
    sol = solve_cpsat(inst, time_limit=20, seed=7)
    check = check_optimal(inst, sol, clustering_optimum(inst))
    assert sol.seed == 7 and sol.params == {**sol.params, **inst.params}
    assert sol.info["n_pairs"] > 0 and sol.info["n_variables"] >= sol.info["n_pairs"]
    if problem == "r-eps-gather":
        assert check.n_unclustered <= inst.max_outliers == 2
    if problem == "kr-center":
        assert check.n_clusters <= 2
    if problem in ("cellular", "r-cellular"):
        assert sol.info["n_clusters"] <= sol.info["n_clusters_max"] == 64
        # float costs: rounded down to integers, resolving far below the tolerance
        assert sol.info["objective_scaling"].endswith("(rounded down)")
        assert 0 < sol.info["objective_resolution"] < 1e-9 * sol.objective


def test_paper_figure_1_example():
    # Figure 1 (Aggarwal et al. 2006): (age, location) of five records, 2-gather radius 3. The
    # paper's centers (alpha + 1, beta) are not records; with records as centers (manhattan)
    # the 2-cellular cost is 2 x 2 + 3 x 3 = 13 instead of the figure's 11
    pts = [[30, 0], [32, 0], [60, 13], [60, 10], [60, 7]]
    for inst, cost in (
        (RGatherInstance(pts, 2, metric="manhattan"), 3.0),
        (RCellularInstance(pts, 2, metric="manhattan"), 13.0),
    ):
        sol = solve_cpsat(inst, time_limit=10)
        check_optimal(inst, sol, clustering_optimum(inst))
        assert sol.objective == cost
    assert sol.info["objective_scaling"] == "integer x 1"


def test_duplicate_points_have_zero_radius():
    pts = [[1.0, 1.0]] * 3 + [[5.0, 5.0]] * 3
    for inst in (RGatherInstance(pts, 3), RCellularInstance(pts, 3, [1.0] * 6)):
        sol = solve_cpsat(inst, time_limit=10)
        check_optimal(inst, sol, clustering_optimum(inst))
    assert solve_cpsat(RGatherInstance(pts, 3), time_limit=10).objective == 0.0
    assert solve_cpsat(RCellularInstance(pts, 3, [1.0] * 6), time_limit=10).objective == 2.0


def test_precomputed_metric_matches_coordinates():
    pts = np.random.default_rng(0).random((7, 3))
    for make in (
        lambda p, m: RGatherInstance(p, 2, metric=m),
        lambda p, m: CellularInstance(p, None, metric=m),
    ):
        coords = solve_cpsat(make(pts, "euclidean"), time_limit=10)
        matrix = solve_cpsat(make(squareform(pdist(pts)), "precomputed"), time_limit=10)
        assert matrix.objective == pytest.approx(coords.objective, rel=1e-12)


def test_center_outside_its_cluster_is_allowed():
    # a star: the hub is the best center for both leaves pairs but can join only one cluster
    d = np.array(
        [[0, 1, 1, 1, 1], [1, 0, 2, 2, 2], [1, 2, 0, 2, 2], [1, 2, 2, 0, 2], [1, 2, 2, 2, 0]],
        dtype=float,
    )
    inst = RGatherInstance(d, 2, metric="precomputed")
    sol = solve_cpsat(inst, time_limit=10)
    check_optimal(inst, sol, clustering_optimum(inst))
    assert sol.objective == 1.0  # two clusters centered at the hub
    assert sol.info["centers"] == [0, 0] or len(sol.info["centers"]) == 1


@pytest.mark.parametrize("problem", ["r-gather", "r-cellular"])
def test_tiny_time_limit_gives_a_valid_bound(problem):
    pts = np.random.default_rng(1).random((40, 2))
    inst = RGatherInstance(pts, 3) if problem == "r-gather" else RCellularInstance(pts, 3)
    sol = solve_cpsat(inst, time_limit=1e-3)
    assert sol.status in ("time_limit", "optimal")
    if sol.labels is not None:
        cost = verify(inst, sol).cost
        assert cost == sol.objective
        assert sol.lower_bound is None or sol.lower_bound <= cost + 1e-9


@pytest.mark.parametrize("problem", ["r-eps-gather", "r-cellular"])
def test_hint_is_accepted(problem):
    pts = np.random.default_rng(4).random((8, 2))
    inst = (
        REpsGatherInstance(pts, 2, 0.2) if problem == "r-eps-gather" else RCellularInstance(pts, 2)
    )
    best = solve_cpsat(inst, time_limit=10)
    trivial = Solution(np.zeros(8, dtype=np.int64), "trivial")  # one cluster, best center
    for hint in (best, trivial, np.zeros(8, dtype=np.int64)):
        sol = solve_cpsat(inst, time_limit=10, hint=hint)
        check_optimal(inst, sol, best.objective)
        assert sol.params["hint"] is True
        assert sol.info["upper_bound_used"] <= sol.info["hint_cost"] + 1e-12
        # a hint no better than the model's own upper bound is not passed on
        used = sol.info["hint_cost"] <= sol.info["upper_bound_used"]
        assert sol.info["hint_used"] is used and (used or hint is not best)
    assert solve_cpsat(inst, time_limit=10, hint=best).info["hint_cost"] == pytest.approx(
        best.objective
    )


def test_infeasible_hint_is_rejected():
    inst = RGatherInstance(np.arange(6.0), 3)
    with pytest.raises(ValueError, match="hint"):
        solve_cpsat(inst, hint=np.arange(6))  # singletons are too small
    with pytest.raises(ValueError, match="hint"):
        solve_cpsat(inst, hint=Solution(None, "x"))


@pytest.mark.parametrize("problem", ["r-gather", "cellular"])
def test_upper_bound_below_the_optimum_is_infeasible(problem):
    pts = np.random.default_rng(2).random((7, 2))
    inst = RGatherInstance(pts, 3) if problem == "r-gather" else CellularInstance(pts, [0.5] * 7)
    opt = clustering_optimum(inst)
    sol = solve_cpsat(inst, time_limit=10, upper_bound=opt * 0.9)
    assert sol.status == "infeasible" and sol.labels is None and sol.lower_bound is None
    assert sol.info["reason"]
    ok = solve_cpsat(inst, time_limit=10, upper_bound=opt * 1.01)
    check_optimal(inst, ok, opt)


def test_bad_input():
    inst = RGatherInstance(np.arange(6.0), 2)
    with pytest.raises(TypeError, match="`instance`"):
        solve_cpsat(np.arange(6.0))
    for kw, name in (({"time_limit": 0}, "time_limit"), ({"seed": -1}, "seed")):
        with pytest.raises(ValueError, match=name):
            solve_cpsat(inst, **kw)
    with pytest.raises((ValueError, TypeError), match="threads"):
        solve_cpsat(inst, threads=0)
    with pytest.raises(ValueError, match="upper_bound"):
        solve_cpsat(inst, upper_bound=-1)


def test_dispatcher():
    inst = KRCenterInstance(np.arange(6.0), 2, 3)
    # the registry names, "<problem>-<solver>", for the five problems
    assert len(METHODS) == 15 and "r-eps-gather-cbc" in METHODS
    for method in ("kr-center-cpsat", "kr-center-highs", "kr-center-cbc"):
        sol = solve_clustering(inst, method=method, time_limit=10)
        assert sol.algorithm == method
        check_optimal(inst, sol, 1.0)
    assert solve_clustering(inst, time_limit=10).algorithm == "kr-center-cpsat"
    assert solve_clustering(inst, method=solve_highs).algorithm == "kr-center-highs"
    with pytest.raises(ValueError, match="method"):
        solve_clustering(inst, method="gurobi")
    with pytest.raises(ValueError, match="^`method` must be a model of the instance's problem"):
        solve_clustering(inst, method="r-gather-cpsat")
    with pytest.raises(ValueError, match="method"):
        solve_clustering(inst, method="cpsat")  # the former names are gone


#: 5 points each whose float costs CP-SAT's own objective scaling resolved to about 1e-6 only:
#: the search stopped "feasible" at relative gaps of 3.7e-5 (cellular) and 0.45 % (r-cellular)
#: where HiGHS and CBC prove the optimum
SCALING_GAPS = {
    "cellular": CellularInstance(
        [
            [0.196837448332059, 0.20269967300028005],
            [0.16127673728226005, 0.3345936045106897],
            [0.08857126683747865, 0.4317572149865962],
            [0.24900677396383428, 0.15594709384326777],
            [0.16519540359363397, 0.33517679792273014],
        ],
        [
            0.0039558788638800885,
            0.005523717211215678,
            0.009545552924168343,
            0.004872766789697663,
            0.003236443442067279,
        ],
    ),
    "r-cellular": RCellularInstance(
        [
            [6.474719065053554e-05],
            [6.292041826891737e-05],
            [3.2353169759670066e-05],
            [8.987908916724508e-05],
            [0.00010495103067261108],
        ],
        3,
        [
            4.0556439135759836e-05,
            0.0003170993162571351,
            8.68303993952844e-05,
            0.0006291459925393379,
            0.0001602728283383853,
        ],
    ),
}


@pytest.mark.parametrize("problem", sorted(SCALING_GAPS))
def test_float_costs_are_proven_optimal_within_the_scaling_resolution(problem):
    inst = SCALING_GAPS[problem]
    optimum = clustering_optimum(inst)
    sol = solve_cpsat(inst, time_limit=10)
    check_optimal(inst, sol, optimum)
    assert sol.lower_bound <= optimum  # a valid bound: the integer bound rounded down
    assert sol.gap <= 1e-9
    assert sol.info["objective_scaling"].endswith("(rounded down)")
    assert 0 < sol.info["objective_resolution"] <= 1e-12 * optimum
    highs = solve_highs(inst, time_limit=10)
    assert highs.status == "optimal" and highs.objective == pytest.approx(sol.objective, rel=1e-9)


@st.composite
def float_cellular(draw):
    """5-7 points with float costs over eight orders of magnitude (the scale of the points and
    of the setup costs drawn apart)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, dim = draw(st.integers(3, 7)), draw(st.integers(1, 3))
    scale = 10.0 ** draw(st.integers(-4, 4))
    pts = rng.random((n, dim)) * scale
    f = draw(st.sampled_from(["none", "uniform", "pareto"]))
    costs = {"none": None, "uniform": rng.random(n) * scale, "pareto": rng.pareto(1.0, n) * scale}
    r = draw(st.integers(1, 3))
    if r == 1:
        return CellularInstance(pts, costs[f])
    return RCellularInstance(pts, min(r, n), costs[f])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(float_cellular())
def test_cpsat_and_highs_agree_on_float_costs(inst):
    cpsat, highs = solve_cpsat(inst, time_limit=20), solve_highs(inst, time_limit=20)
    assert cpsat.status == highs.status == "optimal", (cpsat.info, highs.info)
    assert cpsat.objective == pytest.approx(highs.objective, rel=1e-9, abs=1e-15)
    assert cpsat.lower_bound <= highs.objective * (1 + 1e-12)
    assert verify(inst, cpsat).cost == cpsat.objective


# ---------------------------------------------------------------------------------------------
# the run's deadline (no wall times: a deadline already passed, patched rates and clocks)
# ---------------------------------------------------------------------------------------------
def _deadline_instance(problem):
    pts = np.random.default_rng(6).random((10, 2))
    return {
        "r-gather": RGatherInstance(pts, 3),
        "r-eps-gather": REpsGatherInstance(pts, 3, 0.2),
        "kr-center": KRCenterInstance(pts, 2, 3),
        "cellular": CellularInstance(pts, np.full(10, 0.5)),
        "r-cellular": RCellularInstance(pts, 3, np.full(10, 0.5)),
    }[problem]


@pytest.fixture
def no_solver(monkeypatch):
    """The solver must not run: the deadline stops the run before it."""

    def fail(*args, **kwargs):
        raise AssertionError("the solver was called after the deadline")

    monkeypatch.setattr(cpsat_module, "run_cpsat", fail)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_a_passed_deadline_stops_before_the_solver(problem, no_solver):
    inst = _deadline_instance(problem)
    trivial = np.zeros(10, dtype=np.int64)  # one cluster at its best center: feasible
    lb = clustering_lower_bound(inst)[0]
    with run_deadline(perf_counter() - 1):  # the registry's run deadline, already passed
        sol = solve_cpsat(inst, time_limit=10, hint=trivial)
        bare = solve_cpsat(inst, time_limit=10)
    assert sol.status == "time_limit" and np.array_equal(sol.labels, trivial)
    assert sol.objective == verify(inst, sol).cost
    assert lb <= sol.lower_bound <= sol.objective
    assert sol.info["solver_status"] == "not run"
    assert sol.info["reason"] == "the time limit came while computing the distances"
    assert bare.status == "time_limit" and bare.labels is None and bare.lower_bound == lb


def test_a_passed_deadline_keeps_the_proven_bound_of_a_hint(no_solver):
    inst = _deadline_instance("cellular")
    proven = Solution.with_bound(
        np.zeros(10, dtype=np.int64), "one-cluster", objective=None, bound=0.75, t0=perf_counter()
    )
    sol = solve_cpsat(inst, time_limit=1e-9, hint=proven)
    assert sol.status == "time_limit" and sol.lower_bound == 0.75
    assert clustering_lower_bound(inst)[0] < 0.75 < sol.objective


@pytest.mark.parametrize("problem", ["kr-center", "r-cellular"])
def test_a_model_too_large_to_load_is_refused(problem, monkeypatch, no_solver):
    monkeypatch.setitem(deadline.LOAD_SECONDS, "cpsat", 1e3)  # 1000 s a nonzero
    inst = _deadline_instance(problem)
    sol = solve_cpsat(inst, time_limit=60, hint=np.zeros(10, dtype=np.int64))
    assert sol.status == "time_limit" and sol.labels is not None
    assert re.fullmatch(
        r"a model of \d+ nonzeros needs about \S+ s to build and load into \w+, \S+ s left",
        sol.info["reason"],
    )


@pytest.mark.parametrize("problem", ["r-eps-gather", "cellular"])
def test_the_deadline_is_checked_while_the_model_is_built(problem, monkeypatch, no_solver):
    # the clock runs out right after the size check: the first variables built see it
    expired = []
    real = deadline.perf_counter
    monkeypatch.setattr(deadline, "perf_counter", lambda: math.inf if expired else real())
    checked = cpsat_module.check_size

    def check_then_expire(*args, **kwargs):
        checked(*args, **kwargs)
        expired.append(True)

    monkeypatch.setattr(cpsat_module, "check_size", check_then_expire)
    sol = solve_cpsat(_deadline_instance(problem), time_limit=60)
    assert sol.status == "time_limit" and sol.info["solver_status"] == "not run"
    assert sol.info["reason"] == "the time limit came while building the variables"


@pytest.mark.parametrize("problem", ["kr-center", "cellular"])
def test_cpsat_skips_the_presolve_step_that_ignores_the_clock(problem, monkeypatch):
    # CP-SAT's search for clauses that are exactly-one runs to a deterministic budget
    seen = []

    def record(model, **kwargs):
        seen.append(dict(kwargs.get("parameters") or {}))
        return run_cpsat(model, **kwargs)

    monkeypatch.setattr(cpsat_module, "run_cpsat", record)
    sol = solve_cpsat(_deadline_instance(problem), time_limit=20)
    assert sol.status == "optimal"
    assert seen and seen[0]["find_clauses_that_are_exactly_one"] is False
