"""Utility metrics of a published table: how much information a :class:`Recoding` loses.

Every metric takes any published form of a table (global or local recoding, hierarchy nodes or
Mondrian ranges, suppressed tuples) and returns a float; lower is better for all of them.
Notation: ``n`` records, ``m`` QI attributes with weights ``w_j`` (``Table.weights``) and
hierarchy heights ``l_j`` (``Domain.height``), ``S`` the suppressed tuples; the published cell of
record ``i`` on attribute ``j`` is a node ``p_ij`` whose *cover* is the set of values it stands for.
A suppressed tuple publishes ``*`` on every QI attribute (its cover is the whole domain) and
belongs to no equivalence class.

Metrics (:data:`METRICS` names): :func:`stars` (Aggarwal et al. 2005), :func:`generalization_cost`
(Aggarwal et al. 2005, §2; the objective of :class:`~anonratio.instances.KAnonymityInstance`),
:func:`discernibility` (Bayardo and Agrawal 2005), :func:`average_class_size` (``c-avg``, LeFevre
et al. 2006), :func:`ncp` (Xu et al. 2006; Ghinita et al. 2007), :func:`precision` (Sweeney 2002;
ARX), :func:`non_uniform_entropy` (de Waal and Willenborg 1999; Gionis and Tassa 2009) and
:func:`kl_divergence` (Kifer and Gehrke 2006; Xiao, Yi and Tao 2010).

The per-cell metrics reduce to one ``bincount`` of the published nodes per attribute, so they cost
O(n m); the class metrics group the published rows once (O(n m + n log n)). Both are cached on
the recoding (:attr:`Recoding.node_counts`, :attr:`Recoding.classes`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from anonratio.instances.kanonymity.kl_divergence import kl_divergence
from anonratio.instances.kanonymity.recoding import Domain, Recoding
from anonratio.instances.validation import check_choice, check_instance, check_int

__all__ = [
    "star_nodes",
    "stars",
    "generalization_cost",
    "discernibility",
    "average_class_size",
    "ncp",
    "precision",
    "non_uniform_entropy",
    "kl_divergence",
    "METRICS",
    "utility",
    "check_metrics",
    "COSTLY",
    "DEFAULT_METRICS",
    "published_recoding",
    "SOLUTION_METRICS",
]


def _xlogx(counts: np.ndarray) -> float:
    """``sum(c log c)`` over ``counts`` (``0 log 0 = 0``), bit for bit ``scipy.special.xlogy(c,
    c).sum()``: the C library's ``log`` of each count (one per value of an attribute), whereas
    numpy's vectorized ``log`` may differ in the last bit; scipy is not imported for it."""
    return float(np.array([c * math.log(c) if c else 0.0 for c in counts.tolist()]).sum())


def _counts(rec: Recoding) -> tuple[np.ndarray, ...]:
    check_instance(rec, Recoding, "rec")
    return rec.node_counts


def _classes(rec: Recoding) -> tuple[np.ndarray, int]:
    """Equivalence class of each record (``-1`` suppressed) and the number of classes."""
    check_instance(rec, Recoding, "rec")
    ids = rec.classes
    return ids, int(ids.max()) + 1 if ids.size else 0


# ---------------------------------------------------------------------------------------------
# per-cell metrics
# ---------------------------------------------------------------------------------------------
def star_nodes(d: Domain) -> np.ndarray:
    """Which nodes of ``d`` publish a star: ``|cover(p)| = |dom A_j|`` and ``p`` not a value.

    A node is a star when it covers the attribute's whole domain, whether it is the hierarchy's
    top, an intermediate level that is already one group, or a range spanning every value; a
    single-valued attribute's value itself is not one. The one definition of a star:
    :func:`stars` counts the published cells it marks, and the lattice searches minimize that
    count (:mod:`anonratio.solvers.kanonymity.full_domain`). Boolean array of shape
    ``(d.n_nodes,)``.
    """
    return (d.size == d.n_values) & (d.levels > 0)


def stars(rec: Recoding) -> float:
    """Number of published ``*`` cells (the suppression cost of Aggarwal et al. 2005).

    ``stars = #{(i, j) : i not in S, p_ij a star} + m |S|``, a star as :func:`star_nodes`
    defines it (a node covering the attribute's whole domain). O(n m).

    References
    ----------
    Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas and Zhu, "Approximation Algorithms
    for k-Anonymity", Journal of Privacy Technology, 2005.
    """
    counts = _counts(rec)
    total = rec.n_suppressed * len(rec.domains)
    for d, c in zip(rec.domains, counts, strict=True):
        total += int(c @ star_nodes(d))
    return float(total)


