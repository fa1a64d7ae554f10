"""TDS for l-diversity (solvers/ldiversity/tds.py), the baseline of Xiao, Yi and Tao (2010,
§6.2): verified l-eligible classes, a hand-checked choice, never below the exact optimum."""

import math

import numpy as np
import pytest
from bruteforce_ldiversity import make, tables
from hypothesis import given, settings

from anonratio.exact.ldiversity import solve_highs
from anonratio.instances import Hierarchy, KAnonymityInstance, Table, verify
from anonratio.instances.ldiversity import LDiversityInstance, is_l_eligible
from anonratio.solvers.ldiversity import METHODS, ldiversify
from anonratio.solvers.ldiversity.metrics import SOLUTION_METRICS, kl_divergence
from anonratio.solvers.ldiversity.tds import ldiv_tds


def _h(counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def _example():
    """A splits the sensitive values best but leaves class q = {2, 2, 3}, not 2-eligible."""
    rows = [(0, 0, 0), (0, 0, 1), (1, 0, 2), (1, 0, 3), (0, 1, 0), (0, 1, 1), (1, 1, 2)]
    codes = [[a, b] for a, b, _ in rows]
    return make(codes, [r[2] for r in rows], 2)


def test_hand_checked_score_and_choice():
    inst = _example()
    sol = ldiv_tds(inst)
    gain_a = _h([2, 2, 2, 1]) - (4 / 7 * _h([2, 2]) + 3 / 7 * _h([2, 1]))
    gain_b = _h([2, 2, 2, 1]) - (4 / 7 * _h([1, 1, 1, 1]) + 3 / 7 * _h([1, 1, 1]))
    assert gain_a > gain_b > 0  # A is the better split but invalid
    (step,) = sol.info["specializations"]
    assert step["attribute"] == "a1" and step["gain"] == pytest.approx(gain_b)
    # A = min |class| / (largest sensitive count): 7/2 before, min(4/1, 3/1) after
    assert step["anonymity_loss"] == pytest.approx(0.5)
    assert step["score"] == pytest.approx(gain_b / 1.5)
    ver = verify(inst, sol)
    assert ver.feasible and ver.stars == 7 and sol.objective == 7
    assert sol.info["stars"] == 7 and sol.info["suppressed_tuples"] == 7
    assert sol.info["cut"] == {"a0": ["*"], "a1": ["0", "1"]}


def test_kl_divergence_of_the_generalization():
    inst = _example()
    sol = ldiv_tds(inst)
    # both classes differ on a0, so the published stars are the partition's: the KL of the
    # generalized table is the suppression KL of the labels
    assert sol.info["published_stars"] == 7
    published_kl = SOLUTION_METRICS["kl-divergence"]
    assert published_kl(inst, sol) == pytest.approx(kl_divergence(inst, sol.labels))
    # class u = {(x,u,0), (x,u,1)} is constant on a, which stays * (splitting a would leave
    # (y,v) = {2} alone): 2 published stars more than the partition's, a larger KL
    inst2 = make([[0, 0], [0, 0], [0, 1], [0, 1], [1, 1], [0, 1]], [0, 1, 0, 1, 2, 2], 2)
    sol2 = ldiv_tds(inst2)
    assert sol2.info["cut"] == {"a0": ["*"], "a1": ["0", "1"]}
    assert verify(inst2, sol2).stars == 4 and sol2.info["published_stars"] == 6
    assert published_kl(inst2, sol2) > kl_divergence(inst2, sol2.labels) + 1e-9


def test_taxonomy_levels_are_used():
    h = Hierarchy([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]], [list("abcd"), ["ab", "cd"], ["*"]])
    codes = [[0], [1], [2], [3]] * 2
    t = Table(codes, ["A"], [list("abcd")], [h], sensitive=[0, 1, 0, 1, 1, 0, 1, 0])
    sol = ldiv_tds(LDiversityInstance(t, 2), beneficial=False)
    frame = sol.info["recoding"].to_dataframe()
    assert sorted(set(frame["A"])) == ["a", "b", "c", "d"]
    assert verify(LDiversityInstance(t, 2), sol).stars == 0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(tables())
def test_feasible_and_never_below_the_optimum(inst):
    for beneficial in (True, False):
        sol = ldiv_tds(inst, beneficial=beneficial, seed=3)
        ver = verify(inst, sol)
        assert ver.feasible and sol.objective == ver.cost and sol.algorithm == "ldiv-tds"
        for g in np.unique(sol.labels):
            assert is_l_eligible(np.bincount(inst.sensitive[sol.labels == g]), inst.l)
        opt = solve_highs(inst, time_limit=30)
        assert opt.status == "optimal"
        assert ver.cost >= verify(inst, opt).cost - 1e-9
        assert SOLUTION_METRICS["kl-divergence"](inst, sol) >= -1e-12
        assert sol.info["published_stars"] >= ver.stars


def test_dispatch_and_bad_input():
    inst = _example()
    assert METHODS["ldiv-tds"] is ldiv_tds
    assert np.array_equal(ldiversify(inst, method="ldiv-tds").labels, ldiv_tds(inst).labels)
    with pytest.raises(TypeError, match="LDiversityInstance"):
        ldiv_tds(KAnonymityInstance(inst.table, 2))
    with pytest.raises(TypeError, match="beneficial"):
        ldiv_tds(inst, beneficial=1)
    with pytest.raises(ValueError, match="seed"):
        ldiv_tds(inst, seed=-1)
