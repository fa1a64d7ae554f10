"""Tests of solvers/relaxed_scheme.py: Theorem 11 (Du et al. 2009), checked in relaxed mode."""

from functools import partial
from importlib import import_module

import numpy as np
import pytest
from bruteforce import bin_covering_instances
from bruteforce import bin_covering_optimum as brute_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import InfeasibleSolutionError, UnsupportedInstanceError, verify
from anonratio.instances.bin_covering.generators import uniform_instance
from anonratio.instances.bin_covering.instance import BinCoveringInstance, verify_relaxed
from anonratio.solvers.bin_covering.relaxed_scheme import (
    _grid_class,
    relaxed_bound,
    relaxed_guarantee,
    relaxed_scheme,
)

# the module itself (a package-level name `relaxed_scheme` may be the function)
relaxed_module = import_module("anonratio.solvers.bin_covering.relaxed_scheme")


instances = partial(bin_covering_instances, max_n=9, max_k=40, spread=4)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    instances(),
    st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.45]),
    st.sampled_from(["sorted", "random"]),
)
def test_theorem11(inst, eps, order):
    sol = relaxed_scheme(inst, epsilon=eps, order=order, seed=0)
    check = verify(inst, sol)  # auto: relaxed mode, floor (1 - 2 eps) k
    assert check.feasible and check.relaxed and check.epsilon == eps
    k, optimum = inst.k, brute_opt(tuple(inst.sizes.tolist()), inst.k)
    # (4) in item units: every bin >= (1 - 2 eps) k, cost <= (1 + eps)(Opt + eps k)
    assert check.min_load >= (1 - 2 * eps) * k - 1e-9
    assert check.cost <= (1 + eps) * (optimum + eps * k) + 1e-9
    assert check.cost <= relaxed_bound(inst, optimum, epsilon=eps) + 1e-9
    assert check.cost / optimum <= relaxed_guarantee(inst, epsilon=eps) + 1e-9
    assert sol.info["min_load_ratio"] == check.min_load_ratio
    assert sol.info["strictly_feasible"] == check.strictly_feasible


def test_relaxed_solution_is_marked_and_may_break_k():
    inst = BinCoveringInstance([7, 5, 4, 3, 2, 2, 1], k=8)
    sol = relaxed_scheme(inst, epsilon=0.4)
    assert sol.algorithm == "relaxed" and sol.info["relaxed"] and sol.params["epsilon"] == 0.4
    assert sol.info["floor"] == pytest.approx(0.2 * 8)
    check = verify(inst, sol)
    assert check.relaxed and check.feasible and not check.strictly_feasible
    assert check.min_load_ratio < 1 and check.cost == 7 < 8  # below the true optimum 8
    # the true constraint rejects it
    with pytest.raises(InfeasibleSolutionError, match=r"less than k"):
        verify(inst, sol, relaxed=False)
    assert verify_relaxed(inst, sol.labels, epsilon=0.4).feasible


def test_fold_optimal_reduction():
    # nominal items sum to >= k and an item >= 3k: Fold is optimal (the proof's first case)
    inst = BinCoveringInstance([40, 4, 4, 3, 2], k=10)
    sol = relaxed_scheme(inst, epsilon=0.1)
    assert sol.info["case"] == "fold-optimal"
    check = verify(inst, sol)
    assert check.cost == 40 == brute_opt((40, 4, 4, 3, 2), 10) and check.strictly_feasible


def test_info_and_search_statistics():
    inst = uniform_instance(20, k=20, seed=1)
    sol = relaxed_scheme(inst, epsilon=0.2)
    info = sol.info
    assert info["case"] == "types" and info["n_large"] + (inst.sizes < 4).sum() == 20
    assert info["nodes"] >= 1 and info["types_evaluated"] >= 1 and info["n_configs"] >= 1
    assert info["rounded_level"] <= verify(inst, sol).cost + 1e-9


def test_grid_rounding():
    unit, eps = 2.0, 0.25
    x = np.array([2.0, 2.5, 3.0, 3.125, 3.2, 100.0])
    t = _grid_class(x, unit, eps)
    g = unit * (1 + eps) ** t
    assert np.all(g <= x + 1e-12) and np.all(x < g * (1 + eps))
    assert t[:4].tolist() == [0, 1, 1, 2]


@pytest.mark.parametrize("kwargs", [{"max_nodes": 5}, {"time_limit": 1e-9}])
def test_budget_returns_best_type_so_far(kwargs):
    inst = uniform_instance(60, k=100, seed=1)
    sol = relaxed_scheme(inst, epsilon=0.3, **kwargs)
    assert sol.status == "time_limit"
    assert sol.info["stopped"] == ("max_nodes" if "max_nodes" in kwargs else "time_limit")
    check = verify(inst, sol)  # the floor still holds; the cost bound is not guaranteed
    assert check.feasible and check.min_load >= 0.4 * 100
    done = relaxed_scheme(inst, epsilon=0.3)
    assert done.status == "feasible" and done.info["stopped"] is None


def test_too_many_configurations(monkeypatch):
    monkeypatch.setattr(relaxed_module, "MAX_CONFIGS", 1000)
    inst = BinCoveringInstance(list(range(1, 61)), 60)
    with pytest.raises(UnsupportedInstanceError, match=r"more than 1000 bin configurations"):
        relaxed_scheme(inst, epsilon=0.01)


@pytest.mark.parametrize("eps", [0, 0.5, 0.7, -1, "0.2", None, True])
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match=r"`epsilon` must be a number in \(0, 0.5\)"):
        relaxed_scheme(BinCoveringInstance([3, 4], 5), epsilon=eps)


def test_other_errors():
    inst = BinCoveringInstance([3, 4], 5)
    with pytest.raises(ValueError, match=r"`max_nodes` must be an integer >= 1, got 0"):
        relaxed_scheme(inst, max_nodes=0)
    rule = r"`time_limit` must be a positive finite number of seconds or None, got -1"
    with pytest.raises(ValueError, match=rule):
        relaxed_scheme(inst, time_limit=-1)
    with pytest.raises(ValueError, match=r"`order` must be one of"):
        relaxed_scheme(inst, order="bad")
    with pytest.raises(ValueError, match=r"`epsilon` must be a number in \(0, 0.5\)"):
        relaxed_guarantee(inst, epsilon=1)
