"""The CSV files ``anonratio anonymize`` writes: every cell as ``DataFrame.astype(str)`` gives it,
quoted by the csv module where needed, whatever the column's dtype."""

import csv
import io

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.cli.csv_output import write_csv

DATES = ["2020-01-01", None, "2021-03-04 10:00"]
FRAMES = {
    "text": pd.DataFrame({"a": ["x", " y", "a;b", 'q"', "\r\n", "é"], "b": list("uvwxyz")}),
    "numbers": pd.DataFrame({"i": [1, 2, 3], "f": [1.5, np.nan, 0.1 + 0.2], "b": [True] * 3}),
    "mixed objects": pd.DataFrame({"o": pd.Series([1, "s", 2.5, None, np.nan], dtype=object)}),
    "string dtype": pd.DataFrame({"s": pd.Series(["x", None, "y"], dtype="str")}),
    "dates": pd.DataFrame({"d": pd.to_datetime(DATES, format="ISO8601")}),
    "categories": pd.DataFrame({"c": pd.Categorical(["u", "v", None])}),
    "no rows": pd.DataFrame({"a": pd.Series([], dtype=object)}),
}


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_write_csv_writes_each_cell_as_astype_str_gives_it(tmp_path, name):
    frame = FRAMES[name]
    expected = io.StringIO()
    writer = csv.writer(expected, delimiter=";", lineterminator="\n")
    writer.writerow(frame.columns)
    writer.writerows(frame.astype(str).itertuples(index=False, name=None))
    out = write_csv(frame, tmp_path / "out.csv", sep=";")
    assert out.read_bytes().decode("utf-8") == expected.getvalue()
