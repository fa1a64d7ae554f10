"""TDS, Top-Down Specialization (solvers/kanonymity/tds.py): verified k-anonymous global
recodings, the score InfoGain / (AnonyLoss + 1) checked by hand, never below the optimum."""

import math

import numpy as np
import pytest
from bruteforce import small_kanonymity_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.exact.kanonymity import solve_highs
from anonratio.instances import Hierarchy, KAnonymityInstance, Table, verify
from anonratio.instances.kanonymity.kl_divergence import kl_divergence
from anonratio.solvers.kanonymity import METHODS, k_anonymize
from anonratio.solvers.kanonymity.tds import Requirement, specialize, tds

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _h(bits):
    """Entropy (bits) of a count vector, written out for the hand checks."""
    n = sum(bits)
    return -sum(c / n * math.log2(c / n) for c in bits if c)


def _example():
    """A (p/q), B (u/v), class s: A has the larger InfoGain, B the larger score."""
    rows = [("p", "v", 1)] * 2 + [("q", "v", 1)] + [("q", "v", 0)] * 2 + [("q", "u", 0)] * 5
    codes = [[0 if a == "p" else 1, 0 if b == "u" else 1] for a, b, _ in rows]
    s = [r[2] for r in rows]
    return Table(codes, ["A", "B"], [["p", "q"], ["u", "v"]], sensitive=s)


def test_hand_checked_score_and_choice():
    inst = KAnonymityInstance(_example(), 2)
    sol = tds(inst)
    first, second = sol.info["specializations"]
    # InfoGain(A) = I(3:7) - 8/10 I(1:7), AnonyLoss(A) = 10 - 2 (class p keeps 2 records)
    gain_a = _h([3, 7]) - 0.8 * _h([1, 7])
    # InfoGain(B) = I(3:7) - 5/10 I(0:5) - 5/10 I(3:2), AnonyLoss(B) = 10 - 5
    gain_b = _h([3, 7]) - 0.5 * _h([3, 2])
    assert gain_a > gain_b and gain_b / 6 > gain_a / 9  # B wins on the score only
    assert first["attribute"] == "B" and first["node"] == "*"
    assert first["gain"] == pytest.approx(gain_b) and first["anonymity_loss"] == 5
    assert first["score"] == pytest.approx(gain_b / 6)
    # then A, from classes u (5) and v (5) to (q,u) 5, (p,v) 2, (q,v) 3: loss 5 - 2
    assert second["attribute"] == "A" and second["gain"] == pytest.approx(gain_a)
    assert second["anonymity_loss"] == 3 and second["score"] == pytest.approx(gain_a / 4)
    assert len(np.unique(sol.labels)) == 3 and verify(inst, sol).cost == 0
    assert sol.info["cut"] == {"A": ["p", "q"], "B": ["u", "v"]}


def test_invalid_specialization_is_skipped():
    # k = 3: A's class p (2 records) violates k, so only B is specialized
    inst = KAnonymityInstance(_example(), 3)
    sol = tds(inst)
    assert [s["attribute"] for s in sol.info["specializations"]] == ["B"]
    assert np.bincount(sol.labels).min() >= 3
    assert verify(inst, sol).feasible


def test_zero_gain_specializations_only_when_asked():
    # A splits the class 1:1 inside each child: InfoGain 0, valid for k = 2
    t = Table([[0], [0], [1], [1]], ["A"], [["x", "y"]], sensitive=[0, 1, 0, 1])
    inst = KAnonymityInstance(t, 2)
    assert tds(inst).info["specializations"] == []
    assert len(np.unique(tds(inst).labels)) == 1
    wide = tds(inst, beneficial=False)
    assert [s["gain"] for s in wide.info["specializations"]] == [0.0]
    assert len(np.unique(wide.labels)) == 2 and verify(inst, wide).cost == 0


