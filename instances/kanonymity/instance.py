"""k-anonymity by suppression or generalization (Aggarwal et al. 2005).

A partition of the records is feasible when every group has at least ``k`` records (records
labelled ``-1`` are deleted, where row deletion is allowed). Inside a group, attribute ``j`` is
generalized to the lowest level ``L`` of its hierarchy at which the group's values coincide; the
group costs ``|g| * sum_j w_j * L / l_j``. Under suppression (``l_j = 1``) this is the number of
stars. A deleted record costs ``sum_j w_j``, as if every cell were at the top level.

The graph representation of Aggarwal et al. (2005, §4) weighs the pair of records ``a, b`` by
``w(a, b) = sum_j w_j h_ab(j) / l_j``, with ``h_ab(j)`` the lowest level at which they coincide on
``j``; :func:`pairwise_distances` and :func:`nearest_neighbors` (in
:mod:`~anonratio.instances.kanonymity.neighbors`, re-exported here) compute it exactly.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Self

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.base import (
    Verification,
    _labels_of,
    fast_lower_bound,
    finish_verification,
    instance_fields,
    lower_bound,
    register_problem,
    verify,
)
from anonratio.instances.errors import InfeasibleInstanceError, InstanceFormatError
from anonratio.instances.kanonymity.neighbors import nearest_neighbors, pairwise_distances
from anonratio.instances.table import Hierarchy, Table
from anonratio.instances.validation import (
    as_array,
    check_choice,
    check_counts,
    check_instance,
    check_int,
)

__all__ = [
    "KAnonymityInstance",
    "MODELS",
    "pairwise_distances",
    "nearest_neighbors",
    "group_levels",
    "nn_prices",
    "member_levels",
    "member_costs",
]

MODELS = ("suppression", "generalization")


def _kanon_iv(table: Any, k: Any, model: Any, row_deletion: Any) -> int:
    check_instance(table, Table, "table")
    n = table.n_records
    if n >= 2:
        k = check_int("k", k, low=2, high=n, high_name="n_records")
    else:  # no k fits a table of fewer than 2 records: the instance is infeasible
        k = check_int("k", k, low=2)
        raise InfeasibleInstanceError(f"the table has {n} records, fewer than k={k}")
    check_choice("model", model, MODELS)
    if not isinstance(row_deletion, bool | np.bool_):
        raise ValueError(f"`row_deletion` must be a bool, got {row_deletion!r}")
    return k


class _Cell:
    """``(row, column)`` of the ``i``-th entry of a row-major table of ``m`` columns."""

    def __init__(self, m: int) -> None:
        self.m = max(m, 1)

    def __getitem__(self, i: int) -> tuple[int, int]:
        return divmod(i, self.m)


def _check_codes(codes: Any) -> None:
    """The table's codes in a JSON file: rows of integer codes, no fraction, boolean or string
    (the table's constructor casts them to int32, which would truncate ``0.5`` silently)."""
    if codes is None:
        return  # the table names the missing field
    arr = as_array("table.codes", codes, error=InstanceFormatError)
    if arr.size and arr.ndim != 2:
        raise InstanceFormatError(
            f"`table.codes` must be a list of rows of equal length, got shape {arr.shape}"
        )
    flat = [x for row in codes for x in row] if arr.size else []
    m = arr.shape[1] if arr.ndim == 2 else 1
    check_counts("table.codes", flat, where="cell", labels=_Cell(m), error=InstanceFormatError)


@register_problem("k-anonymity")
@dataclass(frozen=True, eq=False)
class KAnonymityInstance:
    """A k-anonymity instance.

    Parameters
    ----------
    table : Table
    k : int
        Every published group must hold at least ``k`` records; ``2 <= k <= n``.
    model : {"suppression", "generalization"}
        Suppression replaces cells by ``*``; generalization climbs each attribute's hierarchy
        (attributes without one fall back to suppression).
    row_deletion : bool
        Allow deleting records (label ``-1``) at the cost of suppressing the whole row.
    """

    #: the registered problem name (set by :func:`~anonratio.instances.base.register_problem`)
    problem: ClassVar[str]

    table: Table
    k: int
    model: str = "suppression"
    row_deletion: bool = False

    def __post_init__(self) -> None:
        k = _kanon_iv(self.table, self.k, self.model, self.row_deletion)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "row_deletion", bool(self.row_deletion))

    @property
    def n(self) -> int:
        """Number of records."""
        return self.table.n_records

    @property
    def params(self) -> dict[str, Any]:
        """The problem parameters of a run: ``k``, ``model``, ``row_deletion``."""
        return {"k": self.k, "model": self.model, "row_deletion": self.row_deletion}

    @cached_property
    def hierarchies(self) -> tuple[Hierarchy, ...]:
        """The hierarchy in force for each attribute under this model."""
        t = self.table
        if self.model == "suppression":
            return tuple(Hierarchy.suppression(v) for v in t.values)
        return tuple(t.hierarchy(j) for j in range(t.n_attributes))

    @cached_property
    def heights(self) -> np.ndarray:
        """Height ``l_j`` of every attribute's hierarchy in force (int64)."""
        return np.array([h.height for h in self.hierarchies], dtype=np.int64)

    @cached_property
    def scaled_levels(self) -> tuple[np.ndarray, ...]:
        """Per attribute, ``w_j * H_j[u, v] / l_j``: the attribute's share of ``w(a, b)``."""
        w = self.table.weights
        return tuple(w[j] * h.common_levels() / h.height for j, h in enumerate(self.hierarchies))

    @cached_property
    def unique_records(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(unique, inverse, counts)`` of the table's QI rows (:meth:`Table.unique_records`),
        computed once per instance; the arrays are read-only."""
        out = self.table.unique_records()
        for array in out:
            array.setflags(write=False)
        return out

    def neighbor_table(self, n_neighbors: int) -> tuple[np.ndarray, np.ndarray]:
        """:func:`nearest_neighbors` of the unique records, computed once per instance and
        ``n_neighbors``: the lower bound and FOREST share it in a run. Read-only arrays."""
        cache = self.__dict__.setdefault("_neighbor_tables", {})
        q = int(n_neighbors)
        if q not in cache:
            index, dist = nearest_neighbors(self, q, self.unique_records[0])
            index.setflags(write=False)
            dist.setflags(write=False)
            cache[q] = (index, dist)
        return cache[q]

    @property
    def deletion_cost(self) -> float:
        """Cost of deleting one record: ``sum_j w_j``."""
        return float(self.table.weights.sum())

    def is_binary(self) -> bool:
        """True for suppression of attributes with at most two values each.

        On a binary alphabet generalization equals suppression (Aggarwal et al. 2005, §5), which is
        where the factor algorithms' 1.5 and 2 guarantees hold.
        """
        return all(h.height == 1 and h.n_values <= 2 for h in self.hierarchies)

    def is_suppression(self) -> bool:
        """True when every attribute in force is suppression-only (height 1)."""
        return bool(np.all(self.heights == 1))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the table's and the parameters."""
        return {
            "table": self.table.to_dict(),
            "k": self.k,
            "model": self.model,
            "row_deletion": self.row_deletion,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output, validated as the constructor validates."""
        d = instance_fields(
            d, cls.problem, required=("table", "k"), optional=("model", "row_deletion")
        )
        if not isinstance(d["table"], Mapping):
            raise InstanceFormatError(
                f"`table` must be a JSON object, got {type(d['table']).__name__}"
            )
        _check_codes(d["table"].get("codes"))
        return cls(
            Table.from_dict(d["table"]),
            d["k"],
            d.get("model", "suppression"),
            d.get("row_deletion", False),
        )


# ---------------------------------------------------------------------------------------------
# cost and verification
# ---------------------------------------------------------------------------------------------
def group_levels(
    instance: KAnonymityInstance, labels: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generalization level of every attribute in every group.

    Returns
    -------
    groups : ndarray — the group ids (labels >= 0), sorted
    sizes : ndarray — their sizes
    levels : ndarray of int, shape (len(groups), m) — ``L`` per group and attribute
    """
    labels_ = np.asarray(labels)
    keep = np.flatnonzero(labels_ >= 0)
    groups, group, sizes = np.unique(labels_[keep], return_inverse=True, return_counts=True)
    return groups, sizes, member_levels(instance, group, keep, len(groups))


def member_levels(
    instance: KAnonymityInstance,
    group: np.ndarray,
    rows: np.ndarray,
    n_groups: int,
    codes: np.ndarray | None = None,
) -> np.ndarray:
    """Generalization level of every attribute in every group, from membership pairs.

    Parameters
    ----------
    instance : KAnonymityInstance
    group, rows : array_like of int, shape (p,)
        Pair ``t`` says that row ``rows[t]`` of ``codes`` belongs to group ``group[t]``. A row
        may appear in several groups (the copies of a unique record split between groups) and
        twice in one group; every group ``0 .. n_groups - 1`` needs at least one pair.
    n_groups : int
    codes : ndarray of int, shape (r, m), optional
        The code rows the pairs refer to: the table's records (default) or its unique records.

    Returns
    -------
    ndarray of int64, shape (n_groups, m)
        ``L`` per group and attribute.

    Raises
    ------
    ValueError
        If a group has no member.

    Notes
    -----
    O(p log p + p · sum_j l_j) time: one sort, then per attribute and level one reduction.
    """
    codes = instance.table.codes if codes is None else codes
    group = np.asarray(group, dtype=np.int64).reshape(-1)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    order = np.argsort(group, kind="stable")
    group, rows = group[order], rows[order]
    starts = np.searchsorted(group, np.arange(n_groups), side="left")
    ends = np.searchsorted(group, np.arange(n_groups), side="right")
    if np.any(ends <= starts):
        raise ValueError(f"`group` must name every group in 0..{n_groups - 1} at least once")
    levels = np.zeros((n_groups, codes.shape[1]), dtype=np.int64)
    if n_groups == 0:
        return levels
    member_codes = codes[rows]
    for j, h in enumerate(instance.hierarchies):
        for t in range(h.height):
            g = h.groups[member_codes[:, j], t]
            differ = np.maximum.reduceat(g, starts) != np.minimum.reduceat(g, starts)
            levels[:, j] += differ  # levels refine: differing at t means differing below t
    return levels


def member_costs(
    instance: KAnonymityInstance, group: np.ndarray, rows: np.ndarray, n_groups: int
) -> np.ndarray:
    """The verifier's cost ``|g| sum_j w_j L_gj / l_j`` of every group, from membership pairs
    (as :func:`member_levels`: record ``rows[t]`` belongs to group ``group[t]``).

    Returns
    -------
    ndarray of float, shape (n_groups,)
    """
    scale = instance.table.weights / instance.heights
    sizes = np.bincount(np.asarray(group, dtype=np.int64), minlength=n_groups)
    return sizes * (member_levels(instance, group, rows, n_groups) @ scale)


@verify.register
def _verify_kanonymity(
    instance: KAnonymityInstance, solution: Any, *, strict: bool = True
) -> Verification:
    labels, violations = _labels_of(solution, instance.n)
    if labels is None:
        return finish_verification(violations, None, strict)
    deleted = int(np.count_nonzero(labels < 0))
    if np.any(labels < -1):
        violations.append("labels below -1 are not allowed (-1 marks a deleted record)")
    if deleted and not instance.row_deletion:
        violations.append(f"{deleted} records are labelled -1 but row deletion is not allowed")
    groups, sizes, levels = group_levels(instance, labels)
    small = groups[sizes < instance.k]
    for g, s in zip(small[:5], sizes[sizes < instance.k][:5], strict=False):
        violations.append(f"group {int(g)} has {int(s)} records, fewer than k={instance.k}")
    if len(small) > 5:
        violations.append(f"... {len(small) - 5} more groups have fewer than k records")
    if violations:
        return finish_verification(violations, None, strict)
    scale = instance.table.weights / instance.heights
    value = float(sizes @ (levels @ scale)) + deleted * instance.deletion_cost
    return finish_verification([], value, strict)


@lower_bound.register
def _lower_bound_kanonymity(instance: KAnonymityInstance) -> tuple[float, str]:
    """Each record pays at least its distance to its (k−1)-th nearest other record.

    Aggarwal et al. (2005, §4.1, proof of Lemma 3). Identical copies count: a record with ``c``
    identical copies (``c < k``) pays at least its ``(k−c)``-th smallest non-zero distance,
    counting the other records with multiplicity; with ``c >= k`` it may pay nothing. Valid under
    row deletion too, since no distance exceeds the cost of deleting a row.
    """
    return kanonymity_lower_bound(instance), "nn-distance"


@fast_lower_bound.register
def _fast_lower_bound_kanonymity(instance: KAnonymityInstance) -> tuple[float, str]:
    """Every record pays for the levels its values alone force, and a little when it is rare.

    A record ``r`` lies in a group of at least ``k`` records, whose generalization of attribute
    ``j`` covers all their values: at every level of ``j``'s hierarchy where the node holding
    ``r``'s value covers fewer than ``k`` records of the table, the group's values differ, so
    ``r`` pays at least ``w_j L_j(r) / l_j`` for ``j``, with ``L_j(r)`` the number of such levels
    (the distance's terms, Aggarwal et al. 2005, §4.1). A record with fewer than ``k`` identical
    copies pays besides at least ``delta = min_j w_j / l_j`` over the attributes with two values or
    more (its group holds a record that differs from it). A deleted record pays
    ``sum_j w_j``, more than either. The bound is the sum over the records of the larger of the
    two. O(n m h) for hierarchies of height h, no neighbour search: weaker than
    :func:`lower_bound`'s nearest-neighbour bound, and far cheaper on large tables.
    """
    codes = instance.table.codes
    k, weights = instance.k, instance.table.weights
    forced = np.zeros(instance.n)
    varied = []
    for j, h in enumerate(instance.hierarchies):
        column = codes[:, j]
        if np.any(column != column[0]):
            varied.append(j)
        levels = np.zeros(instance.n)
        for t in range(h.height):
            node = h.groups[column, t]
            levels += np.bincount(node)[node] < k
        forced += float(weights[j]) * levels / h.height
    _, inverse, counts = instance.unique_records
    rare = counts[inverse.reshape(-1)] < k
    if varied:
        delta = min(float(weights[j]) / float(instance.heights[j]) for j in varied)
        forced = np.where(rare, np.maximum(forced, delta), forced)
    return float(forced.sum()), "forced-levels"


def kanonymity_lower_bound(
    instance: KAnonymityInstance,
    unique: np.ndarray | None = None,
    counts: np.ndarray | None = None,
    neighbors: tuple[np.ndarray, np.ndarray] | None = None,
) -> float:
    """The nearest-neighbour bound; pass ``neighbors=(index, dist)`` to reuse a k-NN table."""
    if unique is None:
        counts = instance.unique_records[2]
    prices = nn_prices(instance, unique, counts, neighbors)
    return float(prices @ counts)


def nn_prices(
    instance: KAnonymityInstance,
    unique: np.ndarray | None = None,
    counts: np.ndarray | None = None,
    neighbors: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """What each copy of each unique record pays at least: the nearest-neighbour bound per record.

    A record with ``c`` identical copies pays its ``(k − c)``-th smallest non-zero distance
    (counting the other records with multiplicity), or 0 when ``c >= k``. These prices are dual
    feasible for the set-partitioning relaxation: a group's per-copy cost is at least each
    member's distance to every other member (levels are an ultrametric), so a group of ``t``
    copies costs at least the sum of its members' prices.

    Returns
    -------
    ndarray of float, shape (u,)
        One price per unique record (the instance's :attr:`~KAnonymityInstance.unique_records`
        unless ``unique`` and ``counts`` are given).
    """
    shared = unique is None  # the instance's own unique records: reuse its k-NN table
    if shared:
        unique, _, counts = instance.unique_records
    assert unique is not None and counts is not None  # given together (see the docstring)
    k = instance.k
    need = k - counts  # other (non-identical) records each unique record must still meet
    if not np.any(need > 0):
        return np.zeros(len(counts))
    if neighbors is None:
        neighbors = instance.neighbor_table(k - 1) if shared else None
    index, dist = neighbors if neighbors is not None else nearest_neighbors(instance, k - 1, unique)
    # the (need)-th nearest non-identical record, counting neighbours with multiplicity
    reach = np.cumsum(counts[index], axis=1)
    pos = np.argmax(reach >= np.maximum(need, 1)[:, None], axis=1)
    return np.where(need > 0, dist[np.arange(len(unique)), pos], 0.0)
