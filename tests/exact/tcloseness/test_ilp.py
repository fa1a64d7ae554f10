"""Tests of exact/tcloseness/ilp.py: the HiGHS model agrees with CP-SAT and with brute force."""

import pytest
from bruteforce_tcloseness import make, tables, tcloseness_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.tcloseness import solve_cpsat, solve_highs
from anonratio.instances import verify
from anonratio.instances.tcloseness import random_instance


@settings(max_examples=40, deadline=None, derandomize=True)
@given(tables())
def test_optimal_and_equal_to_brute_force(proof, inst):
    with proof.work():
        sol = solve_highs(inst, time_limit=proof.time_limit)
    optimum, _ = tcloseness_optimum(inst)
    assert sol.status == "optimal" and sol.objective == optimum == sol.lower_bound
    assert verify(inst, sol.labels).cost == optimum


# 10 examples: each model is checked against the brute force above and in test_cpsat.py
@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from(["equal", "ordered"]), st.sampled_from([1, 2, 3]))
def test_the_two_models_agree(proof, seed, ground, k):
    inst, _ = random_instance(
        15, d=3, cardinality=3, m=3, t=0.25, k=k, correlation=0.4, ground=ground, seed=seed
    )
    with proof.work():
        a = solve_cpsat(inst, time_limit=proof.time_limit)
        b = solve_highs(inst, time_limit=proof.time_limit)
    assert a.status == b.status == "optimal"
    assert a.objective == b.objective


def test_the_docstring_example():
    sol = solve_highs(make([[0], [0], [1], [1]], [0, 0, 1, 1], t=0.2, k=2), time_limit=10)
    assert (sol.status, sol.objective, sol.algorithm) == ("optimal", 4.0, "tclose-highs")


def test_bad_input_names_the_parameter():
    inst = make([[0], [1]], [0, 1], t=0.5)
    with pytest.raises(ValueError, match="`time_limit`"):
        solve_highs(inst, time_limit=-1)


def test_highs_presolve_is_off_where_it_proved_a_wrong_optimum():
    # HiGHS 1.14 with presolve reported 17 as optimal here; the optimum is 15
    inst, _ = random_instance(
        15, d=3, cardinality=3, m=3, t=0.25, k=2, correlation=0.4, ground="ordered", seed=570
    )
    sol = solve_highs(inst, time_limit=30)
    assert sol.status == "optimal" and sol.objective == 15.0 == solve_cpsat(inst).objective
