"""Tests of solvers/ldiversity/tp_plus.py: TP+ = TP + Hilbert on the residue (§5.6, §6.1)."""

import numpy as np
from anonratio.instances import verify
from anonratio.instances.ldiversity.instance import LDiversityInstance
from anonratio.instances.table import Table
from anonratio.solvers.ldiversity import METHODS, ldiversify
from anonratio.solvers.ldiversity.tp import tp, tp_guarantee
from anonratio.solvers.ldiversity.tp_plus import tp_plus
from bruteforce_ldiversity import ldiversity_optima
from hypothesis import assume, given, settings
from hypothesis import strategies as st


def make(codes, s, l, objective="stars", card=None):
    codes = np.asarray(codes, dtype=np.int64).reshape(len(s), -1)
    d = codes.shape[1]
    card = int(codes.max()) + 1 if card is None else card
    m = int(max(s)) + 1
    t = Table(
        codes,
        [f"a{j}" for j in range(d)],
        [[str(v) for v in range(card)]] * d,
        sensitive=s,
        sensitive_values=[str(v) for v in range(m)],
    )
    return LDiversityInstance(t, l, objective)


@st.composite
def tables(draw, max_n=9, max_l=4):
    """Random small tables, the whole table l-eligible; few QI values so QI-groups form."""
    n = draw(st.integers(2, max_n))
    l = draw(st.integers(2, min(max_l, n)))
    d = draw(st.integers(1, 3))
    card = draw(st.integers(1, 3))
    m = draw(st.integers(l, l + 3))
    codes = draw(st.lists(st.integers(0, card - 1), min_size=n * d, max_size=n * d))
    s = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    assume(l * max(np.bincount(s)) <= n)
    objective = draw(st.sampled_from(["stars", "tuples"]))
    return make(codes, s, l, objective, card=card)


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
    assert set(METHODS) == {"tp", "tp-plus", "hilbert", "matching"}
    for name in ("tp", "tp-plus", "hilbert"):
        assert verify(inst, ldiversify(inst, method=name)).cost == 0
