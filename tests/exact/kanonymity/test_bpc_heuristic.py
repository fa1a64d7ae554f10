"""kanon-bpc's primal heuristic: a cheaper partition over given groups, verified, or None."""

import numpy as np
import pytest

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import solve_cpsat
from anonratio.exact.kanonymity.bpc_heuristic import restricted_partition
from anonratio.exact.kanonymity.bpc_pool import build_pool
from anonratio.exact.kanonymity.columns import prepare
from anonratio.exact.kanonymity.incumbents import decode, greedy_incumbent, hint_incumbent
from anonratio.instances import verify

#: every solve here that must prove its optimum runs on the proof's work budget
pytestmark = pytest.mark.usefixtures("proof_budget")


@pytest.mark.parametrize(("seed", "row_deletion"), [(2, False), (3, True)])
def test_finds_the_optimum_over_the_cheap_groups(seed, row_deletion, proof):
    instance, _ = generate("kanon-random", seed=seed, n=16, m=3, k=2, row_deletion=row_deletion)
    d = prepare(instance)
    optimum = solve_cpsat(instance, time_limit=proof.time_limit)
    start = greedy_incumbent(d)
    assert start.cost > optimum.objective * d.scale + 1e-9  # room to improve
    # every group within the gap of the nearest-neighbour prices: the optimum's among them
    pool = build_pool(d, None, d.nn.astype(float), start.cost - d.lb_nn, deadline=np.inf)
    assert pool is not None and pool.delta >= start.cost - d.lb_nn
    found = restricted_partition(d, pool.members, pool.cost, start, deadline=np.inf)
    assert found is not None
    assert found.cost == pytest.approx(optimum.objective * d.scale)
    check = verify(instance, decode(d, found))
    assert check.feasible and check.cost * d.scale == pytest.approx(found.cost)


def test_none_when_the_start_is_optimal(proof):
    instance, _ = generate("kanon-random", seed=2, n=16, m=3, k=2)
    d = prepare(instance)
    best = hint_incumbent(d, solve_cpsat(instance, time_limit=proof.time_limit).labels)
    pool = build_pool(d, None, d.nn.astype(float), d.scale, deadline=np.inf)
    assert restricted_partition(d, pool.members, pool.cost, best, deadline=np.inf) is None
