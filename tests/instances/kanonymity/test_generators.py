"""Tests of instances/generators.py and instances/families.py."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import FAMILIES, coerce_param, generate
from anonratio.instances import (
    PROBLEMS,
    KAnonymityInstance,
    Solution,
    Table,
    instance_id,
    verify,
)
from anonratio.instances.kanonymity.generators import (
    binary_table,
    categorical_table,
    planted_table,
    random_hierarchy,
    random_table,
)

RANGE = re.compile(r"\[(\d+)-(\d+)\]")


def _check_interval_hierarchy(h):
    """Every level above 0 (but the top) is a partition into contiguous labelled ranges."""
    counts = [len(np.unique(h.groups[:, t])) for t in range(h.height + 1)]
    assert counts[0] == h.n_values and counts[-1] == 1
    assert all(a > b for a, b in zip(counts, counts[1:], strict=False)) or h.n_values == 1
    for t in range(1, h.height):
        col = h.groups[:, t]
        assert np.all(np.diff(col) >= 0)  # contiguous, in value order
        for g, label in enumerate(h.labels[t]):
            lo, hi = map(int, RANGE.fullmatch(label).groups())
            np.testing.assert_array_equal(np.flatnonzero(col == g), np.arange(lo, hi + 1))
    assert h.labels[-1] == ("*",)


# -- random_hierarchy ---------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 60), st.integers(1, 8), st.integers(0, 1000))
def test_random_hierarchy_is_nested_interval_hierarchy(n_values, n_levels, seed):
    if n_levels > 1 and n_values < n_levels + 1:
        with pytest.raises(ValueError, match="`n_levels` must be 1 or at most n_values - 1"):
            random_hierarchy(n_values, n_levels, seed=seed)
        return
    h = random_hierarchy(n_values, n_levels, seed=seed)
    assert h.height == n_levels and h.n_values == n_values
    assert h.labels[0] == tuple(str(v) for v in range(n_values))
    _check_interval_hierarchy(h)


def test_random_hierarchy_deterministic_and_validated():
    a, b = random_hierarchy(30, 4, seed=3), random_hierarchy(30, 4, seed=3)
    np.testing.assert_array_equal(a.groups, b.groups)
    assert a.labels == b.labels
    assert any(
        not np.array_equal(a.groups, random_hierarchy(30, 4, seed=s).groups) for s in range(4, 8)
    )
    with pytest.raises(ValueError, match="`n_values` must be an integer >= 1, got 0"):
        random_hierarchy(0, 1)
    with pytest.raises(ValueError, match="`n_levels` must be an integer >= 1, got 2.5"):
        random_hierarchy(5, 2.5)


# -- random_table -------------------------------------------------------------------------------
def test_random_table_adult_like():
    t = random_table(200, 6, seed=1)
    assert isinstance(t, Table) and t.codes.shape == (200, 6)
    assert t.attributes == tuple(f"a{j}" for j in range(6))
    for j, h in enumerate(t.hierarchies):
        assert 10 <= h.n_values <= 40 and 3 <= h.height <= 5
        assert len(t.values[j]) == h.n_values
        _check_interval_hierarchy(h)
    t2 = random_table(200, 6, seed=1)
    np.testing.assert_array_equal(t.codes, t2.codes)
    assert t.content_hash == t2.content_hash
    assert random_table(200, 6, seed=2).content_hash != t.content_hash
    inst = KAnonymityInstance(t, 5, "generalization")
    assert verify(inst, np.zeros(200, dtype=int)).feasible


def test_random_table_ranges_and_zipf():
    t = random_table(3000, 2, cardinality=20, levels=2, zipf=2.0, seed=0)
    assert all(h.n_values == 20 and h.height == 2 for h in t.hierarchies)
    top_share = max(np.bincount(t.codes[:, 0]).max(), 0) / 3000
    assert top_share > 0.5  # p(top) = 1 / zeta-ish(2) ~ 0.62 for 20 values
    flat = random_table(3000, 1, cardinality=20, levels=2, seed=0)
    assert np.bincount(flat.codes[:, 0]).max() / 3000 < 0.1
    small = random_table(10, 3, cardinality=(2, 3), levels=(4, 5), seed=0)
    assert all(h.height <= h.n_values - 1 for h in small.hierarchies)  # heights capped


def test_random_table_accepts_generator_seed():
    rng = np.random.default_rng(5)
    a = random_table(20, 2, seed=rng)
    b = random_table(20, 2, seed=rng)  # the generator advanced
    c = random_table(20, 2, seed=np.random.default_rng(5))
    np.testing.assert_array_equal(a.codes, c.codes)
    assert a.content_hash != b.content_hash


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "`n` must be an integer >= 1, got 0"),
        ({"m": -1}, "`m` must be an integer >= 1, got -1"),
        ({"cardinality": (5, 2)}, r"`cardinality` must be an integer or a \(low, high\) pair"),
        ({"cardinality": 0}, r"`cardinality` must be .* 1 <= low <= high, got 0"),
        ({"levels": "3"}, r"`levels` must be an integer or a \(low, high\) pair"),
        ({"zipf": -1.0}, "`zipf` must be a finite number >= 0 or None, got -1.0"),
    ],
)
def test_random_table_validation(kwargs, message):
    args = {"n": 5, "m": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        random_table(args.pop("n"), args.pop("m"), **args)


# -- binary, categorical, planted ---------------------------------------------------------------
def test_binary_and_categorical_tables():
    b = binary_table(50, 4, seed=0)
    assert set(np.unique(b.codes)) == {0, 1}
    assert b.values == (("0", "1"),) * 4 and b.hierarchies == (None,) * 4
    assert KAnonymityInstance(b, 2).is_binary()
    c = categorical_table(60, 3, 3, seed=0)
    assert set(np.unique(c.codes)) == {0, 1, 2} and c.values[0] == ("0", "1", "2")
    np.testing.assert_array_equal(c.codes, categorical_table(60, 3, 3, seed=0).codes)
    with pytest.raises(ValueError, match="`alphabet` must be an integer >= 2, got 1"):
        categorical_table(5, 2, 1)


def test_planted_table_without_noise_copies_prototypes():
    t, labels = planted_table(40, 6, n_groups=4, noise=0.0, seed=0, return_labels=True)
    assert np.bincount(labels).tolist() == [10, 10, 10, 10]
    for g in range(4):
        assert len(np.unique(t.codes[labels == g], axis=0)) == 1
    inst = KAnonymityInstance(t, 10)
    assert verify(inst, labels).cost == 0.0


def test_planted_table_noise_and_levels():
    t, labels = planted_table(
        2000, 5, n_groups=5, noise=0.3, cardinality=10, seed=1, return_labels=True
    )
    proto = np.array([np.bincount(col, minlength=10).argmax() for col in t.codes[labels == 0].T])
    agree = (t.codes[labels == 0] == proto).mean()
    assert 0.7 < agree < 0.8  # 0.7 copied + 0.3 * 1/10 redrawn onto the prototype value
    h = planted_table(30, 3, levels=(2, 3), seed=0).hierarchies
    assert all(2 <= x.height <= 3 for x in h)
    assert planted_table(30, 2, seed=0).hierarchies == (None, None)
    with pytest.raises(ValueError, match=r"`noise` must be a probability in \[0, 1\], got 1.5"):
        planted_table(10, 2, noise=1.5)
    with pytest.raises(ValueError, match=r"`n_groups` must be an integer in \[1, 10\], got 11"):
        planted_table(10, 2, n_groups=11)
    with pytest.raises(ValueError, match="`cardinality` must be an integer >= 2, got 1"):
        planted_table(10, 2, cardinality=1)


# -- families -----------------------------------------------------------------------------------
OFFLINE_FAMILIES = sorted(name for name in FAMILIES if not name.endswith("-adult"))


@pytest.mark.parametrize("name", OFFLINE_FAMILIES)
def test_every_family_generates_a_valid_deterministic_instance(name):
    fam = FAMILIES[name]
    assert fam.description
    inst, meta = generate(name, seed=7)
    assert PROBLEMS[fam.problem] is type(inst)  # its type registered when its module loaded
    again, meta2 = generate(name, seed=7)
    assert instance_id(inst) == instance_id(again) and meta == meta2
    assert meta["family"] == name and meta["seed"] == 7 and meta["problem"] == fam.problem
    assert set(meta["params"]) == set(fam.defaults)
    one_part = np.zeros(inst.n, dtype=int)
    if fam.problem == "gps-rectangles":  # rectangles must come with the labels: the bounding box
        one_part = Solution(one_part, "test", info={"rectangles": [list(inst.box)]})
    assert verify(inst, one_part).feasible
    if "optimum" in meta:
        assert meta["optimum"] >= 0
    if "upper_bound" in meta:
        assert meta["upper_bound"] >= 0


def test_families_cover_the_required_names():
    required = {
        "kanon-binary",
        "kanon-ternary",
        "kanon-random",
        "kanon-planted",
        "kanon-triangles",
        "kanon-gap-pair",
        "bc-uniform",
        "bc-zipf",
        "bc-3partition-yes",
        "bc-3partition-no",
        "bc-census",
        "zip-delaunay",
        "zip-grid",
        "zip-planted",
        "gps-uniform",
        "gps-clustered",
        "gps-cross",
        "gps-pinwheel",
        "ordered-random",
    }
    assert required <= set(FAMILIES)
    problems = {name: FAMILIES[name].problem for name in required if name.split("-")[0] != "kanon"}
    assert {problems[n] for n in ("zip-delaunay", "zip-grid", "zip-planted")} == {"zip-codes"}
    gps = ("gps-uniform", "gps-clustered", "gps-cross", "gps-pinwheel")
    assert {problems[n] for n in gps} == {"gps-rectangles"}
    assert problems["ordered-random"] == "ordered-labels"


def test_family_params_are_coerced_from_strings():
    inst, meta = generate("kanon-binary", seed=1, n="12", m="3", k="4", row_deletion="true")
    assert (inst.n, inst.table.n_attributes, inst.k, inst.row_deletion) == (12, 3, 4, True)
    assert meta["params"] == {"n": 12, "m": 3, "k": 4, "row_deletion": True, "sensitive": 0}
    inst, meta = generate("kanon-random", seed=1, n=30, cardinality="12,15", levels="2", zipf="1")
    assert meta["params"]["cardinality"] == [12, 15] and meta["params"]["levels"] == [2, 2]
    assert all(12 <= h.n_values <= 15 and h.height == 2 for h in inst.table.hierarchies)
    inst, meta = generate("kanon-gap-pair", seed=0, k="3", member="second")
    assert meta["optimum"] == 3 * (8 - 2) and meta["other_optimum"] == 9 * 2
    inst, meta = generate("kanon-triangles", seed=3, n_triangles="2", n_vertices="6")
    assert meta["optimum"] == 9 * 2 * 3 and meta["t"] == 3 and inst.k == 3
    inst, meta = generate("kanon-planted", seed=0, n=40, n_groups=4, noise="0", levels="2")
    assert meta["upper_bound"] == 0.0 and inst.table.hierarchies[0].height == 2


def test_family_errors():
    with pytest.raises(ValueError, match=r"unknown family 'nope'; known families: \[.*kanon-bin"):
        generate("nope", seed=0)
    with pytest.raises(ValueError, match=r"unknown parameter 'q' for family 'kanon-binary'; known"):
        generate("kanon-binary", seed=0, q=1)
    with pytest.raises(ValueError, match="parameter `k` must be of type int .* got 'abc'"):
        generate("kanon-binary", seed=0, k="abc")
    with pytest.raises(ValueError, match="parameter `row_deletion` must be of type bool"):
        generate("kanon-binary", seed=0, row_deletion="maybe")
    with pytest.raises(ValueError, match="parameter `member` must be 'first' or 'second'"):
        generate("kanon-gap-pair", seed=0, member="third")
    with pytest.raises(ValueError, match=r"`seed` must be an integer >= 0 or None, got '1'"):
        generate("kanon-binary", seed="1")
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, n_records=20\]"):
        generate("kanon-binary", seed=0, k=50)


def test_coerce_param():
    assert coerce_param("x", "2.5", 1.0) == 2.5
    assert coerce_param("x", 3, 1.0) == 3.0
    assert coerce_param("x", "no", True) is False
    assert coerce_param("x", "none", None) is None
    assert coerce_param("x", "7", None) == 7
    assert coerce_param("qi", "age, sex", ("a", "b", "c")) == ("age", "sex")
    assert coerce_param("x", 4.0, 1) == 4
    with pytest.raises(ValueError, match="parameter `x` must be of type int"):
        coerce_param("x", 4.5, 1)
    with pytest.raises(ValueError, match="parameter `x` must be of type float"):
        coerce_param("x", True, 1.0)
    with pytest.raises(ValueError, match="parameter `x` must be of type str"):
        coerce_param("x", 3, "a")
