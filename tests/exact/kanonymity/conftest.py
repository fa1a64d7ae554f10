"""A 40-record instance whose bound the subset-row cuts win, computed once for every test of
the exact k-anonymity modules that hands a bound around."""

import pytest
from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import solve_cpsat
from anonratio.exact.kanonymity.lp_bound import lp_bound


@pytest.fixture(scope="session")
def cut_case():
    """``(instance, lp_bound's result, CP-SAT's proven optimum)``."""
    inst, _ = generate("kanon-random", seed=1, n=40, k=2)
    found = lp_bound(inst, time_limit=60)
    assert found.source == "subset-row"
    opt = solve_cpsat(inst, time_limit=120)
    assert opt.status == "optimal"
    return inst, found, opt.objective
