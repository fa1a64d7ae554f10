"""The results store: one tidy row per run, as Parquet (pyarrow) plus a CSV export (the results
schema: docs/architecture.md).

Columns come in a stable order: the schema columns first, then the runner's extras
(:data:`EXTRA_COLUMNS`), then anything else (a problem's own columns, such as bin covering's
``overfull_ratio``) in the order it appeared. The columns and their dtypes are those of
:class:`~anonratio.bench.engine.record.RunRecord`. Parameters are stored as
JSON strings, so the files stay flat and both formats read back to the same frame.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from anonratio.bench.engine.record import (
    COLUMNS,
    EXTRA_COLUMNS,
    JSON_COLUMNS,
    SCHEMA_COLUMNS,
    column_kinds,
)
from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.io import atomic_write, jsonable

__all__ = [
    "COLUMNS",
    "SCHEMA_COLUMNS",
    "EXTRA_COLUMNS",
    "order_columns",
    "write_results",
    "read_results",
]

# the dtypes follow the record's annotations (anonratio.bench.engine.record.RunRecord)
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

    Each file is written to a temporary file in ``out_dir``, flushed to disk and renamed over
    the target (``os.replace``), so a reader or a killed writer never sees half a file.

    Returns
    -------
    dict
        ``{"parquet": Path, "csv": Path}``.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    frame = order_columns(pd.DataFrame(df))
    paths = {"parquet": out_dir / "results.parquet", "csv": out_dir / "results.csv"}
    atomic_write(paths["parquet"], lambda fh: frame.to_parquet(fh, engine="pyarrow", index=False))
    atomic_write(paths["csv"], lambda fh: frame.to_csv(fh, index=False))
    return paths


def _read_one(path: Path) -> pd.DataFrame:
    """One results file, or :class:`InstanceFormatError` naming it and what is wrong."""
    if path.suffix not in (".parquet", ".csv"):
        raise ValueError(
            f"`path` must be a .parquet or .csv file or a directory, got {str(path)!r}"
        )
    kind = "Parquet" if path.suffix == ".parquet" else "CSV"
    with open(path, "rb") as fh:
        head = fh.read(8192)
    if not head:
        raise InstanceFormatError(f"{path}: empty file, not a {kind} results file")
    if kind == "Parquet":
        if not head.startswith(b"PAR1"):
            raise InstanceFormatError(
                f"{path}: not a Parquet results file (it does not start with the magic bytes PAR1)"
            )
        try:
            frame = pd.read_parquet(path, engine="pyarrow")
        except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... on a corrupt file
            raise InstanceFormatError(
                f"{path}: corrupt Parquet results file ({' '.join(str(exc).split())})"
            ) from None
    else:
        nul = head.find(b"\x00")
        if nul >= 0:
            raise InstanceFormatError(
                f"{path}: not a CSV results file: binary content (a NUL byte at offset {nul})"
            )
        try:
            frame = pd.read_csv(path, keep_default_na=True, low_memory=False)
        except UnicodeDecodeError as exc:
            raise InstanceFormatError(
                f"{path}: not a CSV results file: not UTF-8 text (byte offset {exc.start})"
            ) from None
        except (ValueError, pd.errors.ParserError) as exc:
            raise InstanceFormatError(
                f"{path}: not a CSV results file ({' '.join(str(exc).split())})"
            ) from None
    return _check_frame(path, frame)


def _check_frame(path: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` if it has results columns whose numbers are numbers (nothing coerced to NaN)."""
    if len(frame.columns) and not set(frame.columns) & set(SCHEMA_COLUMNS):
        shown = ", ".join(map(str, list(frame.columns)[:6]))
        raise InstanceFormatError(
            f"{path}: not a results file: none of its columns ({shown}) is a results column "
            f"(problem, algorithm, instance, cost, ...)"
        )
    for col in [c for c in _FLOAT + _INT if c in frame.columns]:
        values = frame[col]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            continue
        as_num = pd.to_numeric(values.astype("object"), errors="coerce")
        bad = values.notna() & as_num.isna()
        if col in _INT:
            bad |= as_num.notna() & (as_num != as_num.round())
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            raise InstanceFormatError(
                f"{path}: column {col!r} must hold numbers, got {values.iloc[row]!r} in row "
                f"{row + 1}"
            )
    return frame


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

    Raises
    ------
    FileNotFoundError
        No such file, or a directory without results files.
    InstanceFormatError
        An empty, binary or corrupt file, a file without any results column, or a numeric
        column holding something else (the message names the file, and the column, value and
        row); never a silent NaN.
    """
    path = Path(path)
    if path.is_dir():
        for name in ("results.parquet", "results.csv"):
            if (path / name).exists():
                return _ordered(path / name, _read_one(path / name))
        files = sorted(path.glob("*.parquet")) or sorted(path.glob("*.csv"))
        if not files:
            raise FileNotFoundError(f"no results .parquet or .csv files in {str(path)!r}")
        frames = [_read_one(f) for f in files]
        return _ordered(path, pd.concat(frames, ignore_index=True))
    if not path.exists():
        raise FileNotFoundError(f"results file {str(path)!r} does not exist")
    frame = _read_one(path)
    if frame.empty and len(frame.columns) == 0:
        return order_columns(pd.DataFrame(columns=COLUMNS))
    return _ordered(path, frame)


def _ordered(path: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`order_columns`, a failure of which names the file."""
    try:
        return order_columns(frame)
    except (ValueError, TypeError) as exc:
        raise InstanceFormatError(f"{path}: malformed results ({exc})") from None
