"""Tests of instances/ldiversity/generators.py."""

from itertools import combinations
from math import comb

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optima
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import InfeasibleInstanceError, LDiversityInstance, instance_id, verify
from anonratio.instances.io import load_instance, save_instance
from anonratio.instances.ldiversity.generators import (
    SAL_ATTRIBUTES,
    SAL_DOMAINS,
    planted_instance,
    random_instance,
    sal_like,
    sal_projection,
)
from anonratio.instances.ldiversity.instance import is_l_eligible, ldiversity_lower_bound


def _eligible(inst):
    return is_l_eligible(np.bincount(inst.sensitive), inst.l)


# -- random_instance --------------------------------------------------------------------------
def test_random_instance_shapes_and_meta():
    inst, meta = random_instance(50, d=3, cardinality=(2, 5, 7), m=6, l=3, skew=1.5, seed=0)
    assert isinstance(inst, LDiversityInstance)
    assert (inst.n, inst.d, inst.l, inst.objective) == (50, 3, 3, "stars")
    assert inst.table.attributes == ("a0", "a1", "a2")
    assert [len(v) for v in inst.table.values] == [2, 5, 7]
    assert np.all(inst.table.codes.max(axis=0) < [2, 5, 7]) and inst.table.codes.min() >= 0
    assert len(inst.table.sensitive_values) == 6 and inst.sensitive.max() < 6
    assert _eligible(inst)
    assert meta["cardinality"] == [2, 5, 7] and meta["skew"] == 1.5 and meta["l"] == 3


def test_random_instance_deterministic():
    a, _ = random_instance(80, d=4, cardinality=3, m=5, l=2, skew=1.0, seed=7)
    b, _ = random_instance(80, d=4, cardinality=3, m=5, l=2, skew=1.0, seed=7)
    c, _ = random_instance(80, d=4, cardinality=3, m=5, l=2, skew=1.0, seed=8)
    assert instance_id(a) == instance_id(b) != instance_id(c)
    g = np.random.default_rng(1)
    d, _ = random_instance(20, d=2, cardinality=3, m=3, l=2, seed=g)
    assert d.n == 20


def test_random_instance_skew_repaired():
    # a strong skew puts most records on one value; the repair caps it at floor(n / l)
    inst, _ = random_instance(300, d=2, cardinality=4, m=4, l=4, skew=5.0, seed=3)
    counts = np.bincount(inst.sensitive, minlength=4)
    assert counts.max() <= 300 // 4 and counts.sum() == 300
    np.testing.assert_array_equal(counts, [75, 75, 75, 75])
    # uniform values on a large table rarely need repair and stay near uniform
    inst, _ = random_instance(4000, d=1, cardinality=2, m=8, l=2, seed=0)
    assert np.bincount(inst.sensitive).min() > 400


