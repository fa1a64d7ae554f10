"""The results store: one tidy row per run, as Parquet (pyarrow) plus a CSV export (the results
schema: docs/architecture.md).

Columns come in a stable order: the schema columns first, then the runner's extras
(:data:`EXTRA_COLUMNS`), then anything else in the order it appeared. Parameters are stored as
JSON strings, so the files stay flat and both formats read back to the same frame.
"""

import json
from pathlib import Path

import pandas as pd

__all__ = ["COLUMNS", "SCHEMA_COLUMNS", "EXTRA_COLUMNS", "write_results", "read_results"]

#: the schema columns (docs/architecture.md), in order
SCHEMA_COLUMNS = [
    "problem",
    "family",
    "instance",
    "n",
    "params",
    "algorithm",
    "kind",
    "seed",
    "status",
    "verified",
    "cost",
    "lower_bound",
    "lower_bound_source",
    "optimum",
    "optimum_status",
    "ratio",
    "certified_ratio",
    "guarantee",
    "bound",
    "gap",
    "time_s",
    "peak_mb",
    "version",
]

#: what the runner adds after them
EXTRA_COLUMNS = [
    "k",
    "m",
    "instance_seed",
    "family_params",
    "time_limit",
    "objective",
    "known_optimum",
    "run_lower_bound",
    "run_lower_bound_source",
    "exact_agree",
    "optimum_note",
    "error",
    "info",
]

COLUMNS = SCHEMA_COLUMNS + EXTRA_COLUMNS

_FLOAT = [
    "cost",
    "lower_bound",
    "optimum",
    "ratio",
    "certified_ratio",
    "guarantee",
    "bound",
    "gap",
    "time_s",
    "peak_mb",
    "time_limit",
    "objective",
    "known_optimum",
    "run_lower_bound",
]
_INT = ["n", "seed", "k", "m", "instance_seed"]
_BOOL = ["verified", "exact_agree"]
_JSON = ["params", "family_params", "info"]
_STR = [c for c in COLUMNS if c not in _FLOAT + _INT + _BOOL]


def _to_json(x):
    if isinstance(x, dict | list | tuple):
        return json.dumps(x, sort_keys=True, default=str)
    return x


def order_columns(df):
    """``df`` with the store's column order and dtypes (missing known columns added empty)."""
    out = df.copy()
    for col in COLUMNS:
        if col not in out:
            out[col] = None
    for col in _JSON:
        out[col] = out[col].map(_to_json)
    for col in _FLOAT:
        out[col] = pd.to_numeric(out[col], errors="coerce").astype("float64")
    for col in _INT:
        out[col] = pd.to_numeric(out[col], errors="coerce").astype("Int64")
    for col in _BOOL:
        out[col] = out[col].astype("object").where(out[col].notna(), None).astype("boolean")
    for col in _STR:
        s = out[col].astype("object")
        out[col] = s.where(s.notna(), None).map(lambda v: v if v is None else str(v))
        out[col] = out[col].astype("string")
    rest = [c for c in out.columns if c not in COLUMNS]
    for col in rest:
        if out[col].dtype == object:
            out[col] = out[col].where(out[col].notna(), None)
    return out[COLUMNS + rest].reset_index(drop=True)


def write_results(df, out_dir):
    """Write ``results.parquet`` and ``results.csv`` into ``out_dir`` (created if needed).

    Returns
    -------
    dict
        ``{"parquet": Path, "csv": Path}``.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    frame = order_columns(pd.DataFrame(df))
    paths = {"parquet": out_dir / "results.parquet", "csv": out_dir / "results.csv"}
    frame.to_parquet(paths["parquet"], engine="pyarrow", index=False)
    frame.to_csv(paths["csv"], index=False)
    return paths


def _read_one(path):
    if path.suffix == ".parquet":
        return pd.read_parquet(path, engine="pyarrow")
    if path.suffix == ".csv":
        return pd.read_csv(path, keep_default_na=True, low_memory=False)
    raise ValueError(f"`path` must be a .parquet or .csv file or a directory, got {str(path)!r}")


def read_results(path):
    """Read results written by :func:`write_results`.

    Parameters
    ----------
    path : str or Path
        A ``.parquet`` or ``.csv`` file, or a directory: its ``results.parquet`` (else
        ``results.csv``; else every ``*.parquet``, else every ``*.csv`` in it, concatenated).

    Returns
    -------
    DataFrame
        With the store's column order and dtypes.
    """
    path = Path(path)
    if path.is_dir():
        for name in ("results.parquet", "results.csv"):
            if (path / name).exists():
                return order_columns(_read_one(path / name))
        files = sorted(path.glob("*.parquet")) or sorted(path.glob("*.csv"))
        if not files:
            raise FileNotFoundError(f"no results .parquet or .csv files in {str(path)!r}")
        frames = [_read_one(f) for f in files]
        return order_columns(pd.concat(frames, ignore_index=True))
    if not path.exists():
        raise FileNotFoundError(f"results file {str(path)!r} does not exist")
    frame = _read_one(path)
    if frame.empty and len(frame.columns) == 0:
        return order_columns(pd.DataFrame(columns=COLUMNS))
    return order_columns(frame)
