"""Publish a k-anonymous table: QI cells generalized to their group's level."""

from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.base import verify
from anonratio.instances.kanonymity.instance import KAnonymityInstance, group_levels
from anonratio.instances.table import SUPPRESSED
from anonratio.instances.validation import check_choice, check_instance

__all__ = ["publish", "SUPPRESSED_ROWS", "release"]

#: what a release does with the tuples a suppression budget removed: leave them out of the
#: published table (the default: the survey's definition, Ciriani et al. 2009, Def. 3.2), or keep
#: each as a row of ``*`` in every QI cell *and* in the sensitive cell
SUPPRESSED_ROWS = ("withhold", "star")


def publish(
    instance: KAnonymityInstance,
    labels: Any,
    *,
    frame: pd.DataFrame | None = None,
    suppressed_rows: str = "withhold",
) -> pd.DataFrame:
    """The published table of a verified k-anonymity partition.

    Every QI cell of a record is replaced by the label of its value's group at the level its
    group generalizes that attribute to (the value itself at level 0, ``*`` at the top). Deleted
    records (label ``-1``) are released as :func:`release` says. Other columns are left as they
    are.

    Parameters
    ----------
    instance : KAnonymityInstance
    labels : array of int, shape (n,) or Solution
        A partition that :func:`~anonratio.instances.verify` accepts (it is verified here).
    frame : pandas.DataFrame, optional
        The original data (same rows, in order, distinct column names): its QI columns are
        replaced in place (same names, same order) and the rest kept, so the result has exactly
        ``frame``'s columns and rows. Its QI cells, stripped of surrounding blanks, must be the
        table's values (else ``ValueError``: the frame is not the table's data). Default: the
        table's own labels (QI columns and the sensitive column).
    suppressed_rows : {"withhold", "star"}
        Deleted records are left out (default) or kept as rows of ``*`` (see :func:`release`).

    Returns
    -------
    pandas.DataFrame
        The kept rows in their order, with their original index.

    Examples
    --------
    >>> import numpy as np
    >>> from anonratio.instances import Table, KAnonymityInstance
    >>> t = Table(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]), ("a", "b"), (("x", "y"),) * 2)
    >>> publish(KAnonymityInstance(t, 2), [0, 0, 1, 1])["b"].tolist()
    ['*', '*', 'y', 'y']
    """
    check_instance(instance, KAnonymityInstance, "instance")
    labels = getattr(labels, "labels", labels)
    verify(instance, labels)
    labels = np.asarray(labels, dtype=np.int64)
    table = instance.table
    if frame is None:
        out = table.to_dataframe()
    else:
        _check_frame(frame, table)
        out = frame.copy()
    groups, _, levels = group_levels(instance, labels)
    # row of each record in `groups` (deleted records get -1)
    pos = np.full(len(labels), -1)
    kept = labels >= 0
    pos[kept] = np.searchsorted(groups, labels[kept])
    for j, name in enumerate(table.attributes):
        h = instance.hierarchies[j]
        codes = table.codes[:, j]
        cells = np.full(len(labels), SUPPRESSED, dtype=object)
        lev = levels[pos[kept], j]
        for t in np.unique(lev):
            rows = np.flatnonzero(kept)[lev == t]
            level_labels = np.asarray(h.labels[t], dtype=object)
            cells[rows] = level_labels[h.groups[codes[rows], t]]
        out[name] = pd.Series(cells, index=out.index, dtype=object)
    return release(out, ~kept, table.sensitive_name, suppressed_rows)


def release(
    out: pd.DataFrame, withheld: np.ndarray, sensitive: str | None, suppressed_rows: str
) -> pd.DataFrame:
    """The published rows of ``out``, whose QI cells of the ``withheld`` rows are already ``*``.

    ``"withhold"`` leaves the withheld rows out (the others keep their order and index);
    ``"star"`` keeps them and writes ``*`` in their ``sensitive`` cell too, so that no row that no
    privacy model checks publishes a sensitive value (a tuple removed by a suppression budget is
    in no equivalence class).
    """
    check_choice("suppressed_rows", suppressed_rows, SUPPRESSED_ROWS)
    withheld = np.asarray(withheld, dtype=bool)
    if not withheld.any():
        return out
    if suppressed_rows == "withhold":
        return out.loc[~withheld]
    if sensitive is not None and sensitive in out.columns:
        column = out[sensitive].to_numpy(dtype=object, copy=True)
        column[withheld] = SUPPRESSED
        out[sensitive] = pd.Series(column, index=out.index, dtype=object)
    return out


def _stripped_text(column: pd.Series) -> np.ndarray:
    """``column.astype(str).str.strip()`` as an object array (a missing cell stays ``NaN``), each
    distinct cell converted once: O(n) hashing instead of n conversions to pandas' string dtype."""
    rows, uniques = pd.factorize(column)
    labels = pd.Index(uniques).astype(str).str.strip().to_numpy(dtype=object)
    out = np.append(labels, np.nan)[rows]  # row -1 (missing) takes the appended NaN
    return out


def _check_frame(frame: pd.DataFrame, table: Any) -> None:
    """``frame`` holds the table's records: its rows, its QI columns, its QI values."""
    check_instance(frame, pd.DataFrame, "frame")
    if len(frame) != table.n_records:
        raise ValueError(f"`frame` must have the table's {table.n_records} rows, got {len(frame)}")
    cols = list(frame.columns)
    if len(set(cols)) != len(cols):
        raise ValueError(f"`frame` has repeated column names: {cols}")
    for j, name in enumerate(table.attributes):
        if name not in cols:
            raise ValueError(f"`frame` has no column {name!r} (a QI of the table); it has {cols}")
        given = _stripped_text(frame[name])
        expected = np.asarray(table.values[j], dtype=object)[table.codes[:, j]]
        differ = np.flatnonzero(given != expected)
        if len(differ):
            i = int(differ[0])
            raise ValueError(
                f"`frame` is not the table's data: column {name!r}, row {i} holds "
                f"{given[i]!r}, the table {expected[i]!r}"
            )
