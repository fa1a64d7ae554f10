"""FOREST + DECOMPOSE-COMPONENT: k-anonymity within ``max(2k − 1, 3k − 5)`` of the optimum.

Aggarwal et al. (2005, §4). The records are the vertices of a complete graph whose edge ``(a, b)``
weighs ``w(a, b) = sum_j w_j h_ab(j) / l_j`` (``h_ab(j)``: the lowest level at which ``a`` and
``b`` coincide on attribute ``j``).

1. FOREST (§4.1) grows a directed forest: while some tree has fewer than ``k`` vertices, its
   vertex without an outgoing edge (the sink) points to one of its ``k − 1`` nearest neighbours
   outside the tree — here the nearest such one. Every vertex pays for at most one edge, no longer
   than its distance to its ``(k − 1)``-th nearest neighbour, which it pays in any solution:
   the forest weighs at most OPT (Lemma 3).
2. DECOMPOSE-COMPONENT (§4.2, :mod:`anonratio.solvers.kanonymity.decompose_component`) cuts every
tree into parts of
   ``k .. L = max(2k − 1, 3k − 5)`` records, using Steiner vertices, without adding edge weight.

A part costs at most its size times its edge weight (the path between two records bounds every
attribute's level), so the cost is at most ``L · OPT`` (Theorem 5). Attribute weights scale the
edges and change nothing else; with row deletion no edge weighs more than deleting a row, so the
forest still weighs at most the optimum with deletion, and the algorithm never deletes (§4).

Identical records are collapsed first: a unique record with ``c`` copies is one vertex carrying
``c`` records at distance 0. FOREST starts from it as a tree of ``c`` vertices (its copies are
each other's nearest neighbours), so a record with ``c >= k`` copies needs no edge, and its sink
looks for the ``(k − c)``-th nearest other record, counting copies. DECOMPOSE-COMPONENT may hand a
vertex's copies to several parts (a record with ``c >= 2k`` copies and nothing attached becomes
``c // k`` parts of cost 0).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.kanonymity.instance import kanonymity_lower_bound
from anonratio.instances.validation import check_instance, check_seed
from anonratio.solvers.kanonymity.decompose_component import (
    Decomposition,
    decompose_forest,
    max_component_size,
)
from anonratio.solvers.kanonymity.group_objective import generalization_cost, member_levels

__all__ = ["forest", "forest_guarantee", "build_forest"]

ALGORITHM = "forest"


def forest_guarantee(instance: KAnonymityInstance, solution: Solution | None = None) -> int:
    """Proven ratio of :func:`forest` on ``instance``: ``max(2k − 1, 3k − 5)`` (3 for k = 2, 5
    for k = 3).

    Holds for suppression and generalization, attribute weights and row deletion (Aggarwal et al.
    2005, Theorem 5 and the remarks after it).
    ``solution`` is not needed: the ratio is known before the run.
    """
    return max_component_size(instance.k)


# ---------------------------------------------------------------------------------------------
# FOREST
# ---------------------------------------------------------------------------------------------
def build_forest(
    counts: Sequence[int] | np.ndarray, index: np.ndarray, dist: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm FOREST (Aggarwal et al. 2005, §4.1) on unique records with multiplicities.

    Parameters
    ----------
    counts : ndarray of int, shape (u,)
        Copies of each unique record.
    index, dist : ndarray, shape (u, q)
        Nearest other unique records, nearest first (``q = min(k − 1, u − 1)``).
    k : int

    Returns
    -------
    parent : ndarray of int64, shape (u,)
        The outgoing edge of each vertex (``-1`` for a tree's sink): a rooted forest.
    weight : ndarray of float64, shape (u,)
        Its weight (0 for sinks). ``weight.sum() <= OPT`` (Lemma 3).

    Notes
    -----
    Trees are grown in the order of their records; a sink ``x`` with ``c`` copies may point to
    the unique records among its nearest up to the ``(k − c)``-th other record counted with
    copies, and points to the first of them outside its tree. O(u k α(u)) time.
    """
    counts = np.asarray(counts, dtype=np.int64)
    u = len(counts)
    parent = np.full(u, -1, dtype=np.int64)
    weight = np.zeros(u)
    if u == 1 or index.shape[1] == 0:
        return parent, weight
    need = np.maximum(k - counts, 1)
    reach = np.cumsum(counts[index], axis=1)
    allowed = (np.argmax(reach >= need[:, None], axis=1) + 1).tolist()
    nbr, nd = index.tolist(), dist.tolist()
    uf, size, sink = list(range(u)), counts.tolist(), list(range(u))

    def find(x):
        while uf[x] != x:
            uf[x] = uf[uf[x]]
            x = uf[x]
        return x

    for r in range(u):
        root = find(r)
        while size[root] < k:
            s = sink[root]
            for j in range(allowed[s]):
                other = find(nbr[s][j])
                if other != root:
                    break
            else:  # pragma: no cover - the copies counted in `allowed` exceed the tree
                raise RuntimeError("FOREST found no neighbour outside a small tree")
            parent[s], weight[s] = nbr[s][j], nd[s][j]
            new_sink, merged = sink[other], size[root] + size[other]
            uf[root] = other
            size[other], sink[other] = merged, new_sink
            root = other
    return parent, weight


