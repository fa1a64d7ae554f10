"""kanon-bpc's reduced-cost pool: every group within ``delta`` of dual-feasible prices, the same
over the lattice and from representatives, and the test that it prices a node alone."""

import numpy as np
import pytest

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.bpc import solve_bpc
from anonratio.exact.kanonymity.bpc_pool import build_pool
from anonratio.exact.kanonymity.columns import prepare


@pytest.fixture(scope="module")
def case():
    instance, _ = generate("kanon-random", seed=2, n=16, m=3, k=2)
    d = prepare(instance)
    return instance, d, d.nn.astype(float)  # the nearest-neighbour prices are dual feasible


def _rows(pool):
    return {row.tobytes() for row in pool.members}


def test_lattice_and_representatives_give_the_same_pool(case):
    instance, d, pi0 = case
    delta = 3 * d.scale
    by_lattice = build_pool(d, BoxLattice(instance), pi0, delta, deadline=np.inf)
    by_enumeration = build_pool(d, None, pi0, delta, deadline=np.inf)
    assert by_lattice.delta == by_enumeration.delta == delta
    assert len(by_lattice) > 0 and _rows(by_lattice) == _rows(by_enumeration)
    rc0 = by_lattice.cost - np.where(
        by_lattice.members >= 0, pi0[np.maximum(by_lattice.members, 0)], 0
    ).sum(axis=1)
    assert rc0.max() <= delta + 1e-9 and rc0.min() >= -1e-9


def test_a_capped_pool_shrinks_its_delta(case):
    _, d, pi0 = case
    full = build_pool(d, None, pi0, 3 * d.scale, deadline=np.inf)
    capped = build_pool(d, None, pi0, 3 * d.scale, deadline=np.inf, max_columns=len(full) - 1)
    assert capped.delta < full.delta and len(capped) < len(full)
    assert _rows(capped) <= _rows(full)


def test_covers(case):
    _, d, pi0 = case
    pool = build_pool(d, None, pi0, d.scale, deadline=np.inf)
    far = pool.lb0 + 100 * d.scale  # an incumbent far above: only the prices can tell
    assert pool.covers(pi0, far)  # no price above pi0: every outside group keeps rc > delta
    y = pi0.copy()
    y[0] += 2 * d.scale  # one record dearer by more than delta
    assert not pool.covers(y, far)
    assert pool.covers(y, pool.lb0 + pool.delta)  # no cheaper partition needs another group
    negative = pool.negative(y, 1e-9)
    assert all(0 in pool.members[g] for g in negative)


def test_the_pool_prices_the_tree():
    instance, _ = generate("kanon-random", seed=2, n=20, k=3)
    sol = solve_bpc(instance, time_limit=120)
    assert sol.status == "optimal" and sol.info["nodes"] > 1
    assert sol.info["pool_columns"] > 0 and sol.info["pricing_by_pool"] > 0
