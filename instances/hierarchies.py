"""ARX generalization hierarchy files: read one, find those of a table's columns in a folder.

A hierarchy file has the ARX CSV format (Prasser & Kohlmayer, "Putting statistical disclosure
control into practice: the ARX data anonymization tool", 2015): no header, one row per original
value, column ``i`` the value's generalization at level ``i``, the last column ``*``,
``;``-separated. ARX keeps the files of several data sets in one folder, named
``<dataset>_hierarchy_<column>.csv``; :func:`find_hierarchies` picks a data set's own files there.

The levels must be nested partitions (each level-``t`` group inside one level-``t + 1`` group, the
generalization hierarchies of Samarati & Sweeney 1998). A value listed twice with identical rows is
accepted with a :class:`HierarchyWarning`; twice with different rows it is refused. This module
also holds the CSV text helpers the table reader (:mod:`anonratio.instances.loaders`) shares.
"""

import csv
import io
import os
import unicodedata
import warnings
from collections.abc import Iterable
from pathlib import Path

from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.hierarchy_rows import HierarchyWarning, hierarchy_levels
from anonratio.instances.table import Hierarchy

#: a file path argument
StrPath = str | os.PathLike[str]

#: the label of the top level (every value in one group)
SUPPRESSED = "*"

__all__ = [
    "HierarchyWarning",
    "hierarchy_levels",
    "read_hierarchy",
    "find_hierarchies",
    "check_separator",
]


# -- CSV text -------------------------------------------------------------------------------------
def decode_text(path: Path) -> tuple[str, bool]:
    """The text of a UTF-8 file without NUL bytes; whether it had a byte-order mark (dropped)."""
    data = path.read_bytes()
    bom = data.startswith(b"\xef\xbb\xbf")
    body = data[3:] if bom else data
    try:
        text, bad = body.decode("utf-8"), body.find(b"\0")
    except UnicodeDecodeError as exc:
        text, bad = "", exc.start
    if bad < 0:
        return text, bom
    line = body.count(b"\n", 0, bad) + 1
    raise InstanceFormatError(
        f"{path} line {line}: not a UTF-8 text file (byte 0x{body[bad]:02x}); save it as UTF-8, "
        f"e.g. `iconv -f latin1 -t utf-8` for a Latin-1 file"
    )


def parse_rows(path: Path, text: str, sep: str) -> tuple[list[list[str]], list[int]]:
    """The non-blank rows of CSV ``text``, cells as written, and the line each row starts on."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    rows: list[list[str]] = []
    lines: list[int] = []
    start = 1
    try:
        for r in reader:
            if len(r) > 1 or (r and r[0].strip()):  # skip blank lines (e.g. a trailing one)
                rows.append(r)
                lines.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InstanceFormatError(f"{path} line {reader.line_num}: malformed CSV ({exc})") from None
    return rows, lines


def check_separator(sep: object, name: str = "sep") -> str:
    """``sep`` checked: one character, not a quote or a line break (``\\t`` and ``tab`` mean tab).

    A bad value raises ``ValueError`` naming the parameter ``name`` and the value.
    """
    s = {"\\t": "\t", "tab": "\t"}.get(sep, sep) if isinstance(sep, str) else sep
    if not isinstance(s, str) or len(s) != 1 or s in '"\r\n':
        raise ValueError(
            f"`{name}` must be one character other than a quote or a line break (such as ';', "
            f"',' or tab), got {sep!r}"
        )
    return s


def read_hierarchy(path: StrPath, *, attribute: str, sep: str = ";") -> Hierarchy:
    """Read one ARX hierarchy file: one row ``value;level1;...;*`` per value, no header.

    The result has ``height`` = number of columns - 1 (a ``*`` level is appended when the last
    column has more than one group, see :meth:`Hierarchy.from_rows`). A value listed twice with
    identical rows is read once, with a :class:`HierarchyWarning` naming the file, the attribute,
    the value and both lines.

    Parameters
    ----------
    path : str or Path
    attribute : str
        The attribute the hierarchy belongs to (for error messages).
    sep : str
        Field separator (ARX writes ``;``).

    Returns
    -------
    Hierarchy

    Raises
    ------
    FileNotFoundError
        No such file.
    InstanceFormatError
        For an empty or ragged file, a row of empty fields, a value listed twice with different
        rows, or levels that do not nest; the message names the file, the line(s), the attribute
        and the value. O(values · levels).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "h.csv"
    >>> _ = p.write_text("a;x;*\\nb;x;*\\nc;y;*\\n")
    >>> read_hierarchy(p, attribute="q").height
    2
    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"hierarchy file of attribute {attribute!r} not found: {file}")
    raw, lines = parse_rows(file, decode_text(file)[0], check_separator(sep))
    what = f"hierarchy of attribute {attribute!r}"
    if not raw:
        raise InstanceFormatError(f"{file}: {what} is empty")
    empty = [line for r, line in zip(raw, lines, strict=True) if not any(c.strip() for c in r)]
    if empty:
        raise InstanceFormatError(f"{file} line {empty[0]}: {what} has a row of empty fields")
    return Hierarchy.from_rows(raw, attribute=attribute, source=str(file), lines=lines)


