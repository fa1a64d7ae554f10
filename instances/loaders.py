"""Read tables with their ARX generalization hierarchies from CSV files; locate the real data sets.

The hierarchy files are read and found by :mod:`anonratio.instances.hierarchies` (re-exported
here: :func:`read_hierarchy`, :func:`find_hierarchies`, :class:`HierarchyWarning`). Tables are
UTF-8 CSV files with a header row, ``;``, ``,`` or tab separated (sniffed). Real data sets live
in the folder named by ``$ANONRATIO_DATASETS`` (e.g. its ``adult/``, from ARX).
"""

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.adult import ADULT_QI
from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.frame_columns import (
    name_hint,
    same_name_spellings,
    spelling,
    stripped_labels,
)
from anonratio.instances.hierarchies import (
    HierarchyWarning,
    StrPath,
    check_separator,
    decode_text,
    find_hierarchies,
    parse_rows,
    read_hierarchy,
)
from anonratio.instances.table import Hierarchy, Table

__all__ = [
    "DATASETS_ENV",
    "ADULT_QI",
    "HierarchyWarning",
    "read_hierarchy",
    "find_hierarchies",
    "read_table",
    "read_csv_table",
    "table_from_csv",
    "CsvTable",
    "check_separator",
    "sniff_separator",
    "datasets_dir",
    "load_adult",
]

#: environment variable holding the path of the datasets folder
DATASETS_ENV = "ANONRATIO_DATASETS"

#: a character ``str.strip`` keeps, and one ``str.splitlines`` breaks a line at
_NON_BLANK = re.compile(r"\S")
_LINE_BREAK = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def sniff_separator(first_line: str) -> str:
    """The separator of a CSV header line: the most frequent of ``;``, ``,`` and tab."""
    counts = {s: first_line.count(s) for s in (";", ",", "\t")}
    sep = max(counts, key=lambda s: counts[s])
    if counts[sep] == 0:
        return ","  # a single column
    return sep


def _first_line(text: str) -> str:
    """The first non-blank line of ``text`` (which has one), as ``str.splitlines`` cuts it: that
    of its first non-blank character (every line break is blank), found without splitting the
    whole file."""
    start = _NON_BLANK.search(text).start()  # type: ignore[union-attr]
    begin = max((m.end() for m in _LINE_BREAK.finditer(text, 0, start)), default=0)
    end = _LINE_BREAK.search(text, start)
    return text[begin : len(text) if end is None else end.start()]


