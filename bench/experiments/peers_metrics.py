"""Utility metrics of a published table, read from its DataFrame alone, the same way for every tool.

The ``peers`` suite compares tables published by different libraries, whose cells take
different forms: hierarchy labels (``"Undergraduate"``, ``"20-39"``), numeric ranges
``"a-b"``, anonypy's category sets ``"a,b,c"``, ``*``. :func:`published_metrics` reads every
cell back into what it discloses and computes, from the published rows only:

Equivalence classes
    The groups of published rows with equal QI cells. Rows whose every QI cell is ``*`` are
    counted as ``all_star`` (a suppressed record and one generalized to the top of every
    hierarchy look the same) and form one class like any other; every input row a tool did not
    publish (``rows_in - rows_out``) counts as ``dropped``.
Discernibility (Bayardo & Agrawal 2005)
    ``DM = Σ_E |E|² + dropped · n``: each record is charged the size of its class, a record that
    was not published the table size ``n``.
C_avg (LeFevre, DeWitt & Ramakrishnan 2006)
    ``(n_published / n_classes) / k``; 1 is ideal.
NCP and GCP (Xu et al. 2006; Ghinita et al. 2007)
    Per cell: numeric attribute, the cell's interval ``[a, b]`` clipped to the column's range
    ``[min, max]`` gives ``(b - a) / (max - min)`` (a cell that reads as ``"a-b"`` is that
    interval, even when it is also a hierarchy label); categorical attribute, the number ``c`` of
    the column's distinct original values the cell covers gives ``0`` if ``c = 1`` else
    ``c / |D|`` (``|D|``: distinct values in the column). A cell covers: ``*``, the whole
    column; an original value, itself; a hierarchy label, the original values that map to it
    at some level of the column's hierarchy (for numeric attributes, their ``[min, max]``); an
    ``"a-b"`` range (numeric), the interval; a ``","``-joined set of original values (anonypy),
    the set. GCP is the mean NCP over all ``n × m`` cells, a dropped record counting 1 per cell
    (as an all-``*`` row does).

:func:`rows_aligned` checks the other promise of a published table: row ``i`` generalizes input
row ``i``. Every function reads each distinct cell once: O(n · m) for the table plus
O(Σ_j values_j · levels_j) for the hierarchies.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.table import SUPPRESSED, Hierarchy

__all__ = ["cell_ncp", "published_metrics", "rows_aligned", "pycanon_k"]

_RANGE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:-\s*(-?\d+(?:\.\d+)?))?\s*$")


def _label_cover(h: Hierarchy | None, domain: set[str]) -> dict[str, frozenset[str]]:
    """Per label of the levels above 0, the original values of ``domain`` it covers (the union
    over the levels where the label appears)."""
    cover: dict[str, set[str]] = {}
    if h is None:
        return {}
    values = np.asarray(h.labels[0], dtype=object)
    for t in range(1, h.height + 1):
        for g, label in enumerate(h.labels[t]):
            members = {str(v) for v in values[h.groups[:, t] == g]} & domain
            cover.setdefault(label, set()).update(members)
    return {label: frozenset(v) for label, v in cover.items()}


def _cover_of(label: str, domain: set[str], cover: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The original values one published categorical cell covers (see the module docstring)."""
    if label == SUPPRESSED:
        return frozenset(domain)
    if label in domain:
        return frozenset((label,))
    if label in cover:
        return cover[label]
    parts = {p.strip() for p in label.split(",")}
    if len(parts) > 1 and parts <= domain:
        return frozenset(parts)
    raise ValueError(f"published cell {label!r} is no value, hierarchy label or set of the column")


def _interval_of(
    label: str, bounds: tuple[float, float], cover: Mapping[str, frozenset[str]]
) -> tuple[float, float]:
    """The interval one published numeric cell discloses, before clipping."""
    if label == SUPPRESSED:
        return bounds
    match = _RANGE.match(label)
    if match:
        a = float(match.group(1))
        return a, float(match.group(2) or a)
    if label in cover and cover[label]:
        nums = [float(v) for v in cover[label]]
        return min(nums), max(nums)
    raise ValueError(f"published cell {label!r} is no number, range or hierarchy label")


