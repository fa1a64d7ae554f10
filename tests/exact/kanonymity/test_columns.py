"""Group enumeration, prices, incumbents and the solve loop of the exact k-anonymity models."""

import time
from itertools import combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonratio.exact.kanonymity.set_partitioning as spm
from anonratio.exact.kanonymity.columns import (
    Columns,
    Timeout,
    _integer_scale,
    column_generation,
    enumerate_groups,
    initial_pool,
    prepare,
)
from anonratio.exact.kanonymity.cpsat import _sp_cpsat
from anonratio.exact.kanonymity.incumbents import (
    decode,
    greedy_incumbent,
    hint_incumbent,
    nn_groups,
)
from anonratio.exact.kanonymity.set_partitioning import solve_by_columns
from anonratio.instances import lower_bound, verify
from anonratio.instances.kanonymity.instance import group_levels

SEEDS = st.integers(0, 2**32 - 1)


def all_groups(instance):
    """Every multiset of k .. 2k - 1 unique records, with its cost from the package verifier."""
    unique, inverse, counts = instance.table.unique_records()
    rows = [np.flatnonzero(inverse == i) for i in range(len(counts))]
    k, out = instance.k, {}
    scale = instance.table.weights / instance.heights
    for size in range(k, 2 * k):
        for group in combinations_with_replacement(range(len(counts)), size):
            members, mult = np.unique(group, return_counts=True)
            if np.any(mult > counts[members]):
                continue
            labels = np.full(instance.n, -1)
            for i, c in zip(members, mult, strict=True):
                labels[rows[i][:c]] = 0
            _, sizes, levels = group_levels(instance, labels)
            out[group] = float(sizes[0] * (levels[0] @ scale))
    return out


def as_dict(cols):
    rows = zip(cols.members, cols.cost, strict=True)
    return {tuple(int(i) for i in row if i >= 0): c for row, c in rows}


def dup_instance(kx, seed, **kw):
    """Tiny instances with few values, so identical records are common."""
    return kx.random_instance(seed, n_max=9, row_deletion=False, **kw)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_enumeration_finds_exactly_the_groups_below_the_threshold(kx, seed):
    instance = dup_instance(kx, seed)
    d = prepare(instance)
    rng = np.random.default_rng(seed)
    pi = d.nn * rng.uniform(0.5, 2.0) + rng.normal(0, d.a.max(), size=d.u)
    threshold = float(rng.uniform(-1, 4)) * d.a.max()
    cols, rc, exhaustive = enumerate_groups(d, pi, threshold)
    assert exhaustive
    found = as_dict(cols)
    expected = {}
    for group, cost in all_groups(instance).items():
        if d.scale * cost - pi[list(group)].sum() <= threshold + 1e-9:
            expected[group] = d.scale * cost
    assert found.keys() == expected.keys()
    for group, cost in expected.items():
        assert found[group] == pytest.approx(cost)
    assert np.allclose(rc, cols.cost - np.where(cols.members >= 0, pi[cols.members], 0).sum(1))


def test_enumeration_cap_keeps_the_cheapest(kx):
    instance = kx.binary_instance(14, 4, 2, seed=1)
    d = prepare(instance)
    full, rc_full, _ = enumerate_groups(d, d.nn, 3.0)
    cols, rc, exhaustive = enumerate_groups(d, d.nn, 3.0, max_columns=5)
    assert not exhaustive and len(cols) <= 5 and len(full) > 5
    assert rc.max() <= np.sort(rc_full)[len(cols) - 1] + 1e-9


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_prices_are_dual_feasible_and_bound_the_optimum(kx, seed):
    instance = kx.random_instance(seed, n_max=7)
    d = prepare(instance)
    groups = all_groups(instance)
    assert np.all(d.nn <= d.del_coef + 1e-9)
    pool = initial_pool(d, deadline=np.inf)
    center, bound, _, info = column_generation(d, pool, deadline=np.inf)
    for group, cost in groups.items():
        assert d.scale * cost >= d.nn[list(group)].sum() - 1e-9
        assert d.scale * cost >= center[list(group)].sum() - 1e-6
    if instance.row_deletion:
        assert np.all(center <= d.del_coef + 1e-6)
    assert float(d.nn @ d.counts) - 1e-6 <= bound <= d.scale * kx.brute_force(instance) + 1e-6
    assert info["cg_iterations"] >= 1


def test_hint_groups_are_cut_and_decode_to_the_same_cost(kx):
    instance = kx.binary_instance(11, 5, 3, seed=2)
    d = prepare(instance)
    labels = np.zeros(instance.n, dtype=int)  # one group of 11 records: cut into 3 pieces
    inc = hint_incumbent(d, labels)
    sizes = (inc.columns.members >= 0).sum(axis=1)
    assert inc.z.sum() == 3 and np.all((sizes >= 3) & (sizes <= 5))
    decoded = decode(d, inc)
    cost = verify(instance, decoded).cost
    assert cost == pytest.approx(inc.cost / d.scale)
    assert cost <= verify(instance, labels).cost


def test_hint_with_deleted_records(kx):
    instance = kx.binary_instance(7, 4, 2, seed=3, row_deletion=True)
    labels = np.array([0, 0, 1, 1, 1, -1, -1])
    d = prepare(instance)
    inc = hint_incumbent(d, labels)
    assert inc.dele.sum() == 2
    decoded = decode(d, inc)
    assert np.sum(decoded == -1) == 2
    assert verify(instance, decoded).cost == pytest.approx(verify(instance, labels).cost)


