"""Utility metrics of an l-diverse table published by suppression (Xiao, Yi and Tao 2010, §6.2).

:func:`kl_divergence` is the KL-divergence between the distribution of the microdata over QI x SA
and the one induced by the published table, where a suppressed cell is uniform over its
attribute's domain (§6.2, Equation (2); Kifer and Gehrke, SIGMOD 2006). :func:`suppression_counts`
gives stars and suppressed tuples of a partition without verifying it.

:data:`SOLUTION_METRICS` are what a run reports on request (``utility=`` of the runner): the
metrics of :mod:`anonratio.instances.kanonymity.metrics` of the published table
(:func:`published_recoding`: TDS's generalization, else the partition with its non-constant cells
suppressed), ``c-avg`` aside (it is relative to k). Their ``kl-divergence`` of a suppression is
:func:`kl_divergence`'s Equation (2).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.kanonymity.metrics import METRICS
from anonratio.instances.kanonymity.recoding import Recoding
from anonratio.instances.ldiversity.instance import LDiversityInstance, group_stats, qi_groups
from anonratio.instances.table import Hierarchy

__all__ = [
    "kl_divergence",
    "suppression_counts",
    "domain_sizes",
    "published_recoding",
    "suppression_recoding",
    "SOLUTION_METRICS",
]


def domain_sizes(instance: LDiversityInstance) -> np.ndarray:
    """Domain size of each QI attribute: its number of value labels (at least the largest code
    + 1)."""
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    labels = np.array([len(v) for v in instance.table.values], dtype=np.int64)
    return np.maximum(labels, codes.max(axis=0, initial=-1) + 1)


def suppression_counts(instance: LDiversityInstance, labels: ArrayLike) -> dict[str, int]:
    """``{"stars", "suppressed_tuples", "n_groups"}`` of the partition ``labels`` (all >= 0)."""
    _, sizes, differ, _ = group_stats(instance, labels)
    return {
        "stars": int(sizes @ differ),
        "suppressed_tuples": int(sizes[differ > 0].sum()),
        "n_groups": int(sizes.size),
    }


def _starred(codes: np.ndarray, inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """``(n_groups, d)``: True where an attribute is not constant on a group."""
    order = np.argsort(inverse, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(inverse[order]) != 0])
    sorted_codes = codes[order]
    low = np.minimum.reduceat(sorted_codes, starts, axis=0)
    high = np.maximum.reduceat(sorted_codes, starts, axis=0)
    return np.asarray(low != high).reshape(n_groups, codes.shape[1])


def _point_keys(full: np.ndarray, radix: np.ndarray) -> np.ndarray | None:
    """One int64 key per row of ``full`` (mixed radix), or None when the product overflows."""
    if float(np.prod(radix.astype(float))) >= 2.0**62:
        return None
    return full @ np.cumprod(np.r_[1, radix[:-1]])


def kl_divergence(instance: LDiversityInstance, labels: ArrayLike) -> float:
    """KL-divergence ``sum_x P(x) ln(P(x) / P*(x))`` (nats) of the published table (§6.2, Eq. 2).

    ``P`` is the microdata's distribution over the points of ``QI x SA`` (the fraction of
    records at each point). The table published from the partition ``labels`` stars, in each
    group, the QI attributes that are not constant on it; ``P*`` treats every starred cell as
    uniform over its attribute's domain (:func:`domain_sizes`), the other cells and the
    sensitive value as published: a record of group ``G`` spreads mass ``1/n`` uniformly over
    the ``prod_{A starred in G} |dom A|`` points that agree with it on ``G``'s constant
    attributes and its sensitive value. Zero when nothing is suppressed (``P* = P``); positive
    whenever ``P*`` leaks mass off ``P``'s support.

    Notes
    -----
    O(n log n + p · u log n) with ``u`` the distinct points of ``P`` and ``p`` the distinct star
    patterns (sets of starred attributes) among the groups: per pattern, its records' mass is
    keyed by (constant attributes, sensitive value) as one integer and looked up, by binary
    search, at every support point of ``P``.
    """
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    s = np.asarray(instance.sensitive, dtype=np.int64)
    n, d = codes.shape
    _, inverse = np.unique(np.asarray(labels, dtype=np.int64), return_inverse=True)
    inverse = inverse.reshape(-1)
    starred = _starred(codes, inverse, int(inverse.max()) + 1)
    full = np.column_stack([codes, s])
    radix = np.r_[domain_sizes(instance), s.max(initial=0) + 1]
    keys = _point_keys(full, radix)
    point = qi_groups(full) if keys is None else np.unique(keys, return_inverse=True)[1]
    _, first, p_count = np.unique(point.reshape(-1), return_index=True, return_counts=True)
    support = full[first]  # distinct points of P
    p = p_count / n
    q = np.zeros(support.shape[0])
    dom = radix[:d].astype(float)
    # one pattern id per group (the groups' star patterns, deduplicated), then per record
    group_patterns, group_pattern = np.unique(starred, axis=0, return_inverse=True)
    pat_inv = group_pattern.reshape(-1)[inverse]
    by_pattern = np.argsort(pat_inv, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(pat_inv, minlength=len(group_patterns)))]
    for k, pattern in enumerate(group_patterns):
        rows = by_pattern[bounds[k] : bounds[k + 1]]
        keep = np.r_[~pattern, True]  # constant attributes and the sensitive value
        volume = float(np.prod(dom[pattern])) if pattern.any() else 1.0
        q += _pattern_mass(full[rows][:, keep], support[:, keep], radix[keep]) / (n * volume)
    return float(np.sum(p * np.log(p / q)))


def _pattern_mass(rows: np.ndarray, support: np.ndarray, radix: np.ndarray) -> np.ndarray:
    """For each support point, the number of ``rows`` equal to it (on the kept columns)."""
    row_keys = _point_keys(rows, radix)
    if row_keys is None:  # too many values for one integer key: hash rows and points together
        key = qi_groups(np.concatenate([rows, support]))
        return np.bincount(key[: len(rows)], minlength=int(key.max()) + 1)[key[len(rows) :]]
    values, counts = np.unique(row_keys, return_counts=True)
    point_keys = support @ np.cumprod(np.r_[1, radix[:-1]])
    at = np.minimum(np.searchsorted(values, point_keys), len(values) - 1)
    return np.where(values[at] == point_keys, counts[at], 0)


def published_recoding(instance: LDiversityInstance, solution: Any) -> Recoding:
    """What a solution publishes: the generalization it returned (``solution.info["recoding"]``,
    TDS) or else its partition with every non-constant QI cell of a group suppressed."""
    rec = (solution.info or {}).get("recoding")
    return rec if rec is not None else suppression_recoding(instance, solution.labels)


def suppression_recoding(instance: LDiversityInstance, labels: ArrayLike) -> Recoding:
    """The partition ``labels`` published by suppression: each group's non-constant QI cells
    starred, as a :class:`~anonratio.instances.kanonymity.recoding.Recoding`."""
    table = instance.table
    view = SimpleNamespace(table=table, hierarchies=tuple(map(Hierarchy.suppression, table.values)))
    return Recoding.from_partition(view, labels, method="suppression")


def _of_solution(name: str) -> Callable[[Any, Any], float]:
    def metric(instance: Any, solution: Any) -> float:
        return METRICS[name](published_recoding(instance, solution))

    metric.__doc__ = f"``{name}`` of what the solution publishes (:func:`published_recoding`)."
    return metric


def _published_kl(instance: LDiversityInstance, solution: Any) -> float:
    """Equation (2) of what the solution publishes: :func:`kl_divergence` of a suppression (half
    the time of the general recoding's), the recoding's own of a generalization (TDS)."""
    if (solution.info or {}).get("recoding") is not None:
        return METRICS["kl-divergence"](published_recoding(instance, solution))
    return kl_divergence(instance, solution.labels)


#: metric name -> ``f(instance, solution) -> float`` of an l-diversity run's published table
SOLUTION_METRICS: dict[str, Callable[[Any, Any], float]] = {
    name: _published_kl if name == "kl-divergence" else _of_solution(name)
    for name in METRICS
    if name != "c-avg"
}
