"""kanon-bpc, branch and price on SCIP: the optimum against brute force, CP-SAT and HiGHS, both
pricings, both branchings, bounds at a limit, validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import REGISTRY, generate
from anonratio.exact.kanonymity import bpc, solve_cpsat, solve_highs
from anonratio.exact.kanonymity.bpc import solve_bpc
from anonratio.exact.options import work_limit
from anonratio.instances import KAnonymityInstance, Table, lower_bound, verify

#: every solve here that must prove its optimum runs on the proof's work budget
pytestmark = pytest.mark.usefixtures("proof_budget")


SEEDS = st.integers(0, 2**32 - 1)


def check_optimal(instance, sol, optimum):
    """Proven optimal at ``optimum``; the verifier accepts the partition at the claimed cost."""
    assert sol.status == "optimal", (sol.status, sol.info)
    assert sol.algorithm == "kanon-bpc"
    check = verify(instance, sol, strict=False)
    assert check.feasible, check.violations
    assert sol.objective == pytest.approx(check.cost, abs=1e-9)
    assert check.cost == pytest.approx(optimum, abs=1e-9)
    assert sol.lower_bound == pytest.approx(sol.objective)
    assert lower_bound(instance)[0] <= check.cost + 1e-9


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_optimum_matches_brute_force(kx, seed, proof):
    instance = kx.random_instance(seed, n_max=9)
    check_optimal(
        instance, solve_bpc(instance, time_limit=proof.time_limit, seed=0), kx.brute_force(instance)
    )


def test_ryan_foster_branching_reaches_the_optimum(kx, proof):
    # a fractional root: the pair branching runs, and columns breaking its decisions are fixed
    instance = kx.random_instance(4, n_max=10)
    sol = solve_bpc(instance, time_limit=proof.time_limit)
    check_optimal(instance, sol, kx.brute_force(instance))
    assert sol.info["ryan_foster"] > 0 and sol.info["columns_fixed"] > 0


def test_identical_records_branch_on_columns(kx, proof):
    # duplicates leave no fractional pair of single records: the rule branches on a column
    instance = kx.random_instance(146, n_max=10)
    assert len(instance.unique_records[2]) < instance.n
    sol = solve_bpc(instance, time_limit=proof.time_limit)
    check_optimal(instance, sol, kx.brute_force(instance))
    assert sol.info["column_branchings"] > 0


@pytest.mark.parametrize("seed", [0, 2])
def test_agrees_with_cpsat_and_highs(seed, proof):
    instance, _ = generate("kanon-random", seed=seed, n=20, k=3)
    sol = solve_bpc(instance, time_limit=proof.time_limit, seed=0)
    cpsat, highs = (
        solve_cpsat(instance, time_limit=proof.time_limit),
        solve_highs(instance, time_limit=proof.time_limit),
    )
    assert cpsat.status == highs.status == "optimal"
    assert cpsat.objective == pytest.approx(highs.objective, abs=1e-9)
    check_optimal(instance, sol, cpsat.objective)
    assert sol.info["pricer"] == "enumeration" and sol.info["nodes"] > 1


@pytest.mark.parametrize(("seed", "k", "row_deletion"), [(1, 2, False), (3, 3, True)])
def test_lattice_pricing_agrees_with_cpsat(monkeypatch, seed, k, row_deletion, proof):
    # the lattice pricing (from 100 unique records by default) on a small table; with row
    # deletion the optimum of seed 3 deletes a record
    monkeypatch.setattr(bpc, "LATTICE_MIN_UNIQUE", 0)
    kw = {"n": 16, "m": 3, "k": k, "row_deletion": row_deletion}
    instance, _ = generate("kanon-random", seed=seed, **kw)
    sol = solve_bpc(instance, time_limit=proof.time_limit)
    assert sol.info["pricer"] == "lattice"
    assert sol.info["nodes"] == 1 or sol.info["pricing_by_pool"] > 0  # a tree: the pool priced
    check_optimal(instance, sol, solve_cpsat(instance, time_limit=proof.time_limit).objective)
    assert (sol.labels < 0).any() == row_deletion


def test_limited_run_reports_a_valid_bound(proof):
    # one node: the root's bound, the start partition, both checked against the optimum
    instance, _ = generate("kanon-random", seed=1, n=20, k=3)
    optimum = solve_cpsat(instance, time_limit=proof.time_limit).objective
    with work_limit(mip_nodes=1):
        sol = solve_bpc(instance, time_limit=proof.time_limit)
    assert sol.status == "time_limit"
    assert verify(instance, sol).cost == pytest.approx(sol.objective)
    assert lower_bound(instance)[0] - 1e-9 <= sol.lower_bound <= optimum + 1e-9
    assert sol.lower_bound < sol.objective and sol.gap > 0


def test_hint_is_the_start(proof):
    instance, _ = generate("kanon-random", seed=3, n=20, k=2)
    hint = solve_cpsat(instance, time_limit=proof.time_limit)
    with work_limit(mip_nodes=1):
        sol = solve_bpc(instance, time_limit=proof.time_limit, hint=hint)
    assert sol.info["start_cost"] == pytest.approx(hint.objective)
    assert sol.objective == pytest.approx(hint.objective)


def test_upper_bound_below_the_optimum_is_infeasible(kx, proof):
    instance = kx.random_instance(7, n_max=8, row_deletion=False)
    optimum = kx.brute_force(instance)
    sol = solve_bpc(instance, time_limit=proof.time_limit, upper_bound=optimum - 0.5)
    assert sol.status == "infeasible" and sol.labels is None
    check_optimal(
        instance, solve_bpc(instance, time_limit=proof.time_limit, upper_bound=optimum), optimum
    )


def test_registered_as_exact_with_the_best_known_start(proof):
    algorithm = REGISTRY["kanon-bpc"]
    assert algorithm.kind == "exact" and algorithm.hint is REGISTRY["kanon-cpsat"].hint
    instance, _ = generate("kanon-binary", seed=0, n=10, m=4, k=3)
    sol = algorithm.run(instance, seed=0, time_limit=proof.time_limit)
    check_optimal(instance, sol, solve_cpsat(instance, time_limit=proof.time_limit).objective)


@pytest.mark.parametrize(
    ("option", "value"), [("time_limit", 0), ("threads", 0), ("seed", -1), ("upper_bound", -1)]
)
def test_bad_options(option, value):
    table = Table(np.zeros((4, 2), dtype=int), ("a", "b"), (("0", "1"),) * 2)
    with pytest.raises(ValueError, match=option):
        solve_bpc(KAnonymityInstance(table, 2), **{option: value})
