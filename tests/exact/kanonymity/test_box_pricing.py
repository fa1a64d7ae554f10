"""Pricing over the generalization lattice (exact/kanonymity/box_pricing.py) against a brute force
over every group of copies: the least reduced cost, the least reduced cost per copy (the
Lagrangian shift), the groups' exact costs, and the slack that keeps prices dual feasible."""

import itertools

import numpy as np
import pytest
from bruteforce import small_kanonymity_instance, small_kanonymity_instances
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.kanonymity.box_pricing import BoxLattice, _box_order
from anonratio.instances import KAnonymityInstance, verify

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
TOL = 1e-9


def _groups(inst, max_size):
    """Every group of at least k records of the table (sizes up to ``max_size``), as unique ids
    with repeats, with its verified cost."""
    inverse = inst.unique_records[1]
    for size in range(inst.k, max_size + 1):
        for rows in itertools.combinations(range(inst.n), size):
            labels = np.full(inst.n, -1)
            labels[list(rows)] = 0
            sub = KAnonymityInstance(inst.table, inst.k, inst.model, row_deletion=True)
            cost = verify(sub, labels).cost - (inst.n - size) * inst.deletion_cost
            yield np.sort(inverse[list(rows)]), cost


instances = small_kanonymity_instances(7, deletion=False)


@SETTINGS
@given(inst=instances, data=st.data())
def test_pricing_matches_brute_force(inst, data):
    lat = BoxLattice(inst)
    u = lat.u
    y = np.array(data.draw(st.lists(st.floats(-1, 4), min_size=u, max_size=u)))
    priced = lat.price(y, max_columns=10_000)
    best_rc = best_shift = np.inf
    for members, cost in _groups(inst, inst.n):
        rc = cost - y[members].sum()
        best_shift = min(best_shift, rc / len(members))
        if len(members) <= 2 * inst.k - 1:
            best_rc = min(best_rc, rc)
    assert priced.shift == pytest.approx(min(0.0, best_shift), abs=1e-7)
    if best_rc < -1e-7:
        assert len(priced.rc) and priced.rc.min() == pytest.approx(best_rc, abs=1e-7)
    else:
        assert len(priced.rc) == 0 or priced.rc.min() >= -1e-7
    # every group returned is a group of k .. 2k - 1 copies with its exact cost and reduced cost
    for row, cost, rc in zip(priced.members, priced.cost, priced.rc, strict=True):
        ids = row[row >= 0]
        assert inst.k <= len(ids) <= 2 * inst.k - 1
        assert np.all(np.bincount(ids, minlength=u) <= lat.counts)
        assert cost == pytest.approx(lat.cost(row[None])[0])
        assert rc == pytest.approx(cost - y[ids].sum())


@SETTINGS
@given(inst=instances, data=st.data())
def test_slack_keeps_dual_feasible_prices_feasible(inst, data):
    lat = BoxLattice(inst)
    groups = list(_groups(inst, inst.n))
    # dual-feasible start: prices scaled down below every group's per-copy cost
    y = np.array(data.draw(st.lists(st.floats(0, 1), min_size=lat.u, max_size=lat.u)))
    y *= min([cost / len(g) for g, cost in groups] + [1.0])
    free = np.array(data.draw(st.lists(st.booleans(), min_size=lat.u, max_size=lat.u)))
    slack, rise = lat.slack(y, free)
    assert np.all(rise >= slack / inst.k - TOL)  # never below the even share
    raised = y + np.where(free & np.isfinite(rise), rise, 0.0)
    assert np.all(raised >= y - TOL)
    for members, cost in groups:
        assert raised[members].sum() <= cost + 1e-7


def test_group_cost_is_the_verifiers():
    inst = small_kanonymity_instance(3, 9, 3, 3, "generalization", True)
    lat = BoxLattice(inst)
    inverse = inst.unique_records[1]
    labels = np.repeat([0, 1, 2], 3)
    ver = verify(inst, labels)
    rows = np.full((3, 5), -1)
    for g in range(3):
        rows[g, :3] = np.sort(inverse[labels == g])
    assert lat.cost(rows).sum() == pytest.approx(ver.cost)


def test_a_sweep_prunes_nodes_dearer_than_every_price():
    inst = small_kanonymity_instance(1, 7, 2, 2, "generalization", False)
    lat = BoxLattice(inst)
    cheap = lat.price(np.zeros(lat.u), max_columns=10)
    assert cheap.nodes == 0 and len(cheap.rc) == 0 and cheap.shift == 0.0
    assert lat.work == lat.u * len(lat.nodes)


@SETTINGS
@given(inst=instances, data=st.data())
def test_repair_makes_any_prices_dual_feasible(inst, data):
    lat = BoxLattice(inst)
    y = np.array(data.draw(st.lists(st.floats(-1, 3), min_size=lat.u, max_size=lat.u)))
    cap = data.draw(st.sampled_from([None, 0.5]))
    fixed = lat.repair(y, cap=cap)
    assert np.all(fixed <= y + TOL)
    if cap is not None:
        assert np.all(fixed <= cap + TOL)
    for members, cost in _groups(inst, inst.n):
        assert fixed[members].sum() <= cost + 1e-7
    slack, _ = lat.slack(fixed)
    assert np.all(slack >= -1e-7)


@SETTINGS
@given(inst=instances, data=st.data())
def test_boxes_are_the_tight_ones_with_their_dearest_records(inst, data):
    lat = BoxLattice(inst)
    y = np.array(data.draw(st.lists(st.floats(0, 2), min_size=lat.u, max_size=lat.u)))
    width = 2 * inst.k
    cost, members = lat.boxes(y, tol=float("inf"), width=width)
    assert members.shape == (len(cost), width)
    # every node's boxes of >= k copies, and nothing else
    expected = 0
    for node in lat.nodes:
        key = np.stack([lat.groups[j][t] for j, t in enumerate(node)], axis=1)
        boxes, inverse = np.unique(key, axis=0, return_inverse=True)
        copies = np.bincount(inverse.ravel(), weights=lat.counts)
        expected += int((copies >= inst.k).sum())
    assert len(cost) == expected
    for row in members:
        ids = row[row >= 0]
        assert len(ids) and np.all(np.diff(y[ids]) <= TOL)  # dearest first
    violated, _ = lat.boxes(y, tol=-1e-300, width=width)
    slack, _ = lat.slack(y)
    assert (len(violated) > 0) == bool(np.any(slack < 0))


@pytest.mark.parametrize("n_boxes", [1, 40, 70_000])
def test_box_order_makes_boxes_contiguous_and_keeps_the_order_inside(n_boxes):
    # 70,000 boxes need both 16-bit radix passes
    key = np.random.default_rng(n_boxes).integers(0, n_boxes, 150_000) * 7_919 - 3
    order = _box_order(key)
    assert np.array_equal(np.sort(order), np.arange(len(key)))
    ks = key[order]
    assert np.count_nonzero(ks[1:] != ks[:-1]) == len(np.unique(key)) - 1
    inside = ks[1:] == ks[:-1]
    assert (order[1:][inside] > order[:-1][inside]).all()
