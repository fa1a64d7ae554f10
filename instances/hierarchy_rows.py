"""The rows of a generalization hierarchy checked and turned into levels (the stage behind
:meth:`anonratio.instances.table.Hierarchy.from_rows`).

The levels must be nested partitions (each level-``t`` group inside one level-``t + 1`` group, the
generalization hierarchies of Samarati & Sweeney 1998). A value listed twice with identical rows is
accepted with a :class:`HierarchyWarning`; twice with different rows it is refused, naming the
value and where both rows are.
"""

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.errors import InstanceFormatError

__all__ = ["HierarchyWarning", "hierarchy_levels"]

#: the label of the top level (every value in one group)
SUPPRESSED = "*"


class HierarchyWarning(UserWarning):
    """A hierarchy was repaired or is missing: a repeated identical row, a QI column without one."""


@dataclass(frozen=True)
class _Origin:
    """Where rows come from, for messages: ``source`` (a file or ``None``), and for each kept row
    its ``line`` in the file (``None`` without lines) or else its index ``row`` in the rows given.
    """

    source: str | None
    rows: np.ndarray
    lines: np.ndarray | None

    def at(self, i: int | None = None) -> str:
        """The message prefix: ``file line 3: ``, ``file: `` or ``''``."""
        if self.source is None:
            return ""
        if i is None or self.lines is None:
            return f"{self.source}: "
        return f"{self.source} line {self.lines[i]}: "

    def pair(self, i: int, j: int) -> str:
        """``lines a and b`` of kept rows ``i`` and ``j`` (``rows a and b`` without lines)."""
        if self.lines is None:
            return f"rows {self.rows[i]} and {self.rows[j]}"
        return f"lines {self.lines[i]} and {self.lines[j]}"

    def take(self, keep: np.ndarray) -> "_Origin":
        """The origin of the rows ``keep`` (indices or a mask) of these."""
        lines = None if self.lines is None else self.lines[keep]
        return _Origin(self.source, self.rows[keep], lines)


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """``first[c]``: the first row of code ``c`` (codes from :func:`pandas.factorize`)."""
    return np.unique(codes, return_index=True)[1]


def _check_width(cells: list[list[str]], what: str, origin: _Origin) -> None:
    """Refuse ragged rows: every row has the first row's number of cells. O(n)."""
    width = len(cells[0])
    bad = [i for i, r in enumerate(cells) if len(r) != width]
    if not bad:
        return
    i, r = bad[0], cells[bad[0]]
    if origin.lines is None:
        shape = f"row {origin.rows[i]} ({r[0]!r}) has {len(r)} columns, row {origin.rows[0]} has"
    else:
        shape = f"the row of {r[0]!r} has {len(r)} fields, line {origin.lines[0]} has"
    raise InstanceFormatError(f"{origin.at(i)}{what} is ragged: {shape} {width}")


def _repeated_rows(frame: np.ndarray, what: str, origin: _Origin) -> np.ndarray:
    """Which rows repeat an earlier identical row (warned); a value with two different rows raises.

    O(n · w) for ``n`` rows of ``w`` cells.
    """
    codes = pd.factorize(pd.Series(frame[:, 0], dtype=object))[0]
    first = _first_rows(codes)[codes]
    repeat = first != np.arange(len(frame))
    if not repeat.any():
        return repeat
    differ = repeat & (frame != frame[first]).any(axis=1)
    if differ.any():
        j = int(np.flatnonzero(differ)[0])
        i = int(first[j])
        raise InstanceFormatError(
            f"{origin.at(j)}{what} lists value {frame[j, 0]!r} twice ({origin.pair(i, j)}) with "
            f"different rows: {list(frame[i])} and {list(frame[j])}"
        )
    j = int(np.flatnonzero(repeat)[0])
    i = int(first[j])
    more = f"; {int(repeat.sum())} repeated rows in all" if repeat.sum() > 1 else ""
    warnings.warn(
        f"{origin.at(j)}{what} lists value {frame[j, 0]!r} twice with identical rows "
        f"({origin.pair(i, j)}{more}); the repeat is ignored",
        HierarchyWarning,
        stacklevel=4,  # the caller of Hierarchy.from_rows
    )
    return repeat


