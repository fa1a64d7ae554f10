"""Tests of instances/ldiversity/gadgets.py: the 3DM reduction's claim against brute force."""

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optima
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import instance_id, lower_bound, verify
from anonratio.instances.io import load_instance, save_instance
from anonratio.instances.ldiversity.gadgets import (
    maximum_3dm,
    random_3dm,
    random_3dm_gadget,
    three_dm_gadget,
)

# the paper's style of example: q = 2, a perfect matching {p1, p2}
POINTS = [[0, 0, 0], [1, 1, 1], [0, 1, 0]]


def test_table_layout():
    inst, meta = three_dm_gadget(POINTS, 2)
    assert (inst.n, inst.d, inst.l, inst.objective, inst.m) == (6, 3, 3, "stars", 3)
    assert inst.table.attributes == ("A1", "A2", "A3")
    # rows x0, x1, y0, y1, z0, z1 with sensitive codes 0, 0, 1, 1, 2, 2 (labels "1", "2", "3")
    np.testing.assert_array_equal(inst.sensitive, [0, 0, 1, 1, 2, 2])
    assert inst.table.sensitive_values == ("1", "2", "3")
    expected = np.array(
        [
            [0, 1, 0],  # x0 is a coordinate of p1 and p3
            [1, 0, 1],  # x1 of p2
            [0, 2, 2],  # y0 of p1
            [2, 0, 0],  # y1 of p2 and p3
            [0, 3, 0],  # z0 of p1 and p3
            [3, 0, 3],  # z1 of p2
        ]
    )
    np.testing.assert_array_equal(inst.table.codes, expected)
    # Property 1: every attribute has exactly three zeros, one per domain
    assert np.all((inst.table.codes == 0).sum(axis=0) == 3)
    assert meta["has_matching"] and meta["max_matching"] == [0, 1]
    assert meta["threshold"] == meta["optimum"] == 12.0  # 3 q (t - 1)
    assert verify(inst, meta["witness"]).cost == 12.0
    assert ldiversity_optima(inst)["stars"] == 12


def test_no_matching_hand_example():
    # every two of the points share a coordinate: no perfect matching
    pts = [[0, 0, 0], [1, 0, 1], [1, 1, 0]]
    inst, meta = three_dm_gadget(pts, 2)
    assert not meta["has_matching"] and len(meta["max_matching"]) == 1
    assert meta["threshold"] == 12.0 and meta["optimum"] == 3 * 2 * 3 - 3 == 15.0
    assert ldiversity_optima(inst)["stars"] == 15


@given(
    q=st.integers(1, 3),
    extra=st.integers(0, 4),
    mode=st.sampled_from([True, False, None]),
    m_extra=st.integers(0, 6),
    seed=st.integers(0, 10_000),
)
@settings(derandomize=True, deadline=None, max_examples=60)
def test_claim_against_brute_force(q, extra, mode, m_extra, seed):
    t = min(q + extra, q**3 - (mode is False))
    if mode is False and (q < 2 or t <= q):
        return
    if mode is False and q == 2 and t >= 5:  # 5 of the 8 points always hold a perfect matching
        t = 4
    m = min(3 + m_extra, 3 * q)
    inst, meta = random_3dm_gadget(q, t, has_matching=mode, m=m, seed=seed)
    if mode is not None:
        assert meta["has_matching"] is mode
    opt = ldiversity_optima(inst)["stars"]
    # Lemma 4.5 and Property 4: optimum >= 3q(t - 1), with equality iff a perfect matching
    assert opt == meta["optimum"] == 3 * q * t - 3 * len(meta["max_matching"])
    assert opt >= meta["threshold"] == 3 * q * (t - 1)
    assert (opt == meta["threshold"]) == meta["has_matching"]
    assert verify(inst, meta["witness"]).cost == opt
    assert lower_bound(inst)[0] <= opt
    assert inst.m == m and len(np.unique(inst.sensitive)) == m


