"""The safe output of ``anonratio anonymize``: :func:`write_csv` writes a table atomically and
never over an input (:func:`check_out`); :func:`write_published` in the input's shape,
:func:`write_withheld` the records a suppression limit withheld; formula cells are written as they
came unless neutralized on request (:func:`neutralize_formulas`).
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

import pandas as pd

from anonratio.bench.errors import CLIError
from anonratio.instances.io import atomic_write

__all__ = [
    "check_out",
    "neutralize_formulas",
    "write_csv",
    "write_published",
    "write_withheld",
]

#: what a spreadsheet reads as the start of a formula (OWASP, "CSV injection")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: a plain decimal number, which a spreadsheet reads as a number, never as a formula
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (a link to it, or the same resolved path)."""
    try:
        if a.exists() and b.exists() and os.path.samefile(a, b):
            return True
    except OSError:  # pragma: no cover - a race with a deletion
        pass
    return a.resolve() == b.resolve()


def check_out(out: Path, inputs: Iterable[Path], option: str = "--out") -> None:
    """The output ``option`` is a writable file path that is none of the inputs."""
    if out.is_dir():
        raise CLIError(f"`{option}` must be a file path, got the folder {str(out)!r}")
    for path in inputs:
        if _same_file(out, path):
            raise CLIError(
                f"`{option}` {str(out)!r} is the input file {str(path)!r}: anonymize never writes "
                f"over an input; choose another output path"
            )


def _neutral(cell: str) -> str:
    if cell.startswith(FORMULA_START) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def _text(column: pd.Series) -> list[Any]:
    """The cells of ``column`` as ``column.astype(str)`` gives them, as a list: a column of
    strings (as read from a CSV file) as it is, without a round trip through pandas' string
    dtype, which costs more than writing the file."""
    cells = column.to_numpy(dtype=object) if column.dtype == object else None
    if cells is None or pd.api.types.infer_dtype(cells, skipna=False) != "string":
        cells = column.astype(str).to_numpy(dtype=object)
    return cells.tolist()


def neutralize_formulas(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` as strings, every cell a spreadsheet would run as a formula prefixed with ``'``.

    A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to
    Excel, LibreOffice and Google Sheets (OWASP, "CSV injection"); a plain decimal number such as
    ``-5`` or ``+1.5e3`` is not, and stays as it is. The prefixed cell then differs from the
    input's: this is an opt-in for tables that people open in a spreadsheet.

    Examples
    --------
    >>> neutralize_formulas(pd.DataFrame({"a": ["=1+1", "-5", "@SUM(A1)", "x"]}))["a"].tolist()
    ["'=1+1", '-5', "'@SUM(A1)", 'x']
    """
    return rows.astype(str).map(_neutral)


def write_csv(
    rows: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    header: Iterable[str] | None = None,
    sep: str = ",",
    lineterminator: str = "\n",
    bom: bool = False,
    protect: Iterable[str | os.PathLike[str]] = (),
    neutralize: bool = False,
) -> Path:
    """Write ``rows`` as UTF-8 CSV to ``path`` atomically, never over a file of ``protect``.

    The text goes to a temporary file in the target folder (created if missing), flushed to disk,
    then renamed over ``path`` (:func:`os.replace`): ``path`` holds the old content or the new,
    never a part. ``header`` defaults to the frame's column names; fields are quoted when needed.
    Cells, header names included, are written as they are (a cell ``=1+1`` too), unless
    ``neutralize`` (:func:`neutralize_formulas`).
    """
    out = Path(path)
    check_out(out, [Path(p) for p in protect])
    names = [str(c) for c in (rows.columns if header is None else header)]
    if neutralize:
        rows, names = neutralize_formulas(rows), [_neutral(c) for c in names]

    def write(f: IO[str]) -> None:
        writer = csv.writer(f, delimiter=sep, lineterminator=lineterminator)
        writer.writerow(names)
        columns = [_text(rows.iloc[:, j]) for j in range(rows.shape[1])]
        writer.writerows(zip(*columns, strict=True) if columns else [()] * len(rows))

    atomic_write(out, write, mode="w", encoding="utf-8-sig" if bom else "utf-8", newline="")
    return out


def write_published(
    published: pd.DataFrame,
    path: str | os.PathLike[str],
    data: Any,
    *,
    protect: Iterable[Any] = (),
    neutralize: bool = False,
) -> Path:
    """:func:`write_csv` in the input's shape: its header names as written, separator, line ends
    and byte-order mark (``data``: the :class:`~anonratio.instances.loaders.CsvTable` read);
    never over the input or a file of ``protect``; formula cells neutralized on request."""
    return write_csv(
        published,
        path,
        header=data.header,
        sep=data.sep,
        lineterminator=data.lineterminator,
        bom=data.bom,
        protect=[data.path, *protect],
        neutralize=neutralize,
    )


def write_withheld(
    withheld: Any, data: Any, path: str | os.PathLike[str], *, protect: Iterable[Any] = ()
) -> Path:
    """Write the records a suppression budget withheld to ``path``: one row each, its 1-based
    ``record`` number among the data rows and the ``line`` of the input file it starts on
    (``data``: the :class:`~anonratio.instances.loaders.CsvTable` read); atomically, never over
    the input or a file of ``protect``."""
    import numpy as np

    rows = np.flatnonzero(np.asarray(withheld, dtype=bool))
    frame = pd.DataFrame({"record": rows + 1, "line": np.asarray(data.lines, dtype=int)[rows]})
    return write_csv(frame, path, protect=[data.path, *protect])
