"""Published forms of a table: every QI cell replaced by a generalized value that covers it.

A :class:`Recoding` is what an anonymization algorithm publishes, whatever its kind:

- *global recoding* (full-domain generalization: Samarati, Incognito, Datafly): one hierarchy
  level per attribute for the whole table, plus suppressed tuples;
- *local recoding* (FOREST and the other partition algorithms, Mondrian): each equivalence class
  generalizes its own cells (a hierarchy node per class and attribute, or a range of an ordered
  attribute's values for Mondrian).

Each attribute's publishable values form a :class:`Domain`: ranges of the attribute's values in
one fixed order, so that a generalized value is a pair ``(lo, hi)`` of ranks. Hierarchy nodes are
ranges in the hierarchy's depth-first order (levels nest, so every node is contiguous there);
Mondrian's numeric ranges are ranges in numeric order. Privacy models
(:mod:`anonratio.instances.privacy`) and utility metrics
(:mod:`anonratio.instances.kanonymity.metrics`) apply to any recoding.

Suppressed tuples (``suppressed[i]``) are withheld: left out of the published table and in no
equivalence class (Samarati's MaxSup; the survey of Ciriani et al. 2009, Def. 3.2, removes them
from the release).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from anonratio.instances.table import SUPPRESSED, Hierarchy, Table
from anonratio.instances.validation import check_choice, check_instance

__all__ = [
    "Domain",
    "Recoding",
    "SCHEMES",
    "hierarchy_domain",
    "numeric_values",
    "range_levels",
    "row_ids",
]

#: global recoding (one level per attribute for the whole table) or local recoding (per class)
SCHEMES = ("global", "local")


#: largest row key before the keys are renumbered densely (int64 headroom)
KEY_CAP = 2**62


def row_ids(columns: Sequence[np.ndarray], radices: Sequence[int]) -> tuple[np.ndarray, int]:
    """Dense ids ``0..g-1`` of the rows of ``columns`` (column 0 most significant, so ids follow
    the lexicographic order of the rows), and ``g``. One mixed-radix int64 key per row, renumbered
    whenever the next digit could overflow: O(n m) plus a sort per renumbering."""
    n = len(columns[0]) if columns else 0
    key, bound = np.zeros(n, dtype=np.int64), 1
    for col, radix in zip(columns, radices, strict=True):
        if bound * max(int(radix), 1) >= KEY_CAP:
            _, key = np.unique(key, return_inverse=True)
            bound = int(key.max()) + 1 if n else 1
        key = key * max(int(radix), 1) + col
        bound *= max(int(radix), 1)
    _, ids = np.unique(key, return_inverse=True)
    return ids.reshape(-1).astype(np.int64), int(ids.max()) + 1 if n else 0


def _ro(a: ArrayLike, dtype: Any) -> np.ndarray:
    a = np.array(a, dtype=dtype, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Domain:
    """The generalized values one attribute can publish: ranges of its values in one order.

    Parameters
    ----------
    order : ndarray of int, shape (n_values,)
        ``order[v]`` is the rank of value code ``v`` (a permutation of ``0..n_values-1``).
    lo, hi : ndarray of int, shape (n_nodes,)
        Node ``p`` covers the values of rank ``lo[p] .. hi[p]`` (inclusive).
    labels : tuple of str
        The printed label of each node.
    levels : ndarray of int, shape (n_nodes,)
        The hierarchy level each node publishes (``0`` a value itself, ``height`` the ``*``):
        ARX's precision and the generalization cost of Aggarwal et al. (2005) read it.
    height : int
        Height of the attribute's hierarchy (1 for suppression only).
    span : ndarray of float, shape (n_nodes,)
        The normalized certainty penalty of each node (Xu et al. 2006): for a numeric attribute
        ``(max - min) / (domain max - domain min)`` of the covered values, otherwise ``0`` for a
        single value and ``|cover| / n_values`` for more.
    """

    order: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    labels: tuple[str, ...]
    levels: np.ndarray
    height: int
    span: np.ndarray

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("order", "lo", "hi", "levels"):
            set_(self, name, _ro(getattr(self, name), np.int64))
        set_(self, "span", _ro(self.span, np.float64))
        set_(self, "labels", tuple(str(s) for s in self.labels))
        n_nodes = len(self.lo)
        if not (len(self.hi) == len(self.levels) == len(self.span) == len(self.labels) == n_nodes):
            raise ValueError("a domain needs lo, hi, levels, span and labels of one length")
        if not np.array_equal(np.sort(self.order), np.arange(len(self.order))):
            raise ValueError("`order` must be a permutation of the value codes")

    @property
    def n_nodes(self) -> int:
        """Number of publishable values."""
        return int(len(self.lo))

    @property
    def n_values(self) -> int:
        """Number of original values."""
        return int(len(self.order))

    @property
    def size(self) -> np.ndarray:
        """Number of values each node covers."""
        return self.hi - self.lo + 1

    def covers(self, nodes: ArrayLike, codes: ArrayLike) -> np.ndarray:
        """Whether each node of ``nodes`` covers the value code beside it in ``codes``."""
        rank = self.order[np.asarray(codes)]
        nodes = np.asarray(nodes)
        return (self.lo[nodes] <= rank) & (rank <= self.hi[nodes])


def numeric_values(labels: tuple[str, ...]) -> np.ndarray | None:
    """The labels as floats when every one parses as a finite number, else ``None``."""
    values = pd.to_numeric(pd.Series(labels, dtype=object), errors="coerce").to_numpy(float)
    if len(values) == 0 or not np.all(np.isfinite(values)):
        return None
    return values


def _spans(order: np.ndarray, lo: np.ndarray, hi: np.ndarray, numeric: np.ndarray | None):
    """The NCP of each node (see :class:`Domain`)."""
    size = hi - lo + 1
    n_values = len(order)
    if numeric is None:
        return np.where(size <= 1, 0.0, size / max(n_values, 1))
    by_rank = np.empty(n_values)
    by_rank[order] = numeric
    width = numeric.max() - numeric.min()
    if width == 0:
        return np.zeros(len(lo))
    low, high = _range_extrema(by_rank, lo, hi)
    return (high - low) / width


def _range_extrema(values: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """Min and max of ``values[lo[p]:hi[p]+1]`` for every range ``p`` (O(sum of lengths))."""
    length = hi - lo + 1
    idx = np.repeat(lo - np.cumsum(np.r_[0, length[:-1]]), length) + np.arange(length.sum())
    starts = np.r_[0, np.cumsum(length)[:-1]]
    gathered = values[idx]
    return np.minimum.reduceat(gathered, starts), np.maximum.reduceat(gathered, starts)


@lru_cache(maxsize=256)
def _hierarchy_domain(h: Hierarchy, numeric: bool) -> tuple[Domain, np.ndarray]:
    groups = h.groups.astype(np.int64)
    n_values, n_levels = groups.shape
    perm = np.lexsort(groups.T)  # top level first, then down to the value: depth-first order
    order = np.empty(n_values, dtype=np.int64)
    order[perm] = np.arange(n_values)
    counts = groups.max(axis=0) + 1
    offsets = np.r_[0, np.cumsum(counts)]
    lo = np.full(offsets[-1], n_values, dtype=np.int64)
    hi = np.full(offsets[-1], -1, dtype=np.int64)
    levels = np.repeat(np.arange(n_levels), counts)
    labels = [SUPPRESSED] * int(offsets[-1])
    for t in range(n_levels):
        node = offsets[t] + groups[:, t]
        np.minimum.at(lo, node, order)
        np.maximum.at(hi, node, order)
        for g, label in enumerate(h.labels[t]):
            labels[offsets[t] + g] = label
    empty = hi < lo  # a group id no value uses: never published
    lo[empty], hi[empty] = 0, 0
    values = numeric_values(h.labels[0]) if numeric else None
    span = _spans(order, lo, hi, values)
    return Domain(order, lo, hi, tuple(labels), levels, h.height, span), offsets


def hierarchy_domain(h: Hierarchy, *, numeric: bool = True) -> tuple[Domain, np.ndarray]:
    """Every node of a hierarchy as a :class:`Domain`, and the node id offset of each level.

    The node of group ``g`` at level ``t`` is ``offsets[t] + g``. With ``numeric`` (default), an
    attribute whose values all parse as numbers gets the numeric NCP of its nodes. Cached per
    hierarchy object.
    """
    check_instance(h, Hierarchy, "h")
    return _hierarchy_domain(h, bool(numeric))


def range_levels(h: Hierarchy, order: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The lowest level of ``h`` at which the values of each rank range share one group.

    ``order`` ranks the value codes (as :attr:`Domain.order`); ranges are inclusive. Used for
    ranges that are not hierarchy nodes (Mondrian's numeric cuts). O(height · sum of lengths).
    """
    perm = np.argsort(order)
    lo, hi = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)
    level = np.zeros(len(lo), dtype=np.int64)
    if len(lo) == 0:
        return level
    for t in range(h.height):
        g = h.groups[perm, t].astype(np.int64)
        low, high = _range_extrema(g, lo, hi)
        level += low != high  # levels refine: differing at t means differing below t
    return level


