"""Matching: optimal l-diversity for two sensitive values (Xiao, Yi and Tao, EDBT 2010, §4).

With ``m = 2`` sensitive values the problem is a minimum-cost perfect bipartite matching:

* ``m = 2`` forces ``l = 2`` and equal counts. A table of ``n`` records with two values has
  ``h(T) >= n / 2``, so ``l h(T) <= n`` needs ``l <= 2``; with ``l = 2`` it needs ``h(T) = n / 2``:
  both values occur ``n / 2`` times, and so does each value in every 2-eligible group.
* Pairs suffice (§4): a 2-eligible group ``S`` splits into ``|S| / 2`` pairs of one record of
  each value; a pair differs on a subset of the attributes ``S`` differs on, so the pairs carry
  at most ``|S| x (attributes not constant on S)`` stars, and suppress at most ``|S|`` tuples.
  Optimal partitions are therefore perfect matchings between ``T1`` and ``T2`` (the records of
  either value), a pair ``(t, t')`` costing ``2 x hamming(t, t')`` stars and ``2 [t != t']``
  tuples.
* Equal records pair first: both costs are metrics on QI vectors, so in a minimum matching two
  records of opposite values with identical QI values can be matched to each other (if
  ``a ~ b'`` and ``b ~ a'`` with ``a, b`` identical, ``a ~ b``, ``a' ~ b'`` costs at most as much
  by the triangle inequality). Each QI-group ``Q`` then keeps ``min(c_Q(1), c_Q(2))`` pairs at no
  cost and is left with ``|c_Q(1) - c_Q(2)|`` records of one value.
* The rest is a transportation problem between QI-groups with a surplus of the first value and
  QI-groups with a surplus of the second, with costs ``2 x hamming``. It is solved as a min-cost
  flow over the QI-groups (OR-Tools' network simplex; integral), or, when that graph would have
  more than :data:`MAX_ARCS` arcs (many QI-groups, few records each), as an assignment problem
  over the leftover records (``scipy.optimize.linear_sum_assignment``).

Every leftover record lies in a different QI-group from its partner, so every leftover pair costs
``2`` tuples whichever matching is chosen: the star-optimal matching is tuple-optimal too, and one
run solves both objectives. The zero-cost pairs of each QI-group are published as one group.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from anonratio.instances import Solution, verify
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.ldiversity import LDiversityInstance, LDiversityVerification
from anonratio.instances.validation import check_instance, check_seed

__all__ = ["matching", "needs_two_values", "MAX_ARCS"]

#: the largest QI-group graph solved as a min-cost flow; beyond it, records are assigned
MAX_ARCS = 4_000_000


def needs_two_values(instance: Any) -> str | None:
    """A ``requires`` check: ``None`` when the table has exactly two sensitive values, else why
    :func:`matching` cannot run on it."""
    m = instance.m
    return None if m == 2 else f"needs m=2 sensitive values, got m={m}"


def _hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(len(a), len(b))`` numbers of differing attributes between the rows of ``a`` and ``b``."""
    out = np.zeros((a.shape[0], b.shape[0]), dtype=np.int64)
    for j in range(a.shape[1]):
        out += a[:, j, None] != b[None, :, j]
    return out


