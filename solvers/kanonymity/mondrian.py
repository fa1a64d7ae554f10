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
Round by round, all active partitions at once (no Python call per partition): ranges by
``np.minimum.reduceat``, medians by position in one ``argsort`` per attribute tried, parts kept
contiguous for the next round. O(n (m + log n)) per round, about log2(n / k) rounds, O(n m)
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
    hierarchy_domain,
    numeric_values,
    range_levels,
)
from anonratio.instances.table import Hierarchy, Table
from anonratio.instances.validation import check_instance, check_int, check_seed

__all__ = ["mondrian", "mondrian_relaxed", "mondrian_recoding"]

#: largest ``partitions x n_values`` table of flags used to count distinct values without sorting
_DENSE_CAP = 1 << 25
#: largest packed sort key ``(partition * n_values + value) * n + record`` (else a lexsort)
_PACK_CAP = 1 << 62


# ---------------------------------------------------------------------------------------------
# attributes
# ---------------------------------------------------------------------------------------------
class _Attr:
    """One attribute in rank space: ranks ``0..V-1`` in numeric or depth-first order."""

    def __init__(self, table: Table, j: int, h: Hierarchy, numeric: bool) -> None:
        labels = table.values[j]
        self.h, self.n_values, self.numeric = h, len(labels), numeric
        codes = np.arange(self.n_values)
        if numeric:
            self.values = numeric_values(labels)
            self.perm = np.lexsort((codes, self.values))  # numeric order, ties by code
            self.order = np.empty(self.n_values, dtype=np.int64)
            self.order[self.perm] = codes
            self.by_rank = self.values[self.perm]
        else:
            self.domain, self.offsets = hierarchy_domain(h)
            self.order = self.domain.order
            self.perm = np.argsort(self.order)
            self.groups = h.groups[self.perm].astype(np.int64)  # groups indexed by rank

    def lca_level(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Lowest common level of the values of rank ``lo .. hi`` (categorical): in depth-first
        order a node's values are contiguous, so the LCA of a set is that of its extremes."""
        return (self.groups[lo, : self.h.height] != self.groups[hi, : self.h.height]).sum(axis=1)


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
# the rounds
# ---------------------------------------------------------------------------------------------
def _segments(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Positions ``starts[p] .. starts[p] + sizes[p] - 1`` of every segment, concatenated."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.size == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.asarray(starts, dtype=np.int64) - np.r_[0, np.cumsum(sizes)[:-1]]
    return np.repeat(shift, sizes) + np.arange(int(sizes.sum()))


def _widths(attrs, XT, lo, hi, sizes, global_width) -> np.ndarray:
    """Normalized range of every active partition on every attribute, shape (P, m)."""
    P = len(sizes)
    out = np.zeros(lo.shape)
    pid = None
    for j, a in enumerate(attrs):
        if a.numeric:
            if global_width[j] > 0:
                out[:, j] = (a.by_rank[hi[:, j]] - a.by_rank[lo[:, j]]) / global_width[j]
            continue
        if a.n_values <= 1:
            continue
        if pid is None:
            pid = np.repeat(np.arange(P, dtype=np.int64), sizes)
        key = pid * a.n_values + XT[j]
        if P * a.n_values <= _DENSE_CAP:  # flag the (partition, value) pairs present
            seen = np.zeros(P * a.n_values, dtype=bool)
            seen[key] = True
            distinct = seen.reshape(P, a.n_values).sum(axis=1)
        else:
            key.sort()
            first = key[np.r_[True, key[1:] != key[:-1]]]
            distinct = np.bincount(first // a.n_values, minlength=P)
        out[:, j] = (distinct - 1) / (a.n_values - 1)
    return out


def _cut(a, j, k, relaxed, XT, rec, starts, sizes, lo, hi, batch):
    """Cut the partitions ``batch`` on attribute ``j`` (all at once).

    Returns ``ok`` (per batch partition), the positions of the records of the cut ones in their
    new order (grouped by part) and the part sizes.
    """
    nb = sizes[batch]
    idx = _segments(starts[batch], nb)
    b = np.repeat(np.arange(len(batch), dtype=np.int64), nb)
    key = b * a.n_values + XT[j, idx]
    if relaxed:  # ties by record index
        n = int(rec[idx].max()) + 1
        if len(batch) * a.n_values * n <= _PACK_CAP:
            o = np.argsort(key * n + rec[idx])
        else:
            o = np.lexsort((rec[idx], key))
    else:  # the parts depend on the values only
        o = np.argsort(key)
    sk = key[o]
    first = np.r_[0, np.cumsum(nb)[:-1]]
    if relaxed:
        cnt = nb // 2
        ok = np.ones(len(batch), dtype=bool)
        parts = np.column_stack((cnt, nb - cnt)).ravel()
    elif a.numeric:
        median = sk[first + (nb - 1) // 2]
        c_le = np.searchsorted(sk, median, side="right") - first
        c_lt = np.searchsorted(sk, median, side="left") - first
        ok_le = (c_le >= k) & (nb - c_le >= k)
        ok = ok_le | (c_lt >= k)  # c_lt < n / 2, so its right side has > n / 2 >= k records
        cnt = np.where(ok_le, c_le, c_lt)[ok]
        parts = np.column_stack((cnt, nb[ok] - cnt)).ravel()
    else:  # the runs of one child of the LCA (contiguous in depth-first order)
        level = a.lca_level(lo[batch, j], hi[batch, j])
        child = a.groups[sk - b * a.n_values, level[b] - 1]
        brk = np.r_[True, (child[1:] != child[:-1]) | (b[1:] != b[:-1])]
        run_start = np.flatnonzero(brk)
        run_size = np.diff(np.r_[run_start, len(sk)])
        run_b = b[run_start]
        ok = np.minimum.reduceat(run_size, np.searchsorted(run_b, np.arange(len(batch)))) >= k
        parts = run_size[ok[run_b]]
    return ok, idx[o][ok[b]], parts


def _choose_and_cut(attrs, k, relaxed, XT, rec, starts, sizes, lo, hi, width):
    """One round: each partition cuts on its widest allowable attribute, or is final.

    Returns the final partitions (indices), and the positions and sizes of the new parts.
    """
    P, m = lo.shape
    cand = lo != hi
    ranked = np.argsort(-np.where(cand, width, -1.0), axis=1, kind="stable")
    pending = np.arange(P)
    final, moved, parts = [], [], []
    for r in range(m):
        if pending.size == 0:
            break
        dim = ranked[pending, r]
        valid = cand[pending, dim]
        final.append(pending[~valid])  # no attribute left to try (candidates come first)
        pending, dim = pending[valid], dim[valid]
        failed = []
        for j in np.unique(dim):
            batch = pending[dim == j]
            ok, pos, part_sizes = _cut(
                attrs[j], j, k, relaxed, XT, rec, starts, sizes, lo, hi, batch
            )
            failed.append(batch[~ok])
            moved.append(pos)
            parts.append(part_sizes)
        pending = np.concatenate(failed) if failed else pending[:0]
    final.append(pending)
    cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64)  # noqa: E731
    return cat(final), cat(moved), cat(parts)


def _partition(k: int, relaxed: bool, attrs: list[_Attr], RT: np.ndarray) -> tuple[np.ndarray, int]:
    """The final partitions of the records whose ranks are ``RT`` (shape (m, n)): labels
    ``0 .. P-1`` in the order of each partition's first record, and the number of rounds."""
    n = RT.shape[1]
    gmin, gmax = RT.min(axis=1), RT.max(axis=1)
    global_width = [
        a.by_rank[gmax[j]] - a.by_rank[gmin[j]] if a.numeric else 0.0 for j, a in enumerate(attrs)
    ]
    labels = np.empty(n, dtype=np.int64)
    n_labels, rounds = 0, 0
    # the active records, grouped by partition, their ranks and the partition sizes
    rec, XT, sizes = np.arange(n, dtype=np.int64), RT, np.array([n], dtype=np.int64)
    while rec.size:
        starts = np.r_[0, np.cumsum(sizes)[:-1]]
        small = sizes < 2 * k  # no two parts of >= k records: final
        if small.any():
            final = np.flatnonzero(small)
            keep = np.flatnonzero(~small)
        else:
            rounds += 1
            lo = np.minimum.reduceat(XT, starts, axis=1).T
            hi = np.maximum.reduceat(XT, starts, axis=1).T
            width = _widths(attrs, XT, lo, hi, sizes, global_width)
            final, moved, parts = _choose_and_cut(
                attrs, k, relaxed, XT, rec, starts, sizes, lo, hi, width
            )
        idx = _segments(starts[final], sizes[final])
        labels[rec[idx]] = np.repeat(n_labels + np.arange(len(final)), sizes[final])
        n_labels += len(final)
        if small.any():
            moved, parts = _segments(starts[keep], sizes[keep]), sizes[keep]
        rec, XT, sizes = rec[moved], np.take(XT, moved, axis=1), parts
    first = np.unique(labels, return_index=True)[1]
    rename = np.empty(n_labels, dtype=np.int64)
    rename[np.argsort(first)] = np.arange(n_labels)
    return rename[labels], rounds


# ---------------------------------------------------------------------------------------------
# the published table
# ---------------------------------------------------------------------------------------------
def _range_domain(a: _Attr, labels: tuple[str, ...], lo: np.ndarray, hi: np.ndarray):
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
    table: Table, attrs: list[_Attr], RT: np.ndarray, labels: np.ndarray, method: str
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
    attrs = [_Attr(table, j, hier[j], flags[j]) for j in range(table.n_attributes)]
    dtype = np.int32 if max(a.n_values for a in attrs) < 2**31 else np.int64
    RT = np.empty(table.codes.shape[::-1], dtype=dtype)  # ranks, one row per attribute
    for j, a in enumerate(attrs):
        np.take(a.order, table.codes[:, j], out=RT[j], mode="clip")
    labels, rounds = _partition(k, bool(relaxed), attrs, RT)
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