@given(
    n=st.integers(2, 60),
    l=st.integers(2, 6),
    extra=st.integers(0, 4),
    skew=st.floats(0, 4),
    seed=st.integers(0, 1000),
)
@settings(derandomize=True, deadline=None, max_examples=80)
def test_random_instance_always_eligible(n, l, extra, skew, seed):
    m = l + extra
    if n < l or m * (n // l) < n:
        with pytest.raises(InfeasibleInstanceError, match=r"`n`|`m`"):
            random_instance(n, d=2, cardinality=3, m=m, l=l, skew=skew, seed=seed)
        return
    inst, _ = random_instance(n, d=2, cardinality=3, m=m, l=l, skew=skew, seed=seed)
    assert _eligible(inst) and inst.n == n


def test_random_instance_errors():
    with pytest.raises(InfeasibleInstanceError, match=r"m = 2.*`m` >= `l` = 3"):
        random_instance(30, d=2, cardinality=3, m=2, l=3, seed=0)
    with pytest.raises(InfeasibleInstanceError, match="`n`"):
        random_instance(2, d=2, cardinality=3, m=5, l=3, seed=0)
    with pytest.raises(ValueError, match="`l`"):
        random_instance(10, d=2, cardinality=3, m=5, l=1, seed=0)
    with pytest.raises(ValueError, match="`d`"):
        random_instance(10, d=0, cardinality=3, m=5, l=2, seed=0)
    with pytest.raises(ValueError, match="`cardinality`"):
        random_instance(10, d=2, cardinality=0, m=5, l=2, seed=0)
    with pytest.raises(ValueError, match=r"`cardinality`.*d = 2"):
        random_instance(10, d=2, cardinality=(3, 3, 3), m=5, l=2, seed=0)
    with pytest.raises(ValueError, match="`skew`"):
        random_instance(10, d=2, cardinality=3, m=5, l=2, skew=-1, seed=0)
    with pytest.raises(ValueError, match="`objective`"):
        random_instance(10, d=2, cardinality=3, m=5, l=2, objective="cells", seed=0)
    with pytest.raises(ValueError, match="`n`"):
        random_instance(0, d=2, cardinality=3, m=5, l=2, seed=0)


def test_random_instance_json_round_trip(tmp_path):
    inst, meta = random_instance(30, d=2, cardinality=3, m=4, l=2, objective="tuples", seed=0)
    ident = save_instance(tmp_path / "r.json", inst, meta=meta)
    back, meta2 = load_instance(tmp_path / "r.json")
    assert instance_id(back) == ident and meta2 == meta and back.objective == "tuples"


# -- sal_like ---------------------------------------------------------------------------------
def test_sal_like_domains_and_names():
    inst, meta = sal_like(5000, seed=0)
    assert inst.table.attributes == SAL_ATTRIBUTES
    assert SAL_ATTRIBUTES[0] == "Age" and SAL_ATTRIBUTES[4] == "Birth Place"
    assert SAL_DOMAINS == (79, 2, 9, 6, 56, 17, 9)
    assert [len(v) for v in inst.table.values] == list(SAL_DOMAINS)
    assert np.all(inst.table.codes.max(axis=0) < SAL_DOMAINS) and inst.table.codes.min() >= 0
    assert inst.table.sensitive_name == "Income" and len(inst.table.sensitive_values) == 50
    assert (inst.l, inst.objective, inst.d) == (6, "stars", 7)
    assert _eligible(inst)
    assert meta["domains"] == list(SAL_DOMAINS) and meta["sensitive_domain"] == 50
    # the marginals are skewed and the attributes correlated: QI-groups of several records
    # form on few attributes, and the table is not trivially l-diverse
    small, _ = sal_like(5000, d=3, seed=0)
    assert np.bincount(small.qi_group).max() >= 50
    assert ldiversity_lower_bound(small)[0] > 0
    age, edu = inst.table.codes[:, 0], inst.table.codes[:, 5]
    assert np.corrcoef(age, edu)[0, 1] > 0.2


@pytest.mark.parametrize("d", range(1, 8))
def test_sal_like_projection(d):
    inst, _ = sal_like(600, d=d, l=4, seed=1)
    full, _ = sal_like(600, d=7, l=4, seed=1)
    assert inst.table.attributes == SAL_ATTRIBUTES[:d]
    np.testing.assert_array_equal(inst.table.codes, full.table.codes[:, :d])
    np.testing.assert_array_equal(inst.sensitive, full.sensitive)


@pytest.mark.parametrize("d", range(1, 8))
def test_sal_like_every_projection_of_the_paper(d):
    # SAL-d: all C(7, d) projections, in lexicographic order, each the same records' columns
    full, _ = sal_like(300, d=7, l=4, seed=2)
    subsets = [sal_projection(d, i) for i in range(comb(7, d))]
    assert subsets == list(combinations(range(7), d))
    for i, keep in enumerate(subsets):
        inst, meta = sal_like(300, d=d, l=4, seed=2, projection=i)
        assert inst.table.attributes == tuple(SAL_ATTRIBUTES[j] for j in keep)
        assert meta["attributes"] == list(inst.table.attributes) and meta["projection"] == i
        assert meta["domains"] == [SAL_DOMAINS[j] for j in keep]
        np.testing.assert_array_equal(inst.table.codes, full.table.codes[:, list(keep)])
        np.testing.assert_array_equal(inst.sensitive, full.sensitive)


def test_sal_like_projection_zero_is_the_first_d_attributes():
    # the default keeps the instances (and their content ids) of the first-d projection
    assert instance_id(sal_like(500, d=3, seed=4)[0]) == "d27fefb4eafbd4b9"
    assert instance_id(sal_like(500, d=7, seed=4)[0]) == "cdb7b8fadfae18d6"
    assert instance_id(sal_like(500, d=3, seed=4, projection=0)[0]) == "d27fefb4eafbd4b9"


def test_sal_like_deterministic_and_large():
    a, _ = sal_like(2000, seed=5)
    b, _ = sal_like(2000, seed=5)
    c, _ = sal_like(2000, seed=6)
    assert instance_id(a) == instance_id(b) != instance_id(c)
    big, _ = sal_like(600_000, d=7, l=10, seed=0)
    assert big.n == 600_000 and _eligible(big) and big.m == 50


@pytest.mark.parametrize("l", [2, 10, 49])
def test_sal_like_eligible_for_every_l(l):
    inst, _ = sal_like(1000, l=l, seed=2)
    assert _eligible(inst) and inst.l == l


def test_sal_like_errors():
    for kw, name in [
        ({"d": 0}, "`d`"),
        ({"d": 8}, "`d`"),
        ({"l": 1}, "`l`"),
        ({"l": 51}, "`l`"),
        ({"objective": "x"}, "`objective`"),
        ({"d": 2, "projection": 21}, "`projection`"),
        ({"d": 7, "projection": 1}, "`projection`"),
        ({"projection": -1}, "`projection`"),
    ]:
        with pytest.raises(ValueError, match=name):
            sal_like(100, seed=0, **kw)
    with pytest.raises(InfeasibleInstanceError, match="`n`"):
        sal_like(3, l=6, seed=0)
    with pytest.raises(ValueError, match="`n`"):
        sal_like(0, seed=0)


# -- planted_instance -------------------------------------------------------------------------
def test_planted_instance_optimum_zero():
    inst, meta = planted_instance(6, d=3, cardinality=3, m=5, l=3, group_size=4, seed=0)
    # group_size 4 with min(m, 4) = 4 values cycled: each value at most once, 3-eligible
    assert inst.n == 24 and meta["optimum"] == 0 and inst.l == 3
    w = np.array(meta["witness"])
    assert np.unique(inst.qi_group).size == 6
    v = verify(inst, w)
    assert v.cost == 0 and v.stars == 0 and v.suppressed_tuples == 0
    assert ldiversity_lower_bound(inst)[0] == 0


@given(
    groups=st.integers(1, 3),
    l=st.integers(2, 3),
    size_extra=st.integers(0, 1),
    seed=st.integers(0, 500),
)
@settings(derandomize=True, deadline=None, max_examples=30)
def test_planted_instance_matches_brute_force(groups, l, size_extra, seed):
    size = l + size_extra
    groups = min(groups, 9 // size)  # n <= 9 for the brute force
    inst, meta = planted_instance(
        groups, d=2, cardinality=3, m=l + 1, l=l, group_size=size, seed=seed
    )
    assert inst.n == groups * size <= 9
    assert ldiversity_optima(inst) == {"stars": 0, "tuples": 0} and meta["optimum"] == 0


def test_planted_instance_deterministic_and_errors():
    a, ma = planted_instance(5, d=2, cardinality=4, m=4, l=2, seed=3)
    b, mb = planted_instance(5, d=2, cardinality=4, m=4, l=2, seed=3)
    assert instance_id(a) == instance_id(b) and ma == mb and a.n == 10
    with pytest.raises(ValueError, match="`n_groups`"):
        planted_instance(10, d=2, cardinality=3, m=4, l=2, seed=0)  # only 9 QI vectors
    with pytest.raises(ValueError, match="`m`"):
        planted_instance(2, d=2, cardinality=3, m=2, l=3, seed=0)
    with pytest.raises(ValueError, match="`group_size`"):
        planted_instance(2, d=2, cardinality=3, m=3, l=3, group_size=2, seed=0)
    with pytest.raises(ValueError, match="`group_size`"):
        planted_instance(2, d=2, cardinality=3, m=3, l=3, group_size=5, seed=0)
