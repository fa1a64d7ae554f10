"""Tests of instances/ldiversity/instance.py: validation, JSON, verifier, costs, lower bound."""

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optima, ldiversity_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import (
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    InstanceFormatError,
    LDiversityInstance,
    Solution,
    Table,
    instance_id,
    lower_bound,
    verify,
)
from anonratio.instances.io import load_instance, save_instance
from anonratio.instances.ldiversity.instance import (
    group_stats,
    is_l_eligible,
    ldiversity_lower_bound,
    phase_one_residue,
    qi_groups,
)


def _table(codes, sensitive, values=None, **kw):
    codes = np.asarray(codes)
    d = codes.shape[1]
    cards = codes.max(axis=0) + 1 if codes.size else np.ones(d, dtype=int)
    vals = [[str(v) for v in range(c)] for c in cards]
    return Table(
        codes, [f"a{j}" for j in range(d)], vals, sensitive=sensitive, sensitive_values=values, **kw
    )


def _example(l=2, objective="stars"):
    """6 records, 2 QI attributes, 3 sensitive values (flu, cold, hiv)."""
    codes = [[0, 0], [0, 0], [0, 1], [1, 1], [1, 1], [1, 1]]
    sens = [0, 0, 1, 2, 0, 1]
    t = _table(codes, sens, ["flu", "cold", "hiv"], sensitive_name="disease")
    return LDiversityInstance(t, l, objective)


# -- construction -----------------------------------------------------------------------------
def test_construction_and_properties():
    inst = _example()
    assert (inst.n, inst.d, inst.m, inst.l) == (6, 2, 3, 2)
    assert inst.params == {"l": 2, "objective": "stars"}
    assert inst.problem == "l-diversity"
    np.testing.assert_array_equal(inst.sensitive, [0, 0, 1, 2, 0, 1])
    g = inst.qi_group
    assert g[0] == g[1] != g[2] and g[3] == g[4] == g[5] != g[0] and len(set(g)) == 3
    assert _example(objective="tuples").params["objective"] == "tuples"


def test_helpers():
    assert is_l_eligible([2, 2, 1], 2) and not is_l_eligible([3, 1], 2)
    assert is_l_eligible([1, 1, 1], 3) and not is_l_eligible([2, 1, 1], 3)
    np.testing.assert_array_equal(qi_groups(np.zeros((3, 0), dtype=int)), [0, 0, 0])
    g = qi_groups(np.array([[1, 2], [0, 0], [1, 2]]))
    assert g[0] == g[2] != g[1]


def test_json_round_trip(tmp_path):
    inst = _example(l=2, objective="tuples")
    ident = save_instance(tmp_path / "i.json", inst, meta={"seed": 3})
    back, meta = load_instance(tmp_path / "i.json")
    assert isinstance(back, LDiversityInstance) and meta == {"seed": 3}
    assert instance_id(back) == ident == instance_id(inst)
    assert (back.l, back.objective) == (2, "tuples")
    np.testing.assert_array_equal(back.table.codes, inst.table.codes)
    np.testing.assert_array_equal(back.sensitive, inst.sensitive)
    assert back.table.sensitive_values == ("flu", "cold", "hiv")
    assert back.table.sensitive_name == "disease"
    back2, _ = load_instance(_save_gz(tmp_path, inst))
    assert instance_id(back2) == ident


def _save_gz(tmp_path, inst):
    save_instance(tmp_path / "i.json.gz", inst)
    return tmp_path / "i.json.gz"


# -- validation -------------------------------------------------------------------------------
@pytest.mark.parametrize("l", [1, 0, -2])
def test_l_below_two(l):
    with pytest.raises(ValueError, match="`l`"):
        _example(l=l)


def test_l_not_int():
    with pytest.raises((TypeError, ValueError), match="`l`"):
        _example(l=2.5)


def test_not_l_eligible_names_value_and_count():
    t = _table([[0], [1], [2], [3]], [0, 0, 0, 1], ["flu", "cold"])
    with pytest.raises(InfeasibleInstanceError, match=r"'flu'.*3 times among 4"):
        LDiversityInstance(t, 2)
    # the whole table is 2- but not 3-eligible
    t = _table([[0], [1], [2], [3]], [0, 0, 1, 1])
    LDiversityInstance(t, 2)
    with pytest.raises(InfeasibleInstanceError, match="not 3-eligible"):
        LDiversityInstance(t, 3)


def test_missing_sensitive_attribute():
    t = Table([[0], [1]], ["a"], [["0", "1"]])
    with pytest.raises(InstanceFormatError, match="sensitive"):
        LDiversityInstance(t, 2)


def test_constant_sensitive_column():
    t = _table([[0], [1], [0]], [1, 1, 1], ["x", "y"])
    with pytest.raises(InfeasibleInstanceError, match="constant"):
        LDiversityInstance(t, 2)


def test_unknown_objective():
    with pytest.raises(ValueError, match="objective"):
        _example(objective="cells")


def test_table_type_checked():
    with pytest.raises((TypeError, ValueError), match="table"):
        LDiversityInstance(np.zeros((2, 2)), 2)


# -- verifier ---------------------------------------------------------------------------------
def test_verify_accepts_and_counts():
    inst = _example()
    # {0, 2} (flu, cold): a1 varies -> 2 stars; {1, 3} (flu, hiv): both vary -> 4 stars;
    # {4, 5} (flu, cold) is one QI-group -> no star
    labels = [0, 1, 0, 1, 2, 2]
    v = verify(inst, labels)
    assert v.feasible and (v.stars, v.suppressed_tuples, v.n_groups) == (6, 4, 3)
    assert v.cost == 6.0
    assert verify(_example(objective="tuples"), labels).cost == 4.0
    assert ldiversity_optima(inst) == {"stars": 6, "tuples": 4}
    # all in one group (flu 3 of 6): both attributes vary, 6 x 2 stars, 6 tuples
    v = verify(inst, np.zeros(6, dtype=int))
    assert (v.stars, v.suppressed_tuples, v.n_groups, v.cost) == (12, 6, 1, 12.0)
    # a Solution works like its labels; label ids need not be contiguous
    sol = Solution(np.array([7, 3, 7, 3, 9, 9]), algorithm="x", params=inst.params)
    assert verify(inst, sol).cost == 6.0


