"""bench/declarations.py: how a registered algorithm is run. The run's time limit is one deadline
for the whole run: the warm start (``hint``) takes a share of it, the algorithm the rest, and
every solver inside stops by it. The tests read the limits each part receives, not the clock."""

from __future__ import annotations

import time

import numpy as np
import pulp
import pytest
from ortools.sat.python import cp_model

from anonratio.bench import declarations
from anonratio.bench.declarations import WARM_START_SHARE, Algorithm
from anonratio.bench.engine.runner import run_record
from anonratio.bench.problems import kanonymity as kanonymity_problem
from anonratio.bench.registry import generate, get_algorithm
from anonratio.exact import pulp_run
from anonratio.exact import run as exact_run
from anonratio.instances import Solution


def _algorithm(function, hint=None):
    return Algorithm(
        name="probe",
        problem="k-anonymity",
        kind="exact",
        function=function,
        guarantee=lambda instance, solution=None: 1.0,
        guarantee_text="1",
        source="test",
        complexity="O(1)",
        hint=hint,
    )


@pytest.fixture
def run_deadlines(monkeypatch):
    """The deadlines :meth:`Algorithm.run` sets for its runs, in order."""
    seen = []
    real = declarations.run_deadline

    def recording(deadline):
        seen.append(deadline)
        return real(deadline)

    monkeypatch.setattr(declarations, "run_deadline", recording)
    return seen


def _instance():
    return generate("kanon-binary", seed=0, n=8, m=3, k=2)[0]


def _one_group(instance):
    return Solution(np.zeros(instance.n, dtype=np.int64), "probe", status="feasible")


def test_the_warm_start_and_the_algorithm_share_one_deadline(run_deadlines):
    seen = {}

    def hint(instance, seed=None, time_limit=None):
        seen["hint"] = (time.perf_counter(), time_limit)
        time.sleep(0.3)  # a warm start that overruns the whole limit
        return _one_group(instance)

    def function(instance, *, seed=None, time_limit=60.0, threads=1, hint=None):
        seen["function"] = (time.perf_counter(), time_limit)
        return hint

    limit = 0.2
    start = time.perf_counter()
    _algorithm(function, hint).run(_instance(), seed=0, time_limit=limit)
    (deadline,) = run_deadlines
    assert start <= deadline - limit <= seen["hint"][0]  # measured from the run's start
    called, hint_limit = seen["hint"]
    assert hint_limit == pytest.approx(WARM_START_SHARE * limit)
    assert called + hint_limit <= deadline  # the hint's own deadline is inside the run's
    called, left = seen["function"]
    assert left == pytest.approx(1e-3)  # nothing left: the algorithm stops at once


def test_a_warm_start_without_a_time_limit_counts_against_the_run():
    seen = {}

    def hint(instance, seed=None):  # an approximation: runs to its end
        time.sleep(0.2)
        return _one_group(instance)

    def function(instance, *, seed=None, time_limit=60.0, hint=None):
        seen["function"] = (time.perf_counter(), time_limit)
        return hint

    _algorithm(function, hint).run(_instance(), time_limit=5.0)
    called, left = seen["function"]
    assert left <= 5.0 - 0.2  # the hint's time is spent


def test_every_solver_in_a_run_stops_by_its_deadline(monkeypatch, run_deadlines):
    """A model that takes the run's whole limit to build still gets no more time from CP-SAT,
    HiGHS or CBC than the run has left, whatever ``time_limit`` it asks them for."""
    given = {}
    solver = exact_run._cpsat_solver

    def cpsat_solver(time_limit, *args):
        given["cpsat"] = time_limit
        return solver(time_limit, *args)

    def record_deadline(name, real):
        def wrapped(prob, **options):
            given[name] = options["deadline"]
            return real(prob, **options)

        return wrapped

    monkeypatch.setattr(exact_run, "_cpsat_solver", cpsat_solver)
    monkeypatch.setattr(pulp_run, "_solve_highs", record_deadline("highs", pulp_run._solve_highs))
    monkeypatch.setattr(pulp_run, "_solve_cbc", record_deadline("cbc", pulp_run._solve_cbc))

    def function(instance, *, seed=None, time_limit=60.0):
        time.sleep(0.2)  # building a model past the run's limit
        model = cp_model.CpModel()
        x = model.new_int_var(0, 10, "x")
        model.minimize(x)
        exact_run.run_cpsat(model, time_limit=60)
        for solver_name in ("highs", "cbc"):
            prob = pulp.LpProblem("p", pulp.LpMinimize)
            y = prob.add_variable("y", 0, 10, cat=pulp.LpInteger)
            prob += y
            exact_run.run_pulp(prob, solver=solver_name, time_limit=60)
        return _one_group(instance)

    _algorithm(function).run(_instance(), time_limit=0.1)
    (deadline,) = run_deadlines
    assert given["cpsat"] == pytest.approx(1e-3)  # not the 60 s asked for
    assert given["highs"] == given["cbc"] == deadline


@pytest.mark.parametrize("algorithm", ["kanon-cpsat", "kanon-highs", "kanon-cbc"])
def test_the_exact_models_warm_start_takes_its_share_of_the_limit(monkeypatch, algorithm):
    # the local search used to get 10 s whatever the run's limit (a 2 s run took 14.5 s)
    limits = []
    real = kanonymity_problem.local_search

    def local_search(instance, *, seed=None, time_limit=60.0):
        limits.append(time_limit)
        return real(instance, seed=seed, time_limit=time_limit)

    monkeypatch.setattr(kanonymity_problem, "local_search", local_search)
    instance, meta = generate("kanon-binary", seed=1, n=12, m=4, k=3)
    record = run_record(instance, algorithm, time_limit=2.0, meta=meta)
    assert limits == [pytest.approx(WARM_START_SHARE * 2.0)]
    assert record.verified and record.status in ("optimal", "time_limit", "feasible")
    assert get_algorithm(algorithm).hint is kanonymity_problem._best_known_hint
