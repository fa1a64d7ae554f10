"""t-closeness by suppression: the instance and its verifier.

A table of ``n`` records has ``d`` categorical quasi-identifier (QI) columns and one sensitive
column of codes ``0 .. S-1`` (``S = len(table.sensitive_values)``). A solution partitions the
records into groups; each group is published with its QI cells, a cell suppressed (a *star*) in
every QI column on which the group's members disagree. The partition is *feasible* when every
group

* has at least ``k`` records, and
* is *t-close*: the Earth Mover's Distance between the group's sensitive distribution ``p`` and
  the whole table's ``q`` is at most ``t`` (Li, Li and Venkatasubramanian, ICDE 2007, Def. 2),
  with the ground distance of their §4.1 that ``ground`` names: ``"equal"`` (every two values at
  distance 1, ``EMD = 1/2 sum_i |p_i - q_i|``) or ``"ordered"`` (codes in value order, values
  ``i`` and ``j`` at distance ``|i - j| / (S - 1)``). The EMD is the one of
  :class:`anonratio.instances.privacy.TCloseness`, test ``EMD <= t + 1e-12`` included.

The cost is the number of stars, ``sum_G |G| x (QI columns not constant on G)``, the star
objective of l-diversity by suppression (:mod:`anonratio.instances.ldiversity`). The whole table
as one group has EMD 0 and ``n >= k`` records, so every instance has a feasible solution.

Labels of a solution are group ids (non-negative integers), one per record: suppression deletes
no record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Self

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.base import (
    Verification,
    _labels_of,
    finish_verification,
    instance_fields,
    register_problem,
    verify,
)
from anonratio.instances.equivalence import class_statistics
from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.privacy import TCloseness
from anonratio.instances.table import Table
from anonratio.instances.validation import check_choice, check_instance, check_int, check_number

__all__ = [
    "GROUNDS",
    "TClosenessInstance",
    "TClosenessVerification",
    "differing_columns",
    "group_stats",
]

#: the ground distances of Li et al. 2007, §4.1
GROUNDS = ("equal", "ordered")


def _tclose_iv(table: Any, t: Any, k: Any, ground: Any) -> tuple[float, int, str]:
    check_instance(table, Table, "table")
    if table.sensitive is None:
        raise InstanceFormatError(
            "t-closeness needs a sensitive attribute: the table has none (give `sensitive`)"
        )
    if table.n_records == 0:
        raise InstanceFormatError("t-closeness needs a table with at least one record, got 0")
    t = check_number("t", t, low=0, high=1)
    k = check_int("k", k, low=1, high=table.n_records, high_name="n")
    ground = check_choice("ground", ground, GROUNDS)
    return t, k, ground


@register_problem("t-closeness")
@dataclass(frozen=True, eq=False)
class TClosenessInstance:
    """A t-closeness-by-suppression instance (module docstring: the problem).

    Parameters
    ----------
    table : Table
        QI codes and a sensitive attribute (``table.sensitive``, codes ``0 .. S-1`` with
        ``S = len(table.sensitive_values)``); at least one record.
    t : float
        The closeness threshold, in ``[0, 1]``.
    k : int
        The least group size, in ``[1, n]``.
    ground : {"equal", "ordered"}
        The EMD's ground distance (Li et al. 2007, §4.1).

    Examples
    --------
    >>> t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 1, 0, 1],
    ...           sensitive_values=["flu", "cold"])
    >>> TClosenessInstance(t, 0.2, k=2).params
    {'t': 0.2, 'k': 2, 'ground': 'equal'}
    """

    problem: ClassVar[str]

    table: Table
    t: float
    k: int = 1
    ground: str = "equal"

    def __post_init__(self) -> None:
        t, k, ground = _tclose_iv(self.table, self.t, self.k, self.ground)
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "ground", ground)

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.table.n_records)

    @property
    def d(self) -> int:
        """Number of QI attributes."""
        return int(self.table.n_attributes)

    @property
    def n_values(self) -> int:
        """``S``, the number of sensitive values (the ordered EMD is normalized by ``S - 1``)."""
        return len(self.table.sensitive_values or ())

    @property
    def params(self) -> dict[str, Any]:
        """The problem parameters of a run."""
        return {"t": self.t, "k": self.k, "ground": self.ground}

    @property
    def sensitive(self) -> np.ndarray:
        """Sensitive code per record."""
        sensitive = self.table.sensitive
        assert sensitive is not None  # checked at construction
        return sensitive

    @property
    def model(self) -> TCloseness:
        """The privacy model whose EMD and test every group must pass."""
        return TCloseness(self.t, self.ground)

    @cached_property
    def counts(self) -> np.ndarray:
        """Records per sensitive value over the whole table, shape ``(S,)``."""
        return np.bincount(self.sensitive, minlength=self.n_values).astype(np.int64)

    @cached_property
    def prior(self) -> np.ndarray:
        """The whole table's sensitive distribution ``q``, shape ``(S,)``."""
        return self.counts / self.n

    @cached_property
    def qi_group(self) -> np.ndarray:
        """QI-group id per record (records with identical QI values share one), ``0..g-1``."""
        return self.table.unique_records()[1].astype(np.int64)

    def emd(self, hist: ArrayLike) -> np.ndarray:
        """EMD to the table's distribution of each row of sensitive histograms ``hist`` (C, S)."""
        hist = np.atleast_2d(np.asarray(hist, dtype=np.int64))
        sizes = hist.sum(axis=1)
        return self.model.measure(np.maximum(sizes, 1), hist, self.prior)

    def passes(self, hist: ArrayLike) -> np.ndarray:
        """Whether each row of ``hist`` (C, S) is a feasible group: ``>= k`` records, t-close."""
        hist = np.atleast_2d(np.asarray(hist, dtype=np.int64))
        sizes = hist.sum(axis=1)
        close = self.model.passes(np.maximum(sizes, 1), hist, self.prior)
        return (sizes >= self.k) & close

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the table, ``t``, ``k`` and the ground distance."""
        return {"table": self.table.to_dict(), "t": self.t, "k": self.k, "ground": self.ground}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output, validated as the constructor validates."""
        d = instance_fields(d, cls.problem, required=("table", "t"), optional=("k", "ground"))
        return cls(Table.from_dict(d["table"]), d["t"], d.get("k", 1), d.get("ground", "equal"))