def read_table(
    path: StrPath,
    *,
    qi: Sequence[str] | None = None,
    sensitive: str | None = None,
    hierarchies: Mapping[str, Hierarchy | StrPath | Sequence[Sequence[str]]]
    | StrPath
    | None = None,
    sep: str | None = None,
    weights: Sequence[float] | Mapping[str, float] | None = None,
) -> Table:
    """Read a CSV table (header row) into a :class:`Table`, with optional ARX hierarchies.

    :func:`read_csv_table` then :func:`table_from_csv`. Values are read as stripped strings
    (nothing is parsed as missing); a QI value must appear in its column's hierarchy.

    Parameters
    ----------
    path : str or Path
    qi : list of str, optional
        Quasi-identifier columns (default: every column but ``sensitive``).
    sensitive : str, optional
        The sensitive column.
    hierarchies : dict or str or Path, optional
        ``{column: Hierarchy | path | rows}``, or a folder searched with
        :func:`find_hierarchies` for the QI columns, preferring the files named after the data
        file (``adult_hierarchy_age.csv`` for ``adult.csv``). QI columns without one use
        suppression (with a :class:`HierarchyWarning` when searched in a folder).
    sep : str, optional
        Field separator; default: sniffed from the header among ``;``, ``,`` and tab.
    weights : sequence of float or dict of str -> float, optional
        Attribute weights, in ``qi`` order, or per column (missing columns weigh 1).

    Raises
    ------
    FileNotFoundError, IsADirectoryError, InstanceFormatError
        As :func:`read_csv_table`; also a value missing from its hierarchy or a bad hierarchy file
        (messages name the file, the line and the column).
    ValueError
        Unknown or repeated columns in ``qi``, ``sensitive`` (also in ``qi``), ``hierarchies`` or
        ``weights``; a bad ``sep``. O(n · m) time: Adult (30,162 × 9) reads in under a second.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("sex;zip;disease\\nM;123;flu\\nF;124;cold\\n")
    >>> read_table(p, sensitive="disease").attributes
    ('sex', 'zip')
    """
    return table_from_csv(
        read_csv_table(path, sep=sep),
        qi=qi,
        sensitive=sensitive,
        hierarchies=hierarchies,
        weights=weights,
    )


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A CSV table as read, to build a :class:`Table` from and to publish in the same shape.

    ``frame`` holds every record, every cell as written (strings), under the header names
    stripped of surrounding blanks (the names :func:`table_from_csv` matches ``qi`` against);
    ``header`` holds the names as written; ``lineterminator`` is ``"\\r\\n"`` when the header
    line ends so, else ``"\\n"``; ``bom`` says whether the file starts with a UTF-8 byte-order
    mark; ``lines`` is the (1-based) line each record starts on, for error messages.
    """

    path: Path
    frame: pd.DataFrame
    header: tuple[str, ...]
    sep: str
    lineterminator: str
    bom: bool
    lines: tuple[int, ...]


def read_csv_table(path: StrPath, *, sep: str | None = None) -> CsvTable:
    """Read a CSV table with a header row, checked, once (see :func:`read_table`).

    The file must be UTF-8 (a byte-order mark is allowed), with ``\\n`` or ``\\r\\n`` line ends;
    fields may be quoted (``"a;b"``, quoted line breaks). Blank lines are skipped. A record whose
    fields are all empty (a line of separators) is refused, as are ragged rows and empty or
    duplicate header names (compared stripped of blanks, and under Unicode normalization: ``é``
    composed and decomposed are one name written twice); messages name the file and the line.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, InstanceFormatError, ValueError
        A missing path, a folder, a file that is not UTF-8 text or is malformed as above, a bad
        ``sep`` (default: sniffed from the first line among ``;``, ``,`` and tab).
    """
    file = Path(path)
    if file.is_dir():
        raise IsADirectoryError(f"table file {file} is a folder, not a CSV file")
    if not file.is_file():
        raise FileNotFoundError(f"table file not found: {file}")
    sep = None if sep is None else check_separator(sep)
    text, bom = decode_text(file)
    if not text.strip():
        raise InstanceFormatError(f"{file}: the file is empty")
    detected = sep is None
    sep = sep or sniff_separator(_first_line(text))
    rows, lines = parse_rows(file, text, sep)
    header, body = rows[0], rows[1:]
    names = [c.strip() for c in header]
    for j, c in enumerate(names):
        if not c:
            raise InstanceFormatError(f"{file} line {lines[0]}: header column {j + 1} has no name")
        if c in names[:j]:
            raise InstanceFormatError(
                f"{file} line {lines[0]}: the header names column {c!r} twice (columns "
                f"{names.index(c) + 1} and {j + 1})"
            )
    twice = same_name_spellings(names)
    if twice:
        i, j = twice
        raise InstanceFormatError(
            f"{file} line {lines[0]}: the header names column {names[j]!r} twice, in other Unicode "
            f"code points: column {i + 1} as {spelling(names[i])}, column {j + 1} as "
            f"{spelling(names[j])}; rename one of them"
        )
    if not body:
        raise InstanceFormatError(f"{file}: the table has a header but no records")
    bad = [i for i, r in enumerate(body) if len(r) != len(names)]
    if bad:
        i = bad[0]
        hint = f"; separator {sep!r} detected from the header" if detected else ""
        raise InstanceFormatError(
            f"{file}: ragged rows: data row {i + 1} (line {lines[i + 1]}) has {len(body[i])} "
            f"fields, the header has {len(names)} ({len(bad)} such rows{hint})"
        )
    for i, r in enumerate(body):
        if not "".join(r).strip():  # every field blank
            raise InstanceFormatError(
                f"{file} line {lines[i + 1]}: data row {i + 1} has only empty fields (a line of "
                f"separators); remove it or fill it in"
            )
    i = text.find("\n")
    return CsvTable(
        path=file,
        frame=pd.DataFrame(body, columns=names, dtype=object),
        header=tuple(header),
        sep=sep,
        lineterminator="\r\n" if i > 0 and text[i - 1] == "\r" else "\n",
        bom=bom,
        lines=tuple(lines[1:]),
    )


def table_from_csv(
    data: CsvTable,
    *,
    qi: Sequence[str] | None = None,
    sensitive: str | None = None,
    hierarchies: Mapping[str, Hierarchy | StrPath | Sequence[Sequence[str]]]
    | StrPath
    | None = None,
    weights: Sequence[float] | Mapping[str, float] | None = None,
) -> Table:
    """The :class:`Table` of a :class:`CsvTable` (parameters and errors as :func:`read_table`).

    Values are the cells stripped of surrounding blanks; an empty cell is the value ``''``. Names
    are matched code point for code point; one that matches a header name only under Unicode
    normalization (NFC against NFD) is refused with both spellings.
    """
    file, frame = data.path, data.frame
    header = list(frame.columns)
    if sensitive is not None and sensitive not in header:
        raise ValueError(
            f"{file}: `sensitive` column {sensitive!r} is not in the header {header}"
            + name_hint([sensitive], header, "`sensitive`")
        )
    columns = [c for c in header if c != sensitive] if qi is None else list(qi)
    twice = [c for i, c in enumerate(columns) if c in columns[:i]]
    if twice:
        raise ValueError(f"{file}: `qi` names column {twice[0]!r} twice")
    unknown = [c for c in columns if c not in header]
    if unknown:
        raise ValueError(
            f"{file}: `qi` names unknown columns {unknown}; the header has {header}"
            + name_hint(unknown, header)
        )
    if sensitive is not None and sensitive in columns:
        raise ValueError(
            f"{file}: `sensitive` column {sensitive!r} is also in `qi`: a column is either a "
            f"quasi-identifier or the sensitive attribute"
        )
    hier = _resolve_hierarchies(file, hierarchies, columns)
    try:
        w = _resolve_weights(file, weights, columns)
        return Table.from_dataframe(
            frame, qi=columns, sensitive=sensitive, hierarchies=hier, weights=w
        )
    except Exception as exc:
        error = exc
    _check_in_hierarchies(data, hier)  # a value missing from its hierarchy first, by line
    if isinstance(error, InstanceFormatError):
        raise InstanceFormatError(f"{file}: {error}") from None
    raise error


def _check_in_hierarchies(data: CsvTable, hier: Mapping[str, Hierarchy]) -> None:
    """Refuse a value missing from its column's hierarchy, naming its file line (the table
    builder, which finds it too, knows no lines: this runs when it refuses the table)."""
    for c, h in hier.items():
        rows, labels = stripped_labels(data.frame[c])
        missing = np.flatnonzero(pd.Index(h.labels[0]).get_indexer(labels)[rows] < 0)
        if len(missing):
            i = int(missing[0])
            raise InstanceFormatError(
                f"{data.path} line {data.lines[i]}: hierarchy of attribute {c!r} has no row for "
                f"value {data.frame[c].iloc[i].strip()!r} ({len(missing)} such records)"
            )


def _resolve_hierarchies(path: Path, hierarchies: Any, qi: list[str]) -> dict[str, Hierarchy]:
    if hierarchies is None:
        return {}
    if isinstance(hierarchies, str | os.PathLike):
        hierarchies = find_hierarchies(hierarchies, qi, dataset=path.stem)
    if not isinstance(hierarchies, Mapping):
        raise ValueError(
            f"`hierarchies` must be a dict or a folder path, got {type(hierarchies).__name__}"
        )
    extra = sorted(set(hierarchies) - set(qi))
    if extra:
        raise ValueError(
            f"{path}: `hierarchies` names columns that are not QI: {extra}"
            + name_hint(extra, qi, "`hierarchies`", "`qi`")
        )
    out: dict[str, Hierarchy] = {}
    for c, h in hierarchies.items():
        if isinstance(h, str | os.PathLike):
            h = read_hierarchy(h, attribute=c)
        elif not isinstance(h, Hierarchy):
            h = Hierarchy.from_rows(h, attribute=c)
        out[c] = h
    return out


def _resolve_weights(path: Path, weights: Any, qi: list[str]) -> Any:
    if weights is None or not isinstance(weights, Mapping):
        return weights
    extra = sorted(set(weights) - set(qi))
    if extra:
        raise ValueError(
            f"{path}: `weights` names columns that are not QI: {extra}"
            + name_hint(extra, qi, "`weights`", "`qi`")
        )
    return [float(weights.get(c, 1.0)) for c in qi]


def datasets_dir(name: str | None = None) -> Path:
    """The datasets folder from ``$ANONRATIO_DATASETS`` (or its subfolder ``name``).

    Raises
    ------
    FileNotFoundError
        If the variable is unset or the folder does not exist; the message says how to fix it.

    Examples
    --------
    >>> import os
    >>> os.environ.get(DATASETS_ENV) is None or datasets_dir().is_dir()
    True
    """
    root = os.environ.get(DATASETS_ENV)
    if not root:
        raise FileNotFoundError(
            f"the environment variable {DATASETS_ENV} is not set; point it at the datasets folder "
            f"(the one holding adult/)"
        )
    folder = Path(root) if name is None else Path(root) / name
    if not folder.is_dir():
        raise FileNotFoundError(f"datasets folder not found: {folder} (from ${DATASETS_ENV})")
    return folder


def load_adult(
    *,
    qi: Sequence[str] = ADULT_QI,
    sensitive: str | None = "salary-class",
    hierarchies: bool = True,
    directory: StrPath | None = None,
) -> Table:
    """The UCI Adult table (30,162 records) with its ARX hierarchies.

    Parameters
    ----------
    qi : sequence of str
        Quasi-identifiers (default: the 8 usual ones, :data:`ADULT_QI`).
    sensitive : str or None
        Sensitive column (default ``"salary-class"``).
    hierarchies : bool
        Attach the ARX hierarchy of every QI (else suppression only).
    directory : str or Path, optional
        The ``adult`` folder; default ``$ANONRATIO_DATASETS/adult``.

    Returns
    -------
    Table
        From ``adult.csv`` and the ``adult_hierarchy_<column>.csv`` files; O(n · m) time. Source:
        Kohavi & Becker, UCI Adult (1994), as distributed with ARX (Ciriani et al. 2009, §3).

    Examples
    --------
    >>> import os
    >>> os.environ.get(DATASETS_ENV) is None or load_adult().n_records == 30162
    True
    """
    folder = Path(directory) if directory is not None else datasets_dir("adult")
    return read_table(
        folder / "adult.csv",
        qi=list(qi),
        sensitive=sensitive,
        hierarchies=folder if hierarchies else None,
        sep=";",
    )
