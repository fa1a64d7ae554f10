"""Tests of solvers/tcloseness/mondrian.py: feasible, never below the optimum, cuts chosen by
stars removed, bad input refused."""

import numpy as np
import pytest
from bruteforce_tcloseness import make, tables, tcloseness_optimum
from hypothesis import given, settings

from anonratio.instances import verify
from anonratio.instances.tcloseness import random_instance
from anonratio.solvers.tcloseness import METHODS, t_close
from anonratio.solvers.tcloseness.mondrian import _best_cut, mondrian


@pytest.mark.parametrize("ground", ["equal", "ordered"])
@pytest.mark.parametrize("cuts", ["both", "median", "mode"])
def test_the_partition_is_verified_feasible(ground, cuts):
    for seed in range(4):
        inst, _ = random_instance(
            120, d=4, cardinality=4, m=4, t=0.25, k=3, correlation=0.5, ground=ground, seed=seed
        )
        sol = mondrian(inst, cuts=cuts)
        check = verify(inst, sol.labels)  # strict: raises when infeasible
        assert sol.objective == check.cost and sol.info["n_groups"] == check.n_groups
        assert sol.lower_bound <= sol.objective and sol.algorithm == "tclose-mondrian"


@settings(max_examples=120, deadline=None, derandomize=True)
@given(tables())
def test_never_below_the_brute_force_optimum_and_always_feasible(inst):
    sol = mondrian(inst)
    check = verify(inst, sol.labels, strict=False)
    assert check.feasible
    optimum, _ = tcloseness_optimum(inst)
    assert check.cost >= optimum


def test_without_a_closeness_limit_it_cuts_down_to_the_qi_groups():
    inst, _ = random_instance(200, d=3, cardinality=3, m=4, t=1.0, k=1, seed=2)
    assert mondrian(inst).objective == 0.0


def test_the_cut_that_removes_most_stars_is_taken():
    # 16 stars as one group. Cutting column 1 ({0,1} | the rest) leaves 6 stars (column 0 in
    # the right half); cutting column 0 ({0..3} | the rest) leaves 8 (column 1 on the left,
    # column 0 on the right).
    codes = [[0, 0], [0, 0], [0, 1], [0, 1], [1, 1], [1, 1], [2, 1], [2, 1]]
    inst = make(codes, [0, 1] * 4, t=0.0, k=2)
    mask, (column, _), gain = _best_cut(inst, np.arange(8), "both")
    assert column == 1 and gain == 10 and mask.tolist() == [True] * 2 + [False] * 6
    # then each pair is cut off: nothing is left starred
    assert mondrian(inst).objective == 0.0


def test_no_cut_when_every_half_is_far():
    # value 0 on the left, 1 on the right: any cut on the column gives two far halves
    inst = make([[0], [0], [1], [1]], [0, 0, 1, 1], t=0.2)
    sol = mondrian(inst)
    assert sol.info["n_groups"] == 1 and sol.objective == 4.0


def test_deterministic_and_dispatched_by_name():
    inst, _ = random_instance(80, d=3, cardinality=4, m=3, t=0.3, k=2, seed=5)
    a, b = t_close(inst, method="tclose-mondrian", seed=1), mondrian(inst, seed=2)
    assert np.array_equal(a.labels, b.labels) and a.seed == 1
    assert METHODS == {"tclose-mondrian": mondrian}


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"cuts": "widest"}, ValueError, "`cuts`"),
        ({"seed": -1}, ValueError, "`seed`"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, error, name):
    inst, _ = random_instance(10, d=2, cardinality=2, m=2, t=0.3, seed=0)
    with pytest.raises(error, match=name):
        mondrian(inst, **kwargs)


def test_another_problem_is_refused():
    with pytest.raises(TypeError, match="`instance` must be a TClosenessInstance"):
        mondrian(object())
    with pytest.raises(ValueError, match="`method`"):
        t_close(random_instance(4, d=1, cardinality=2, m=2, t=0.5, seed=0)[0], method="nope")