def test_taxonomy_chains_publish_the_lowest_identical_node():
    # level 1 groups {a, b} and {c}: specializing * gives "ab" and the value "c" itself
    h = Hierarchy([[0, 0, 0], [1, 0, 0], [2, 1, 0]], [["a", "b", "c"], ["ab", "c1"], ["*"]])
    t = Table([[0], [1], [2], [2]], ["A"], [["a", "b", "c"]], [h], sensitive=[0, 1, 1, 1])
    inst = KAnonymityInstance(t, 2, "generalization")
    sol = tds(inst)
    assert sol.info["cut"] == {"A": ["ab", "c"]}
    rec = sol.info["recoding"]
    assert rec.scheme == "global" and list(rec.domains[0].levels[rec.cells[:, 0]]) == [1, 1, 0, 0]
    assert verify(inst, sol).feasible and sol.info["published_stars"] == 2


def test_distortion_score_without_a_sensitive_attribute():
    t = Table([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, ["A", "B"], [["0", "1"]] * 2)
    sol = tds(KAnonymityInstance(t, 2))
    assert sol.info["score"] == "distortion"
    first = sol.info["specializations"][0]
    assert first["gain"] == 8 and first["anonymity_loss"] == 4  # |T_v| = 8, A: 8 -> 4
    assert len(np.unique(sol.labels)) == 4  # every record revealed, classes of 2
    with pytest.raises(ValueError, match="needs a sensitive attribute"):
        tds(KAnonymityInstance(t, 2), score="infogain")


def test_recoding_publishes_the_cut_and_its_kl_divergence():
    inst = KAnonymityInstance(_example(), 3)
    sol = tds(inst)
    rec = sol.info["recoding"]
    frame = rec.to_dataframe()
    assert set(frame["A"]) == {"*"} and set(frame["B"]) == {"u", "v"}
    assert sol.info["published_cost"] == 10.0  # A starred on 10 records, height 1
    assert kl_divergence(rec) > 0


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 3),
    n=st.integers(3, 9),
    m=st.integers(1, 3),
    model=st.sampled_from(["suppression", "generalization"]),
    sensitive=st.booleans(),
    beneficial=st.booleans(),
)
def test_feasible_and_never_below_the_optimum(seed, k, n, m, model, sensitive, beneficial):
    inst = small_kanonymity_instance(seed, n, m, k, model, False)
    if sensitive:
        t = inst.table
        s = np.random.default_rng(seed).integers(0, 3, t.n_records)
        inst = KAnonymityInstance(
            Table(t.codes, t.attributes, t.values, t.hierarchies, sensitive=s), k, model
        )
    sol = tds(inst, beneficial=beneficial, seed=seed)
    ver = verify(inst, sol)
    assert ver.feasible and sol.status == "feasible" and sol.algorithm == "tds"
    assert np.bincount(sol.labels).min() >= k and sol.labels.min() >= 0
    opt = solve_highs(inst, time_limit=30)
    assert opt.status == "optimal"
    assert ver.cost >= verify(inst, opt).cost - 1e-9
    # the published generalization costs at least the partition's smallest covering cost
    assert sol.info["published_cost"] >= ver.cost - 1e-9
    again = tds(inst, beneficial=beneficial)
    assert np.array_equal(again.labels, sol.labels)


def test_dispatch_and_bad_input():
    inst = KAnonymityInstance(_example(), 2)
    assert METHODS["tds"] is tds
    assert np.array_equal(k_anonymize(inst, method="tds").labels, tds(inst).labels)
    with pytest.raises(TypeError, match="KAnonymityInstance"):
        tds("table")
    with pytest.raises(ValueError, match="score"):
        tds(inst, score="entropy")
    with pytest.raises(TypeError, match="beneficial"):
        tds(inst, beneficial="yes")
    with pytest.raises(ValueError, match="seed"):
        tds(inst, seed=-1)
    with pytest.raises(ValueError, match="sensitive attribute"):
        t = Table([[0], [1]], ["A"], [["x", "y"]])
        specialize(t, [t.hierarchy(0)], Requirement("l", 2))