def test_group_multiplicity_bounds():
    cols = Columns(np.array([[0, 0, 1], [0, 1, 2], [2, 2, -1]]), np.zeros(3))
    counts = np.array([3, 1, 5])
    a = cols.incidence(3)
    assert a.toarray().tolist() == [[2, 1, 0], [1, 1, 0], [0, 1, 2]]
    assert cols.zmax(a, counts).tolist() == [1, 1, 2]


@pytest.mark.parametrize(
    ("values", "expected"),
    [([1.0, 0.5, 1 / 3], 6), ([0.1, 2.0], 10), ([1.0], 1), ([1 / 999983, 1 / 999979], None)],
)
def test_integer_scale(values, expected):
    assert _integer_scale(values) == expected


def test_capped_enumeration_never_claims_what_it_did_not_prove(kx):
    instance = kx.binary_instance(30, 8, 3, seed=9)
    sol = solve_by_columns(
        instance,
        _sp_cpsat,
        algorithm="cpsat",
        time_limit=20,
        seed=0,
        threads=1,
        hint=None,
        upper_bound=None,
        need_integral=True,
        max_columns=10,
    )
    assert sol.status in ("optimal", "feasible", "error")
    if sol.labels is not None:
        assert verify(instance, sol).cost == pytest.approx(sol.objective)
        assert sol.lower_bound <= sol.objective + 1e-9
    if sol.status == "optimal":
        assert sol.lower_bound == sol.objective
    else:
        assert "max_columns=10" in sol.info["reason"]


def test_capped_rounds_use_the_room_below_the_cap(kx, monkeypatch):
    # a widening that would reach a delta known to give too many groups goes half way to it:
    # the loop gives up only when a step would prove less than one more cost unit
    seen = []
    enumerate_ = spm._enumerate

    def recorded(d, st, *args):
        cols, complete = enumerate_(d, st, *args)
        seen.append((st.delta, complete))
        return cols, complete

    monkeypatch.setattr(spm, "_enumerate", recorded)
    instance = kx.binary_instance(40, 10, 4, seed=2)
    sol = solve_by_columns(
        instance,
        _sp_cpsat,
        algorithm="cpsat",
        time_limit=20,
        seed=0,
        threads=1,
        hint=None,
        upper_bound=None,
        need_integral=True,
        max_columns=1000,
    )
    assert verify(instance, sol).cost == pytest.approx(sol.objective)
    assert sol.status == "feasible" and "max_columns=1000" in sol.info["reason"]
    solved = max(delta for delta, complete in seen if complete)
    too_big = min(delta for delta, complete in seen if not complete)
    assert too_big - solved < 2  # (the old loop stopped at 3.5 below a cap of 7)
    for i, (delta, _) in enumerate(seen):  # no delta at or past a cap already met
        assert all(delta < cap for cap, complete in seen[:i] if not complete)


def test_round_time_limit_is_read_when_the_solver_starts(kx):
    # the time spent building a round's model comes out of the solver's limit
    limits = []

    def slow_builder(task):
        limits.append(task.time_limit)
        time.sleep(0.05)  # building the model
        limits.append(task.time_limit)
        return _sp_cpsat(task)

    instance = kx.binary_instance(12, 6, 3, seed=1)
    sol = solve_by_columns(
        instance,
        slow_builder,
        algorithm="cpsat",
        time_limit=20,
        seed=0,
        threads=1,
        hint=None,
        upper_bound=None,
        need_integral=True,
    )
    assert sol.status == "optimal"
    assert limits and all(0 < b <= a - 0.05 for a, b in zip(limits[::2], limits[1::2], strict=True))
    assert max(limits) <= 20


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_greedy_start_and_nearest_groups_are_feasible(kx, seed):
    instance = kx.random_instance(seed, n_max=12)
    d = prepare(instance)
    inc = greedy_incumbent(d)
    labels = decode(d, inc)
    assert np.all(labels >= 0)  # the greedy deletes nothing
    assert verify(instance, labels).cost == pytest.approx(inc.cost / d.scale)
    cols = nn_groups(d)
    sizes = (cols.members >= 0).sum(axis=1)
    assert np.all(sizes == instance.k)
    assert np.all(cols.zmax(cols.incidence(d.u), d.counts) >= 1)


def test_too_many_unique_records_is_a_memory_limit(kx, monkeypatch):
    import anonratio.exact.kanonymity.columns as columns

    monkeypatch.setattr(columns, "MAX_PAIR_BYTES", 100)
    instance = kx.binary_instance(10, 4, 2, seed=0)
    labels = np.arange(10) // 2
    sol = solve_by_columns(
        instance,
        _sp_cpsat,
        algorithm="cpsat",
        time_limit=5,
        seed=0,
        threads=1,
        hint=labels,
        upper_bound=None,
        need_integral=True,
    )
    assert sol.status == "memory_limit" and "unique records" in sol.info["reason"]
    assert np.array_equal(sol.labels, labels)
    assert sol.objective == verify(instance, labels).cost
    assert sol.lower_bound == lower_bound(instance)[0]


def test_a_deadline_before_the_pairwise_tables_returns_the_hint(kx):
    # building the (u, u) tables took 2 s at 5,000 unique records, past a run's whole limit
    instance = kx.binary_instance(10, 4, 2, seed=0)
    labels = np.arange(10) // 2
    with pytest.raises(Timeout):
        prepare(instance, deadline=time.perf_counter() - 1.0)
    sol = solve_by_columns(
        instance,
        _sp_cpsat,
        algorithm="cpsat",
        time_limit=1e-9,
        seed=0,
        threads=1,
        hint=labels,
        upper_bound=None,
        need_integral=True,
    )
    assert sol.status == "time_limit" and sol.info["reason"] == (
        "the time limit came while building the pairwise tables"
    )
    assert np.array_equal(sol.labels, labels) and sol.lower_bound == lower_bound(instance)[0]