def test_verify_stars_differ_from_tuples():
    # one group: three attributes vary -> 12 stars, 4 tuples
    codes = [[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]]
    inst = LDiversityInstance(_table(codes, [0, 1, 0, 1]), 2)
    v = verify(inst, [0, 0, 0, 0])
    assert (v.stars, v.suppressed_tuples) == (12, 4)
    # pairs {0, 3} and {1, 2}: each differs on a0 and a2 -> 4 + 4 stars
    v = verify(inst, [0, 1, 1, 0])
    assert (v.stars, v.suppressed_tuples) == (8, 4)
    # {0, 1} and {2, 3} differ everywhere -> 6 + 6; {0, 2} would be cheaper but is not eligible
    assert verify(inst, [0, 0, 1, 1]).stars == 12
    assert ldiversity_optima(inst) == {"stars": 8, "tuples": 4}


def test_verify_rejects_non_eligible_group():
    inst = _example()
    with pytest.raises(InfeasibleSolutionError, match=r"group 0 is not 2-eligible.*2 times"):
        verify(inst, inst.qi_group)  # QI-group {0, 1} is flu, flu
    v = verify(inst, [0, 0, 1, 1, 1, 1], strict=False)
    assert not v.feasible and v.cost is None and v.stars is not None
    assert "not 2-eligible" in v.violations[0]


def test_verify_rejects_negative_label():
    inst = _example()
    with pytest.raises(InfeasibleSolutionError, match="negative label"):
        verify(inst, [0, 0, 0, -1, 1, 1])
    v = verify(inst, [-1] * 6, strict=False)
    assert not v.feasible and "6 records" in v.violations[0]


@pytest.mark.parametrize("labels", [[0] * 5, [0] * 7, np.zeros((6, 1), dtype=int)])
def test_verify_rejects_wrong_length(labels):
    with pytest.raises(InfeasibleSolutionError, match="one entry per record"):
        verify(_example(), labels)


def test_verify_rejects_float_labels_and_none():
    with pytest.raises(InfeasibleSolutionError, match="integers"):
        verify(_example(), np.zeros(6))
    assert not verify(_example(), None, strict=False).feasible


def test_group_stats():
    inst = _example()
    ids, sizes, differ, top = group_stats(inst, [5, 5, 5, 1, 1, 1])
    np.testing.assert_array_equal(ids, [1, 5])
    np.testing.assert_array_equal(sizes, [3, 3])
    np.testing.assert_array_equal(differ, [0, 1])
    np.testing.assert_array_equal(top, [1, 2])


# -- lower bound ------------------------------------------------------------------------------
def test_phase_one_and_bound_on_example():
    inst = _example()
    # QI-group {0,1} (flu, flu) loses both flus, {2} (cold) its cold; {3,4,5} is fine
    np.testing.assert_array_equal(phase_one_residue(inst), [2, 1, 0])
    assert ldiversity_lower_bound(inst) == (4.0, "max(|R1|, l h(R1))")  # max(3, 2 x 2)
    assert lower_bound(inst)[0] == 4.0 <= ldiversity_optimum(inst, "tuples") == 4


def test_bound_zero_when_every_qi_group_is_eligible():
    inst = LDiversityInstance(_table([[0], [0], [1], [1]], [0, 1, 1, 0]), 2)
    assert ldiversity_lower_bound(inst)[0] == 0.0 == ldiversity_optimum(inst)


@st.composite
def tiny_instances(draw, max_n=8):
    n = draw(st.integers(2, max_n))
    l = draw(st.integers(2, min(n, 4)))
    d = draw(st.integers(1, 3))
    card = draw(st.integers(1, 3))
    m = draw(st.integers(l, l + 2))
    seed = draw(st.integers(0, 2**16))
    objective = draw(st.sampled_from(["stars", "tuples"]))
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, card, size=(n, d))
    # an l-eligible sensitive column: cycle through m values (each at most ceil(n / m) times),
    # then shuffle; skip the draw when even that is not l-eligible
    s = rng.permutation(np.arange(n) % m)
    if l * np.bincount(s).max() > n:
        s = rng.permutation(np.arange(n) % n)
    vals = [[str(v) for v in range(card)]] * d
    table = Table(codes, [f"a{j}" for j in range(d)], vals, sensitive=s)
    return LDiversityInstance(table, l, objective)


@given(tiny_instances())
@settings(derandomize=True, deadline=None, max_examples=150)
def test_lower_bound_below_optimum(inst):
    opt = ldiversity_optima(inst)
    bound, _ = lower_bound(inst)
    assert 0 <= bound <= opt["tuples"] <= opt["stars"]
    assert opt["stars"] <= inst.d * opt["tuples"]  # Lemma 2's sandwich
    assert ldiversity_optimum(inst) == opt[inst.objective]
    # the optimum is 0 exactly when every QI-group is l-eligible, and then the bound is 0
    every = all(
        is_l_eligible(np.bincount(inst.sensitive[inst.qi_group == g]), inst.l)
        for g in np.unique(inst.qi_group)
    )
    assert (opt["stars"] == 0) == every
    if every:
        assert bound == 0
