"""Releases of k-anonymity partitions and recodings: suppressed tuples are withheld by default,
or kept as rows of ``*`` whose sensitive cell is starred too (never published unchecked)."""

import numpy as np
import pandas as pd
import pytest

from anonratio.instances import KAnonymityInstance, Table
from anonratio.instances.kanonymity.publish import publish, release
from anonratio.instances.kanonymity.recoding import Recoding
from anonratio.instances.privacy_specs import check_published

ZIPS = ["11111", "11111", "11111", "11111", "99999"]
DISEASES = ["flu", "cold", "flu", "cold", "hiv"]


def _frame():
    return pd.DataFrame({"zip": ZIPS, "disease": DISEASES}, index=[10, 11, 12, 13, 14])


def _table():
    hier = {"zip": [["11111", "1111*", "*"], ["99999", "9999*", "*"]]}
    return Table.from_dataframe(_frame(), qi=["zip"], sensitive="disease", hierarchies=hier)


def _suppressed_recoding():
    """Level 0 with the lone zip-99999 record suppressed (as Incognito publishes it at k = 2)."""
    return Recoding.full_domain(_table(), [0], suppressed=[False] * 4 + [True])


def test_a_suppressed_tuple_is_left_out_of_the_release():
    published = _suppressed_recoding().to_dataframe(frame=_frame())
    assert list(published.columns) == ["zip", "disease"]
    assert published.index.tolist() == [10, 11, 12, 13]  # the kept rows, in order
    assert "hiv" not in set(published["disease"])
    checks = check_published(published, ["zip"], "disease", ["k-anonymity:k=2", "l-diversity:l=2"])
    assert all(c.satisfied for c in checks)


def test_kept_suppressed_rows_star_their_sensitive_cell():
    published = _suppressed_recoding().to_dataframe(frame=_frame(), suppressed_rows="star")
    assert published.index.tolist() == [10, 11, 12, 13, 14]
    assert published.loc[14].tolist() == ["*", "*"]
    assert published.loc[10:13, "disease"].tolist() == DISEASES[:4]
    assert "hiv" not in set(published["disease"])


def test_release_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="suppressed_rows"):
        release(_frame(), np.zeros(5, bool), "disease", "publish")


def test_publish_withholds_deleted_records():
    inst = KAnonymityInstance(_table(), 2, "generalization", row_deletion=True)
    labels = [0, 0, 1, 1, -1]
    published = publish(inst, labels, frame=_frame())
    assert published.index.tolist() == [10, 11, 12, 13]
    starred = publish(inst, labels, frame=_frame(), suppressed_rows="star")
    assert starred.loc[14].tolist() == ["*", "*"]


def test_the_frame_published_is_checked_cell_by_cell_against_the_table():
    """A frame's QI cells are compared as text stripped of blanks (each distinct cell once):
    padded cells are the table's values; another value, or a missing cell, is refused with its
    row."""
    padded = _frame().assign(zip=[" 11111", "11111 ", "11111", "11111", "99999"])
    assert _suppressed_recoding().to_dataframe(frame=padded)["zip"].tolist() == ["11111"] * 4
    other = _frame().assign(zip=["11111", "11111", "11112", "11111", "99999"])
    with pytest.raises(ValueError, match=r"column 'zip', row 2 holds '11112', the table '11111'"):
        _suppressed_recoding().to_dataframe(frame=other)
    missing = _frame().assign(zip=["11111", None, "11111", "11111", "99999"])
    with pytest.raises(ValueError, match=r"row 1 holds nan, the table '11111'"):
        _suppressed_recoding().to_dataframe(frame=missing)
