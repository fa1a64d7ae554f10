"""Tests of solvers/ldiversity/tp_plus.py: TP+ = TP + Hilbert on the residue (§5.6, §6.1)."""

import numpy as np
from bruteforce_ldiversity import ldiversity_optima, make, tables
from hypothesis import given, settings

from anonratio.instances import verify
from anonratio.solvers.ldiversity import METHODS, ldiversify
from anonratio.solvers.ldiversity.tp import tp, tp_guarantee
from anonratio.solvers.ldiversity.tp_plus import tp_plus


@settings(max_examples=150, deadline=None, derandomize=True)
@given(tables())
def test_tp_plus_never_worse_than_tp_and_within_guarantee(inst):
    base, plus = tp(inst), tp_plus(inst, seed=2)
    vb, vp = verify(inst, base), verify(inst, plus)
    assert vp.cost == plus.objective and plus.algorithm == "tp-plus"
    assert vp.stars <= vb.stars and vp.suppressed_tuples <= vb.suppressed_tuples
    assert plus.info["phase"] == base.info["phase"]
    assert plus.info["tp_cost"] == vb.cost
    opt = ldiversity_optima(inst)[inst.objective]
    assert vp.cost <= tp_guarantee(inst, plus) * opt + 1e-9
    assert plus.lower_bound <= opt


def test_residue_is_split():
    # four singleton QI-groups, all moved to R; Hilbert cuts R into two 2-eligible pairs
    inst2 = make(np.array([[0, 0], [0, 1], [5, 5], [5, 6]]), [0, 1, 0, 1], 2, card=8)
    base, plus = tp(inst2), tp_plus(inst2)
    assert base.info["residue"] == 4 and base.objective == 8
    assert plus.info["residue_groups"] == 2 and plus.objective == 4
    verify(inst2, plus)


def test_dispatch():
    inst = make([0, 0, 1, 1], [0, 1, 0, 1], 2)
    assert set(METHODS) == {"tp", "tp-plus", "hilbert", "matching", "ldiv-tds"}
    for name in ("tp", "tp-plus", "hilbert"):
        assert verify(inst, ldiversify(inst, method=name)).cost == 0
