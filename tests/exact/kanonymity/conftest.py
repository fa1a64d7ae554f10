"""A 40-record instance whose bound the subset-row cuts win, computed once for every test of
the exact k-anonymity modules that hands a bound around."""

import pytest

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import set_partitioning, solve_cpsat
from anonratio.exact.kanonymity.lp_bound import lp_bound


@pytest.fixture(scope="session")
def cut_case(proof):
    """``(instance, lp_bound's result, CP-SAT's optimal solution)``; CP-SAT runs on the lattice
    path and computes its own bound (no ``bound=``)."""
    inst, _ = generate("kanon-random", seed=1, n=40, k=2)
    found = lp_bound(inst, time_limit=600)  # about 5 s on an idle core
    assert found.source == "subset-row"
    with pytest.MonkeyPatch.context() as mp, proof.work():
        mp.setattr(set_partitioning, "LATTICE_MIN_UNIQUE", 0)
        fresh = solve_cpsat(inst, time_limit=proof.time_limit, seed=0)
    assert fresh.status == "optimal" and not fresh.info["bound_given"]
    return inst, found, fresh
