"""The columns of a DataFrame as a :class:`~anonratio.instances.table.Table` reads them.

A cell's value is its text as ``Series.astype(str)`` writes it, stripped of surrounding blanks
(:func:`stripped_labels`): a date is ``2020-01-01`` (or ``2020-01-01 10:30:00`` in a column that
has times), a float ``1.5``. Cells must be values: a missing cell (``NaN``, ``None``, ``pd.NA``,
``NaT``) in a quasi-identifier or the sensitive column is refused with its column and row
(:func:`check_present`) instead of becoming a value no file could hold; the command line reads an
empty cell as the value ``''``, which ``df.fillna('')`` gives. Column names that become attribute
names must be text (:func:`check_names_are_text`). Names are compared code point for code point;
a name that matches a column only under Unicode normalization (``"é"`` composed against ``"e"`` and
a combining accent) is refused with both spellings (:func:`name_hint`).
"""

import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.errors import InstanceFormatError

__all__ = [
    "stripped_labels",
    "check_present",
    "check_names_are_text",
    "name_hint",
    "same_name_spellings",
    "spelling",
]


def stripped_labels(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """A column's cells as strings stripped of surrounding blanks: ``labels[rows]``.

    Each distinct cell is converted and stripped once (``labels`` may repeat a string), as
    ``column.astype(str)`` converts it: a date column keeps its own format. A missing cell becomes
    its own label (``nan``); :func:`check_present` refuses those first where they matter.
    """
    rows, uniques = pd.factorize(column)
    labels = pd.Index(uniques).astype(str).str.strip()
    missing = np.flatnonzero(rows < 0)  # None, NaN, ...: each as str() makes it
    if len(missing):
        rows = rows.copy()
        rows[missing] = len(labels) + np.arange(len(missing))
        labels = labels.append(pd.Index([str(v).strip() for v in column.iloc[missing]]))
    return rows, labels


def check_present(df: pd.DataFrame, column: Any, role: str) -> None:
    """Refuse a missing cell in ``df[column]``, naming the column, the row and its index label.

    Raises
    ------
    InstanceFormatError
        ``"{role} column 'zip', row 3 (index 13): the cell is missing (nan); ..."``, with the
        number of missing cells in the column; O(n).
    """
    cells = df[column]
    if cells.dtype == object and pd.api.types.infer_dtype(cells.to_numpy(), skipna=False) in (
        "string",
        "empty",
    ):
        return  # every cell a string (as read from a file): none is missing, no per-cell test
    missing = np.flatnonzero(cells.isna().to_numpy())
    if not len(missing):
        return
    i = int(missing[0])
    cell, label = (_plain(v) for v in (df[column].iloc[i], df.index[i]))
    raise InstanceFormatError(
        f"{role} column {column!r}, row {i} (index {label!r}): the cell is missing "
        f"({cell!r}); fill missing cells first, e.g. `df.fillna('')` for the value '' that the "
        f"command line reads from an empty cell ({len(missing)} missing cells in this column)"
    )


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (for a message: ``13``, not ``np.int64(13)``)."""
    return value.item() if isinstance(value, np.generic) else value


def check_names_are_text(names: Sequence[Any], what: str) -> None:
    """Refuse a column name that is not a string: the table names its attributes by text.

    Raises
    ------
    InstanceFormatError
        ``"`qi` names column 0 (int): column names must be text; ..."``.
    """
    for name in names:
        if not isinstance(name, str):
            raise InstanceFormatError(
                f"{what} names column {name!r} ({type(name).__name__}): column names must be "
                "text; rename the columns, e.g. `df.rename(columns=str)`"
            )


def name_hint(
    unknown: Sequence[Any], columns: Sequence[Any], what: str = "`qi`", where: str = "the header"
) -> str:
    """Why names ``what`` gives are not among the ``columns`` of ``where`` though they look so.

    Two cases: the columns are named by numbers and ``what`` by text (``"0"`` for ``0``), or a
    name is written with other Unicode code points than the column's (``"\\xe9"``, composed, NFC,
    against ``"e\\u0301"``, decomposed, NFD): names are compared code point for code point, as
    the published header keeps them, so the message names both spellings. ``""`` otherwise.
    """
    texts = {str(u) for u in unknown}
    if any(str(c) in texts for c in columns if not isinstance(c, str)):
        return " (names that are not text: rename the columns, e.g. `df.rename(columns=str)`)"
    nfc = {_nfc(c): c for c in columns if isinstance(c, str)}
    for u in unknown:
        c = nfc.get(_nfc(u)) if isinstance(u, str) else None
        if c is not None:
            return (
                f" ({what} writes {u!r} as {spelling(u)}, {where} as {spelling(c)}: the same "
                f"letters in other Unicode code points; pass the spelling of {where}, or write "
                "both in NFC)"
            )
    return ""


def same_name_spellings(names: Sequence[str]) -> tuple[int, int] | None:
    """``(i, j)``, ``i < j``: the first two ``names`` that differ only in Unicode normalization."""
    first: dict[str, int] = {}
    for j, name in enumerate(names):
        i = first.setdefault(_nfc(name), j)
        if i != j:
            return i, j
    return None


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def spelling(name: str) -> str:
    """``name``'s code points and form: ``'\\xe9' (NFC)``, ``'e\\u0301' (NFD)`` or ``(mixed)``."""
    if unicodedata.is_normalized("NFC", name):
        form = "NFC"
    else:
        form = "NFD" if unicodedata.is_normalized("NFD", name) else "mixed"
    return f"{ascii(name)} ({form})"
