"""Tests of exact/pulp_run.py against PuLP's deprecations: every kind of PuLP solve runs with
DeprecationWarning as an error (PuLP 3.3.2 warns for what PuLP 4.0 removes: ``PULP_CBC_CMD``,
``LpProblem.constraints`` as a dict, ``LpVariable(...)``), and CBC is found without
``PULP_CBC_CMD``."""

import os
import sys
import warnings

import numpy as np
import pulp
import pytest

from anonratio.exact import pulp_run
from anonratio.exact.pulp_run import cbc_executable, run_pulp


def _knapsack():
    """max 5a + 4b + 3c, 2a + 3b + c <= 5, a, b, c in {0, 1}: optimum 9 (a and b)."""
    prob = pulp.LpProblem("knapsack", pulp.LpMaximize)
    a, b, c = (prob.add_variable(name, 0, 1, cat=pulp.LpBinary) for name in "abc")
    prob += 5 * a + 4 * b + 3 * c
    prob += 2 * a + 3 * b + c <= 5, "weight"
    return prob, (a, b, c)


@pytest.fixture
def migration_calls(monkeypatch):
    """Every call of PuLP 3.3's migration-warning hook, even under a filter that ignores the
    warning (``PULP_CBC_CMD`` used to be built inside one)."""
    calls = []

    def record(message, stacklevel=2):
        calls.append(message)

    monkeypatch.setattr(pulp.pulp, "_v4_deprecation", record, raising=False)
    monkeypatch.setattr(pulp.apis.coin_api, "v4_deprecation", record, raising=False)
    return calls


@pytest.mark.parametrize("warm_start", [False, True])
@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pulp_solves_raise_no_deprecation_warning(solver, warm_start, migration_calls):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        prob, (a, b, c) = _knapsack()
        if warm_start:
            for var, value in zip((a, b, c), (1, 0, 1), strict=True):
                var.setInitialValue(value)
        run = run_pulp(prob, solver=solver, time_limit=10, warm_start=warm_start, integral=True)
        assert (run.status, run.objective, run.bound) == ("optimal", 9.0, 9.0)
        assert [run.value(v) for v in (a, b, c)] == [1, 1, 0]
        assert run.info["n_constraints"] == len(prob.constraints()) == 1
    assert migration_calls == []


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_exact_pulp_models_raise_no_deprecation_warning(solver, migration_calls):
    """The clustering ILP with a MIP start, end to end: its model, start and solve."""
    from anonratio.exact.clustering.ilp import solve_ilp
    from anonratio.instances.clustering import RCellularInstance

    inst = RCellularInstance(np.random.default_rng(0).random((6, 2)), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        sol = solve_ilp(inst, solver=solver, time_limit=10, hint=np.zeros(6, dtype=np.int64))
    assert sol.status == "optimal" and sol.info["hint_used"] is True
    assert migration_calls == []


def test_cbc_executable_is_found_without_pulp_cbc_cmd():
    path = cbc_executable()
    assert path is not None and os.access(path, os.X_OK)


def test_cbc_executable_falls_back_to_path_then_reports_none(monkeypatch):
    monkeypatch.setattr(pulp.apis.coin_api, "pulp_cbc_path", "/nonexistent/cbc")
    monkeypatch.setitem(sys.modules, "cbcbox", None)  # `import cbcbox` fails
    monkeypatch.setattr(pulp_run.shutil, "which", lambda name: f"/somewhere/{name}")
    assert cbc_executable() == "/somewhere/cbc"
    monkeypatch.setattr(pulp_run.shutil, "which", lambda name: None)
    monkeypatch.setattr(pulp_run, "cbc_executable", lambda: None)
    prob, _ = _knapsack()
    run = run_pulp(prob, solver="cbc", time_limit=10)
    assert run.status == "error"
    assert "CBC is not available" in run.info["reason"] and "pulp[cbc]" in run.info["reason"]
