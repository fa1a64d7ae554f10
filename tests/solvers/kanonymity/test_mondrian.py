"""Mondrian (LeFevre, DeWitt and Ramakrishnan 2006): strict and relaxed multidimensional cuts."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import Hierarchy, KAnonymityInstance, Table, verify
from anonratio.instances.kanonymity import categorical_table, random_table
from anonratio.instances.kanonymity.recoding import Recoding, hierarchy_domain, numeric_values
from anonratio.solvers.kanonymity.mondrian import mondrian, mondrian_recoding, mondrian_relaxed

mondrian_module = importlib.import_module("anonratio.solvers.kanonymity.mondrian_partition")
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


# ---------------------------------------------------------------------------------------------
# a plain recursive reference, written from the rules of the module docstring
# ---------------------------------------------------------------------------------------------
def reference(table, k, *, relaxed=False, numeric=(), hierarchies=None):
    """Final partitions of the recursive Mondrian, as a sorted list of record tuples."""
    m = table.n_attributes
    hier = hierarchies or [table.hierarchy(j) for j in range(m)]
    codes = table.codes.astype(np.int64)
    value = {}  # numeric value, rank (value then code) of each code
    for j in range(m):
        if table.attributes[j] in numeric:
            v = numeric_values(table.values[j])
            rank = np.empty(len(v), dtype=np.int64)
            rank[np.lexsort((np.arange(len(v)), v))] = np.arange(len(v))
            value[j] = (v, rank)
    dfs = [hierarchy_domain(h)[0].order for h in hier]
    spread = {j: np.ptp(v[codes[:, j]]) for j, (v, _) in value.items()}
    out = []

    def width(rows, j):
        col = codes[rows, j]
        if j in value:
            v = value[j][0][col]
            return (v.max() - v.min()) / spread[j] if spread[j] > 0 else 0.0
        n_values = len(table.values[j])
        return (len(set(col.tolist())) - 1) / (n_values - 1) if n_values > 1 else 0.0

    def cut(rows, j):
        col = codes[rows, j]
        if relaxed:
            key = value[j][1][col] if j in value else dfs[j][col]
            srt = rows[np.lexsort((rows, key))]
            half = len(rows) // 2
            return [srt[:half], srt[half:]]
        if j in value:
            r = value[j][1][col]
            med = np.sort(r)[(len(r) - 1) // 2]
            for lhs in (r <= med, r < med):
                if min(lhs.sum(), (~lhs).sum()) >= k:
                    return [rows[lhs], rows[~lhs]]
            return None
        g = hier[j].groups[col]
        level = next(t for t in range(g.shape[1]) if len(set(g[:, t].tolist())) == 1)
        child = g[:, level - 1]
        parts = [rows[child == c] for c in sorted(set(child.tolist()))]
        return parts if min(map(len, parts)) >= k else None

    def anonymize(rows):
        if len(rows) >= 2 * k:
            cands = [j for j in range(m) if len(set(codes[rows, j].tolist())) > 1]
            for j in sorted(cands, key=lambda j: (-width(rows, j), j)):
                parts = cut(rows, j)
                if parts is not None:
                    for p in parts:
                        anonymize(np.sort(p))
                    return
        out.append(tuple(rows.tolist()))

    anonymize(np.arange(table.n_records))
    return sorted(out)


def parts_of(labels):
    return sorted(tuple(np.flatnonzero(labels == g).tolist()) for g in np.unique(labels))


def _numeric_names(table, choice):
    """`numeric` argument: all (auto), none, or every other numeric attribute."""
    pairs = zip(table.attributes, table.values, strict=True)
    names = [a for a, v in pairs if numeric_values(v) is not None]
    return {"auto": names, "none": [], "some": names[::2]}[choice]


@st.composite
def tables(draw):
    n = draw(st.integers(2, 60))
    m = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**16))
    kind = draw(st.sampled_from(["random", "categorical", "shuffled"]))
    if kind == "categorical":
        return categorical_table(n, m, draw(st.integers(2, 4)), seed=seed)
    table = random_table(n, m, cardinality=(2, 7), levels=(1, 3), zipf=1.0, seed=seed)
    if kind == "shuffled":  # numeric labels out of code order, with a tie ("2" and "2.0")
        rng = np.random.default_rng(seed)
        pool = ["-3.5", "2", "2.0", "10", "9", "100", "0.25"]
        values = tuple(tuple(rng.permutation(pool)[: len(v)]) for v in table.values)
        hier = tuple(
            Hierarchy(h.groups, (vals, *h.labels[1:]))
            for h, vals in zip(table.hierarchies, values, strict=True)
        )
        table = Table(table.codes, table.attributes, values, hier)
    return table


# ---------------------------------------------------------------------------------------------
# the vectorized rounds against the reference
# ---------------------------------------------------------------------------------------------
@SETTINGS
@given(tables(), st.integers(1, 5), st.booleans(), st.sampled_from(["auto", "none", "some"]))
def test_rounds_match_recursive_reference(table, k, relaxed, choice):
    k = min(k, table.n_records)
    numeric = _numeric_names(table, choice)
    rec = mondrian_recoding(table, k, relaxed=relaxed, numeric=numeric)
    ref = reference(table, k, relaxed=relaxed, numeric=numeric)
    # the published classes: strict ones are the partitions, relaxed ones unions of them
    classes = parts_of(rec.classes)
    if not relaxed:
        assert classes == ref
    else:
        flat = {r: c for c, part in enumerate(ref) for r in part}
        assert sum(len(c) for c in classes) == table.n_records
        for cls in classes:
            members = {flat[r] for r in cls}
            assert sum(len(ref[c]) for c in members) == len(cls)


@SETTINGS
@given(tables(), st.integers(2, 5), st.booleans(), st.sampled_from(["auto", "none"]))
def test_solution_is_k_anonymous_and_consistent(table, k, relaxed, choice):
    k = min(k, table.n_records)
    if table.n_records < 2:
        return
    inst = KAnonymityInstance(table, max(k, 2), "generalization")
    numeric = _numeric_names(table, choice)
    sol = mondrian(inst, relaxed=relaxed, numeric=numeric, seed=3)
    ref = reference(table, inst.k, relaxed=relaxed, numeric=numeric)
    assert parts_of(sol.labels) == ref
    sizes = np.bincount(sol.labels)
    assert sizes.min() >= inst.k
    assert sol.labels.max() + 1 == len(sizes) == sol.info["n_partitions"]
    first = [np.flatnonzero(sol.labels == g)[0] for g in range(len(sizes))]
    assert first == sorted(first)  # labels numbered by first record
    assert sol.objective is None  # the verifier computes the cost
    assert sol.algorithm == ("mondrian-relaxed" if relaxed else "mondrian")
    assert sol.seed == 3 and sol.status == "feasible" and sol.params == inst.params
    rec = sol.info["recoding"]
    assert isinstance(rec, Recoding) and rec.scheme == "local" and rec.n_suppressed == 0
    assert sol.info["n_classes"] == len(np.unique(rec.classes))
    assert sol.info["numeric"] == tuple(numeric) and sol.info["scheme"] == "local"
    # every record sits in one partition, and a partition publishes one row
    for g in range(len(sizes)):
        assert len(np.unique(rec.cells[sol.labels == g], axis=0)) == 1
    if relaxed:
        # halves of >= 2k records are always cut: k .. 2k-1 unless all records identical
        for g in range(len(sizes)):
            rows = table.codes[sol.labels == g]
            assert sizes[g] <= 2 * inst.k - 1 or len(np.unique(rows, axis=0)) == 1
    else:
        assert sol.info["n_classes"] == sol.info["n_partitions"]
        assert parts_of(rec.classes) == parts_of(sol.labels)


def _ranks(domain, node):
    return set(range(int(domain.lo[node]), int(domain.hi[node]) + 1))


@SETTINGS
@given(tables(), st.integers(1, 4), st.sampled_from(["auto", "none", "some"]))
def test_strict_boxes_are_disjoint_and_minimal(table, k, choice):
    """Strict: regions pairwise disjoint, and no allowable cut is left in any of them."""
    k = min(k, table.n_records)
    numeric = _numeric_names(table, choice)
    rec = mondrian_recoding(table, k, numeric=numeric)
    labels = rec.classes
    P = labels.max() + 1
    rows = [np.flatnonzero(labels == g)[0] for g in range(P)]
    for a in range(P):
        for b in range(a + 1, P):
            assert any(
                not _ranks(d, rec.cells[rows[a], j]) & _ranks(d, rec.cells[rows[b], j])
                for j, d in enumerate(rec.domains)
            )
    for g in range(P):
        members = np.flatnonzero(labels == g)
        assert len(members) >= k
        for j, name in enumerate(table.attributes):
            col = table.codes[members, j]
            if name in numeric:
                v = numeric_values(table.values[j])
                key = np.lexsort((np.arange(len(v)), v)).argsort()[col]
                for s in np.unique(key):
                    assert not k <= np.sum(key <= s) <= len(members) - k
            elif len(set(col.tolist())) > 1:
                g_ = table.hierarchy(j).groups[col]
                level = next(t for t in range(g_.shape[1]) if len(set(g_[:, t])) == 1)
                assert np.bincount(g_[:, level - 1]).astype(bool).sum() >= 2
                counts = np.bincount(g_[:, level - 1])
                assert counts[counts > 0].min() < k


@SETTINGS
@given(st.integers(2, 120), st.integers(1, 4), st.integers(2, 5), st.integers(0, 2**16))
def test_strict_numeric_class_size_bound(n, m, k, seed):
    """On numeric attributes a minimal region holds <= 2 d (k - 1) + o records (LeFevre
    et al. 2006, Thm. 1; survey §4.1.2), o the copies of the most repeated point."""
    k = min(k, n)
    table = random_table(n, m, cardinality=(2, 9), levels=1, seed=seed)
    rec = mondrian_recoding(table, k)
    o = table.unique_records()[2].max()
    assert rec.class_sizes.max() <= 2 * m * (k - 1) + o
    assert rec.class_sizes.min() >= k


# ---------------------------------------------------------------------------------------------
# worked examples
# ---------------------------------------------------------------------------------------------
def _figure1(numeric):
    """The survey's Figure 1 on QI = {Sex, MaritalStatus} (records 1..10 as 0..9)."""
    sex = ["F", "F", "M", "M", "M", "F", "M", "M", "M", "F"]
    marital = [
        "married",
        "married",
        "single",
        "single",
        "single",
        "divorced",
        "divorced",
        "widow",
        "widow",
        "single",
    ]
    if numeric:  # the orders of the survey's Figure 15: M < F, married < widow < divorced < single
        sv, mv = ("1", "2"), ("1", "2", "3", "4")
        codes = [
            [("M", "F").index(s), ("married", "widow", "divorced", "single").index(t)]
            for s, t in zip(sex, marital, strict=True)
        ]
        return Table(codes, ("Sex", "MaritalStatus"), (sv, mv))
    mvals = ("married", "divorced", "widow", "single")
    groups = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 1, 0]]  # been_married / never_married / *
    mh = Hierarchy(groups, (mvals, ("been_married", "never_married"), ("*",)))
    codes = [[("M", "F").index(s), mvals.index(t)] for s, t in zip(sex, marital, strict=True)]
    return Table(codes, ("Sex", "MaritalStatus"), (("M", "F"), mvals), (None, mh))


