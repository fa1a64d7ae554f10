"""kanon-bpc's pricer: the partial lattice pricing over the nodes that last held negative
groups, and the primal heuristic, partial pricing and the pool narrowed by node at work in a
run."""

import numpy as np
import pytest

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import bpc, solve_cpsat
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.bpc import solve_bpc
from anonratio.exact.kanonymity.columns import prepare
from anonratio.instances import verify

#: every solve here that must prove its optimum runs on the proof's work budget
pytestmark = pytest.mark.usefixtures("proof_budget")


def _rows(priced):
    return {row.tobytes() for row in priced.members}


def test_pricing_a_subset_of_the_lattice():
    instance, _ = generate("kanon-random", seed=1, n=30, m=3, k=3)
    d = prepare(instance)
    lattice = BoxLattice(instance)
    y = 1.3 * d.nn / d.scale  # too dear: some groups have a negative reduced cost
    full = lattice.price(y, max_columns=10_000)
    assert len(full.members) > 0 and len(full.hits) > 0
    everything = lattice.price(y, max_columns=10_000, only=np.arange(len(lattice.nodes)))
    assert _rows(everything) == _rows(full) and everything.shift == full.shift
    # the nodes that held negative groups alone give every group the full sweep gives
    hits = lattice.price(y, max_columns=10_000, only=full.hits)
    assert _rows(hits) == _rows(full) and set(hits.hits) == set(full.hits)
    rest = np.setdiff1d(np.arange(len(lattice.nodes)), full.hits)
    none = lattice.price(y, max_columns=10_000, only=rest)
    assert len(none.members) == 0 and len(none.hits) == 0


@pytest.mark.parametrize("seed", [0, 2])
def test_heuristic_partial_pricing_and_narrowing_in_a_run(monkeypatch, seed, proof):
    # a weak start (no hint, a greedy partition) on the lattice path: the heuristic improves it;
    # the tree's nodes narrow the pool for their subtrees and the optimum is still proven
    monkeypatch.setattr(bpc, "LATTICE_MIN_UNIQUE", 0)
    instance, _ = generate("kanon-random", seed=seed, n=24, m=3, k=3)
    sol = solve_bpc(instance, time_limit=proof.time_limit)
    optimum = solve_cpsat(instance, time_limit=proof.time_limit).objective
    assert sol.status == "optimal" and sol.objective == pytest.approx(optimum)
    assert verify(instance, sol).cost == pytest.approx(optimum)
    info = sol.info
    assert info["pricer"] == "lattice" and info["pricing_partial"] > 0
    assert info["start_cost"] > optimum and info["heuristic_solutions"] == 1
    assert info["nodes"] > 1 and info["pool_narrowed"] > 0