def _flow(cost: np.ndarray, supply: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """Optimal transportation ``(len(supply), len(demand))`` flows, by min-cost flow."""
    from ortools.graph.python import min_cost_flow

    p, q = cost.shape
    tail = np.repeat(np.arange(p), q)
    head = p + np.tile(np.arange(q), p)
    capacity = np.minimum(supply[:, None], demand[None, :]).ravel()
    solver = min_cost_flow.SimpleMinCostFlow()
    arcs = solver.add_arcs_with_capacity_and_unit_cost(tail, head, capacity, cost.ravel())
    solver.set_nodes_supplies(np.arange(p + q), np.concatenate([supply, -demand]))
    status = solver.solve()
    if status != solver.OPTIMAL:  # balanced, uncapacitated in effect: cannot happen
        raise RuntimeError(f"min-cost flow failed with status {status}")
    return solver.flows(arcs).reshape(p, q)


def _assign(cost: np.ndarray, supply: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """The same transportation, as an assignment over the records (one row per unit)."""
    rows = np.repeat(np.arange(supply.size), supply)
    cols = np.repeat(np.arange(demand.size), demand)
    r, c = linear_sum_assignment(cost[np.ix_(rows, cols)])
    flows = np.zeros(cost.shape, dtype=np.int64)
    np.add.at(flows, (rows[r], cols[c]), 1)
    return flows


def transport(
    cost: np.ndarray, supply: np.ndarray, demand: np.ndarray, *, max_arcs: int = MAX_ARCS
) -> np.ndarray:
    """Minimum-cost integral flows from ``supply`` to ``demand`` (equal totals) over ``cost``."""
    if cost.size <= max_arcs:
        return _flow(cost, supply, demand)
    return _assign(cost, supply, demand)


def _pair_by_group(groups_a: np.ndarray, groups_b: np.ndarray, flows: np.ndarray) -> np.ndarray:
    """Pair ids for the leftover records of either side from the group flows.

    ``groups_a`` / ``groups_b``: group (row / column of ``flows``) of each leftover record of the
    first / second value. Returns ``(pair_a, pair_b)`` stacked: pair id of each record.
    """
    nz_p, nz_q = np.nonzero(flows)  # row-major: pairs sorted by row group
    f = flows[nz_p, nz_q]
    pair_p = np.repeat(nz_p, f)
    pair_q = np.repeat(nz_q, f)
    pair_a = np.empty(groups_a.size, dtype=np.int64)
    pair_b = np.empty(groups_b.size, dtype=np.int64)
    pair_a[np.argsort(groups_a, kind="stable")] = np.argsort(pair_p, kind="stable")
    pair_b[np.argsort(groups_b, kind="stable")] = np.argsort(pair_q, kind="stable")
    return np.stack([pair_a, pair_b])


def matching_labels(
    instance: LDiversityInstance, *, max_arcs: int = MAX_ARCS
) -> tuple[np.ndarray, dict[str, Any]]:
    """Labels of an optimal partition of a two-value table, and details of the matching."""
    s = instance.sensitive
    values = np.unique(s)
    if values.size != 2:
        raise UnsupportedInstanceError(
            f"matching solves tables with m = 2 sensitive values only, got m = {values.size}"
        )
    side = (s == values[1]).astype(np.int64)
    q = instance.qi_group
    g = int(q.max()) + 1
    counts = np.bincount(q * 2 + side, minlength=2 * g).reshape(g, 2)
    keep = counts.min(axis=1)  # zero-cost pairs of each QI-group
    # rank of each record among the records of its QI-group with its value
    order = np.lexsort((side, q))
    key = q[order] * 2 + side[order]
    start = np.searchsorted(key, key, side="left")
    rank = np.empty(s.size, dtype=np.int64)
    rank[order] = np.arange(s.size) - start
    leftover = rank >= keep[q]
    labels = q.copy()  # the zero-cost pairs of a QI-group form one group
    info: dict[str, Any] = {
        "n_qi_groups": g,
        "zero_cost_pairs": int(keep.sum()),
        "leftover_pairs": int(np.count_nonzero(leftover)) // 2,
        "transport": "none",
    }
    if leftover.any():
        surplus = counts[:, 0] - counts[:, 1]
        gp, gn = np.flatnonzero(surplus > 0), np.flatnonzero(surplus < 0)
        codes = np.asarray(instance.table.codes)
        rep = np.empty(g, dtype=np.int64)
        rep[q] = np.arange(s.size)  # a record of each QI-group
        cost = 2 * _hamming(codes[rep[gp]], codes[rep[gn]])
        flows = transport(cost, surplus[gp], -surplus[gn], max_arcs=max_arcs)
        info["transport"] = "min-cost flow" if cost.size <= max_arcs else "assignment"
        info["leftover_stars"] = int((flows * cost).sum())
        row = np.full(g, -1, dtype=np.int64)
        row[gp] = np.arange(gp.size)
        col = np.full(g, -1, dtype=np.int64)
        col[gn] = np.arange(gn.size)
        ia = np.flatnonzero(leftover & (side == 0))
        ib = np.flatnonzero(leftover & (side == 1))
        pair = _pair_by_group(row[q[ia]], col[q[ib]], flows)
        labels[ia] = g + pair[0]
        labels[ib] = g + pair[1]
    _, labels = np.unique(labels, return_inverse=True)
    return labels.reshape(-1).astype(np.int64), info


def matching(instance: LDiversityInstance, *, seed: Any = None) -> Solution:
    """Optimal l-diversity of a table with two sensitive values, by bipartite matching.

    Parameters
    ----------
    instance : LDiversityInstance
        A table with exactly ``m = 2`` distinct sensitive values (so ``l = 2``); either
        objective.
    seed : int or None
        Recorded only: the algorithm is deterministic.

    Returns
    -------
    Solution
        ``algorithm="matching"``, ``status="optimal"`` with ``lower_bound == objective`` (the
        instance's objective: stars or suppressed tuples). ``info``: ``stars``,
        ``suppressed_tuples``, ``n_groups``, ``n_qi_groups``, ``zero_cost_pairs``,
        ``leftover_pairs``, ``transport`` (how the leftover records were matched),
        ``leftover_stars``.

    Raises
    ------
    UnsupportedInstanceError
        The table does not have exactly two sensitive values.

    Notes
    -----
    Guarantee: optimal for both objectives at once (module docstring: pairs suffice, equal
    records pair first, leftover pairs all cost 2 tuples). Assumes ``m = 2``. Complexity: ``O(n d
    + g log g)`` to pair equal records and set up, plus a min-cost flow over the ``g+ x g-``
    QI-groups with a surplus of either value (polynomial; or an ``O(r^3)`` assignment over the
    ``r`` leftover pairs when that graph exceeds :data:`MAX_ARCS` arcs). Measured on ``n =
    10,000`` random records: 0.03 s with 27 QI-groups (d = 3, 3 values each), 3 to 6 s when
    most records are distinct (d = 6 to 8, 10 to 20 values; the assignment path).

    References
    ----------
    X. Xiao, K. Yi, Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity",
    EDBT 2010, §4 (the m = 2 case: 2-diverse pairs and minimum perfect bipartite matching).

    Examples
    --------
    >>> from anonratio.instances import Table
    >>> t = Table([[0, 0], [0, 1], [1, 1], [1, 1]], ["a", "b"], [["x", "y"]] * 2,
    ...           sensitive=[0, 1, 0, 1], sensitive_values=["flu", "cold"])
    >>> sol = matching(LDiversityInstance(t, 2))
    >>> sol.status, sol.objective, sol.labels.tolist()
    ('optimal', 2.0, [1, 1, 0, 0])
    """
    t0 = perf_counter()
    check_instance(instance, LDiversityInstance)
    recorded = check_seed(seed)
    labels, info = matching_labels(instance)
    check = verify(instance, labels)
    # strict verification: the labels are feasible, so the cost is set
    assert isinstance(check, LDiversityVerification) and check.cost is not None
    info.update(stars=check.stars, suppressed_tuples=check.suppressed_tuples)
    info["n_groups"] = check.n_groups
    return Solution(
        labels=labels,
        algorithm="matching",
        params=dict(instance.params),
        seed=recorded,
        status="optimal",
        objective=float(check.cost),
        lower_bound=float(check.cost),
        gap=0.0,
        time_s=perf_counter() - t0,
        info=info,
    )