def generalization_cost(rec: Recoding) -> float:
    """The generalization cost of Aggarwal et al. (2005, §2).

    ``sum_{i not in S} sum_j w_j L_ij / l_j + |S| sum_j w_j`` with ``L_ij`` the level of the
    published node (:attr:`Domain.levels`) and ``l_j`` the attribute's height: a suppressed tuple
    costs as if every cell were at the top. For :meth:`Recoding.from_partition` this is the
    objective :func:`~anonratio.instances.verify` reports (a deleted record costs
    ``sum_j w_j``); for a full-domain recoding it is the published cost, levels plus suppressed
    tuples. Under suppression (``l_j = 1``, unit weights) it equals :func:`stars`. O(n m).
    """
    counts = _counts(rec)
    w = rec.table.weights
    total = rec.n_suppressed * float(w.sum())
    for j, (d, c) in enumerate(zip(rec.domains, counts, strict=True)):
        total += float(w[j]) * float(c @ d.levels) / d.height
    return total


def ncp(rec: Recoding) -> float:
    """Global certainty penalty (Ghinita et al. 2007) of the NCP of Xu et al. (2006), in [0, 1].

    ``NCP = sum_{i not in S} sum_j w_j span(p_ij) / (n sum_j w_j) + |S| / n`` with
    ``span`` :attr:`Domain.span` (numeric: width of the covered values over the domain's width;
    categorical: ``|cover| / |dom A_j|``, 0 for a value) and a suppressed cell counting 1.
    Xu et al.'s total weighted certainty penalty is ``NCP * n * sum_j w_j``; with unit weights
    this is Ghinita et al.'s ``GCP``, which is why no separate ``gcp`` is provided. O(n m).

    References
    ----------
    Xu, Wang, Pei, Wang, Shi and Fu, "Utility-Based Anonymization Using Local Recoding", KDD 2006.
    Ghinita, Karras, Kalnis and Mamoulis, "Fast Data Anonymization with Low Information Loss",
    VLDB 2007.
    """
    counts = _counts(rec)
    w = rec.table.weights
    total = rec.n_suppressed * float(w.sum())
    for j, (d, c) in enumerate(zip(rec.domains, counts, strict=True)):
        total += float(w[j]) * float(c @ d.span)
    return total / (max(rec.n_records, 1) * float(w.sum()))


def precision(rec: Recoding) -> float:
    """ARX's precision loss, in [0, 1]: the mean of ``L_ij / l_j`` over the ``n m`` cells.

    ``sum_{i,j} L_ij / l_j / (n m)``, a suppressed tuple counting 1 per cell; unweighted.
    Sweeney's precision ``Prec`` (2002, §4) is ``1 -`` this value. O(n m).

    References
    ----------
    Sweeney, "Achieving k-Anonymity Privacy Protection Using Generalization and Suppression",
    IJUFKS 10(5), 2002. Prasser, Kohlmayer et al., ARX (``MetricPrecision``).
    """
    counts = _counts(rec)
    total = float(rec.n_suppressed * len(rec.domains))
    for d, c in zip(rec.domains, counts, strict=True):
        total += float(c @ d.levels) / d.height
    return total / max(rec.n_records * len(rec.domains), 1)


#: how :func:`non_uniform_entropy` charges a suppressed tuple
ENTROPY_SUPPRESSION = ("star", "generalized")


