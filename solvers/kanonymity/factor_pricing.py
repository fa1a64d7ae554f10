"""Exact factors of large graphs: candidate edges, proven optimal on all edges by pricing.

The factor ILP (:mod:`anonratio.solvers.kanonymity.factor_ilp`) is solved on a candidate edge set
S (nearest neighbours, a greedy tour, LP column generation); with the LP duals ``y``, any factor
using an edge ``f`` costs at least ``D(y) + rc_f`` (weak duality, valid for every ``y``), so edges
failing ``D(y) + rc_f >= z_S`` join S and the ILP is solved again until none does.
:mod:`anonratio.solvers.kanonymity.min_weight_factor` describes the method.
"""

import time

import highspy
import numpy as np

from anonratio.solvers.kanonymity.factor_ilp import _abs_gap, _highs, _mip

__all__ = []

#: nearest neighbours per vertex in the first candidate edge set of the priced scheme
_NEIGHBOURS = 8


def _priced(cost, finite, n, iu, ju, c, lower, upper, deadline, seed):
    """Exact factor through candidate edges S, proven optimal on all edges by pricing.

    For any duals y and any factor x with ``x_f = 1``, ``rc_f = c_f - y_u - y_v > 0``:
    ``c·x >= D(y) + rc_f`` with ``D(y) = sum_v min(y_v lower, y_v upper) + sum_e min(0, rc_e)``.
    So when every edge f outside S has ``D + rc_f >= z_S``, the optimum z_S over S is optimal.
    """
    sel = np.zeros(len(c), dtype=bool)
    q = min(_NEIGHBOURS, n - 1)
    nb = np.argpartition(np.where(np.eye(n, dtype=bool), np.inf, cost), q - 1, axis=1)[:, :q]
    rows = np.repeat(np.arange(n), nb.shape[1])
    sel[_edge_ids(n, rows, nb.ravel())] = True
    order = _greedy_tour(cost)
    tour = _edge_ids(n, order, np.roll(order, -1))
    sel[tour] = True
    sel &= finite
    # best known factor: the tour (a Hamiltonian cycle), when it is one
    best = tour if n >= 3 and lower <= 2 <= upper and np.all(finite[tour]) else None
    y = _lp_duals(sel, n, iu, ju, c, finite, lower, upper, deadline, seed)
    rc = np.where(finite, c - y[iu] - y[ju], np.inf)
    d_bound = float(np.sum(np.minimum(y * lower, y * upper)) + np.minimum(rc[finite], 0).sum())
    while True:
        ids, label, bound = _mip(
            np.flatnonzero(sel), n, iu, ju, c, lower, upper, deadline, seed, start=best
        )
        if ids is not None and (best is None or c[ids].sum() <= c[best].sum()):
            best = ids
        outside = finite & ~sel
        if label == "infeasible" and not outside.any():
            return None, "infeasible", np.inf
        if label == "infeasible":  # S holds no factor (missing edges): take every edge
            sel = finite.copy()
            continue
        # the best factor using an edge outside S costs at least d_bound + min rc+
        out_bound = d_bound + max(float(np.min(rc[outside], initial=np.inf)), 0.0)
        bound = max(d_bound, min(bound, out_bound))
        if label != "optimal":
            return best, label, bound
        z = float(c[ids].sum())
        bad = outside & (d_bound + rc < z - _abs_gap(c))
        if not bad.any():
            return ids, "optimal", min(z, bound)
        sel |= bad


def _edge_ids(n, a, b):
    """Index of edge {a, b} (a != b) in ``np.triu_indices(n, 1)`` order."""
    i, j = np.minimum(a, b), np.maximum(a, b)
    return i * n - i * (i + 1) // 2 + (j - i - 1)


def _greedy_tour(cost):
    """A nearest-neighbour Hamiltonian tour (vertex order); O(n²)."""
    n = cost.shape[0]
    free = np.ones(n, dtype=bool)
    tour = np.empty(n, dtype=np.int64)
    cur = 0
    for t in range(n):
        tour[t] = cur
        free[cur] = False
        if t + 1 < n:
            cand = np.flatnonzero(free)
            cur = cand[np.argmin(cost[cur, cand])]
    return tour


def _lp_duals(sel, n, iu, ju, c, finite, lower, upper, deadline, seed):
    """Row duals of the LP relaxation on all edges, by column generation from ``sel``.

    Adds to ``sel`` (in place) the edges of most negative reduced cost, at most ``2n`` a round,
    until none is negative (or the deadline passes: any duals still give valid bounds).
    """
    ids = np.flatnonzero(sel)
    h = _highs(n, iu, ju, c, ids, lower, upper, deadline, seed, integer=False)
    while True:
        h.run()
        y = np.asarray(h.getSolution().row_dual, dtype=float)
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal or len(y) != n:
            return np.zeros(n)
        rc = np.where(finite & ~sel, c - y[iu] - y[ju], np.inf)
        new = np.flatnonzero(rc < -1e-9)
        if len(new) == 0 or deadline is not None and time.perf_counter() > deadline:
            return y
        new = new[np.argsort(rc[new], kind="stable")[: 2 * n]]
        sel[new] = True
        k = len(new)
        h.addCols(
            k,
            c[new],
            np.zeros(k),
            np.ones(k),
            2 * k,
            np.arange(0, 2 * k, 2, dtype=np.int32),
            np.column_stack([iu[new], ju[new]]).ravel().astype(np.int32),
            np.ones(2 * k),
        )
