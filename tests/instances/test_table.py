"""Tests of instances/table.py: Hierarchy and Table construction, validation, serialization."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from anonratio.instances import Hierarchy, InstanceFormatError, Table

AGE_ROWS = [
    ["1", "[1-2]", "*"],
    ["2", "[1-2]", "*"],
    ["3", "[3-4]", "*"],
    ["4", "[3-4]", "*"],
]


def _table(**kw):
    codes = np.array([[0, 1], [1, 1], [2, 0], [3, 0]])
    args = dict(
        codes=codes,
        attributes=("age", "sex"),
        values=(("1", "2", "3", "4"), ("F", "M")),
        hierarchies=(Hierarchy.from_rows(AGE_ROWS, attribute="age"), None),
    )
    args.update(kw)
    return Table(**args)


# -- Hierarchy ------------------------------------------------------------------------------
def test_from_rows_builds_levels():
    h = Hierarchy.from_rows(AGE_ROWS, attribute="age")
    assert h.height == 2
    assert h.n_values == 4
    assert h.labels == (("1", "2", "3", "4"), ("[1-2]", "[3-4]"), ("*",))
    np.testing.assert_array_equal(h.groups[:, 1], [0, 0, 1, 1])
    np.testing.assert_array_equal(h.groups[:, 2], [0, 0, 0, 0])
    assert not h.groups.flags.writeable


def test_from_rows_appends_missing_star():
    h = Hierarchy.from_rows([["a", "x"], ["b", "y"], ["c", "y"]], attribute="q")
    assert h.height == 2
    assert h.labels[-1] == ("*",)
    single = Hierarchy.from_rows([["a"], ["b"]], attribute="q")
    assert single.height == 1 and single.labels[-1] == ("*",)


def test_from_rows_keeps_single_top_label():
    h = Hierarchy.from_rows([["a", "ALL"], ["b", "ALL"]], attribute="q")
    assert h.height == 1 and h.labels[-1] == ("ALL",)


def test_from_rows_strips_and_skips_blank_rows():
    h = Hierarchy.from_rows([[" a ", "x", "*"], [], ["b", " x", "*"]], attribute="q")
    assert h.labels[0] == ("a", "b")


def test_from_rows_ragged():
    with pytest.raises(InstanceFormatError, match=r"attribute 'age' is ragged: row 1 \('2'\)"):
        Hierarchy.from_rows([["1", "a", "*"], ["2", "*"]], attribute="age")


def test_from_rows_duplicate():
    with pytest.raises(InstanceFormatError, match="attribute 'age' lists value .*1.* twice"):
        Hierarchy.from_rows([["1", "a", "*"], ["1", "b", "*"]], attribute="age")


def test_from_rows_duplicate_message_names_plain_value():
    with pytest.raises(InstanceFormatError, match="attribute 'age' lists value '1' twice"):
        Hierarchy.from_rows([["1", "a", "*"], ["1", "b", "*"]], attribute="age")


def test_from_rows_non_refining():
    rows = [["a", "x", "P", "*"], ["b", "x", "Q", "*"]]
    with pytest.raises(InstanceFormatError, match="attribute 'q'.*level 1 does not refine level 2"):
        Hierarchy.from_rows(rows, attribute="q")


def test_from_rows_empty():
    with pytest.raises(InstanceFormatError, match="attribute 'q' is empty"):
        Hierarchy.from_rows([[], [""]], attribute="q")


def test_hierarchy_constructor_checks():
    with pytest.raises(InstanceFormatError, match="level 0 must be the values"):
        Hierarchy(np.array([[1, 0], [0, 0]]), (("a", "b"), ("*",)))
    with pytest.raises(InstanceFormatError, match="top hierarchy level must be a single group"):
        Hierarchy(np.array([[0, 0], [1, 1]]), (("a", "b"), ("x", "y")))
    with pytest.raises(InstanceFormatError, match="one label list per level"):
        Hierarchy(np.array([[0, 0], [1, 0]]), (("a", "b"),))
    with pytest.raises(InstanceFormatError, match="at least one value and two levels"):
        Hierarchy(np.array([[0], [1]]), (("a", "b"),))


def test_common_levels_and_suppression():
    h = Hierarchy.from_rows(AGE_ROWS, attribute="age")
    expected = np.array([[0, 1, 2, 2], [1, 0, 2, 2], [2, 2, 0, 1], [2, 2, 1, 0]])
    np.testing.assert_array_equal(h.common_levels(), expected)
    s = Hierarchy.suppression(("a", "b", "c"))
    assert s.height == 1 and s.labels == (("a", "b", "c"), ("*",))
    np.testing.assert_array_equal(s.common_levels(), 1 - np.eye(3, dtype=int))


def test_hierarchy_dict_round_trip():
    h = Hierarchy.from_rows(AGE_ROWS, attribute="age")
    back = Hierarchy.from_dict(h.to_dict())
    np.testing.assert_array_equal(back.groups, h.groups)
    assert back.labels == h.labels


# -- Table ----------------------------------------------------------------------------------
def test_table_basics():
    t = _table()
    assert (t.n_records, t.n_attributes) == (4, 2)
    np.testing.assert_array_equal(t.weights, [1.0, 1.0])
    assert t.hierarchy(1).height == 1  # suppression fallback
    assert t.hierarchy(0).height == 2
    assert not t.codes.flags.writeable


def test_table_validation():
    with pytest.raises(InstanceFormatError, match="`codes` must be a 2-d array"):
        _table(codes=np.zeros(4, dtype=int))
    with pytest.raises(InstanceFormatError, match="`attributes` must be 2 distinct names"):
        _table(attributes=("age", "age"))
    with pytest.raises(InstanceFormatError, match="`values` must hold one label list"):
        _table(values=(("1", "2", "3", "4"),))
    with pytest.raises(InstanceFormatError, match="codes of attribute 'sex' fall outside its 1"):
        _table(values=(("1", "2", "3", "4"), ("F",)))
    with pytest.raises(InstanceFormatError, match="`hierarchies` must hold one entry"):
        _table(hierarchies=(None,))
    with pytest.raises(InstanceFormatError, match="attribute 'sex' covers 4 values"):
        _table(hierarchies=(None, Hierarchy.from_rows(AGE_ROWS)))
    with pytest.raises(InstanceFormatError, match="`sensitive` must have one code per record"):
        _table(sensitive=[0, 1])


@pytest.mark.parametrize("weights", [[1.0], [1.0, -1.0], [1.0, 0.0], [np.nan, 1.0], [1, np.inf]])
def test_table_invalid_weights(weights):
    with pytest.raises(ValueError, match="`weights` must be 2 positive finite numbers"):
        _table(weights=weights)


def test_unique_records():
    t = _table(codes=np.array([[0, 1], [0, 1], [2, 0], [0, 1]]))
    uniq, inverse, counts = t.unique_records()
    np.testing.assert_array_equal(uniq[inverse], t.codes)
    assert sorted(counts.tolist()) == [1, 3]


@pytest.mark.parametrize("high", [2, 50, 2**31 - 1])
def test_unique_records_are_numpys_unique_rows_in_their_order(high):
    """Rows keyed by one integer (or, past 63 bits, compared whole) give ``np.unique(codes,
    axis=0)`` exactly: the same unique rows in lexicographic order, inverse and counts."""
    rng = np.random.default_rng(high)
    for m in (1, 3, 6):
        codes = rng.integers(0, high, size=(40, m))[rng.integers(0, 40, size=60)]
        got = Table.unique_records(SimpleNamespace(codes=codes))  # it reads the codes only
        want = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b.reshape(a.shape))
            assert a.dtype == b.dtype


def _frame():
    return pd.DataFrame(
        {
            "age": ["1", "2", "3", "4", "1"],
            "sex": ["M", "M", "F", "F", "F"],
            "disease": ["flu", "flu", "cold", "hiv", "flu"],
        }
    )


def test_from_dataframe():
    t = Table.from_dataframe(_frame(), sensitive="disease", hierarchies={"age": AGE_ROWS})
    assert t.attributes == ("age", "sex")
    assert t.values[1] == ("F", "M")
    assert t.hierarchies[0].height == 2 and t.hierarchies[1] is None
    np.testing.assert_array_equal(t.codes[:, 0], [0, 1, 2, 3, 0])
    assert t.sensitive_name == "disease"
    assert t.sensitive_values == ("cold", "flu", "hiv")
    pd.testing.assert_frame_equal(t.to_dataframe(), _frame())


def test_from_dataframe_errors():
    with pytest.raises(ValueError, match=r"`qi` names unknown columns \['zip'\]"):
        Table.from_dataframe(_frame(), qi=["age", "zip"])
    with pytest.raises(ValueError, match="`sensitive` column 'x' is not in the table"):
        Table.from_dataframe(_frame(), sensitive="x")
    with pytest.raises(ValueError, match="`qi` must name at least one column"):
        Table.from_dataframe(_frame(), qi=[])
    with pytest.raises(ValueError, match=r"`hierarchies` names columns that are not QI: \['sex'\]"):
        Table.from_dataframe(_frame(), qi=["age"], hierarchies={"sex": [["M"], ["F"]]})
    with pytest.raises(InstanceFormatError, match="the table has no records"):
        Table.from_dataframe(_frame().iloc[:0])
    with pytest.raises(TypeError, match=r"`df` must be a pandas\.DataFrame, got dict"):
        Table.from_dataframe({"a": [1]})
    with pytest.raises(ValueError, match="`qi` names column 'age' twice"):
        Table.from_dataframe(_frame(), qi=["age", "sex", "age"])
    with pytest.raises(ValueError, match="`sensitive` column 'sex' is also in `qi`"):
        Table.from_dataframe(_frame(), qi=["age", "sex"], sensitive="sex")
    twice = _frame().set_axis(["age", "age", "disease"], axis=1)
    with pytest.raises(InstanceFormatError, match="names column 'age' more than once"):
        Table.from_dataframe(twice, qi=["disease"])


def test_from_dataframe_missing_hierarchy_value():
    rows = AGE_ROWS[:3]  # no row for "4"
    with pytest.raises(InstanceFormatError, match="attribute 'age' has no row for value '4'"):
        Table.from_dataframe(_frame(), sensitive="disease", hierarchies={"age": rows})


def test_from_dataframe_weights():
    t = Table.from_dataframe(_frame(), sensitive="disease", weights=[2.0, 0.5])
    np.testing.assert_array_equal(t.weights, [2.0, 0.5])
    with pytest.raises(ValueError, match="`weights` must be 2 positive finite numbers"):
        Table.from_dataframe(_frame(), sensitive="disease", weights=[2.0])
    with pytest.raises(ValueError, match="`weights` must be 2 positive finite numbers"):
        Table.from_dataframe(_frame(), sensitive="disease", weights=[2.0, -1.0])


def test_dict_round_trip():
    t = Table.from_dataframe(
        _frame(), sensitive="disease", hierarchies={"age": AGE_ROWS}, weights=[2.0, 0.5]
    )
    back = Table.from_dict(t.to_dict())
    np.testing.assert_array_equal(back.codes, t.codes)
    assert back.attributes == t.attributes and back.values == t.values
    np.testing.assert_array_equal(back.weights, t.weights)
    np.testing.assert_array_equal(back.sensitive, t.sensitive)
    assert back.sensitive_name == t.sensitive_name
    assert back.sensitive_values == t.sensitive_values
    assert back.hierarchies[1] is None
    np.testing.assert_array_equal(back.hierarchies[0].groups, t.hierarchies[0].groups)
    assert back.content_hash == t.content_hash


def test_from_dict_malformed():
    d = _table().to_dict()
    del d["codes"]
    with pytest.raises(InstanceFormatError, match="malformed table object: missing or bad field"):
        Table.from_dict(d)


def test_content_hash_stable():
    a, b = _table(), _table()
    assert a.content_hash == b.content_hash
    assert len(a.content_hash) == 16 and int(a.content_hash, 16) >= 0
    assert _table(weights=[1.0, 2.0]).content_hash != a.content_hash
    other = _table(codes=np.array([[0, 1], [1, 1], [2, 0], [3, 1]]))
    assert other.content_hash != a.content_hash
    # pinned: the canonical JSON form (and so every stored instance id) must not change silently
    assert a.content_hash == "9df9f59b79b93b3d"


def test_codes_are_integers_never_truncated():
    values = (("0", "1"), ("0", "1"))
    with pytest.raises(
        InstanceFormatError, match=r"`codes` must be integers, got 0\.5 at cell \(1, 0\)"
    ):
        Table(np.array([[0.0, 1.0], [0.5, 1.0]]), ("a", "b"), values)
    with pytest.raises(InstanceFormatError, match=r"`codes` must be integers, got dtype bool"):
        Table(np.array([[True, False]]), ("a", "b"), values)
    assert Table(np.array([[0.0, 1.0]]), ("a", "b"), values).codes.tolist() == [[0, 1]]


# -- DataFrames as the Python API gets them: missing cells, column names, dates ---------------
def _people(index=None):
    return pd.DataFrame(
        {
            "zip": ["11", "11", "12", "12", "13", "13"],
            "sex": ["M", "F", "M", "F", "M", "F"],
            "disease": ["flu", "cold", "flu", "cold", "flu", "hiv"],
        },
        index=index,
    )


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA, pd.NaT], ids=repr)
@pytest.mark.parametrize("column", ["zip", "disease"])
def test_missing_cells_are_refused_naming_column_and_row(column, missing):
    import anonratio

    df = _people(index=[10, 11, 12, 13, 14, 15]).astype(object)
    df.loc[13, column] = missing
    df.loc[15, column] = missing
    role = "sensitive" if column == "disease" else "quasi-identifier"
    message = (
        rf"^{role} column {column!r}, row 3 \(index 13\): the cell is missing \(.+\); fill "
        r"missing cells first, e.g. `df.fillna\(''\)` for the value '' that the command line "
        r"reads from an empty cell \(2 missing cells in this column\)$"
    )
    with pytest.raises(InstanceFormatError, match=message):
        anonratio.anonymize(df, ["zip", "sex"], 2, sensitive="disease")
    with pytest.raises(InstanceFormatError, match=message):
        Table.from_dataframe(df, qi=["zip", "sex"], sensitive="disease")
    df[column] = df[column].fillna("")  # as the command line reads an empty cell
    published, result = anonratio.anonymize(df, ["zip", "sex"], 2, sensitive="disease")
    assert list(published.index) == list(df.index) and result.checks[0].satisfied


def test_missing_cells_outside_the_table_are_published_as_they_are():
    import anonratio

    df = _people().assign(note=[None, "a", np.nan, "b", pd.NA, "c"])
    published, _ = anonratio.anonymize(df, ["zip", "sex"], 2, sensitive="disease")
    assert published["note"].isna().tolist() == [True, False, True, False, True, False]


def test_column_names_that_are_not_text_are_refused():
    import anonratio

    df = _people().set_axis([0, 1, 2], axis=1)
    message = r"^`qi` names column 0 \(int\): column names must be text; rename the columns"
    with pytest.raises(InstanceFormatError, match=message + r", e.g. `df.rename\(columns=str\)`$"):
        anonratio.anonymize(df, [0, 1], 2)
    with pytest.raises(InstanceFormatError, match=r"^`sensitive` names column 2 \(int\)"):
        Table.from_dataframe(df.rename(columns={0: "zip", 1: "sex"}), sensitive=2)
    with pytest.raises(
        ValueError, match=r"\['0', '1'\]; the table has \[0, 1, 2\] \(names that are "
    ):
        anonratio.anonymize(df, ["0", "1"], 2)
    published, _ = anonratio.anonymize(df.rename(columns=str), ["0", "1"], 2, sensitive="2")
    assert list(published.columns) == ["0", "1", "2"]


@pytest.mark.parametrize("times", ["", " 10:30"])
def test_datetime_columns_are_values(times):
    import anonratio

    days = pd.to_datetime([f"2020-01-0{d}{times}" for d in (1, 1, 2, 2, 3, 3)])
    df = _people().assign(zip=days)
    table = Table.from_dataframe(df, qi=["zip", "sex"], sensitive="disease")
    assert table.values[0] == tuple(df["zip"].astype(str).unique())
    assert table.values[0][0] == ("2020-01-01 10:30:00" if times else "2020-01-01")
    published, result = anonratio.anonymize(df, ["zip", "sex"], 2, sensitive="disease")
    assert set(published["zip"]) <= set(table.values[0]) | {"*"}
    assert result.checks[0].satisfied and published["disease"].tolist() == df["disease"].tolist()


def test_a_column_name_in_other_code_points_is_refused_with_both_spellings():
    nfc, nfd = "\u00e2ge", "a\u0302ge"  # "âge" composed and decomposed
    df = _people().rename(columns={"zip": nfd})
    with pytest.raises(
        ValueError,
        match=r"`qi` names unknown columns .* \(`qi` writes 'âge' as '\\xe2ge' \(NFC\), the table "
        r"as 'a\\u0302ge' \(NFD\): the same letters in other Unicode code points",
    ):
        Table.from_dataframe(df, qi=[nfc, "sex"], sensitive="disease")
    with pytest.raises(ValueError, match=r"\(`sensitive` writes '.+' as 'a\\u0302ge' \(NFD\)"):
        Table.from_dataframe(df.rename(columns={nfd: nfc}), qi=["sex"], sensitive=nfd)
    assert Table.from_dataframe(df, qi=[nfd, "sex"]).attributes == (nfd, "sex")
