"""The k-anonymity lower bound at scale (exact/kanonymity/lp_bound.py): every stage's prices are
dual feasible, the bound never exceeds the exact optimum nor falls below the nearest-neighbour
bound, and column generation and the compact model reach the LP relaxation on small instances."""

from dataclasses import replace

import numpy as np
import pytest
from bruteforce import kanonymity_dual_feasible, kanonymity_full_lp, small_kanonymity_instances
from bruteforce import kanonymity_optimum as brute_force_opt
from hypothesis import given, settings

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import set_partitioning, solve_cpsat, solve_highs
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.column_generation import Master, groups_of
from anonratio.exact.kanonymity.compact_lp import MAX_PAIRS
from anonratio.exact.kanonymity.lp_bound import BOUND_SOURCES, ascend, lp_bound, recheck
from anonratio.instances import lower_bound, verify
from anonratio.solvers.kanonymity.forest import forest

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
TOL = 1e-7


instances = small_kanonymity_instances(8, deletion=True)


@SETTINGS
@given(inst=instances)
def test_bound_is_valid_and_its_prices_dual_feasible(inst):
    start = forest(inst).labels
    counts = inst.unique_records[2]
    opt = brute_force_opt(inst)
    nn = lower_bound(inst)[0]
    stages = {  # the compact model (small tables), and column generation without it
        MAX_PAIRS: {"nn-distance", "compact-lp"},
        0: {"nn-distance", "dual-ascent", "lp-lagrangian"},
    }
    for max_pairs, expected in stages.items():
        out = lp_bound(inst, time_limit=30, starts=[start], max_pairs=max_pairs)
        kanonymity_dual_feasible(inst, out.prices)
        assert nn - TOL <= out.value <= opt + TOL
        assert set(out.stages) - {"subset-row"} == expected  # the cuts once the LP is solved
        assert out.solved == ("subset-row" in out.stages)
        if out.source == "subset-row":  # above the relaxation, still below the optimum
            assert out.value > max(v for s, (v, _) in out.stages.items() if s != out.source)
        else:
            assert out.value == pytest.approx(float(out.prices @ counts))
        assert out.source in out.stages and out.stages[out.source][0] == pytest.approx(out.value)
        assert all(seconds >= 0 for _, seconds in out.stages.values())


@SETTINGS
@given(inst=instances)
def test_ascent_and_cutting_planes_keep_prices_feasible(inst):
    lat = BoxLattice(inst)
    out = lp_bound(inst, time_limit=30, max_master=0)  # cutting planes, no column generation
    assert "lp-lagrangian" not in out.stages and "box-lp" in out.stages
    kanonymity_dual_feasible(inst, out.prices)
    cap = inst.deletion_cost if inst.row_deletion else None
    y, rounds = ascend(lat, np.zeros(lat.u), deadline=float("inf"), cap=cap)
    kanonymity_dual_feasible(inst, y)
    assert rounds >= 1


def test_column_generation_and_the_compact_model_reach_the_lp_relaxation():
    inst, _ = generate("kanon-categorical", seed=2, n=40, k=3)
    out = lp_bound(inst, time_limit=120, starts=[forest(inst).labels], max_pairs=0, cuts=False)
    assert out.solved and out.source == "lp-lagrangian"
    assert out.value == pytest.approx(out.lp_value, rel=1e-5)
    compact = lp_bound(inst, time_limit=120, cuts=False)
    assert compact.solved and compact.source == "compact-lp"
    assert compact.value == pytest.approx(out.value, rel=1e-6)
    opt = solve_cpsat(inst, time_limit=120, seed=0)
    assert opt.status == "optimal"
    assert out.stages["nn-distance"][0] < out.value <= verify(inst, opt).cost + TOL


@pytest.mark.parametrize("limit", ["max_pairs", "time estimate"])
def test_a_compact_model_too_large_hands_over_to_column_generation(limit, monkeypatch):
    from anonratio.exact.kanonymity import lp_bound as module

    inst, _ = generate("kanon-categorical", seed=2, n=40, k=3)
    if limit == "max_pairs":
        out = lp_bound(inst, time_limit=120, max_pairs=10, cuts=False)
    else:  # the model would not fit in the time at this rate
        monkeypatch.setattr(module, "COMPACT_REFERENCE", (1, 1e6))
        out = lp_bound(inst, time_limit=120, cuts=False)
    assert out.stages["compact-lp"][0] is None
    assert out.solved and out.source == "lp-lagrangian"


def test_an_expired_time_limit_still_gives_the_nearest_neighbour_bound():
    inst, _ = generate("kanon-random", seed=1, n=80, k=4)
    out = lp_bound(inst, time_limit=0.0)
    assert out.value == pytest.approx(lower_bound(inst)[0])
    assert out.source == "nn-distance"


def test_master_adds_each_group_once_and_starts_feasible():
    inst, _ = generate("kanon-random", seed=0, n=30, k=3)
    labels = forest(inst).labels
    counts = inst.unique_records[2]
    master = Master(inst, counts)
    groups = groups_of(inst, labels)
    lat = BoxLattice(inst)
    width = max(len(g) for g in groups)
    rows = np.full((len(groups), width), -1)
    for r, g in enumerate(groups):
        rows[r, : len(g)] = g
    assert master.add(groups, lat.cost(rows)) == len(groups)
    assert master.add(list(rows), lat.cost(rows)) == 0  # padding does not make a new group
    value, prices = master.solve(60)
    assert value <= verify(inst, labels).cost + 1e-6
    assert prices.shape == (len(counts),)