@dataclass(frozen=True, eq=False)
class Recoding:
    """A published form of a :class:`Table`.

    Parameters
    ----------
    table : Table
        The original table.
    domains : tuple of Domain
        The publishable values of each QI attribute.
    cells : ndarray of int, shape (n, m)
        ``cells[i, j]`` is the node of ``domains[j]`` published for record ``i``; it must cover
        the record's value (checked here: a recoding never publishes a false cell). Rows of
        suppressed records are ignored.
    suppressed : ndarray of bool, shape (n,), optional
        Tuples withheld from the release (every QI cell ``*``, in no class).
    scheme : {"global", "local"}
        Global recoding (full-domain) or local recoding (per class).
    method : str
        What produced it (``"full-domain"``, ``"partition"``, ``"mondrian"``), for reports.
    """

    table: Table
    domains: tuple[Domain, ...]
    cells: np.ndarray
    # an array after __post_init__ (all False when not given)
    suppressed: np.ndarray = None  # type: ignore[assignment]  # None only as the default
    scheme: str = "local"
    method: str = ""

    if TYPE_CHECKING:

        def __init__(
            self,
            table: Table,
            domains: Sequence[Domain],
            cells: ArrayLike,
            suppressed: ArrayLike | None = None,
            scheme: str = "local",
            method: str = "",
        ) -> None: ...

    def __post_init__(self) -> None:
        check_instance(self.table, Table, "table")
        check_choice("scheme", self.scheme, SCHEMES)
        n, m = self.table.codes.shape
        set_ = object.__setattr__
        set_(self, "domains", tuple(self.domains))
        cells = _ro(self.cells, np.int64)
        if cells.shape != (n, m) or len(self.domains) != m:
            raise ValueError(f"`cells` must have the table's shape {(n, m)} and one domain each")
        sup = np.zeros(n, bool) if self.suppressed is None else _ro(self.suppressed, bool)
        if sup.shape != (n,):
            raise ValueError(f"`suppressed` must hold one flag per record ({n})")
        set_(self, "cells", cells)
        set_(self, "suppressed", _ro(sup, bool))
        kept = ~sup
        for j, d in enumerate(self.domains):
            check_instance(d, Domain, f"domains[{j}]")
            col = cells[kept, j]
            if col.size and (col.min() < 0 or col.max() >= d.n_nodes):
                raise ValueError(f"`cells` of attribute {self.table.attributes[j]!r} name no node")
            bad = np.flatnonzero(~d.covers(col, self.table.codes[kept, j]))
            if bad.size:
                i = int(np.flatnonzero(kept)[bad[0]])
                raise ValueError(
                    f"record {i}, attribute {self.table.attributes[j]!r}: published "
                    f"{d.labels[col[bad[0]]]!r} does not cover its value "
                    f"{self.table.values[j][self.table.codes[i, j]]!r}"
                )

    # -- constructors -----------------------------------------------------------------------
    @classmethod
    def full_domain(
        cls,
        table: Table,
        levels: ArrayLike,
        suppressed: ArrayLike | None = None,
        *,
        hierarchies: tuple[Hierarchy, ...] | None = None,
        method: str = "full-domain",
    ) -> Recoding:
        """Global recoding: attribute ``j`` published at ``levels[j]`` for every record."""
        hier = hierarchies or tuple(table.hierarchy(j) for j in range(table.n_attributes))
        levels = np.asarray(levels, dtype=np.int64)
        if levels.shape != (table.n_attributes,):
            raise ValueError(f"`levels` must hold one level per attribute ({table.n_attributes})")
        domains, cells = [], np.empty(table.codes.shape, dtype=np.int64)
        for j, h in enumerate(hier):
            if not 0 <= levels[j] <= h.height:
                raise ValueError(
                    f"`levels[{j}]` ({table.attributes[j]!r}) must be in [0, {h.height}], "
                    f"got {int(levels[j])}"
                )
            d, offsets = hierarchy_domain(h)
            domains.append(d)
            cells[:, j] = offsets[levels[j]] + h.groups[table.codes[:, j], levels[j]]
        return cls(table, tuple(domains), cells, suppressed, "global", method)

    @classmethod
    def from_partition(cls, instance: Any, labels: ArrayLike, *, method: str = "partition"):
        """Local recoding of a k-anonymity partition: each group at its lowest common levels.

        ``instance`` is a :class:`~anonratio.instances.KAnonymityInstance` (its hierarchies in
        force); ``labels`` a partition, ``-1`` for a deleted record (suppressed here). The cells
        are those :func:`~anonratio.instances.kanonymity.publish.publish` prints.
        """
        from anonratio.instances.kanonymity.instance import group_levels

        table = instance.table
        labels = np.asarray(getattr(labels, "labels", labels), dtype=np.int64)
        if labels.shape != (table.n_records,):
            raise ValueError(f"`labels` must hold one label per record ({table.n_records})")
        groups, _, levels = group_levels(instance, labels)
        kept = labels >= 0
        pos = np.zeros(len(labels), dtype=np.int64)
        pos[kept] = np.searchsorted(groups, labels[kept])
        domains, cells = [], np.zeros(table.codes.shape, dtype=np.int64)
        for j, h in enumerate(instance.hierarchies):
            d, offsets = hierarchy_domain(h)
            domains.append(d)
            lev = levels[pos[kept], j] if len(groups) else np.zeros(0, dtype=np.int64)
            cells[kept, j] = offsets[lev] + h.groups[table.codes[kept, j], lev]
        return cls(table, tuple(domains), cells, ~kept, "local", method)

    # -- what is published --------------------------------------------------------------------
    @property
    def n_records(self) -> int:
        """Number of records of the original table (suppressed ones included)."""
        return self.table.n_records

    @property
    def n_suppressed(self) -> int:
        """Number of suppressed tuples."""
        return int(np.count_nonzero(self.suppressed))

    @cached_property
    def classes(self) -> np.ndarray:
        """Equivalence class of each record (records with equal published cells), ``-1`` for a
        suppressed tuple; ids ``0..C-1`` in the order of the sorted published rows."""
        out = np.full(self.n_records, -1, dtype=np.int64)
        kept = np.flatnonzero(~self.suppressed)
        if kept.size:
            cells = self.cells[kept]
            out[kept] = row_ids(
                [cells[:, j] for j in range(cells.shape[1])], [d.n_nodes for d in self.domains]
            )[0]
        out.setflags(write=False)
        return out

    @cached_property
    def node_counts(self) -> tuple[np.ndarray, ...]:
        """Per attribute, the number of published (not suppressed) records at each node."""
        kept = ~self.suppressed
        every = bool(kept.all())
        return tuple(
            np.bincount(self.cells[:, j] if every else self.cells[kept, j], minlength=d.n_nodes)
            for j, d in enumerate(self.domains)
        )

    @property
    def class_sizes(self) -> np.ndarray:
        """Number of records in each equivalence class."""
        kept = self.classes[self.classes >= 0]
        return np.bincount(kept) if kept.size else np.zeros(0, dtype=np.int64)

    @property
    def published_levels(self) -> np.ndarray:
        """The hierarchy level of every published cell, shape (n, m); suppressed rows at the
        top."""
        out = np.empty(self.cells.shape, dtype=np.int64)
        for j, d in enumerate(self.domains):
            out[:, j] = np.where(self.suppressed, d.height, d.levels[self.cells[:, j]])
        return out

    def to_dataframe(
        self, frame: pd.DataFrame | None = None, *, suppressed_rows: str = "withhold"
    ) -> pd.DataFrame:
        """The published table: QI cells as node labels; suppressed tuples withheld.

        ``frame`` is the original data (same rows in order; its QI cells must be the table's
        values): its QI columns are replaced and every other column kept, so the result has
        exactly ``frame``'s columns and its rows, less the suppressed tuples (the others in their
        order, with their index). Default: the table's own labels. With
        ``suppressed_rows="star"`` a suppressed tuple stays as a row of ``*`` in every QI cell and
        in the sensitive cell (:func:`~anonratio.instances.kanonymity.publish.release`).
        """
        from anonratio.instances.kanonymity.publish import _check_frame, release

        if frame is None:
            out = self.table.to_dataframe()
        else:
            _check_frame(frame, self.table)
            out = frame.copy()
        for j, name in enumerate(self.table.attributes):
            labels = np.asarray(self.domains[j].labels, dtype=object)[self.cells[:, j]]
            labels[self.suppressed] = SUPPRESSED
            out[name] = pd.Series(labels, index=out.index, dtype=object)
        return release(out, self.suppressed, self.table.sensitive_name, suppressed_rows)