@dataclass(frozen=True)
class TClosenessVerification(Verification):
    """:class:`~anonratio.instances.base.Verification` plus the stars, the number of groups and
    the largest EMD of a group (``cost`` is the stars)."""

    stars: int | None = None
    n_groups: int | None = None
    largest_emd: float | None = None

    #: the result columns
    COLUMNS: ClassVar[tuple[str, ...]] = ("stars", "n_groups", "largest_emd")


def differing_columns(codes: np.ndarray, order: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """QI columns not constant on each group of records ``order`` cut at ``starts``.

    ``order`` lists the records group by group and ``starts`` the first position of each group
    in it (as ``np.minimum.reduceat`` takes it).
    """
    differ = np.zeros(starts.size, dtype=np.int64)
    for j in range(codes.shape[1]):
        col = codes[order, j]
        differ += np.minimum.reduceat(col, starts) != np.maximum.reduceat(col, starts)
    return differ


def group_stats(
    instance: TClosenessInstance, labels: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group (sorted ids): ``(ids, sizes, non-constant QI columns, sensitive histogram)`` of
    the partition ``labels`` (all >= 0); the histogram has shape ``(groups, S)``."""
    labels = np.asarray(labels, dtype=np.int64)
    ids, sizes, hist, _ = class_statistics(labels, instance.sensitive, n_values=instance.n_values)
    order = np.argsort(labels, kind="stable")
    starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
    differ = differing_columns(instance.table.codes, order, starts)
    return ids, sizes, differ, hist


@verify.register
def _verify_tcloseness(
    instance: TClosenessInstance, solution: Any, *, strict: bool = True
) -> TClosenessVerification:
    """Check that every group has ``>= k`` records and is t-close; count the stars."""
    labels, violations = _labels_of(solution, instance.n)
    if labels is None:
        finish_verification(violations, None, strict)
        return TClosenessVerification(False, None, violations)
    if np.any(labels < 0):
        violations.append(
            f"{int(np.count_nonzero(labels < 0))} records have a negative label; t-closeness "
            "by suppression keeps every record in a group"
        )
        finish_verification(violations, None, strict)
        return TClosenessVerification(False, None, violations)
    ids, sizes, differ, hist = group_stats(instance, labels)
    emd = instance.emd(hist)
    small = np.flatnonzero(sizes < instance.k)
    far = np.flatnonzero(~instance.model.passes(sizes, hist, instance.prior))
    for g in small[:5]:
        violations.append(
            f"group {int(ids[g])} has {int(sizes[g])} records, fewer than k = {instance.k}"
        )
    for g in far[:5]:
        violations.append(
            f"group {int(ids[g])} is not {instance.t:g}-close: EMD {float(emd[g]):.6g} "
            f"({instance.ground} ground) to the table's sensitive distribution"
        )
    more = max(small.size - 5, 0) + max(far.size - 5, 0)
    if more:
        violations.append(f"... {more} more violations")
    stars, n_groups, largest = int(sizes @ differ), int(ids.size), float(emd.max())
    if violations:
        finish_verification(violations, None, strict)
        return TClosenessVerification(False, None, violations, stars, n_groups, largest)
    return TClosenessVerification(True, float(stars), [], stars, n_groups, largest)