# ---------------------------------------------------------------------------------------------
# public entry point
# ---------------------------------------------------------------------------------------------
def _forest_iv(instance: Any, seed: Any) -> int | None:
    check_instance(instance, KAnonymityInstance)
    return check_seed(seed)


def forest(
    instance: KAnonymityInstance, *, seed: int | np.random.Generator | None = None
) -> Solution:
    """k-anonymity by FOREST + DECOMPOSE-COMPONENT: cost <= max(2k − 1, 3k − 5) · OPT.

    The guarantee holds for any alphabet, suppression or generalization hierarchies, attribute
    weights, and with row deletion against the optimum that may delete (Aggarwal et al. 2005,
    Theorem 5). Every group has between ``k`` and ``max(2k − 1, 3k − 5)`` records; no record is
    deleted.

    Parameters
    ----------
    instance : KAnonymityInstance
    seed : int, numpy.random.Generator or None
        Recorded only: the algorithm is deterministic (ties go to the smaller record index).

    Returns
    -------
    Solution
        ``status="feasible"``, ``objective`` the cost of the parts, computed from the unique records
        and the size of each (the verifier recomputes it from the labels), ``lower_bound`` the
        nearest-neighbour bound (each record pays its distance to its (k−1)-th nearest other
        record). ``info`` holds ``forest_weight`` (FOREST's edge weight, at most OPT by Lemma 3 —
        not a lower bound), ``cost_bound`` (sum over groups of size × edge weight, which bounds the
        cost), ``max_component`` and ``min_component`` (group sizes), ``n_components``,
        ``n_steiner`` (Steiner vertices used), ``n_trees``, ``n_unique``, ``cases`` (how often
        DECOMPOSE-COMPONENT's cases A–D and the star peel cut a group) and ``guarantee``.

    Raises
    ------
    TypeError
        If ``instance`` is not a :class:`~anonratio.instances.KAnonymityInstance`.
    ValueError
        If ``seed`` is not None, a non-negative integer or a numpy Generator.

    Notes
    -----
    The exact nearest-neighbour search (:mod:`anonratio.instances.kanonymity.neighbors`) takes
    O(u² m) in the worst case for u unique records of m attributes, much less on real tables;
    FOREST and DECOMPOSE-COMPONENT take O(u k α(u)) and O(u log u); O(n + u k) memory. Cases
    A, C and D are the paper's; the paper's literal C and D can leave a component around a
    Steiner vertex that no split repairs (k = 4, a star with branches 3, 3, 3, 2), so they are
    used only where that cannot happen and a star is otherwise peeled keeping its centre real;
    see
    :mod:`anonratio.solvers.kanonymity.decompose_component`.

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, R. Motwani, R. Panigrahy, D. Thomas, A. Zhu.
    Approximation Algorithms for k-Anonymity. Journal of Privacy Technology, 2005, §4.

    Examples
    --------
    >>> import numpy as np
    >>> from anonratio.instances import KAnonymityInstance, Table
    >>> codes = np.random.default_rng(0).integers(0, 3, (12, 3))
    >>> table = Table(codes, ("a", "b", "c"), (("0", "1", "2"),) * 3)
    >>> instance = KAnonymityInstance(table, 3)
    >>> sol = forest(instance, seed=0)
    >>> sol.status, 3 <= sol.info["max_component"] <= forest_guarantee(instance)
    ('feasible', True)
    """
    seed = _forest_iv(instance, seed)
    start = time.perf_counter()
    k = instance.k
    unique, inverse, counts = instance.unique_records
    index, dist = instance.neighbor_table(k - 1)  # shared with the lower bound of the run
    parent, weight = build_forest(counts, index, dist, k)
    dec = decompose_forest(parent.tolist(), counts.tolist(), k)
    labels = _record_labels(dec, inverse, counts)
    objective = _parts_cost(instance, dec, unique)
    return Solution(
        labels,
        ALGORITHM,
        params=instance.params,
        seed=seed,
        status="feasible",
        objective=objective,
        lower_bound=kanonymity_lower_bound(instance),
        time_s=time.perf_counter() - start,
        info=_forest_info(dec, parent, weight, k),
    )


