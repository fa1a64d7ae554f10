"""Tests of the results store (anonratio.bench.engine.store)."""

import math

import pandas as pd
import pytest

from anonratio.bench.engine.store import COLUMNS, SCHEMA_COLUMNS, read_results, write_results


def _frame():
    return pd.DataFrame(
        [
            {
                "algorithm": "forest",
                "problem": "k-anonymity",
                "family": "kanon-binary",
                "instance": "abc",
                "n": 10,
                "params": {"k": 3, "model": "suppression"},
                "kind": "approximation",
                "seed": 7,
                "status": "feasible",
                "verified": True,
                "cost": 12.0,
                "lower_bound": 6.0,
                "lower_bound_source": "nn-distance",
                "optimum": 10.0,
                "optimum_status": "opt",
                "ratio": 1.2,
                "certified_ratio": 2.0,
                "guarantee": 5.0,
                "time_s": 0.01,
                "peak_mb": 1.5,
                "version": "0.1.0",
                "exact_agree": None,
                "my_extra": "x",
            },
            {
                "algorithm": "cpsat",
                "problem": "k-anonymity",
                "family": "kanon-binary",
                "instance": "abc",
                "n": 10,
                "params": '{"k": 3}',
                "kind": "exact",
                "seed": 8,
                "status": "time_limit",
                "verified": False,
                "cost": math.nan,
                "guarantee": 1.0,
                "bound": 9.0,
                "exact_agree": True,
                "error": "killed, after 1 s",
            },
        ]
    )


def test_column_order_design_first():
    assert COLUMNS[: len(SCHEMA_COLUMNS)] == SCHEMA_COLUMNS
    assert SCHEMA_COLUMNS[:5] == ["problem", "family", "instance", "n", "params"]
    assert len(set(COLUMNS)) == len(COLUMNS)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_round_trip(tmp_path, fmt):
    paths = write_results(_frame(), tmp_path / "out")
    assert set(paths) == {"parquet", "csv"}
    assert all(p.exists() for p in paths.values())
    back = read_results(paths[fmt])
    assert list(back.columns) == COLUMNS + ["my_extra"]
    assert back.loc[0, "params"] == '{"k": 3, "model": "suppression"}'
    assert back.loc[1, "params"] == '{"k": 3}'
    assert back.loc[0, "cost"] == 12.0 and math.isnan(back.loc[1, "cost"])
    assert back.loc[0, "seed"] == 7 and back.loc[0, "n"] == 10
    assert bool(back.loc[0, "verified"]) is True and bool(back.loc[1, "verified"]) is False
    assert pd.isna(back.loc[0, "exact_agree"]) and bool(back.loc[1, "exact_agree"]) is True
    assert back.loc[1, "error"] == "killed, after 1 s"
    assert pd.isna(back.loc[0, "gap"])
    assert back.loc[0, "my_extra"] == "x"


def test_parquet_and_csv_agree(tmp_path):
    paths = write_results(_frame(), tmp_path)
    a, b = read_results(paths["parquet"]), read_results(paths["csv"])
    pd.testing.assert_frame_equal(a, b)
    assert list(a.dtypes) == list(b.dtypes)


def test_read_directory(tmp_path):
    write_results(_frame(), tmp_path)
    assert len(read_results(tmp_path)) == 2
    # a directory of other parquet files is concatenated
    other = tmp_path / "many"
    other.mkdir()
    flat = _frame().assign(params='{"k": 3}', exact_agree=[None, True])
    flat.to_parquet(other / "a.parquet")
    flat.iloc[:1].to_parquet(other / "b.parquet")
    both = read_results(other)
    assert len(both) == 3 and list(both.columns)[: len(COLUMNS)] == COLUMNS


def test_read_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_results(tmp_path / "missing.parquet")
    with pytest.raises(FileNotFoundError, match="no results .parquet or .csv files"):
        read_results(tmp_path)
    bad = tmp_path / "x.txt"
    bad.write_text("hi")
    with pytest.raises(ValueError, match=r"`path` must be a \.parquet or \.csv file"):
        read_results(bad)
