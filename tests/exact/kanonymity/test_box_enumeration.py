"""Enumeration of groups box by box (exact/kanonymity/box_enumeration.py): at dual-feasible
prices it returns exactly the groups of k .. 2k − 1 copies with reduced cost at most the
threshold, each once and with its exact reduced cost, as a brute force over every multiset finds."""

import itertools

import numpy as np
import pytest
from bruteforce import kanonymity_optimum as brute_force_opt
from bruteforce import small_kanonymity_instances
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import set_partitioning, solve_cpsat, solve_highs
from anonratio.exact.kanonymity.box_enumeration import Timeout, box_groups
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.columns import enumerate_groups, prepare
from anonratio.exact.kanonymity.lp_bound import lp_bound
from anonratio.instances import verify
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.kanonymity.instance import nn_prices

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _brute(inst, lat, y, threshold):
    """Every multiset of k .. 2k − 1 copies of the unique records with rc <= threshold."""
    u, k = lat.u, lat.k
    out = {}
    for size in range(k, 2 * k):
        for ids in itertools.combinations_with_replacement(range(u), size):
            ids = np.array(ids)
            if np.any(np.bincount(ids, minlength=u) > lat.counts):
                continue
            row = np.full((1, 2 * k - 1), -1)
            row[0, :size] = ids
            rc = lat.cost(row)[0] - y[ids].sum()
            if rc <= threshold + 1e-9:
                out[tuple(row[0])] = rc
    return out


@SETTINGS
@given(
    inst=small_kanonymity_instances(8, deletion=False),
    lift=st.floats(0.0, 1.0),
    threshold=st.floats(0.0, 3.0),
)
def test_exactly_the_groups_below_the_threshold(inst, lift, threshold):
    lat = BoxLattice(inst)
    # dual-feasible prices between the nearest-neighbour prices and the LP's
    low, high = nn_prices(inst), lp_bound(inst, time_limit=30).prices
    y = (1 - lift) * low + lift * high
    members, rc, exhaustive = box_groups(lat, y, threshold)
    assert exhaustive
    want = _brute(inst, lat, y, threshold)
    got = {tuple(row): r for row, r in zip(members, rc, strict=True)}
    assert len(got) == len(members)  # each group once
    assert got.keys() == want.keys()
    for key, r in got.items():
        assert r == pytest.approx(want[key], abs=1e-9)


@pytest.mark.slow  # the LP bound of a 40-record table first
def test_cap_and_deadline():
    inst, _ = generate("kanon-random", seed=0, n=40, k=3)
    lat = BoxLattice(inst)
    y = lp_bound(inst, time_limit=30, lattice=lat).prices
    members, _, exhaustive = box_groups(lat, y, 5.0)
    assert exhaustive and len(members) > 10
    part, _, exhaustive = box_groups(lat, y, 5.0, max_columns=10)
    assert not exhaustive and 0 < len(part) < len(members)
    with pytest.raises(Timeout):
        box_groups(lat, y, 5.0, deadline=0.0)


@pytest.mark.slow
def test_agrees_with_the_enumeration_from_representatives():
    inst, _ = generate("kanon-random", seed=1, n=60, k=3)
    d = prepare(inst)
    lat = BoxLattice(inst)
    y = lp_bound(inst, time_limit=30, lattice=lat).prices
    delta = 2.0
    members, _, exhaustive = box_groups(lat, y, delta)
    cols, _, complete = enumerate_groups(d, d.scale * y, d.scale * delta)
    assert exhaustive and complete
    assert {tuple(r) for r in members} == {tuple(r) for r in cols.members}


@settings(max_examples=25, deadline=None, derandomize=True)
@given(inst=small_kanonymity_instances(8, deletion=True))
def test_exact_rounds_over_boxes_prove_the_brute_force_optimum(proof, inst):
    # small instances enumerate from representatives by default: force the lattice path
    with pytest.MonkeyPatch.context() as mp, proof.work():
        mp.setattr(set_partitioning, "LATTICE_MIN_UNIQUE", 0)
        solved = [solve_highs(inst, time_limit=proof.time_limit, seed=0)]
        try:  # CP-SAT needs integral costs (random weights are not): HiGHS alone then
            solved.append(solve_cpsat(inst, time_limit=proof.time_limit, seed=0))
        except UnsupportedInstanceError:
            assert not np.allclose(inst.table.weights, 1.0)
    opt = brute_force_opt(inst)
    for sol in solved:
        assert sol.status == "optimal"
        assert verify(inst, sol).cost == pytest.approx(opt, abs=1e-9)