def non_uniform_entropy(rec: Recoding, *, suppressed: str = "star") -> float:
    """Non-uniform entropy in bits (de Waal and Willenborg 1999; Gionis and Tassa 2009).

    ``sum_j sum_i -log2(c_j(v_ij) / c_j(p_ij))`` with ``c_j(v)`` the number of records of the
    original table with value ``v`` on ``A_j`` and ``c_j(p)`` the number whose value lies in the
    cover of ``p``. Computed per attribute from the value counts by rank, whose prefix sums give
    ``c_j(p) = cum[hi + 1] - cum[lo]`` for every node at once. O(n m).

    Parameters
    ----------
    rec : Recoding
    suppressed : {"star", "generalized"}
        How a suppressed tuple is charged.

        * ``"star"`` (default; the metric the suite reports and the lattice searches minimize as
          ``"non-uniform-entropy"``): a suppressed tuple is withheld, so each of its cells costs
          as a ``*``, ``-log2(c_j(v) / n)`` (Gionis and Tassa: suppression is generalization to
          the whole domain), as it costs as the top in every other metric here;
        * ``"generalized"``: ARX's non-uniform entropy (``MetricMDNUEntropy``,
          ``MetricMDNUEntropyPrecomputed``), which does not charge suppression: a suppressed
          tuple costs what its generalization at the node costs, so the value depends on the
          node only. Defined for a global recoding only (a suppressed tuple of a local recoding
          has no generalization): ``ValueError`` naming ``suppressed`` otherwise. With
          suppressed tuples it is below the default by their suppression charge, e.g. on UCI
          Adult (9 QI, k = 5, at most 4 % suppressed) ARX's 255,559.85 against 267,793.35.

    References
    ----------
    de Waal and Willenborg, "Information loss through global recoding and local suppression",
    Netherlands Official Statistics 14, 1999. Gionis and Tassa, "k-Anonymization with Minimal
    Loss of Information", IEEE TKDE 21(2), 2009. Prasser, Kohlmayer et al., ARX
    (``MetricMDNUEntropyPrecomputed``).
    """
    check_instance(rec, Recoding, "rec")
    check_choice("suppressed", suppressed, ENTROPY_SUPPRESSION)
    charge_node = suppressed == "generalized" and rec.n_suppressed > 0
    if charge_node and rec.scheme != "global":
        raise ValueError(
            f"`suppressed`={suppressed!r} (ARX's non-uniform entropy) needs a global recoding: "
            f"the {rec.n_suppressed} suppressed tuples of this {rec.scheme} recoding have no "
            f"generalization"
        )
    counts = _counts(rec)
    n = rec.n_records
    codes = rec.table.codes
    total = 0.0
    for j, (d, c) in enumerate(zip(rec.domains, counts, strict=True)):
        if charge_node:  # every record at its cell, the suppressed ones' cells too
            cells, values = rec.cells[rec.suppressed, j], codes[rec.suppressed, j]
            if not np.all(d.covers(cells, values)):
                raise ValueError(
                    f"`suppressed`={suppressed!r}: the recoding's cells of suppressed tuples "
                    f"on attribute {rec.table.attributes[j]!r} do not cover their values"
                )
            c = c + np.bincount(cells, minlength=d.n_nodes)
        by_rank = np.bincount(d.order[codes[:, j]], minlength=d.n_values)
        cum = np.concatenate([[0], np.cumsum(by_rank)])
        cover = (cum[d.hi + 1] - cum[d.lo]).astype(float)
        used = c > 0  # a published node covers its records' values: cover >= 1
        total += float(c[used] @ np.log2(cover[used]))
        total -= _xlogx(by_rank) / np.log(2)
    if rec.n_suppressed and not charge_node:
        total += rec.n_suppressed * len(rec.domains) * float(np.log2(n))
    return float(total)


# ---------------------------------------------------------------------------------------------
# class metrics
# ---------------------------------------------------------------------------------------------
def discernibility(rec: Recoding) -> float:
    """Discernibility ``C_DM = sum_E |E|^2 + n |S|`` (Bayardo and Agrawal 2005).

    Every record is charged the size of its equivalence class; a suppressed tuple is charged
    ``n``. Classes are taken as published (a class smaller than ``k`` is charged ``|E|^2``,
    not ``n |E|``). O(n m + n log n).

    References
    ----------
    Bayardo and Agrawal, "Data Privacy through Optimal k-Anonymization", ICDE 2005.
    """
    ids, count = _classes(rec)
    sizes = np.bincount(ids[ids >= 0], minlength=count)
    return float(sizes @ sizes) + float(rec.n_records) * rec.n_suppressed


def average_class_size(rec: Recoding, k: int) -> float:
    """Normalized average equivalence class size ``C_avg = (n - |S|) / #classes / k``.

    LeFevre, DeWitt and Ramakrishnan (2006, §4); 1 means every class has exactly ``k`` records.
    NaN when every tuple is suppressed (no class). O(n m + n log n).

    References
    ----------
    LeFevre, DeWitt and Ramakrishnan, "Mondrian Multidimensional k-Anonymity", ICDE 2006.
    """
    k = check_int("k", k, low=1)
    _, count = _classes(rec)
    if count == 0:
        return float("nan")
    return (rec.n_records - rec.n_suppressed) / count / k