def _nesting_error(
    groups: np.ndarray, labels: list[tuple[str, ...]], origin: _Origin
) -> str | None:
    """Why the levels are not nested partitions (the first offending value), or ``None``.

    Level ``t`` nests in level ``t + 1`` when every row of a level-``t`` group has the level-``t +
    1`` group of the group's first row (level 0, the distinct values, always nests). O(n · levels).
    """
    for t in range(1, groups.shape[1] - 1):
        g, up = groups[:, t], groups[:, t + 1]
        first = _first_rows(g)[g]
        bad = np.flatnonzero(up != up[first])
        if bad.size:
            j = int(bad[0])
            i = int(first[j])
            value, other = labels[0][groups[j, 0]], labels[0][groups[i, 0]]
            return (
                f"hierarchy level {t} does not refine level {t + 1}: value {value!r} is in group "
                f"{labels[t][g[j]]!r} at level {t} but in group {labels[t + 1][up[j]]!r} at level "
                f"{t + 1}, while value {other!r} of the same group is in {labels[t + 1][up[i]]!r} "
                f"({origin.pair(i, j)})"
            )
    return None


def hierarchy_levels(
    rows: Sequence[Sequence[Any]],
    *,
    attribute: str = "?",
    source: str | None = None,
    lines: Sequence[int] | None = None,
) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """``(groups, labels)`` of ARX-style rows ``[value, level1, ..., *]``, checked.

    The stage behind :meth:`Hierarchy.from_rows`. Cells are stripped; rows without a non-empty
    cell are skipped; a repeated identical row is dropped with a :class:`HierarchyWarning`; a top
    level with more than one group gets a ``*`` level appended. Group ids are numbered in order of
    first appearance (:func:`pandas.factorize`). O(n · levels) for ``n`` rows.

    Parameters
    ----------
    rows : sequence of sequence
    attribute : str
        The attribute's name, for messages.
    source : str, optional
        Where the rows come from (a file), named in messages and warnings.
    lines : sequence of int, optional
        The line of each row in ``source``; messages then name lines, else 0-based row indices.

    Raises
    ------
    InstanceFormatError
        No rows; ragged rows; a value listed twice with different rows (both lines or rows and
        both rows shown); levels that are not nested partitions (the first value whose group at a
        level splits across two groups at the next, and the value it disagrees with).
    """
    what = f"hierarchy of attribute {attribute!r}"
    keep = np.array([i for i, r in enumerate(rows) if len(r) and any(str(c) for c in r)], int)
    given = None if lines is None else np.asarray(lines, dtype=int)
    if given is not None and given.shape != (len(rows),):
        raise ValueError(f"`lines` must hold one line per row ({len(rows)}), got {len(given)}")
    origin = _Origin(source, np.arange(len(rows)), given).take(keep)
    cells = [[str(c).strip() for c in rows[i]] for i in keep]
    if not cells:
        raise InstanceFormatError(f"{origin.at()}{what} is empty")
    _check_width(cells, what, origin)
    frame = np.empty((len(cells), len(cells[0])), dtype=object)
    frame[:] = cells
    repeat = _repeated_rows(frame, what, origin)
    frame, origin = frame[~repeat], origin.take(~repeat)
    if frame.shape[1] == 1 or len(set(frame[:, -1])) > 1:
        frame = np.column_stack([frame, np.full(len(frame), SUPPRESSED, dtype=object)])
    groups, labels = [], []
    for t in range(frame.shape[1]):
        codes, lab = pd.factorize(pd.Series(frame[:, t], dtype=object), sort=False)
        groups.append(codes)
        labels.append(tuple(str(x) for x in lab))
    levels = np.column_stack(groups)
    problem = _nesting_error(levels, labels, origin)
    if problem:
        raise InstanceFormatError(f"{origin.at()}{what}: {problem}")
    return levels, labels


# -- files ----------------------------------------------------------------------------------------