def test_survey_figure_17_numeric_order():
    """Survey §4.1.2, Figure 17, k = 2: cut Sex at M; then M at the median of MaritalStatus
    (widow, widow, divorced | single x3); F at married (married x2 | divorced, single)."""
    table = _figure1(numeric=True)
    inst = KAnonymityInstance(table, 2, "generalization")
    sol = mondrian(inst)
    assert parts_of(sol.labels) == [(0, 1), (2, 3, 4), (5, 9), (6, 7, 8)]
    out = sol.info["recoding"].to_dataframe()
    assert out["Sex"].tolist() == ["2", "2", "1", "1", "1", "2", "1", "1", "1", "2"]
    assert out["MaritalStatus"].tolist() == [
        "1",
        "1",
        "4",
        "4",
        "4",
        "3-4",
        "2-3",
        "2-3",
        "2-3",
        "3-4",
    ]
    # suppression hierarchies: the ranges "3-4" (2 records) and "2-3" (3) cost 1 per record
    assert verify(inst, sol).cost == pytest.approx(5.0)


def test_survey_table_with_marital_hierarchy():
    """The same table cut along the hierarchy (married, divorced, widow | single): Sex first
    (tie 1 = 1, lower index); M splits into never_married x3 and been_married x3; F cannot
    split (been_married 3, never_married 1 < k) and publishes *. Cost 4 * 2/2 + 3 * 1/2."""
    table = _figure1(numeric=False)
    inst = KAnonymityInstance(table, 2, "generalization")
    sol = mondrian(inst)
    assert sol.info["numeric"] == ()
    assert parts_of(sol.labels) == [(0, 1, 5, 9), (2, 3, 4), (6, 7, 8)]
    out = sol.info["recoding"].to_dataframe()
    assert out["MaritalStatus"].tolist() == [
        "*",
        "*",
        "single",
        "single",
        "single",
        "*",
        "been_married",
        "been_married",
        "been_married",
        "*",
    ]
    assert out["Sex"].tolist() == ["F", "F", "M", "M", "M", "F", "M", "M", "M", "F"]
    assert verify(inst, sol).cost == pytest.approx(5.5)
    # under the suppression model MaritalStatus has one cut, * -> values: M splits into
    # single x3 | divorced, widow x2 by value only if every value part has >= 2 (divorced: 1)
    sup = mondrian(KAnonymityInstance(table, 2, "suppression"))
    assert parts_of(sup.labels) == [(0, 1, 5, 9), (2, 3, 4, 6, 7, 8)]