def test_exact_solvers_agree_with_the_lattice_bound(monkeypatch):
    monkeypatch.setattr(set_partitioning, "LATTICE_MIN_UNIQUE", 0)
    inst, _ = generate("kanon-categorical", seed=3, n=30, k=3)
    a = solve_cpsat(inst, time_limit=120, seed=0)
    b = solve_highs(inst, time_limit=120, seed=0)
    assert a.status == b.status == "optimal"
    assert verify(inst, a).cost == pytest.approx(verify(inst, b).cost)
    assert a.info["lower_bound_source"] in BOUND_SOURCES
    assert a.info["lp_bound"] <= verify(inst, a).cost + TOL


@SETTINGS
@given(inst=instances)
def test_solved_relaxation_is_the_lp_over_every_group(inst):
    lp = kanonymity_full_lp(inst)
    for max_pairs in (MAX_PAIRS, 0):  # the compact model; column generation
        out = lp_bound(
            inst, time_limit=30, starts=[forest(inst).labels], max_pairs=max_pairs, cuts=False
        )
        assert out.solved  # small instances: either ends
        assert out.value == pytest.approx(lp, abs=1e-6)


def test_a_lattice_too_large_leaves_the_nearest_neighbour_bound(monkeypatch):
    from anonratio.exact.kanonymity import box_pricing
    from anonratio.exact.kanonymity import lp_bound as module

    inst, _ = generate("kanon-random", seed=1, n=40, k=3)
    size = box_pricing.lattice_nodes(inst)
    monkeypatch.setattr(module, "MAX_LATTICE_NODES", size - 1)
    out = lp_bound(inst, time_limit=10)
    assert out.source == "nn-distance" and out.value == pytest.approx(lower_bound(inst)[0])
    assert out.stages["lattice-too-large"][0] == size
    monkeypatch.setattr(box_pricing, "MAX_LATTICE_NODES", size - 1)
    with pytest.raises(ValueError, match=f"lattice has {size} nodes"):
        BoxLattice(inst)


@SETTINGS
@given(inst=instances)
def test_every_progress_report_is_a_proof(inst):
    reports = []
    out = lp_bound(
        inst, time_limit=30, max_master=0, progress=lambda *report: reports.append(report)
    )
    counts = inst.unique_records[2]
    for value, prices, source in reports:
        assert source in ("dual-ascent", "box-lp")
        assert value == pytest.approx(float(prices @ counts))
        kanonymity_dual_feasible(inst, prices)
        assert value <= out.value + TOL
    if out.source in ("dual-ascent", "box-lp"):
        assert reports[-1][0] == pytest.approx(out.value)


@SETTINGS
@given(inst=instances)
def test_recheck_proves_the_bound_again_from_its_prices(inst):
    found = lp_bound(inst, time_limit=20)
    again = recheck(found, BoxLattice(inst))
    assert again.value == pytest.approx(found.value, abs=1e-6)
    assert again.value <= brute_force_opt(inst) + TOL
    kanonymity_dual_feasible(inst, again.prices, TOL)  # asserts


@pytest.mark.slow  # the cut case: about 12 s to build
def test_recheck_trusts_the_prices_not_the_claimed_value(cut_case):
    inst, found, fresh = cut_case  # the subset-row stage won: its cut prices are checked too
    inflated = replace(found, value=found.value + 10.0, prices=found.prices + 1.0)
    inflated.subset_row = replace(found.subset_row, value=found.value + 10.0)
    again = recheck(inflated, BoxLattice(inst))
    assert again.value == pytest.approx(found.value, abs=1e-6)
    assert again.source == "subset-row" and again.value <= fresh.objective + TOL


def test_recheck_refuses_a_bound_of_another_instance():
    inst, _ = generate("kanon-random", seed=1, n=40, k=2)  # the cut case's instance
    other, _ = generate("kanon-binary", seed=2, n=10, k=2)
    with pytest.raises(ValueError, match="bound: prices for"):
        recheck(lp_bound(other, time_limit=10), BoxLattice(inst))
    with pytest.raises(TypeError, match="bound must be an LPBound"):
        recheck(np.zeros(3), BoxLattice(inst))


@pytest.mark.slow  # the cut case, then a proof of its optimum
@pytest.mark.parametrize("solve", [solve_cpsat, solve_highs])
def test_exact_solvers_start_from_a_given_bound(solve, cut_case, monkeypatch, proof):
    monkeypatch.setattr(set_partitioning, "LATTICE_MIN_UNIQUE", 0)  # the lattice path
    inst, found, fresh = cut_case  # `fresh`: CP-SAT on the lattice path without a bound
    with proof.work():
        out = solve(inst, time_limit=proof.time_limit, seed=0, bound=found)
    assert out.status == "optimal" and out.objective == pytest.approx(fresh.objective)
    assert not fresh.info["bound_given"]
    assert out.info["bound_given"] and out.info["lp_bound"] == pytest.approx(found.value, abs=1e-6)
    with pytest.raises(ValueError, match="bound: prices for"):
        solve(inst, time_limit=10, bound=replace(found, prices=found.prices[:-1]))
