"""The results store: one tidy row per run, as Parquet (pyarrow) plus a CSV export (the results
schema: docs/architecture.md).

Columns come in a stable order: the schema columns first, then the runner's extras
(:data:`EXTRA_COLUMNS`), then anything else (a problem's own columns, such as bin covering's
``overfull_ratio``) in the order it appeared. The columns and their dtypes are those of
:class:`~anonratio.bench.record.RunRecord`. Parameters are stored as
JSON strings, so the files stay flat and both formats read back to the same frame.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from anonratio.bench.record import (
    COLUMNS,
    EXTRA_COLUMNS,
    JSON_COLUMNS,
    SCHEMA_COLUMNS,
    column_kinds,
)
from anonratio.instances.io import jsonable

__all__ = [
    "COLUMNS",
    "SCHEMA_COLUMNS",
    "EXTRA_COLUMNS",
    "order_columns",
    "write_results",
    "read_results",
]

# the dtypes follow the record's annotations (anonratio.bench.record.RunRecord)
_KINDS = column_kinds()
_FLOAT = [c for c in COLUMNS if _KINDS[c] == "float"]
_INT = [c for c in COLUMNS if _KINDS[c] == "int"]
_BOOL = [c for c in COLUMNS if _KINDS[c] == "bool"]
_STR = [c for c in COLUMNS if _KINDS[c] == "str"]


def _to_json(x: Any) -> Any:
    """A dict or list cell as JSON text (a JSON column of a frame built by hand)."""
    if isinstance(x, dict | list | tuple):
        return json.dumps(x, sort_keys=True, default=jsonable)
    return x


def order_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the store's column order and dtypes (missing known columns added empty)."""
    out = df.copy()
    for col in COLUMNS:
        if col not in out:
            out[col] = None
    for col in JSON_COLUMNS:
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


def write_results(df: pd.DataFrame, out_dir: str | Path) -> dict[str, Path]:
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


def _read_one(path: Path) -> pd.DataFrame:
    if path.suffix == ".parquet":
        return pd.read_parquet(path, engine="pyarrow")
    if path.suffix == ".csv":
        return pd.read_csv(path, keep_default_na=True, low_memory=False)
    raise ValueError(f"`path` must be a .parquet or .csv file or a directory, got {str(path)!r}")


def read_results(path: str | Path) -> pd.DataFrame:
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