def test_ages_strict_and_relaxed():
    """Ages 17 17 25 30 30 41 52 52, k = 2. Strict: median 30 -> {17,17,25,30,30 | 41,52,52},
    then median 25 -> {17,17,25 | 30,30}. Relaxed: halves by position, twice."""
    codes = [[0], [0], [1], [2], [2], [3], [4], [4]]
    table = Table(codes, ("age",), (("17", "25", "30", "41", "52"),))
    strict = mondrian_recoding(table, 2).to_dataframe()["age"].tolist()
    assert strict == ["17-25"] * 3 + ["30"] * 2 + ["41-52"] * 3
    relaxed = mondrian_recoding(table, 2, relaxed=True)
    assert relaxed.to_dataframe()["age"].tolist() == [
        "17",
        "17",
        "25-30",
        "25-30",
        "30-41",
        "30-41",
        "52",
        "52",
    ]
    d = relaxed.domains[0]
    assert d.span[list(d.labels).index("25-30")] == pytest.approx(5 / 35)
    assert relaxed.method == "mondrian-relaxed" and relaxed.scheme == "local"
    # k = 3: strict median cut {..30 | 41, 52, 52}; the left part (5) cannot be halved again
    assert mondrian_recoding(table, 3).to_dataframe()["age"].tolist() == (
        ["17-30"] * 5 + ["41-52"] * 3
    )


