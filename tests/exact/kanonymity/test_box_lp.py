"""Cutting planes over generalization boxes (exact/kanonymity/box_lp.py): the prices stay dual
feasible after every round, never fall below the start, reach the LP relaxation on small
instances, and the dual LP over every box is the set-partitioning relaxation."""

import numpy as np
import pytest
from bruteforce import kanonymity_dual_feasible, kanonymity_full_lp, small_kanonymity_instances
from bruteforce import kanonymity_optimum as brute_force_opt
from hypothesis import given, settings

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity.box_lp import box_lp, dual_lp
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.lp_bound import ascend, lp_bound
from anonratio.instances.kanonymity.instance import nn_prices

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)
TOL = 1e-7

instances = small_kanonymity_instances(8, deletion=True)


@SETTINGS
@given(inst=instances)
def test_rounds_keep_prices_dual_feasible_and_below_the_optimum(inst):
    lat = BoxLattice(inst)
    cap = inst.deletion_cost if inst.row_deletion else None
    start = nn_prices(inst)
    out = box_lp(lat, start, deadline=float("inf"), cap=cap, max_rounds=5)
    counts = lat.counts.astype(float)
    assert out.value == pytest.approx(float(out.prices @ counts))
    assert out.value >= float(start @ counts) - TOL
    kanonymity_dual_feasible(inst, out.prices)
    assert out.value <= kanonymity_full_lp(inst) + 1e-6 <= brute_force_opt(inst) + 1e-6
    assert out.rounds <= 5 and len(out.history) == out.rounds


@SETTINGS
@given(inst=instances)
def test_the_dual_lp_over_every_box_is_the_relaxation(inst):
    lat = BoxLattice(inst)
    cost, members = lat.boxes(np.zeros(lat.u), tol=float("inf"), width=inst.n)
    upper = np.full(lat.u, inst.deletion_cost if inst.row_deletion else 1e6)
    value, y = dual_lp(lat, cost, members, upper, time_limit=30)
    assert value == pytest.approx(kanonymity_full_lp(inst), abs=1e-5)


def test_rounds_reach_the_relaxation_from_the_ascent():
    inst, _ = generate("kanon-categorical", seed=2, n=40, k=3)
    lat = BoxLattice(inst)
    y, _ = ascend(lat, nn_prices(inst), deadline=float("inf"))
    out = box_lp(lat, y, deadline=float("inf"), max_rounds=40)
    solved = lp_bound(inst, time_limit=120, cuts=False)
    assert solved.solved
    assert out.value == pytest.approx(solved.value, rel=1e-3)
    assert out.value > float(y @ lat.counts) + 1e-6  # the ascent alone stops short here
    assert [h[2] for h in out.history] == sorted(h[2] for h in out.history)


def test_a_passed_deadline_returns_the_start():
    inst, _ = generate("kanon-categorical", seed=2, n=40, k=3)
    lat = BoxLattice(inst)
    start = nn_prices(inst)
    out = box_lp(lat, start, deadline=0.0)
    assert out.rounds == 0 and np.array_equal(out.prices, start)


@SETTINGS
@given(inst=instances)
def test_an_lp_over_the_tightest_boxes_only_keeps_prices_feasible(inst):
    lat = BoxLattice(inst)
    cap = inst.deletion_cost if inst.row_deletion else None
    start = nn_prices(inst)
    out = box_lp(lat, start, deadline=float("inf"), cap=cap, max_rounds=4, max_boxes=2)
    assert out.boxes <= 2 + len(lat.boxes(out.prices, tol=float("inf"), width=inst.n)[0])
    assert out.value >= float(start @ lat.counts) - TOL
    kanonymity_dual_feasible(inst, out.prices)


def test_the_tightest_boxes_are_those_of_least_relative_slack():
    from anonratio.exact.kanonymity.box_lp import _tightest

    inst, _ = generate("kanon-categorical", seed=2, n=40, k=3)
    lat = BoxLattice(inst)
    y = nn_prices(inst)
    cost, members = lat.boxes(y, tol=float("inf"), width=inst.n)
    kept_cost, kept = _tightest(lat, y, cost, members, 5)
    assert len(kept_cost) == 5

    def rel(c, row):
        ids = row[row >= 0]
        prices = np.repeat(y[ids], lat.counts[ids])[: inst.k]
        return (inst.k * c - prices.sum()) / max(inst.k * c, 1e-12)

    worst_kept = max(rel(c, r) for c, r in zip(kept_cost, kept, strict=True))
    assert sum(rel(c, r) < worst_kept - 1e-12 for c, r in zip(cost, members, strict=True)) < 5
