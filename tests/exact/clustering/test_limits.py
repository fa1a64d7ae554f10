"""Tests of exact/clustering/limits.py: a run a limit stopped before its solver had a clustering
or a bound keeps the hint's clustering and the bound it holds without a solver."""

import numpy as np
import pytest

from anonratio.exact.clustering import cpsat as cpsat_module
from anonratio.exact.clustering import ilp as ilp_module
from anonratio.exact.clustering.cpsat import solve_cpsat
from anonratio.exact.clustering.ilp import solve_cbc, solve_highs
from anonratio.exact.run import RunResult
from anonratio.instances import Solution, verify
from anonratio.instances.clustering import KRCenterInstance, RCellularInstance
from anonratio.instances.clustering.verify import clustering_lower_bound


def _stopped_empty(*args, **kwargs):
    """A solver run its limit stopped before any solution or bound (CP-SAT's UNKNOWN)."""
    info = {"solver": "test", "solver_status": "UNKNOWN", "n_variables": 1, "n_constraints": 1}
    return RunResult("time_limit", None, None, None, 0.1, None, info)


INSTANCES = {
    "kr-center": lambda pts: KRCenterInstance(pts, 2, 3),
    "r-cellular": lambda pts: RCellularInstance(pts, 3, np.full(len(pts), 0.5)),
}


@pytest.mark.parametrize("solve", [solve_cpsat, solve_highs, solve_cbc])
@pytest.mark.parametrize("problem", ["kr-center", "r-cellular"])
def test_a_solver_stopped_empty_keeps_the_hint_and_the_held_bound(problem, solve, monkeypatch):
    monkeypatch.setattr(cpsat_module, "run_cpsat", _stopped_empty)
    monkeypatch.setattr(ilp_module, "run_pulp", _stopped_empty)
    inst = INSTANCES[problem](np.random.default_rng(7).random((10, 2)))
    hint = np.zeros(10, dtype=np.int64)
    sol = solve(inst, time_limit=10, hint=hint)
    assert sol.status == "time_limit" and np.array_equal(sol.labels, hint)
    assert sol.objective == verify(inst, sol).cost
    assert clustering_lower_bound(inst)[0] <= sol.lower_bound <= sol.objective
    if problem == "kr-center":  # the model data's bound: the least r-point radius, at least
        assert sol.lower_bound == sol.info["lower_bound_used"]
    assert sol.info["solver_status"] == "UNKNOWN"


def test_a_hint_with_a_proven_bound_keeps_it(monkeypatch):
    monkeypatch.setattr(cpsat_module, "run_cpsat", _stopped_empty)
    inst = INSTANCES["r-cellular"](np.random.default_rng(7).random((10, 2)))
    labels = np.zeros(10, dtype=np.int64)
    cost = verify(inst, labels).cost
    proven = Solution(labels, "x", objective=cost, lower_bound=cost)  # tight: proves it optimal
    sol = solve_cpsat(inst, time_limit=10, hint=proven)
    assert sol.status == "optimal" and sol.lower_bound == sol.objective == cost