def test_numeric_order_is_by_value_not_label():
    """Labels '9' < '10' < '100' in numeric order; the published range is by value."""
    table = Table([[0]] * 2 + [[1]] * 2 + [[2]] * 2, ("x",), (("100", "9", "10"),))
    out = mondrian_recoding(table, 2).to_dataframe()["x"].tolist()
    assert out == ["100", "100", "9", "9", "10", "10"]
    assert mondrian_recoding(table, 3).to_dataframe()["x"].tolist() == (
        ["9-100"] * 6  # 9 9 10 10 100 100: c(<=10) = 4 > n - k, c(< 10) = 2 < k
    )


def test_ties_at_the_median_use_the_other_side():
    """Values 1 1 2 2 2 2, k = 2: the median is 2 and x <= 2 leaves nothing right, so the cut
    is x < 2 | x >= 2. Values 1 2 2 2 2 3: neither side of 2 works, no cut at all."""
    table = Table([[0], [0], [1], [1], [1], [1]], ("x",), (("1", "2"),))
    assert mondrian_recoding(table, 2).to_dataframe()["x"].tolist() == ["1"] * 2 + ["2"] * 4
    table = Table([[0], [1], [1], [1], [1], [2]], ("x",), (("1", "2", "3"),))
    assert mondrian_recoding(table, 2).to_dataframe()["x"].tolist() == ["1-3"] * 6
    # k = 1: x <= 2 | 3, then 1 | 2 2 2 2 (x <= 2 would leave the right side empty)
    assert mondrian_recoding(table, 1).class_sizes.tolist() == [1, 4, 1]


