"""Mondrian: greedy multidimensional partitioning for k-anonymity, strict and relaxed.

LeFevre, DeWitt and Ramakrishnan (ICDE 2006); survey of Ciriani, De Capitani di Vimercati,
Foresti and Samarati (2009), §4.1.2, Algorithm 4.2. Starting from the whole table, each partition
is cut along one attribute into parts of at least ``k`` records, until no cut is allowable; each
final partition is an equivalence class and publishes, per attribute, the smallest generalized
value covering its records (local recoding).

Attributes
----------
*Ordered* (numeric) attributes, whose value labels all parse as numbers
(:func:`~anonratio.instances.kanonymity.recoding.numeric_values`), are cut at a threshold in
numeric order; a partition publishes the range ``[min, max]`` of its values, labelled ``"a"`` or
``"a-b"`` (e.g. ``"17-25"``). *Categorical* attributes are cut along their hierarchy: a partition
sits at the lowest common ancestor (LCA) of its values, and its cut splits it into the children
of that node that hold records (multi-way); it publishes the LCA node. A suppression-only
attribute has one cut, from ``*`` to its single values.

Dimension
---------
Each partition tries its attributes from the widest normalized range down, ties by attribute
index (LeFevre's ChooseDimension, with the fallback to the next widest when a cut is not
allowable): numeric ``(max - min) / (max - min over the table)``, categorical
``(distinct values - 1) / (n_values - 1)``. Only attributes with at least two distinct values
in the partition are tried. The partition is final when no attribute has an allowable cut.

Cuts
----
*Strict* (non-overlapping regions). Numeric: with ``m`` the lower median of the partition's
values, the cut ``x <= m | x > m`` (the survey's ``find_median``) when both sides hold ``>= k``
records, else ``x < m | x >= m``. No other threshold is allowable when neither is, so the
partitioning is *minimal* (survey, Def. 4.3) and, on numeric attributes, a final partition holds
at most ``2 d (k - 1) + o`` records (``d`` attributes, ``o`` copies of the most repeated point;
survey §4.1.2). Equal numbers (``"2"``, ``"2.0"``) are distinct values, ordered by code.
Categorical: allowable when every non-empty child part has ``>= k`` records. Regions are
disjoint, so the published classes are exactly the final partitions.

*Relaxed* (regions may overlap; a 2-approximation, survey §4.1.2). The
partition's records are sorted by the attribute (numeric order, or the hierarchy's depth-first
order), ties by record index, and split by position into halves of ``n // 2`` and ``n - n // 2``
records; every partition of ``>= 2k`` records with a non-constant attribute is cut, so each
final partition has ``k .. 2k - 1`` records or holds identical records only. Two partitions may
publish equal rows (both halves may keep the median value); the published classes are then
unions of partitions (``info["n_classes"] <= info["n_partitions"]``).

Implementation
--------------
:mod:`~anonratio.solvers.kanonymity.mondrian_partition` cuts round by round, all active
partitions at once (no Python call per partition): ranges by ``np.minimum.reduceat``, medians by
position in one ``argsort`` per attribute tried, parts kept contiguous for the next round.
O(n (m + log n)) per round, about log2(n / k) rounds, O(n m)
memory.

The cost of Aggarwal et al. (2005) that :func:`~anonratio.instances.verify` computes for the
labels uses each class's lowest common hierarchy levels; the published numeric ranges are finer
than hierarchy nodes (the recoding records their levels with
:func:`~anonratio.instances.kanonymity.recoding.range_levels`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.kanonymity.recoding import (
    Domain,
    Recoding,
    numeric_values,
    range_levels,
)
from anonratio.instances.table import Hierarchy, Table
from anonratio.instances.validation import check_instance, check_int, check_seed
from anonratio.solvers.kanonymity.mondrian_partition import Attr, partition

__all__ = ["mondrian", "mondrian_relaxed", "mondrian_recoding"]


def _numeric_iv(table: Table, numeric: Any) -> list[bool]:
    """Which attributes are cut as numbers (see :func:`mondrian_recoding`)."""
    parses = [numeric_values(v) is not None for v in table.values]
    if isinstance(numeric, str):
        if numeric != "auto":
            raise ValueError(
                f"`numeric` must be 'auto' or a list of attribute names, got {numeric!r}"
            )
        return parses
    if not isinstance(numeric, Sequence | set | frozenset | tuple):
        raise TypeError(f"`numeric` must be 'auto' or a list of attribute names, got {numeric!r}")
    out = [False] * table.n_attributes
    for name in numeric:
        if name not in table.attributes:
            raise ValueError(
                f"`numeric` names unknown attribute {name!r}; the table has "
                f"{list(table.attributes)}"
            )
        j = table.attributes.index(name)
        if not parses[j]:
            raise ValueError(f"`numeric` attribute {name!r} has value labels that are not numbers")
        out[j] = True
    return out


def _hierarchies_iv(table: Table, hierarchies: Any) -> tuple[Hierarchy, ...]:
    if hierarchies is None:
        return tuple(table.hierarchy(j) for j in range(table.n_attributes))
    hierarchies = tuple(hierarchies)
    if len(hierarchies) != table.n_attributes:
        raise ValueError(
            f"`hierarchies` must hold one hierarchy per attribute ({table.n_attributes}), "
            f"got {len(hierarchies)}"
        )
    for j, h in enumerate(hierarchies):
        check_instance(h, Hierarchy, f"hierarchies[{j}]")
        if h.n_values != len(table.values[j]):
            raise ValueError(
                f"`hierarchies[{j}]` covers {h.n_values} values, attribute "
                f"{table.attributes[j]!r} has {len(table.values[j])}"
            )
    return hierarchies


# ---------------------------------------------------------------------------------------------
# the published table
# ---------------------------------------------------------------------------------------------
def _range_domain(a: Attr, labels: tuple[str, ...], lo: np.ndarray, hi: np.ndarray):
    """The numeric ranges ``lo .. hi`` (ranks) of the partitions as a :class:`Domain`, and the
    node of each partition."""
    nodes, inverse = np.unique(lo.astype(np.int64) * a.n_values + hi, return_inverse=True)
    nlo, nhi = nodes // a.n_values, nodes % a.n_values
    text = [
        labels[a.perm[x]] if x == y else f"{labels[a.perm[x]]}-{labels[a.perm[y]]}"
        for x, y in zip(nlo.tolist(), nhi.tolist(), strict=True)
    ]
    spread = a.values.max() - a.values.min()
    span = (a.by_rank[nhi] - a.by_rank[nlo]) / spread if spread > 0 else np.zeros(len(nodes))
    levels = range_levels(a.h, a.order, nlo, nhi)
    return Domain(a.order, nlo, nhi, tuple(text), levels, a.h.height, span), inverse.reshape(-1)


def _recode(
    table: Table, attrs: list[Attr], RT: np.ndarray, labels: np.ndarray, method: str
) -> tuple[Recoding, np.ndarray]:
    """The local recoding publishing every partition's smallest covering values, and the
    published node of each partition (shape (P, m))."""
    order = np.argsort(labels, kind="stable")
    starts = np.r_[0, np.cumsum(np.bincount(labels))[:-1]]
    XT = np.take(RT, order, axis=1)
    lo = np.minimum.reduceat(XT, starts, axis=1).T
    hi = np.maximum.reduceat(XT, starts, axis=1).T
    domains, part_cells = [], np.empty(lo.shape, dtype=np.int64)
    for j, a in enumerate(attrs):
        if a.numeric:
            d, part_cells[:, j] = _range_domain(a, table.values[j], lo[:, j], hi[:, j])
        else:
            d, level = a.domain, a.lca_level(lo[:, j], hi[:, j])
            part_cells[:, j] = a.offsets[level] + a.groups[lo[:, j], level]
        domains.append(d)
    return Recoding(
        table, tuple(domains), np.take(part_cells, labels, axis=0), None, "local", method
    ), part_cells


def _mondrian(table, k, relaxed, numeric, hierarchies):
    """Validate, partition and recode: ``(labels, recoding, info)``."""
    check_instance(table, Table, "table")
    k = check_int("k", k, low=1, high=table.n_records, high_name="n_records")
    if not isinstance(relaxed, bool | np.bool_):
        raise TypeError(f"`relaxed` must be a bool, got {relaxed!r}")
    flags = _numeric_iv(table, numeric)
    hier = _hierarchies_iv(table, hierarchies)
    attrs = [Attr(table, j, hier[j], flags[j]) for j in range(table.n_attributes)]
    dtype = np.int32 if max(a.n_values for a in attrs) < 2**31 else np.int64
    RT = np.empty(table.codes.shape[::-1], dtype=dtype)  # ranks, one row per attribute
    for j, a in enumerate(attrs):
        np.take(a.order, table.codes[:, j], out=RT[j], mode="clip")
    labels, rounds = partition(k, bool(relaxed), attrs, RT)
    method = "mondrian-relaxed" if relaxed else "mondrian"
    recoding, part_cells = _recode(table, attrs, RT, labels, method)
    info = {
        "n_partitions": len(part_cells),
        "n_classes": len(np.unique(part_cells, axis=0)),
        "numeric": tuple(a for a, f in zip(table.attributes, flags, strict=True) if f),
        "rounds": rounds,
    }
    return labels, recoding, info


def mondrian_recoding(
    table: Table,
    k: int,
    *,
    relaxed: bool = False,
    numeric: str | Sequence[str] = "auto",
    hierarchies: Sequence[Hierarchy] | None = None,
) -> Recoding:
    """Mondrian's local recoding of ``table`` (LeFevre, DeWitt and Ramakrishnan 2006).

    Parameters
    ----------
    table : Table
    k : int
        Every final partition holds ``>= k`` records; ``1 <= k <= n_records``.
    relaxed : bool
        Relaxed (overlapping, positional median split) instead of strict partitioning.
    numeric : "auto" or list of str
        The attributes cut as ordered numbers: ``"auto"`` (default) every attribute whose value
        labels all parse as numbers, or the names of such attributes (``[]``: none). The others
        are cut along their hierarchy.
    hierarchies : sequence of Hierarchy, optional
        The hierarchy of each attribute (default: the table's, suppression where it has none).
        Categorical attributes are cut along it; numeric ones use it for the published levels.

    Returns
    -------
    Recoding
        ``scheme="local"``, ``method`` ``"mondrian"`` or ``"mondrian-relaxed"``; numeric
        attributes publish ranges (a :class:`Domain` of the ranges used), categorical ones the
        LCA node of each class in :func:`hierarchy_domain`.

    Raises
    ------
    TypeError
        ``table`` not a Table, ``relaxed`` not a bool, ``numeric`` neither a string nor a list.
    ValueError
        ``k`` outside ``[1, n_records]``, ``numeric`` naming an unknown or non-numeric attribute,
        ``hierarchies`` of the wrong length or size.

    Notes
    -----
    The rules (dimension order, median cuts, hierarchy cuts) are in the module docstring.
    O(m n log n) time per round, O(log(n / k)) rounds, O(n m) memory.

    References
    ----------
    K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Mondrian multidimensional k-anonymity. ICDE 2006.
    V. Ciriani, S. De Capitani di Vimercati, S. Foresti, P. Samarati. k-Anonymity. In Secure
    Data Management in Decentralized Systems, Springer 2007, §4.1.2.

    Examples
    --------
    >>> from anonratio.instances import Table
    >>> codes = [[0], [0], [1], [2], [2], [3], [4], [4]]  # ages 17 17 25 30 30 41 52 52
    >>> ages = Table(codes, ("age",), (("17", "25", "30", "41", "52"),))
    >>> sorted(set(mondrian_recoding(ages, 2).to_dataframe()["age"]))
    ['17-25', '30', '41-52']
    """
    return _mondrian(table, k, relaxed, numeric, hierarchies)[1]


def mondrian(
    instance: KAnonymityInstance,
    *,
    relaxed: bool = False,
    seed: int | np.random.Generator | None = None,
    numeric: str | Sequence[str] = "auto",
) -> Solution:
    """k-anonymity by Mondrian multidimensional partitioning (strict by default).

    Cuts categorical attributes along the instance's hierarchies in force (suppression-only
    under ``model="suppression"``) and numeric ones (``numeric``, see
    :func:`mondrian_recoding`) at their median. Never deletes a record.

    Parameters
    ----------
    instance : KAnonymityInstance
    relaxed : bool
        Relaxed (overlapping) multidimensional partitioning instead of strict.
    seed : int, numpy.random.Generator or None
        Recorded only: the algorithm is deterministic.
    numeric : "auto" or list of str

    Returns
    -------
    Solution
        ``labels`` the final partitions (``0 .. P-1`` by first record), ``algorithm``
        ``"mondrian"`` or ``"mondrian-relaxed"``, ``status="feasible"`` (the verifier computes
        the cost).
        ``info``: ``recoding``, ``n_classes`` (distinct published rows; ``n_partitions`` when
        strict), ``n_partitions``, ``numeric`` (attributes cut as numbers), ``rounds``, ``scheme``.

    Notes
    -----
    Errors as :func:`mondrian_recoding`. Every class has ``>= k`` records; strict classes are
    minimal, relaxed ones hold ``k .. 2k - 1`` records unless all identical. The cost counts a
    numeric range at the lowest hierarchy level where its records coincide.
    O(n (m + log n) log(n / k)) time, O(n m) memory.
    """
    check_instance(instance, KAnonymityInstance)
    seed = check_seed(seed)
    start = time.perf_counter()
    labels, recoding, info = _mondrian(
        instance.table, instance.k, relaxed, numeric, instance.hierarchies
    )
    return Solution(
        labels,
        recoding.method,
        params=instance.params,
        seed=seed,
        status="feasible",
        time_s=time.perf_counter() - start,
        info={"recoding": recoding, **info, "scheme": "local"},
    )


def mondrian_relaxed(
    instance: KAnonymityInstance,
    *,
    seed: int | np.random.Generator | None = None,
    numeric: str | Sequence[str] = "auto",
) -> Solution:
    """:func:`mondrian` with ``relaxed=True`` (for the registry)."""
    return mondrian(instance, relaxed=True, seed=seed, numeric=numeric)
