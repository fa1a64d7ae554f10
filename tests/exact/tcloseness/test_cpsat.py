"""Tests of exact/tcloseness/cpsat.py: optimal against brute force, status from CP-SAT's proof,
bounds, hints and bad input."""

import numpy as np
import pytest
from bruteforce_tcloseness import make, tables, tcloseness_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.tcloseness import METHODS, solve_cpsat, solve_tcloseness
from anonratio.instances import verify
from anonratio.instances.tcloseness import random_instance
from anonratio.solvers.tcloseness.mondrian import mondrian


@settings(max_examples=80, deadline=None, derandomize=True)
@given(tables())
def test_optimal_and_equal_to_brute_force(proof, inst):
    with proof.work():
        sol = solve_cpsat(inst, time_limit=proof.time_limit)
    optimum, _ = tcloseness_optimum(inst)
    assert sol.status == "optimal"
    assert sol.objective == optimum == sol.lower_bound
    assert verify(inst, sol.labels).cost == optimum


# 10 examples: Mondrian's own test checks it against the brute-force optimum 120 times
@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from(["equal", "ordered"]))
def test_mondrian_never_beats_the_proven_optimum(proof, seed, ground):
    inst, _ = random_instance(
        16, d=3, cardinality=3, m=3, t=0.2, k=2, correlation=0.5, ground=ground, seed=seed
    )
    heuristic = mondrian(inst)
    with proof.work():
        exact = solve_cpsat(inst, time_limit=proof.time_limit, hint=heuristic)
    assert exact.status == "optimal"
    assert verify(inst, heuristic.labels).cost >= exact.objective


def test_the_docstring_example_and_the_one_group_start():
    inst = make([[0], [0], [1], [1]], [0, 0, 1, 1], t=0.2, k=2)
    sol = solve_cpsat(inst, time_limit=10)
    assert (sol.status, sol.objective) == ("optimal", 4.0)
    assert sol.info["one_group_cost"] == 4 and sol.algorithm == "tclose-cpsat"


def test_an_upper_bound_below_the_optimum_proves_infeasibility():
    inst = make([[0], [0], [1], [1]], [0, 0, 1, 1], t=0.2, k=2)
    sol = solve_cpsat(inst, time_limit=10, upper_bound=3)
    assert sol.status == "infeasible" and sol.labels is None and sol.lower_bound is None


def test_a_hint_is_used_and_dispatch_by_name():
    inst, _ = random_instance(14, d=3, cardinality=3, m=3, t=0.3, k=2, seed=3)
    hint = mondrian(inst)
    sol = solve_tcloseness(inst, method="tclose-cpsat", time_limit=20, hint=hint)
    assert sol.info["hint_cost"] == hint.objective and sol.params["hint"] is True
    assert sol.objective <= hint.objective
    assert set(METHODS) == {"tclose-cpsat", "tclose-highs"}


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"time_limit": 0}, "`time_limit`"),
        ({"threads": 0}, "`threads`"),
        ({"seed": -1}, "`seed`"),
        ({"upper_bound": -2}, "`upper_bound`"),
        ({"hint": np.array([0, 0, 1, 1])}, "`hint` must be a feasible solution"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, name):
    inst = make([[0], [0], [1], [1]], [0, 0, 1, 1], t=0.2, k=2)
    with pytest.raises(ValueError, match=name):
        solve_cpsat(inst, **kwargs)


def test_another_problem_is_refused():
    with pytest.raises(TypeError, match="TClosenessInstance"):
        solve_cpsat(object(), time_limit=1)