def _record_labels(dec: Decomposition, inverse: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Part of every record: its unique record's part, the copies of a spread vertex in turn."""
    labels = np.asarray(dec.labels, dtype=np.int64)[inverse]
    if dec.spread:  # hand the copies of a vertex to its parts
        rows = np.argsort(inverse, kind="stable")
        first = np.concatenate([[0], np.cumsum(counts)])
        for x, placed in dec.spread.items():
            at = first[x]
            for part, c in placed:
                labels[rows[at : at + c]] = part
                at += c
    sizes = np.asarray(dec.sizes, dtype=np.int64)
    if not np.array_equal(np.bincount(labels, minlength=len(sizes)), sizes):
        raise RuntimeError("DECOMPOSE-COMPONENT lost track of a record; please report this")
    return labels


def _parts_cost(instance: KAnonymityInstance, dec: Decomposition, unique: np.ndarray) -> float:
    """The cost of the parts from the decomposition: the unique records each part holds copies
    of (its vertices, and the parts a spread vertex's copies went to) and the part sizes."""
    group = [np.asarray(dec.labels, dtype=np.int64)]
    rows = [np.arange(len(dec.labels), dtype=np.int64)]
    for x, placed in dec.spread.items():
        group.append(np.array([part for part, _ in placed], dtype=np.int64))
        rows.append(np.full(len(placed), x, dtype=np.int64))
    levels = member_levels(
        instance, np.concatenate(group), np.concatenate(rows), len(dec.sizes), codes=unique
    )
    return generalization_cost(instance, dec.sizes, levels)


def _forest_info(
    dec: Decomposition, parent: np.ndarray, weight: np.ndarray, k: int
) -> dict[str, Any]:
    """The run's ``info``: forest weight, the cost bound, part statistics and the cases used."""
    sizes = np.asarray(dec.sizes, dtype=np.int64)
    edge_part = np.asarray(dec.edge_part, dtype=np.int64)
    owned = edge_part >= 0
    part_weight = np.bincount(edge_part[owned], weights=weight[owned], minlength=len(sizes))
    return {
        "forest_weight": float(weight.sum()),
        "cost_bound": float(sizes @ part_weight),
        "max_component": int(sizes.max()),
        "min_component": int(sizes.min()),
        "n_components": len(sizes),
        "n_steiner": len(dec.steiner),
        "n_trees": int(np.count_nonzero(parent < 0)),
        "n_unique": len(parent),
        "cases": {c: int(dec.cases.get(c, 0)) for c in ("A", "B", "C", "D", "peel")},
        "guarantee": max_component_size(k),
    }
