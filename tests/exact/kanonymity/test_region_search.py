"""Region search (exact/kanonymity/region_search.py): a feasible partition never dearer than its
start, the brute-force optimum when one region holds every group, deleted records left deleted,
regions with nothing to gain left unsolved, and no solve after the deadline."""

from time import perf_counter

import numpy as np
import pytest
from bruteforce import kanonymity_optimum, small_kanonymity_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity.lp_bound import lp_bound
from anonratio.exact.kanonymity.region_search import _Partition, region_search
from anonratio.instances import KAnonymityInstance, verify
from anonratio.instances.kanonymity import random_table
from anonratio.instances.kanonymity.instance import nn_prices

TOL = 1e-7


def _random_partition(n, k, rng, deleted=0):
    """Records in random order cut into groups of k (the last takes the rest); the first
    ``deleted`` of that order are labelled -1."""
    order = rng.permutation(n)
    labels = np.full(n, -1)
    kept = order[deleted:]
    labels[kept] = np.minimum(np.arange(len(kept)) // k, max(0, len(kept) // k - 1))
    return labels


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 10),
    k=st.integers(2, 3),
    model=st.sampled_from(["suppression", "generalization"]),
)
def test_never_dearer_than_the_start_and_never_below_the_optimum(seed, n, k, model):
    inst = small_kanonymity_instance(seed, n, 2, k, model, weighted=True)
    start = _random_partition(inst.n, k, np.random.default_rng(seed))
    labels, info = region_search(inst, start, deadline=perf_counter() + 30, size=2, max_size=4)
    cost, before = verify(inst, labels).cost, verify(inst, start).cost
    assert kanonymity_optimum(inst) - TOL <= cost <= before + TOL
    assert info["region_gain"] == pytest.approx(before - cost, abs=1e-6)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), data=st.data())
def test_one_region_of_every_group_is_solved_to_the_optimum(proof, seed, k, data):
    # with at most 2k records, every record is among each other's 2k - 1 nearest neighbours: the
    # first region holds every group, and its exact model must prove its optimum
    n = data.draw(st.integers(k, 2 * k))
    inst = small_kanonymity_instance(seed, n, 3, k, "generalization", weighted=True)
    start = _random_partition(inst.n, k, np.random.default_rng(seed))
    with proof.work():
        deadline = perf_counter() + proof.time_limit
        labels, _ = region_search(inst, start, deadline=deadline, size=2, max_size=2)
    assert verify(inst, labels).cost == pytest.approx(kanonymity_optimum(inst), abs=TOL)


def test_deleted_records_stay_deleted():
    table = random_table(40, 3, cardinality=(2, 6), levels=(1, 3), seed=3)
    inst = KAnonymityInstance(table, 3, "generalization", row_deletion=True)
    start = _random_partition(inst.n, 3, np.random.default_rng(3), deleted=4)
    labels, info = region_search(inst, start, deadline=perf_counter() + 30)
    assert np.array_equal(labels < 0, start < 0)
    assert verify(inst, labels).feasible
    assert verify(inst, labels).cost <= verify(inst, start).cost + TOL
    assert info["region_solves"] > 0


def test_groups_of_reduced_cost_zero_seed_no_region():
    # four values, three identical records of each: the nearest-neighbour prices are 0, and so
    # is the cost of grouping identical records
    table = random_table(4, 3, cardinality=(4, 4), levels=(1, 2), seed=1)
    codes = np.repeat(table.codes, 3, axis=0)
    table = type(table)(codes, table.attributes, table.values, table.hierarchies)
    inst = KAnonymityInstance(table, 3, "generalization")
    by_value = np.unique(codes, axis=0, return_inverse=True)[1].ravel()
    labels, info = region_search(inst, by_value, deadline=perf_counter() + 30)
    assert info["region_solves"] == 0 and verify(inst, labels).cost == 0
    mixed = np.arange(inst.n) % 4  # each group holds one record of every value
    labels, info = region_search(inst, mixed, deadline=perf_counter() + 30)
    assert info["region_solves"] > 0 and verify(inst, labels).cost == pytest.approx(0.0)


def test_no_solve_after_the_deadline():
    inst, _ = generate("kanon-random", seed=0, n=30, k=3)
    start = _random_partition(inst.n, 3, np.random.default_rng(0))
    labels, info = region_search(inst, start, deadline=perf_counter() - 1)
    assert info["region_solves"] == 0
    assert verify(inst, labels).cost == pytest.approx(verify(inst, start).cost)


@pytest.mark.slow
def test_refreshed_prices_give_the_reduced_costs_from_scratch():
    inst, _ = generate("kanon-random", seed=1, n=40, k=3)
    start = _random_partition(inst.n, 3, np.random.default_rng(1))
    better = lp_bound(inst, time_limit=20).prices
    part = _Partition.of(inst, start, nn_prices(inst))
    part.reprice(better)
    # from scratch: each group's cost minus its members' prices, and in all the verified cost
    # minus every record's price
    inverse = inst.unique_records[1]
    by_hand = part.cost - np.array([better[inverse[g]].sum() for g in part.members])
    total = verify(inst, start).cost - better[inverse].sum()
    assert part.rc.sum() == pytest.approx(total)
    assert np.allclose(part.rc, by_hand) and np.allclose(part.price, better[inverse])
    calls = []

    def refresh():
        calls.append(None)
        return better if len(calls) == 1 else None

    labels, info = region_search(inst, start, deadline=perf_counter() + 30, refresh=refresh)
    assert len(calls) >= info["region_solves"] >= 1  # asked before every region
    assert verify(inst, labels).cost <= verify(inst, start).cost + TOL


@pytest.mark.slow
def test_done_passes_wait_for_new_prices_and_start_again():
    inst, _ = generate("kanon-random", seed=1, n=40, k=3)
    start = _random_partition(inst.n, 3, np.random.default_rng(1))
    better = lp_bound(inst, time_limit=20).prices
    waited = []

    def more_prices():
        waited.append(None)
        return len(waited) == 1  # one batch of prices still to come

    def refresh():  # the batch arrives while the search waits for it
        return better if len(waited) == 1 else None

    labels, info = region_search(
        inst,
        start,
        deadline=perf_counter() + 60,
        prices=nn_prices(inst),
        refresh=refresh,
        more_prices=more_prices,
    )
    assert info["region_restarts"] == 1 and len(waited) == 2
    assert verify(inst, labels).cost <= verify(inst, start).cost + TOL