def _nfc(name: str) -> str:
    """File names compare in NFC: macOS writes them decomposed (``e`` + U+0301 for ``é``)."""
    return unicodedata.normalize("NFC", name)


def _matches(files: list[Path], column: str) -> list[Path]:
    """The files named ``<column>.csv`` or ``*_hierarchy_<column>.csv`` (compared in NFC)."""
    plain, arx = _nfc(f"{column}.csv"), _nfc(f"_hierarchy_{column}.csv")
    return [p for p in files if _nfc(p.name) == plain or _nfc(p.name).endswith(arx)]


def _pick(hits: list[Path], column: str, dataset: str | None) -> Path | None:
    """The one file of ``hits`` for ``column``: the only one, else ``<dataset>_hierarchy_<column>
    .csv``, else ``<column>.csv`` (the last two only with ``dataset``); ``None`` if ambiguous."""
    if len(hits) == 1:
        return hits[0]
    if dataset is None:
        return None
    for name in (f"{dataset}_hierarchy_{column}.csv", f"{column}.csv"):
        chosen = [p for p in hits if _nfc(p.name) == _nfc(name)]
        if chosen:
            return chosen[0]
    return None


def find_hierarchies(
    directory: StrPath, columns: Iterable[str], *, dataset: str | None = None
) -> dict[str, Path]:
    """Find ARX hierarchy files for ``columns`` in ``directory``.

    A column ``c`` matches ``*_hierarchy_<c>.csv`` (ARX naming, e.g. ``adult_hierarchy_age.csv``)
    or ``<c>.csv``, names compared under Unicode NFC normalization (a file system may store
    ``é`` decomposed). When it matches several files (ARX's shared folder holds the files of several
    data sets) and ``dataset`` is given, the precedence is: ``<dataset>_hierarchy_<c>.csv``, then
    ``<c>.csv``; otherwise the column is ambiguous. A single match is used whatever its prefix.
    Columns without a file are left out of the returned ``{column: path}`` with one
    :class:`HierarchyWarning` naming them: they are generalized by suppression only. O(files ·
    columns) time.

    Parameters
    ----------
    directory : str or Path
    columns : iterable of str
    dataset : str, optional
        The data set's name: the data file's stem (``"adult"`` for ``adult.csv``).

    Raises
    ------
    FileNotFoundError
        If ``directory`` is not a folder.
    InstanceFormatError
        If a column matches several files and none is preferred; the message lists them.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "adult_hierarchy_age.csv").write_text("1;*\\n")
    >>> _ = (d / "other_hierarchy_age.csv").write_text("1;*\\n")
    >>> find_hierarchies(d, ["age"], dataset="adult")["age"].name
    'adult_hierarchy_age.csv'
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise FileNotFoundError(f"hierarchy folder not found: {folder}")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".csv")
    found: dict[str, Path] = {}
    missing: list[str] = []
    for c in columns:
        hits = _matches(files, c)
        if not hits:
            missing.append(c)
            continue
        chosen = _pick(hits, c, dataset)
        if chosen is None:
            if dataset is None:
                hint = "; pass `dataset` to prefer <dataset>_hierarchy_<column>.csv"
            else:
                hint = f"; none is named {dataset}_hierarchy_{c}.csv or {c}.csv"
            raise InstanceFormatError(
                f"column {c!r} matches several hierarchy files in {folder}: "
                f"{[p.name for p in hits]}{hint}"
            )
        found[c] = chosen
    if missing:
        expected = f"{dataset or '<dataset>'}_hierarchy_<column>.csv or <column>.csv"
        warnings.warn(
            f"no hierarchy file in {folder} for QI columns {missing} (looked for {expected}): "
            f"they are generalized by suppression only",
            HierarchyWarning,
            stacklevel=2,
        )
    return found
