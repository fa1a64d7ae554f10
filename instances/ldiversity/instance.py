"""l-diversity by suppression (Xiao, Yi and Tao, EDBT 2010): the instance and its verifier.

A table of quasi-identifiers (QI) with a sensitive attribute of ``m`` distinct values is split
into groups; each group is published with the QI attributes on which its records differ
suppressed (``*``). A set ``S`` of records is *l-eligible* when no sensitive value occurs in more
than ``|S| / l`` of them: ``l * h(S) <= |S|`` with ``h(S)`` the largest count of a sensitive value
in ``S`` (its *pillars* are the values of that count). A partition is feasible when every group is
l-eligible; one exists iff the whole table is l-eligible.

Two objectives (§3):

* ``stars`` (Problem 1, star minimization): the number of suppressed cells,
  ``sum_S |S| x (number of QI attributes not constant on S)``;
* ``tuples`` (Problem 2, tuple minimization): the number of records in groups whose QI values
  are not all equal (the records that lose at least one cell).

Labels of a solution are group ids (non-negative integers), one per record; every record belongs
to a group (l-diversity by suppression deletes nothing).
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
    lower_bound,
    register_problem,
    verify,
)
from anonratio.instances.errors import InfeasibleInstanceError, InstanceFormatError
from anonratio.instances.table import Table
from anonratio.instances.validation import check_choice, check_instance, check_int

__all__ = [
    "LDiversityInstance",
    "LDiversityVerification",
    "OBJECTIVES",
    "group_stats",
    "is_l_eligible",
    "qi_groups",
    "phase_one",
    "phase_one_residue",
    "ldiversity_lower_bound",
]

#: the two objectives of the paper: star minimization (Problem 1), tuple minimization (Problem 2)
OBJECTIVES = ("stars", "tuples")


def is_l_eligible(counts: ArrayLike, l: int) -> bool:
    """Whether a set with these sensitive-value ``counts`` is l-eligible: ``l * max <= sum``."""
    counts = np.asarray(counts)
    return bool(l * counts.max(initial=0) <= counts.sum())


def _ldiv_iv(table: Any, l: Any, objective: Any) -> tuple[int, str]:
    check_instance(table, Table, "table")
    l = check_int("l", l, low=2)
    objective = check_choice("objective", objective, OBJECTIVES)
    if table.sensitive is None:
        raise InstanceFormatError(
            "l-diversity needs a sensitive attribute: the table has none (give `sensitive`)"
        )
    counts = np.bincount(table.sensitive, minlength=len(table.sensitive_values or ()))
    n, top = int(counts.sum()), int(counts.argmax())
    if l * counts[top] > n:
        name = table.sensitive_values[top] if table.sensitive_values else str(top)
        distinct = int(np.count_nonzero(counts))
        raise InfeasibleInstanceError(
            f"the table is not {l}-eligible: sensitive value {name!r} of "
            f"{table.sensitive_name!r} occurs {int(counts[top])} times among {n} records, more "
            f"than n / l = {n / l:g}" + (" (the column is constant)" if distinct == 1 else "")
        )
    return l, objective


@register_problem("l-diversity")
@dataclass(frozen=True, eq=False)
class LDiversityInstance:
    """An l-diversity instance (Xiao, Yi and Tao 2010).

    Parameters
    ----------
    table : Table
        QI codes and a sensitive attribute (``table.sensitive``).
    l : int
        ``l >= 2``; the whole table must be l-eligible.
    objective : {"stars", "tuples"}
        Star minimization (Problem 1, default) or tuple minimization (Problem 2).

    Examples
    --------
    >>> t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 1, 0, 1],
    ...           sensitive_values=["flu", "cold"])
    >>> LDiversityInstance(t, 2).params
    {'l': 2, 'objective': 'stars'}
    """

    problem: ClassVar[str]

    table: Table
    l: int
    objective: str = "stars"

    def __post_init__(self) -> None:
        l, objective = _ldiv_iv(self.table, self.l, self.objective)
        object.__setattr__(self, "l", l)
        object.__setattr__(self, "objective", objective)

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.table.n_records)

    @property
    def d(self) -> int:
        """Number of QI attributes."""
        return int(self.table.n_attributes)

    @property
    def m(self) -> int:
        """Number of distinct sensitive values present."""
        return int(np.unique(self.sensitive).size)

    @property
    def params(self) -> dict[str, Any]:
        """The problem parameters of a run."""
        return {"l": self.l, "objective": self.objective}

    @property
    def sensitive(self) -> np.ndarray:
        """Sensitive code per record."""
        sensitive = self.table.sensitive
        assert sensitive is not None  # checked at construction: l-diversity needs one
        return sensitive

    @cached_property
    def qi_group(self) -> np.ndarray:
        """QI-group id per record (records with identical QI values share one), ``0..g-1``."""
        return qi_groups(self.table.codes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the table, ``l`` and the objective."""
        return {"table": self.table.to_dict(), "l": self.l, "objective": self.objective}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output, validated as the constructor validates."""
        d = instance_fields(d, cls.problem, required=("table", "l"), optional=("objective",))
        return cls(Table.from_dict(d["table"]), d["l"], d.get("objective", "stars"))


def qi_groups(codes: np.ndarray) -> np.ndarray:
    """Group id per row of ``codes`` such that equal rows share an id (``0..g-1``)."""
    codes = np.asarray(codes, dtype=np.int64)
    if codes.shape[1] == 0:
        return np.zeros(codes.shape[0], dtype=np.int64)
    radix = codes.max(axis=0) + 1
    if float(np.prod(radix.astype(float))) < 2.0**62:  # one integer key per row: a 1-D unique
        weights = np.cumprod(np.concatenate([[1], radix[:-1]]))
        _, inverse = np.unique(codes @ weights, return_inverse=True)
    else:
        _, inverse = np.unique(codes, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


@dataclass(frozen=True)
class LDiversityVerification(Verification):
    """:class:`~anonratio.instances.base.Verification` plus both objectives' values.

    ``stars`` and ``suppressed_tuples`` are reported whatever the instance's objective, so that
    one run measures both; ``cost`` is the instance's objective.
    """

    stars: int | None = None
    suppressed_tuples: int | None = None
    n_groups: int | None = None

    #: the result columns
    COLUMNS: ClassVar[tuple[str, ...]] = ("stars", "suppressed_tuples", "n_groups")


def group_stats(
    instance: LDiversityInstance, labels: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group (sorted ids): ``(ids, sizes, non-constant QI attributes, largest sensitive
    count)`` of the partition ``labels`` (all >= 0)."""
    labels = np.asarray(labels, dtype=np.int64)
    order = np.argsort(labels, kind="stable")
    lab = labels[order]
    starts = np.flatnonzero(np.r_[True, lab[1:] != lab[:-1]]) if lab.size else np.empty(0, int)
    ids = lab[starts]
    sizes = np.diff(np.r_[starts, lab.size])
    differ = np.zeros(ids.size, dtype=np.int64)
    codes = instance.table.codes
    for j in range(codes.shape[1]):
        col = codes[order, j]
        differ += np.minimum.reduceat(col, starts) != np.maximum.reduceat(col, starts)
    s = instance.sensitive.astype(np.int64)[order]
    width = int(s.max()) + 1
    pair = np.repeat(np.arange(ids.size), sizes) * width + s
    keys, counts = np.unique(pair, return_counts=True)  # (group, value) pairs present
    top = np.zeros(ids.size, dtype=np.int64)
    np.maximum.at(top, keys // width, counts)
    return ids, sizes, differ, top


@verify.register
def _verify_ldiversity(
    instance: LDiversityInstance, solution: Any, *, strict: bool = True
) -> LDiversityVerification:
    """Check that every group is l-eligible; count stars and suppressed tuples."""
    labels, violations = _labels_of(solution, instance.n)
    if labels is None:
        finish_verification(violations, None, strict)
        return LDiversityVerification(False, None, violations)
    if np.any(labels < 0):
        violations.append(
            f"{int(np.count_nonzero(labels < 0))} records have a negative label; l-diversity "
            "by suppression keeps every record in a group"
        )
        finish_verification(violations, None, strict)
        return LDiversityVerification(False, None, violations)
    ids, sizes, differ, top = group_stats(instance, labels)
    bad = np.flatnonzero(instance.l * top > sizes)
    for g in bad[:5]:
        violations.append(
            f"group {int(ids[g])} is not {instance.l}-eligible: a sensitive value occurs "
            f"{int(top[g])} times among its {int(sizes[g])} records"
        )
    if bad.size > 5:
        violations.append(f"... {bad.size - 5} more groups are not l-eligible")
    stats = {
        "stars": int(sizes @ differ),
        "suppressed_tuples": int(sizes[differ > 0].sum()),
        "n_groups": int(ids.size),
    }
    if violations:
        finish_verification(violations, None, strict)
        return LDiversityVerification(False, None, violations, **stats)
    value = stats["stars"] if instance.objective == "stars" else stats["suppressed_tuples"]
    return LDiversityVerification(True, float(value), [], **stats)


def phase_one(group: np.ndarray, s: np.ndarray, l: int) -> tuple[np.ndarray, ...]:
    """Phase 1 of TP for all QI-groups at once (Xiao et al. 2010, §5.2).

    Per (QI-group, value) pair: ``(group, value, count, count kept after phase 1, pair of each
    record)``.

    Phase 1 lowers a group's pillars to the largest height ``t`` with ``l t <= sum_v min(c_v,
    t)`` (the end state is unique, §5.2). Since ``sum_v min(c_v, t) = min_j (j t + suf_j)``
    (``suf_j`` = counts beyond the ``j`` largest), ``t = min(h, min_{j < l} floor(suf_j / (l -
    j)))``; computed for all groups at once from the counts sorted within each group.
    """
    width = int(s.max()) + 1
    key = group * width + s
    pair_key, pair_of_record, count = np.unique(key, return_inverse=True, return_counts=True)
    pair_of_record = pair_of_record.reshape(-1)
    pg, pv = pair_key // width, pair_key % width
    order = np.lexsort((-count, pg))  # by group, count decreasing
    g_sorted, c_sorted = pg[order], count[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    sizes = np.add.reduceat(c_sorted, starts)
    rank = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
    cum = np.cumsum(c_sorted)
    cum_in_group = cum - np.repeat(
        cum[starts] - c_sorted[starts], np.diff(np.r_[starts, order.size])
    )
    total = np.repeat(sizes, np.diff(np.r_[starts, order.size]))
    big = np.iinfo(np.int64).max
    bound = np.full(order.size, big, dtype=np.int64)
    ok = rank <= l - 2
    bound[ok] = (total[ok] - cum_in_group[ok]) // (l - 1 - rank[ok])
    t = np.minimum.reduceat(bound, starts)
    t = np.minimum(t, np.minimum(c_sorted[starts], sizes // l))
    t_pair = np.empty(order.size, dtype=np.int64)
    t_pair[order] = np.repeat(t, np.diff(np.r_[starts, order.size]))
    keep = np.minimum(count, t_pair)
    return pg, pv, count, keep, pair_of_record


def phase_one_residue(instance: LDiversityInstance) -> np.ndarray:
    """Sensitive-value counts of the records TP's phase 1 removes (Xiao et al. 2010, §5).

    In each QI-group, records of a pillar (a most frequent sensitive value) are removed one at a
    time until the group is l-eligible or empty (:func:`phase_one`). Any feasible partition
    suppresses at least as many records of each QI-group: a group that keeps its QI values
    intact is a subset of one QI-group, and the intact part of a QI-group must be l-eligible.
    """
    s = np.asarray(instance.sensitive, dtype=np.int64)
    _, pv, count, keep, _ = phase_one(instance.qi_group, s, instance.l)
    return np.bincount(pv, weights=count - keep, minlength=int(s.max()) + 1).astype(np.int64)


def ldiversity_lower_bound(instance: LDiversityInstance) -> tuple[float, str]:
    """``(value, source)``: ``max(|R1|, l h(R1))`` for both objectives, ``R1`` phase 1's residue.

    Every solution suppresses at least ``|R1|`` records (see :func:`phase_one_residue`), among
    them at least ``h(R1)`` of one sensitive value; the suppressed records form l-eligible groups,
    whose union is l-eligible, so there are at least ``l h(R1)`` of them. Every suppressed tuple
    carries at least one star, so the bound holds for stars too (Xiao et al. 2010, §5, Lemma 5.2
    and Corollary 5.9).
    """
    r1 = phase_one_residue(instance)
    total = int(r1.sum())
    if total == 0:
        return 0.0, "phase-1 residue (empty)"
    value = max(total, instance.l * int(r1.max()))
    return float(value), "max(|R1|, l h(R1))"


@lower_bound.register
def _lower_bound_ldiversity(instance: LDiversityInstance) -> tuple[float, str]:
    return ldiversity_lower_bound(instance)