@pytest.mark.parametrize("relaxed", [False, True])
@pytest.mark.parametrize("choice", ["auto", "none", "some"])
def test_larger_tables_match_reference(relaxed, choice, monkeypatch):
    """400 records, mixed attributes; also the sorting fallbacks of the distinct counts and of
    the packed tie-break key."""
    table = random_table(400, 5, cardinality=(3, 12), levels=(1, 4), zipf=0.8, seed=11)
    numeric = _numeric_names(table, choice)
    ref = reference(table, 4, relaxed=relaxed, numeric=numeric)
    got = mondrian_recoding(table, 4, relaxed=relaxed, numeric=numeric)
    assert (parts_of(got.classes) == ref) or relaxed
    monkeypatch.setattr(mondrian_module, "_DENSE_CAP", 0)
    monkeypatch.setattr(mondrian_module, "_PACK_CAP", 0)
    inst = KAnonymityInstance(table, 4, "generalization")
    sol = mondrian(inst, relaxed=relaxed, numeric=numeric)
    assert parts_of(sol.labels) == ref


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------
def test_bad_arguments():
    table = _figure1(numeric=False)
    inst = KAnonymityInstance(table, 2, "generalization")
    with pytest.raises(ValueError, match="`numeric` must be 'auto' or a list"):
        mondrian(inst, numeric="all")
    with pytest.raises(TypeError, match="`numeric` must be 'auto' or a list"):
        mondrian(inst, numeric=3)
    with pytest.raises(ValueError, match="unknown attribute 'Age'"):
        mondrian(inst, numeric=["Age"])
    with pytest.raises(ValueError, match="'MaritalStatus' has value labels that are not numbers"):
        mondrian(inst, numeric=["MaritalStatus"])
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[1, n_records=10\], got 11"):
        mondrian_recoding(table, 11)
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, n_records=10\]"):
        KAnonymityInstance(table, 11)
    with pytest.raises(TypeError, match="`relaxed` must be a bool"):
        mondrian_recoding(table, 2, relaxed="yes")
    with pytest.raises(TypeError, match="`instance` must be a KAnonymityInstance"):
        mondrian(table)
    with pytest.raises(TypeError, match="`table` must be a Table"):
        mondrian_recoding(inst, 2)
    with pytest.raises(ValueError, match="`seed`"):
        mondrian_relaxed(inst, seed=-1)
    with pytest.raises(ValueError, match="one hierarchy per attribute"):
        mondrian_recoding(table, 2, hierarchies=[table.hierarchy(0)])
    with pytest.raises(ValueError, match=r"`hierarchies\[0\]` covers 4 values"):
        mondrian_recoding(table, 2, hierarchies=[table.hierarchy(1), table.hierarchy(1)])


def test_relaxed_entry_point_and_k_equal_n():
    table = _figure1(numeric=True)
    inst = KAnonymityInstance(table, 10, "generalization")
    for sol in (mondrian(inst), mondrian_relaxed(inst, seed=5)):
        assert sol.labels.tolist() == [0] * 10 and sol.info["n_classes"] == 1
        assert sol.info["rounds"] == 0
    assert mondrian_relaxed(inst).algorithm == "mondrian-relaxed"
    # relaxed halves of the ten records, k = 2: 5 | 5, then 2 | 3 twice
    sol = mondrian_relaxed(KAnonymityInstance(table, 2, "generalization"))
    assert sorted(np.bincount(sol.labels).tolist()) == [2, 2, 3, 3]