# ---------------------------------------------------------------------------------------------
# all at once
# ---------------------------------------------------------------------------------------------
def _ignoring_k(f: Callable[[Recoding], float]) -> Callable[..., float]:
    @functools.wraps(f)
    def metric(rec: Recoding, k: int | None = None) -> float:
        return f(rec)

    return metric


def _c_avg(rec: Recoding, k: int | None = None) -> float:
    return average_class_size(rec, k)  # type: ignore[arg-type]  # None is refused there


#: metric name -> ``f(rec, k=None) -> float``; only ``"c-avg"`` reads ``k`` (and requires it)
METRICS: dict[str, Callable[..., float]] = {
    "stars": _ignoring_k(stars),
    "generalization-cost": _ignoring_k(generalization_cost),
    "discernibility": _ignoring_k(discernibility),
    "c-avg": _c_avg,
    "ncp": _ignoring_k(ncp),
    "precision": _ignoring_k(precision),
    "non-uniform-entropy": _ignoring_k(non_uniform_entropy),
    "kl-divergence": _ignoring_k(kl_divergence),
}


#: metrics whose cost grows beyond the table's size (the KL-divergence sums over every class's
#: cells of the generalized domain: 17 s for Mondrian's classes of a 70,000 x 16 table), computed
#: only on request
COSTLY = ("kl-divergence",)

#: what a release reports unless asked for more: every metric but :data:`COSTLY`
DEFAULT_METRICS = tuple(name for name in METRICS if name not in COSTLY)


def check_metrics(metrics: Any, name: str = "metrics") -> tuple[str, ...]:
    """The metric names ``metrics`` asks for: None gives :data:`DEFAULT_METRICS`, ``"all"`` every
    one of :data:`METRICS`, else names of :data:`METRICS` (a list, or a comma-separated string);
    ``ValueError`` naming ``name`` and the first unknown one."""
    if metrics is None:
        return DEFAULT_METRICS
    if isinstance(metrics, str):
        if metrics.strip() == "all":
            return tuple(METRICS)
        metrics = [m.strip() for m in metrics.split(",") if m.strip()]
    names = list(metrics)
    for metric in names:
        check_choice(name, metric, tuple(METRICS))
    return tuple(dict.fromkeys(names))


def utility(
    rec: Recoding, k: int | None = None, metrics: str | Sequence[str] | None = None
) -> dict[str, float]:
    """The metrics ``metrics`` (names of :data:`METRICS`) of ``rec``, as ``{name: value}``.

    ``metrics=None`` computes all of them, except ``"c-avg"`` when ``k`` is ``None``. A name not
    in :data:`METRICS` raises ``ValueError`` naming ``metrics``; ``"c-avg"`` without ``k`` raises
    ``ValueError`` naming ``k``. The grouping into classes and the node counts are computed once.
    """
    check_instance(rec, Recoding, "rec")
    if metrics is None:
        names = [name for name in METRICS if k is not None or name != "c-avg"]
    else:
        names = [metrics] if isinstance(metrics, str) else list(metrics)
        for name in names:
            check_choice("metrics", name, METRICS)
    return {name: METRICS[name](rec, k) for name in names}


def published_recoding(instance: Any, solution: Any) -> Recoding:
    """What a solution of ``instance`` publishes: the recoding it returned
    (``solution.info["recoding"]``: Samarati, Incognito, Mondrian, ...) or else its partition's
    local recoding (:meth:`Recoding.from_partition`)."""
    rec = (solution.info or {}).get("recoding")
    if rec is None:
        rec = Recoding.from_partition(instance, solution.labels, method=solution.algorithm)
    return rec


def _of_solution(name: str) -> Callable[[Any, Any], float]:
    def metric(instance: Any, solution: Any) -> float:
        return METRICS[name](published_recoding(instance, solution), k=instance.k)

    metric.__doc__ = f"``{name}`` of what the solution publishes (:func:`published_recoding`)."
    return metric


#: metric name -> ``f(instance, solution) -> float`` of a k-anonymity run's published table: the
#: metrics a run reports on request (``utility=`` of the runner, ``--utility`` of ``solve``)
SOLUTION_METRICS: dict[str, Callable[[Any, Any], float]] = {
    name: _of_solution(name) for name in METRICS
}
