"""Tests of instances/frame_columns.py: a DataFrame's cells and names as a Table reads them."""

import numpy as np
import pandas as pd
import pytest

from anonratio.instances import InstanceFormatError
from anonratio.instances.frame_columns import (
    check_names_are_text,
    check_present,
    name_hint,
    same_name_spellings,
    spelling,
    stripped_labels,
)


@pytest.mark.parametrize(
    "column",
    [
        pd.Series([" a", "b ", " a"]),
        pd.Series([1.5, 2.0, 1.5]),
        pd.Series(pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-01"])),
        pd.Series(pd.to_datetime(["2020-01-01 10:30", "2020-01-02 00:00", "2020-01-01 10:30"])),
        pd.Series(pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-01"]).tz_localize("UTC")),
        pd.Series(["x", "y", "x"], dtype="category"),
    ],
    ids=["text", "float", "date", "datetime", "tz", "category"],
)
def test_labels_are_the_cells_as_astype_str_writes_them(column):
    rows, labels = stripped_labels(column)
    assert list(np.asarray(labels, dtype=object)[rows]) == list(column.astype(str).str.strip())
    assert rows[0] == rows[2] != rows[1]


def test_check_present_names_column_row_and_index():
    df = pd.DataFrame({"a": ["x", None, np.nan]}, index=["p", "q", "r"])
    with pytest.raises(InstanceFormatError, match=r"^role column 'a', row 1 \(index 'q'\): .*"):
        check_present(df, "a", "role")
    check_present(df.fillna(""), "a", "role")


def test_names_must_be_text():
    check_names_are_text(["a", "b"], "`qi`")
    with pytest.raises(InstanceFormatError, match=r"`qi` names column 1\.5 \(float\)"):
        check_names_are_text(["a", 1.5], "`qi`")
    assert "rename the columns" in name_hint(["0"], [0, 1])
    assert name_hint(["zip"], [0, 1]) == ""


def test_names_in_other_unicode_forms():
    nfc, nfd = "\u00e9", "e\u0301"  # "é" composed and decomposed
    assert spelling(nfc) == r"'\xe9' (NFC)" and spelling(nfd) == r"'e\u0301' (NFD)"
    assert spelling("\u00e9e\u0301") == r"'\xe9e\u0301' (mixed)"
    assert spelling("zip") == "'zip' (NFC)"
    hint = name_hint([nfc], ["a", nfd], "`qi`", "the header")
    assert hint.startswith(r" (`qi` writes 'é' as '\xe9' (NFC), the header as 'e\u0301' (NFD)")
    assert name_hint(["b"], ["a", nfd]) == ""
    assert same_name_spellings(["a", nfd, "b", nfc]) == (1, 3)
    assert same_name_spellings(["a", nfc, "b"]) is None
