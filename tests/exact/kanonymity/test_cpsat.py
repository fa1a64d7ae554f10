"""CP-SAT exact k-anonymity: optimum against brute force, bounds, hints, limits, validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact import solve_k_anonymity
from anonratio.exact.kanonymity import cpsat
from anonratio.exact.kanonymity.cpsat import PRESOLVE_MAX_TERMS, _cpsat_parameters, solve_cpsat
from anonratio.instances import (
    KAnonymityInstance,
    Solution,
    Table,
    UnsupportedInstanceError,
    lower_bound,
    verify,
)

SEEDS = st.integers(0, 2**32 - 1)


def check_optimal(instance, sol, optimum=None):
    """The run claims optimality, its labels verify at the claimed cost, the bounds are sane."""
    assert sol.status == "optimal"
    assert sol.algorithm == "kanon-cpsat"
    cost = verify(instance, sol).cost
    assert sol.objective == pytest.approx(cost, abs=1e-9)
    assert sol.lower_bound == pytest.approx(sol.objective)
    assert sol.gap == pytest.approx(0.0, abs=1e-12)
    assert lower_bound(instance)[0] <= cost + 1e-9
    if optimum is not None:
        assert cost == pytest.approx(optimum, abs=1e-9)
    return cost


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_optimum_matches_brute_force(proof, kx, seed):
    with proof.work():
        rng = np.random.default_rng(seed)
        row_deletion = bool(rng.integers(0, 2))
        instance = kx.random_instance(
            seed, n_max=6 if row_deletion else 8, row_deletion=row_deletion
        )
        sol = solve_cpsat(instance, time_limit=proof.time_limit, seed=0)
        check_optimal(instance, sol, kx.brute_force(instance))


@pytest.mark.parametrize("model", ["suppression", "generalization"])
@pytest.mark.parametrize("seed", [3, 17])
def test_weighted_instances(kx, model, seed):
    instance = kx.random_instance(seed, n=7, m=3, model=model, weighted=True, row_deletion=False)
    check_optimal(instance, solve_cpsat(instance, time_limit=20), kx.brute_force(instance))


def test_row_deletion_removes_outlier(kx):
    # four identical records and one far away: with k = 2 deleting the outlier (cost 4) beats
    # joining it to a group (which would cost 2 * 4 = 8 or more)
    codes = np.array([[0, 0, 0, 0]] * 4 + [[1, 1, 1, 1]])
    table = Table(codes, ("a", "b", "c", "d"), (("0", "1"),) * 4)
    instance = KAnonymityInstance(table, 2, row_deletion=True)
    sol = solve_cpsat(instance, time_limit=20)
    assert check_optimal(instance, sol, kx.brute_force(instance)) == 4.0
    assert sol.labels[4] == -1


def test_identical_copies_can_be_split(kx):
    # a, a, x1, x2, y1, y2 with k = 3: the optimum puts the two copies of `a` in different
    # groups ({a, x1, x2}, {a, y1, y2}); x1, x2 share one attribute, and so do y1, y2
    a = [0] * 8
    x1, x2 = [1, 1, 1, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0, 0, 0]
    y1, y2 = [0, 0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 0, 0, 1, 1, 1]
    table = Table(np.array([a, a, x1, x2, y1, y2]), tuple("abcdefgh"), (("0", "1"),) * 8)
    instance = KAnonymityInstance(table, 3)
    sol = solve_cpsat(instance, time_limit=20)
    assert check_optimal(instance, sol, kx.brute_force(instance)) == 24.0
    assert sol.labels[0] != sol.labels[1]


def test_all_identical_records_cost_nothing():
    table = Table(np.zeros((7, 3), dtype=int), ("a", "b", "c"), (("0", "1"),) * 3)
    instance = KAnonymityInstance(table, 3)
    sol = solve_cpsat(instance, time_limit=10)
    assert check_optimal(instance, sol) == 0.0


@pytest.mark.parametrize("as_solution", [False, True])
def test_hint_is_accepted(kx, as_solution):
    instance = kx.binary_instance(12, 6, 3, seed=1)
    optimum = solve_cpsat(instance, time_limit=20).objective
    labels = np.zeros(instance.n, dtype=int)  # one group: feasible, far from optimal
    hint = Solution(labels, "one-group") if as_solution else labels
    sol = solve_cpsat(instance, time_limit=20, hint=hint)
    check_optimal(instance, sol, optimum)
    assert sol.params["hint"] is True
    # the start is the cheaper of the hint (cut into groups of k .. 2k - 1) and a greedy partition
    assert optimum < sol.info["start_cost"] <= verify(instance, labels).cost
    assert sol.info["rounds"] >= 1


def test_optimal_hint_is_kept(kx):
    instance = kx.binary_instance(20, 8, 3, seed=1)
    first = solve_cpsat(instance, time_limit=20)
    sol = solve_cpsat(instance, time_limit=20, hint=first)
    check_optimal(instance, sol, first.objective)
    assert sol.info["start_cost"] == first.objective  # better than the greedy start (97)


def test_upper_bound_equal_to_optimum_still_finds_it(kx):
    instance = kx.random_instance(11, n=8, m=3, row_deletion=False)
    optimum = kx.brute_force(instance)
    check_optimal(instance, solve_cpsat(instance, time_limit=20, upper_bound=optimum), optimum)


def test_upper_bound_below_optimum_is_infeasible(kx):
    instance = kx.binary_instance(9, 4, 3, seed=1)
    optimum = kx.brute_force(instance)
    assert optimum > 0
    sol = solve_cpsat(instance, time_limit=20, upper_bound=optimum - 1)
    assert sol.status == "infeasible"
    assert sol.labels is None and sol.objective is None
    assert "upper_bound" in sol.info["reason"]


def test_time_limit_returns_time_limit_with_valid_bound(kx):
    instance = kx.binary_instance(120, 10, 5, seed=7)
    sol = solve_cpsat(instance, time_limit=0.05)
    assert sol.status == "time_limit"
    assert sol.lower_bound is not None and sol.lower_bound >= lower_bound(instance)[0] - 1e-9
    if sol.labels is not None:
        assert verify(instance, sol).cost == pytest.approx(sol.objective)
        assert sol.lower_bound <= sol.objective + 1e-9


def test_time_limit_with_hint_returns_the_hint(kx):
    instance = kx.binary_instance(120, 10, 5, seed=7)
    labels = np.arange(instance.n) // 5  # consecutive groups of five
    sol = solve_cpsat(instance, time_limit=0.05, hint=labels)
    assert sol.status == "time_limit"
    cost = verify(instance, sol).cost
    assert cost == pytest.approx(sol.objective)
    assert cost <= verify(instance, labels).cost
    assert sol.lower_bound <= cost and sol.gap > 0


def test_weights_must_scale_to_integers():
    # 1/999983 and 1/999979 (primes): a common integer scale would exceed 10^9
    codes = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    table = Table(codes, ("a", "b"), (("0", "1"),) * 2, weights=[1 / 999983, 1 / 999979])
    with pytest.raises(UnsupportedInstanceError, match="integer objective coefficients"):
        solve_cpsat(KAnonymityInstance(table, 2), time_limit=5)


def test_solution_records_run_parameters(kx):
    instance = kx.binary_instance(12, 6, 3, seed=1)  # the greedy start is not optimal here
    sol = solve_cpsat(instance, time_limit=7.5, seed=3, threads=2)
    assert sol.seed == 3
    assert sol.params == {
        **instance.params,
        "time_limit": 7.5,
        "threads": 2,
        "upper_bound": None,
        "hint": False,
    }
    assert sol.info["rounds"] >= 1 and sol.info["start_cost"] > sol.objective
    assert sol.info["n_variables"] > 0 and sol.info["n_constraints"] > 0
    assert sol.info["solver"] == "cp-sat"
    assert sol.time_s > 0


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_rounds_run_without_symmetry_search(kx, monkeypatch, threads):
    # CP-SAT's presolve hung on an orbitope of a round's program, past its time limit
    seen = []
    run_cpsat = cpsat.run_cpsat

    def spy(model, **options):
        seen.append(options["parameters"])
        return run_cpsat(model, **options)

    monkeypatch.setattr(cpsat, "run_cpsat", spy)
    instance = kx.binary_instance(12, 6, 3, seed=1)
    check_optimal(instance, solve_cpsat(instance, time_limit=10, threads=threads))
    assert seen and all(p["symmetry_level"] == 0 for p in seen)


def test_large_rounds_run_without_presolve():
    # CP-SAT's presolve ran past the time limit on a round of 3.2 million terms
    for threads in (1, 2, 8):
        assert "cp_model_presolve" not in _cpsat_parameters(threads, PRESOLVE_MAX_TERMS)
        assert _cpsat_parameters(threads, PRESOLVE_MAX_TERMS + 1)["cp_model_presolve"] is False


def test_dispatch_through_solve_k_anonymity(kx):
    instance = kx.binary_instance(8, 4, 2, seed=4)
    sol = solve_k_anonymity(instance, method="kanon-cpsat", time_limit=10)
    check_optimal(instance, sol, kx.brute_force(instance))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"time_limit": 0}, r"`time_limit` must be a positive finite number of seconds, got 0"),
        ({"time_limit": -1.0}, r"`time_limit` must be a positive finite number"),
        ({"time_limit": float("nan")}, r"`time_limit` must be a positive finite number"),
        ({"time_limit": "10"}, r"`time_limit` must be a positive finite number"),
        ({"threads": 0}, r"`threads` must be an integer >= 1, got 0"),
        ({"threads": 1.5}, r"`threads` must be an integer >= 1, got 1.5"),
        ({"seed": -1}, r"`seed` must be an integer in \[0, 2147483646\] or None, got -1"),
        ({"upper_bound": -2.0}, r"`upper_bound` must be a number >= 0 or None, got -2.0"),
        ({"hint": [0, 0, 1, 1, 1, 1, 1, 2]}, r"`hint` must be a feasible solution: group 2"),
        ({"hint": Solution(None, "x", status="error")}, r"`hint` must be a Solution with labels"),
    ],
)
def test_bad_parameters(kx, kwargs, message):
    instance = kx.binary_instance(8, 4, 2, seed=0)
    with pytest.raises(ValueError, match=message):
        solve_cpsat(instance, **kwargs)


def test_unknown_method(kx):
    message = r"`method` must be one of \['kanon-bpc', 'kanon-cbc', 'kanon-cpsat', 'kanon-highs'\]"
    for bad in ("gurobi", "cpsat"):  # the former name too
        with pytest.raises(ValueError, match=message):
            solve_k_anonymity(kx.binary_instance(8, 4, 2, seed=0), method=bad)


def test_instance_type_is_checked():
    with pytest.raises(TypeError, match="`instance` must be a KAnonymityInstance"):
        solve_cpsat("not an instance")
