"""Records as points, and the clustered table that paper 003 publishes.

Encoding (Aggarwal et al., PODS 2006, §1: "the quasi-identifying attributes may need to be
remapped ... we need to weigh the attributes appropriately"):

* :func:`points_from_frame` — numeric quasi-identifier columns of a CSV file, parsed as numbers
  and scaled so that every attribute weighs the same: ``scaling="standard"`` (default) divides
  each column's deviation from its mean by its standard deviation, ``"range"`` maps it onto
  ``[0, 1]``, ``"none"`` keeps the raw units (refused when squared distances would overflow a
  float). A constant column becomes 0. The points use the euclidean metric.
* :func:`points_from_table` — a :class:`~anonratio.instances.table.Table` of categorical codes:
  the codes themselves with the ``hamming`` metric, so that the values of one attribute are
  equidistant (distance 1 between any two), as §1 suggests for a categorical attribute, and the
  distance between two records is the number of attributes in which they differ.

Publishing (§2: "the quasi-identifying attribute values for the cluster center, the number of
points within the cluster, and ... the radius"): :func:`publish_clusters` replaces each record's
quasi-identifier cells by those of its cluster's center — a real record of the input, so the
published values are values as written — and keeps every other cell, row and column; the
per-cluster facts (center values, size, radius in the units of the metric) form a second table.
Each cluster has at least ``r`` members, so each published quasi-identifier row is shared by at
least ``r`` records (:func:`check_published` verifies exactly that on the output).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.frame_columns import name_hint
from anonratio.instances.validation import check_choice

__all__ = [
    "SCALINGS",
    "points_from_frame",
    "points_from_table",
    "publish_clusters",
    "check_published",
]

#: how :func:`points_from_frame` weighs the numeric attributes
SCALINGS = ("standard", "range", "none")


def points_from_frame(
    frame: pd.DataFrame,
    qi: Sequence[str],
    *,
    scaling: str = "standard",
    lines: Sequence[int] | None = None,
    source: str = "table",
) -> np.ndarray:
    """Coordinates ``(n, len(qi))`` of the numeric columns ``qi`` of ``frame`` (cells as text).

    Raises
    ------
    InstanceFormatError
        A cell that is not a finite number: the message names ``source``, the line (``lines[i]``,
        else the row's position + 2, counting the header line) and the column. With
        ``scaling="none"``, also coordinates whose squared distances may overflow a float (the
        squared diagonal of their bounding box is not a float): the message names the widest
        column and the lines of its extreme values. The other scalings take any finite numbers.
    ValueError
        An unknown column or scaling.
    """
    scaling = check_choice("scaling", scaling, SCALINGS)
    unknown = [c for c in qi if c not in frame.columns]
    if unknown:
        raise ValueError(
            f"{source}: `qi` names unknown columns {unknown}; the header has "
            f"{list(frame.columns)}" + name_hint(unknown, list(frame.columns))
        )
    out = np.empty((len(frame), len(qi)))
    for j, column in enumerate(qi):
        values = pd.to_numeric(frame[column].astype(str).str.strip(), errors="coerce")
        arr = values.to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            i = int(bad[0])
            line = lines[i] if lines is not None else i + 2
            raise InstanceFormatError(
                f"{source}, line {line}, column {column!r}: {frame[column].iloc[i]!r} is not a "
                "number (clustering needs numeric quasi-identifiers)"
            )
        out[:, j] = arr
    if scaling == "none":
        _check_raw_distances(frame, qi, out, lines, source)
        return out
    return _scaled(out, scaling)


def _scaled(out: np.ndarray, scaling: str) -> np.ndarray:
    """``out`` shifted and divided per column (``"standard"`` or ``"range"``), without overflow.

    Each column is first divided by a power of two that brings it into ``(-1, 1)``: exact, and
    the scaled points do not depend on it, so a column spanning ``-1e308 .. 1e308`` (whose range
    and variance are not floats) is scaled like any other.
    """
    exponent = np.frexp(np.abs(out).max(axis=0, initial=0.0))[1]
    unit = np.ldexp(out, -exponent)
    if scaling == "standard":
        center, scale = unit.mean(axis=0), unit.std(axis=0)
    else:
        center, scale = unit.min(axis=0), unit.max(axis=0) - unit.min(axis=0)
    scale[scale == 0] = 1.0  # a constant column: every record at 0
    return (unit - center) / scale


def _check_raw_distances(
    frame: pd.DataFrame,
    qi: Sequence[str],
    out: np.ndarray,
    lines: Sequence[int] | None,
    source: str,
) -> None:
    """Refuse raw coordinates whose squared distances may overflow a float.

    The euclidean metric sums squared coordinate differences; they stay finite when the squared
    diagonal of the points' bounding box, ``sum_j (max_j - min_j)**2``, does.
    """
    if not len(out):
        return
    with np.errstate(over="ignore", invalid="ignore"):
        spans = out.max(axis=0) - out.min(axis=0)
        if np.isfinite(np.sum(spans**2)):
            return
    j = int(np.argmax(spans))
    low, high = int(np.argmin(out[:, j])), int(np.argmax(out[:, j]))
    column = frame[qi[j]]

    def cell(i: int) -> str:
        line = lines[i] if lines is not None else i + 2
        return f"{str(column.iloc[i]).strip()!r} (line {line})"

    raise InstanceFormatError(
        f"{source}: with scaling 'none' the distances are in raw units and their squares "
        f"overflow a float: column {qi[j]!r} spans from {cell(low)} to {cell(high)}, and the sum "
        f"over the QI columns of (max - min)**2 must stay below {np.finfo(float).max:.3g}; use "
        "scaling 'range' or 'standard'"
    )


def points_from_table(table: Any) -> tuple[np.ndarray, str]:
    """``(codes, "hamming")``: a categorical table's records as points of the hamming metric."""
    return np.asarray(table.codes, dtype=float), "hamming"


def publish_clusters(
    frame: pd.DataFrame,
    qi: Sequence[str],
    labels: np.ndarray,
    centers: Sequence[int],
    radii: Sequence[float],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(published, clusters)``: the input with each record's QI cells replaced by its cluster
    center's, and one row per cluster (``cluster``, ``size``, ``radius``, the center's QI values).

    ``labels`` are cluster ids ``0..m-1`` (a ``-1`` record — unclustered — gets ``*`` in every QI
    cell). The input frame is not modified.
    """
    labels = np.asarray(labels, dtype=np.int64)
    center_ids = np.asarray(centers, dtype=np.int64)
    published = frame.copy()
    kept = labels >= 0
    for column in qi:
        source = frame[column].to_numpy(dtype=object)
        values = np.full(len(frame), "*", dtype=object)
        values[kept] = source[center_ids[labels[kept]]]
        published[column] = values
    sizes = np.bincount(labels[kept], minlength=center_ids.size)
    clusters = pd.DataFrame(
        {
            "cluster": np.arange(center_ids.size),
            "size": sizes,
            "radius": np.asarray(radii, dtype=float),
            **{column: frame[column].to_numpy(dtype=object)[center_ids] for column in qi},
        }
    )
    return published, clusters


def check_published(
    frame: pd.DataFrame, published: pd.DataFrame, qi: Sequence[str], labels: np.ndarray, r: int
) -> int | None:
    """Check a published table against its input; return its smallest published QI class.

    The output must have the input's rows and columns, the input's cells outside ``qi``, and
    every clustered record's QI row must be shared by at least ``r`` clustered records.

    Raises
    ------
    ValueError
        Naming the first difference.
    """
    if list(published.columns) != list(frame.columns) or len(published) != len(frame):
        raise ValueError("the published table does not have the input's rows and columns")
    rest = [c for c in frame.columns if c not in qi]
    if not published[rest].astype(str).equals(frame[rest].astype(str)):
        raise ValueError("the published table changed a cell outside the quasi-identifiers")
    kept = published.loc[np.asarray(labels) >= 0, list(qi)].astype(str)
    if kept.empty:
        return None
    smallest = int(kept.groupby(list(qi), sort=False).size().min())
    if smallest < r:
        raise ValueError(
            f"a published quasi-identifier row is shared by {smallest} < r={r} records"
        )
    return smallest