def test_useful_groups_are_point_triples():
    # Property 3: a group with a non-star column is the 3 coordinate rows of one point
    inst, meta = three_dm_gadget(POINTS, 2)
    w = np.array(meta["witness"])
    for g in np.unique(w):
        rows = np.flatnonzero(w == g)
        const = np.flatnonzero(np.ptp(inst.table.codes[rows], axis=0) == 0)
        assert len(rows) == 3 and len(const) == 1
        assert np.all(inst.table.codes[rows][:, const] == 0)


def test_random_3dm_modes():
    p = random_3dm(4, 9, perfect=True, seed=0)
    assert p.shape == (9, 3) and len(np.unique(p, axis=0)) == 9
    assert len(maximum_3dm(p, 4)) == 4
    p = random_3dm(4, 6, perfect=False, seed=0)
    assert all(np.unique(p[:, k]).size == 4 for k in range(3))  # every value covered
    assert len(maximum_3dm(p, 4)) < 4
    p = random_3dm(3, 27, seed=0)
    assert len(np.unique(p, axis=0)) == 27
    np.testing.assert_array_equal(random_3dm(3, 5, seed=4), random_3dm(3, 5, seed=4))


def test_maximum_3dm():
    assert maximum_3dm([[0, 0, 0]], 1) == [0]
    assert maximum_3dm([[0, 0, 0], [0, 1, 1], [1, 1, 1]], 2) == [0, 2]
    assert len(maximum_3dm([[0, 0, 0], [0, 1, 1], [1, 0, 1]], 2)) == 1


def test_errors():
    with pytest.raises(ValueError, match="`points`"):
        three_dm_gadget([[0, 0]], 2)
    with pytest.raises(ValueError, match="`points`.*0 .. q - 1"):
        three_dm_gadget([[0, 0, 2]], 2)
    with pytest.raises(ValueError, match="`points` must be distinct"):
        three_dm_gadget([[0, 0, 0], [0, 0, 0]], 2)
    with pytest.raises(ValueError, match="`points` must hold integers"):
        three_dm_gadget([[0.0, 0.0, 0.0]], 2)
    with pytest.raises(ValueError, match="`m`"):
        three_dm_gadget(POINTS, 2, m=7)
    with pytest.raises(ValueError, match="`m`"):
        three_dm_gadget(POINTS, 2, m=2)
    with pytest.raises(ValueError, match="`q`"):
        three_dm_gadget(POINTS, 0)
    with pytest.raises(ValueError, match="`t`"):
        random_3dm(2, 9)
    with pytest.raises(ValueError, match="`t`"):
        random_3dm(3, 2, perfect=True)
    with pytest.raises(ValueError, match="no 8 points"):
        random_3dm(2, 8, perfect=False)
    with pytest.raises(ValueError, match="no 3 points"):
        random_3dm(3, 3, perfect=False)
    with pytest.raises(ValueError, match="`max_tries`"):
        random_3dm(2, 5, perfect=False, seed=0, max_tries=10)
    with pytest.raises(ValueError, match="`perfect`"):
        random_3dm(2, 3, perfect="yes")


def test_json_round_trip_and_determinism(tmp_path):
    inst, meta = random_3dm_gadget(3, 6, has_matching=True, seed=2)
    again, meta2 = random_3dm_gadget(3, 6, has_matching=True, seed=2)
    assert instance_id(inst) == instance_id(again) and meta == meta2
    ident = save_instance(tmp_path / "g.json", inst, meta=meta)
    back, m = load_instance(tmp_path / "g.json")
    assert instance_id(back) == ident and m["optimum"] == meta["optimum"]
    assert verify(back, m["witness"]).cost == m["optimum"]


def test_larger_gadget_witness():
    # beyond brute force: the witness is verified at the claimed optimum
    inst, meta = random_3dm_gadget(10, 40, has_matching=True, seed=0)
    assert inst.n == 30 and inst.d == 40
    assert verify(inst, meta["witness"]).cost == meta["optimum"] == meta["threshold"]
    inst, meta = random_3dm_gadget(6, 12, has_matching=False, seed=0)
    assert meta["optimum"] > meta["threshold"]
