"""cellular-certified and r-cellular-certified (exact/clustering/certified.py, composed with the
paper's approximations in the registry): the approximation's clustering, verified, with a proven
lower bound between the verifier's bound and the optimum, recorded by the runner as the run's
bound."""

import numpy as np
import pytest
from bruteforce_clustering import clustering_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.engine.runner import run_record
from anonratio.bench.registry import generate
from anonratio.exact.clustering.certified import certify
from anonratio.exact.clustering.cpsat import solve_cpsat
from anonratio.instances import verify
from anonratio.instances.clustering import CellularInstance, RCellularInstance, RGatherInstance
from anonratio.instances.clustering.verify import clustering_lower_bound
from anonratio.solvers.clustering.primal_dual import primal_dual
from anonratio.solvers.clustering.r_cellular import r_cellular

TOL = 1e-7


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 9), r=st.integers(1, 3), f=st.booleans())
def test_the_approximations_clustering_with_a_valid_bound(seed, n, r, f):
    rng = np.random.default_rng(seed)
    pts = rng.random((n, 2)).round(2)
    costs = rng.random(n).round(1) if f else None
    for inst, algorithm in (
        (CellularInstance(pts, costs), primal_dual),
        (RCellularInstance(pts, min(r, n), costs), r_cellular),
    ):
        start = algorithm(inst)
        sol = certify(inst, start, time_limit=10, seed=0, algorithm="x")
        check = verify(inst, sol)  # the declared centers and radii are the verified ones
        assert sol.status == "feasible" and sol.algorithm == "x"
        assert np.array_equal(sol.labels, start.labels)
        assert sol.objective == pytest.approx(check.cost) == pytest.approx(start.objective)
        opt = clustering_optimum(inst)
        assert clustering_lower_bound(inst)[0] - TOL <= sol.lower_bound <= opt + TOL
        assert sol.info["lp_solved"] and sol.info["bound_lp"] <= sol.lower_bound + TOL
        sources = ("lp-lagrangian", sol.info["bound_cheap_source"], f"{start.algorithm}-bound")
        assert sol.info["lower_bound_source"] in sources
        if start.lower_bound is not None:  # the approximation's own proven bound is kept
            assert sol.lower_bound >= start.lower_bound
        if sol.objective > 0:
            gap = (sol.objective - sol.lower_bound) / sol.objective
            assert sol.gap == pytest.approx(max(gap, 0.0), abs=1e-9)


def test_at_most_the_exact_optimum_of_a_larger_instance():
    pts = np.random.default_rng(8).random((16, 2))
    inst = RCellularInstance(pts, 3, np.full(16, 0.3))
    exact = solve_cpsat(inst, time_limit=30)
    sol = certify(inst, r_cellular(inst), time_limit=10)
    assert exact.status == "optimal"
    assert clustering_lower_bound(inst)[0] < sol.lower_bound <= exact.objective + TOL


def test_certify_refuses_an_infeasible_clustering():
    pts = np.random.default_rng(0).random((8, 2))
    inst = RCellularInstance(pts, 3, None)
    sol = r_cellular(inst)
    bad = sol.replace(labels=np.arange(inst.n), info={})
    with pytest.raises(ValueError, match="`solution` is not feasible"):
        certify(inst, bad)
    with pytest.raises(ValueError, match="RGatherInstance"):
        certify(RGatherInstance(pts, 2), sol)
    with pytest.raises(ValueError, match="time_limit"):
        certify(inst, sol, time_limit=-1)


@pytest.mark.parametrize(
    ("family", "algorithm", "certified"),
    [
        ("cellular-uniform", "primal-dual", "cellular-certified"),
        ("rcellular-uniform", "r-cellular", "r-cellular-certified"),
    ],
)
def test_the_runner_records_the_certified_bound(family, algorithm, certified):
    inst, meta = generate(family, seed=0, n=40)
    rows = {
        a: run_record(inst, a, seed=0, time_limit=10, family=family, meta=meta)
        for a in (algorithm, certified)
    }
    cert = rows[certified]
    assert cert.verified and cert.status == "feasible"
    assert cert.cost == pytest.approx(rows[algorithm].cost)
    assert cert.run_lower_bound == pytest.approx(cert.solution.lower_bound)
    assert cert.run_lower_bound_source == "lp-lagrangian"
    assert cert.run_lower_bound >= rows[algorithm].run_lower_bound - 1e-6
    assert cert.guarantee == rows[algorithm].guarantee


def test_beyond_the_lp_size_the_closed_form_bound_stands(monkeypatch):
    from anonratio.exact.clustering import certified

    monkeypatch.setattr(certified, "MAX_POINTS", 5)
    pts = np.random.default_rng(3).random((8, 2))
    inst = RCellularInstance(pts, 2, np.full(8, 0.2))
    start = r_cellular(inst)
    sol = certify(inst, start, time_limit=10)
    cheap, cheap_source = clustering_lower_bound(inst)
    assert sol.lower_bound == pytest.approx(max(cheap, start.lower_bound or 0.0))
    assert not sol.info["lp_solved"] and sol.info["bound_lp"] is None
    if sol.lower_bound == pytest.approx(cheap) and cheap > (start.lower_bound or 0.0):
        assert sol.info["lower_bound_source"] == f"{cheap_source} (no cluster LP: n > MAX_POINTS=5)"