def _column_cells(
    published: pd.Series, original: pd.Series, numeric: bool, h: Hierarchy | None
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Factorize a published column: (codes per row, NCP per distinct cell, what each covers:
    an interval for numeric columns, a set of values for categorical ones)."""
    codes, uniques = pd.factorize(published.astype(str).str.strip())
    domain = {str(v).strip() for v in pd.unique(original)}
    cover = _label_cover(h, domain)
    if numeric:
        nums = np.asarray([float(v) for v in domain])
        lo, hi = float(nums.min()), float(nums.max())
        spans = [_interval_of(u, (lo, hi), cover) for u in uniques]
        width = hi - lo
        ncp = np.array(
            [max(min(b, hi) - max(a, lo), 0.0) / width if width > 0 else 0.0 for a, b in spans]
        )
        # a hierarchy label also covers the values its group holds (see rows_aligned)
        groups = [cover.get(u, frozenset()) for u in uniques]
        return codes, ncp, [(a, b, g) for (a, b), g in zip(spans, groups, strict=True)]
    sets = [_cover_of(u, domain, cover) for u in uniques]
    size = np.array([len(s) for s in sets], dtype=float)
    ncp = np.where(size <= 1, 0.0, size / max(len(domain), 1))
    return codes, ncp, sets


def cell_ncp(
    published: pd.Series,
    original: pd.Series,
    *,
    numeric: bool,
    hierarchy: Hierarchy | None = None,
) -> np.ndarray:
    """The NCP of every cell of one published column (module docstring; Xu et al. 2006).

    Parameters
    ----------
    published : pandas.Series
        The published cells (compared as stripped strings).
    original : pandas.Series
        The input column: its distinct values are the domain ``D`` (numeric: its range).
    numeric : bool
        Read cells as intervals (else as sets of values).
    hierarchy : Hierarchy, optional
        The column's hierarchy, to read its labels.

    Returns
    -------
    ndarray of float, shape (len(published),)
        In ``[0, 1]``.

    Raises
    ------
    ValueError
        A cell that is none of ``*``, a value, a range (numeric), a hierarchy label or a
        ``","``-joined set of values.
    """
    codes, ncp, _ = _column_cells(published, original, numeric, hierarchy)
    return ncp[codes]


def published_metrics(
    original: pd.DataFrame,
    published: pd.DataFrame,
    qi: Sequence[str],
    k: int,
    *,
    numeric: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> dict[str, float]:
    """Classes, suppression, discernibility, C_avg and GCP of a published table.

    Parameters
    ----------
    original, published : pandas.DataFrame
        The input and the published table; ``published`` may hold fewer rows, in any order.
    qi : list of str
    k : int
        For C_avg.
    numeric : list of str
        The QIs read as intervals.
    hierarchies : dict of str -> Hierarchy, optional

    Returns
    -------
    dict
        ``rows_in``, ``rows_out``, ``dropped`` (input rows not published), ``all_star`` (rows
        whose every QI cell is ``*``), ``n_classes``, ``min_class``, ``discernibility``,
        ``c_avg`` and ``gcp`` (formulas in the module docstring).
    """
    hierarchies = hierarchies or {}
    n_in, n_out = int(original.shape[0]), int(published.shape[0])
    dropped = max(n_in - n_out, 0)
    qi = list(qi)
    if n_out == 0:
        return {
            "rows_in": n_in,
            "rows_out": 0,
            "dropped": dropped,
            "all_star": 0,
            "n_classes": 0,
            "min_class": 0,
            "discernibility": float(dropped * n_in),
            "c_avg": float("nan"),
            "gcp": 1.0,
        }
    codes, ncp_sum, star = [], np.zeros(n_out), np.ones(n_out, dtype=bool)
    for c in qi:
        col = published[c].astype(str).str.strip()
        cc, ncp, _ = _column_cells(col, original[c], c in numeric, hierarchies.get(c))
        codes.append(cc)
        ncp_sum += ncp[cc]
        star &= (col == SUPPRESSED).to_numpy()
    _, sizes = np.unique(np.column_stack(codes), axis=0, return_counts=True)
    n_classes = int(sizes.size)
    # a dropped row counts 1 per cell, as an all-`*` row does
    gcp = (float(ncp_sum.sum()) + dropped * len(qi)) / (max(n_in, n_out) * len(qi))
    return {
        "rows_in": n_in,
        "rows_out": n_out,
        "dropped": dropped,
        "all_star": int(star.sum()),
        "n_classes": n_classes,
        "min_class": int(sizes.min()),
        "discernibility": float((sizes.astype(float) ** 2).sum() + dropped * n_in),
        "c_avg": float(n_out / n_classes / k),
        "gcp": gcp,
    }


def rows_aligned(
    original: pd.DataFrame,
    published: pd.DataFrame,
    qi: Sequence[str],
    *,
    numeric: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> bool:
    """Whether row ``i`` of ``published`` generalizes row ``i`` of ``original``, for every ``i``.

    False when the tables differ in length. A numeric cell must contain the original number (or,
    for a hierarchy label, its group must hold it: the labels of a hierarchy file need not match
    its groups, e.g. ARX's Adult age file puts 50 under ``"45-49"``), a categorical cell must
    cover the original value. O(n · m) plus one test per distinct
    (published cell, original value) pair.
    """
    hierarchies = hierarchies or {}
    if original.shape[0] != published.shape[0]:
        return False
    for c in qi:
        codes, _, covers = _column_cells(
            published[c], original[c], c in numeric, hierarchies.get(c)
        )
        orig = original[c].astype(str).str.strip().to_numpy()
        pairs = pd.DataFrame({"cell": codes, "value": orig}).drop_duplicates()
        for cell, value in zip(pairs["cell"], pairs["value"], strict=True):
            cover = covers[cell]
            if c in numeric:
                if not (cover[0] <= float(value) <= cover[1] or value in cover[2]):
                    return False
            elif value not in cover:
                return False
    return True


def pycanon_k(published: pd.DataFrame, qi: Sequence[str]) -> int:
    """The k pycanon finds for a published table (``pycanon.anonymity.k_anonymity``); 0 when the
    table is empty. Raises ``ImportError`` without pycanon (the ``peers`` or ``check`` extra)."""
    from pycanon import anonymity

    if published.shape[0] == 0:
        return 0
    frame = published[list(qi)].astype(str).reset_index(drop=True)
    return int(anonymity.k_anonymity(frame, list(qi)))
