"""Every k-anonymity group of small reduced cost, enumerated box by box over the lattice.

The exact rounds (:mod:`anonratio.exact.kanonymity.set_partitioning`) need every group ``G`` of
``k .. 2k − 1`` copies with ``rc_G = |G| p(G) − y(G) <= delta`` at dual-feasible prices ``y``.
A group lies in the box of its own levels ``L(G)`` (:mod:`~anonratio.exact.kanonymity.box_pricing`),
where its cost is ``|G| p_L``; so, inside one box ``B`` of node ``L``,

    rc_G = sum_{i in G} w_i,   w_i = p_L − y_i,

and enumerating the groups of ``B`` with ``rc <= delta`` is a knapsack enumeration over the
box's copies sorted by ``w`` (decreasing price): a partial group of ``s`` copies, the last at
position ``q``, needs at least the next ``k − s`` copies after ``q`` to become a group, so it
grows only while its sum plus theirs stays ``<= delta``. The bound is exact, unlike pairwise
pruning, so the search visits few dead ends. A box whose ``k`` cheapest copies (its slack) already
exceed ``delta`` is skipped, and a node whose ``k p_L`` minus the ``k`` largest prices does too.

Groups found in a box above their own (a subset may coincide at lower levels) are kept with their
exact cost; the union over all boxes holds every group of ``rc <= delta``, each once.

Cost: one sort per lattice node swept plus the output, ``O(N_L u log u + groups · k)``.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter

import numpy as np

from anonratio.exact.kanonymity.box_pricing import BoxLattice, _Boxes, _canonical_rows

__all__ = ["box_groups"]

#: slack of the pruning tests, in cost units (the prices are dual feasible up to rounding)
_EPS = 1e-9


class Timeout(Exception):
    """The deadline passed during the enumeration."""


def box_groups(
    lattice: BoxLattice,
    y: np.ndarray,
    threshold: float,
    *,
    max_columns: int = 1_000_000,
    deadline: float | None = None,
    penalty: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Every group of ``k .. 2k − 1`` copies with reduced cost ``<= threshold`` at ``y``.

    Parameters
    ----------
    lattice : BoxLattice
    y : ndarray, shape (u,)
        Dual-feasible prices per copy (in the lattice's cost units): every group has
        ``rc >= 0``. The pruning relies on it only through ``min(0, w)`` terms, so prices
        slightly infeasible by rounding lose no group.
    threshold : float
        Largest reduced cost kept.
    max_columns : int
        Groups found at most; past it the enumeration stops and reports it.
    deadline : float, optional
        A ``perf_counter`` reading.
    penalty : callable, optional
        A cost added to each group's reduced cost: ``penalty(members)`` for groups given as
        rows of unique-record ids (repeats for copies), ``>= 0`` and never smaller for a
        group than for any of its subsets (the subset-row cuts' prices,
        :meth:`~anonratio.exact.kanonymity.subset_row.SubsetRowCuts.penalty`). Partial groups
        are pruned by their penalty too.

    Returns
    -------
    members : ndarray of int64, shape (N, 2k − 1)
        The groups, ascending unique-record ids with repeats for copies, padded with -1, unique.
    rc : ndarray, shape (N,)
        Their exact reduced costs (``penalty`` included).
    exhaustive : bool
        False when ``max_columns`` stopped the enumeration (``members`` then holds part of the
        groups).

    Raises
    ------
    Timeout
        When ``deadline`` passes.
    """
    y = np.asarray(y, dtype=float)
    k, width, u = lattice.k, lattice.width, lattice.u
    perm, ys, cs, top_k = lattice.by_price(y)  # decreasing price: increasing w in every box
    if top_k is None:
        return np.zeros((0, width), np.int64), np.zeros(0), True
    thr = threshold + _EPS
    keys = lattice._keys(perm)
    found, n_found = [], 0
    for node, p in zip(lattice.nodes, lattice.node_cost, strict=True):
        if k * p - top_k > thr:
            continue  # every box of this node has a larger slack
        if deadline is not None and perf_counter() > deadline:
            raise Timeout
        key = lattice._node_key(keys, node, u)
        order = np.argsort(key, kind="stable")
        box = _Boxes(key[order], ys[order], cs[order])
        box.keep(box.total >= k)
        box.keep(k * p - box.top(np.full(len(box.start), k)) <= thr)
        if not len(box.start):
            continue
        copies = _box_copies(box, order, perm, cs, ys, float(p))
        for groups in _grow(copies, k, width, thr, penalty):
            found.append(groups)
            n_found += len(groups)
            if n_found > max_columns:
                return _finish(lattice, y, found, width, thr, penalty, exhaustive=False)
    return _finish(lattice, y, found, width, thr, penalty, exhaustive=True)


def _box_copies(box, order, perm, cs, ys, p):
    """The copies of the selected boxes, box by box in increasing ``w``: ``(record, w, box,
    first copy of its record, end of its box)``."""
    n_rec = box.end - box.start
    box_of = np.repeat(np.arange(len(n_rec)), n_rec)
    pos = np.arange(n_rec.sum()) - np.repeat(np.cumsum(n_rec) - n_rec, n_rec)
    rows = order[pos + np.repeat(box.start, n_rec)]
    rec = np.repeat(perm[rows], cs[rows])
    w = np.repeat(p - ys[rows], cs[rows])
    cbox = np.repeat(box_of, cs[rows])
    first = np.r_[True, (rec[1:] != rec[:-1]) | (cbox[1:] != cbox[:-1])]
    end = np.searchsorted(cbox, np.arange(len(n_rec)), side="right")[cbox]
    return rec, w, cbox, first, end


def _grow(copies, k, width, thr, penalty=None):
    """Yield the groups (member rows) of ``rc <= thr`` among the copies, size by size.

    A partial group is its members and the position ``last`` of its last copy; a child adds a
    copy at ``q > last`` (a record's later copies only right after its earlier one, so each
    multiset is grown once). With ``w`` increasing in a box, the cheapest completion of a child
    to ``k`` copies takes the next copies after ``q``; extra copies beyond ``k`` add at least
    ``min(0, w_q)`` each. A ``penalty`` (monotone in the group) adds the partial group's own.
    """
    rec, w, cbox, first, end = copies
    n = len(w)
    pre = np.r_[0.0, np.cumsum(w)]
    big = 4.0 * (np.abs(w).sum() + abs(thr) + 1.0)
    q_all = np.arange(n)
    last = np.flatnonzero(first)
    total = w[last]
    members = rec[last][:, None]
    pen = 0.0 if penalty is None else np.zeros(len(last))  # one copy meets no cut twice
    for s in range(1, width + 1):
        if s >= k:
            keep = total + pen <= thr
            yield members[keep]
        if s == width:
            return
        # the children's cheapest completion, per position q (increasing with q in a box)
        need = max(0, k - s - 1)
        stop = q_all + need
        tail = np.where(stop < end, pre[np.minimum(stop, n - 1) + 1] - pre[q_all + 1], np.inf)
        extra = (width - max(s + 1, k)) * np.minimum(0.0, w)
        least = np.minimum(w + tail + extra, big / 2)
        key = cbox * big + least  # sorted: by box, then increasing within a box
        hi = np.searchsorted(key, cbox[last] * big + (thr - total - pen), side="right")
        lo = last + 1
        n_kids = np.maximum(0, np.minimum(hi, end[last]) - lo)
        if not n_kids.sum():
            return
        parent = np.repeat(np.arange(len(last)), n_kids)
        q = np.arange(n_kids.sum()) - np.repeat(np.cumsum(n_kids) - n_kids, n_kids)
        q += np.repeat(lo, n_kids)
        ok = first[q] | (q == last[parent] + 1)
        parent, q = parent[ok], q[ok]
        members = np.column_stack([members[parent], rec[q]])
        least_child = total[parent] + least[q]
        total, last = total[parent] + w[q], q
        if penalty is not None:
            pen = penalty(members)
            keep = least_child + pen <= thr
            members, total, last, pen = members[keep], total[keep], last[keep], pen[keep]


def _finish(lattice, y, found, width, thr, penalty, *, exhaustive):
    """Unique padded rows with their exact reduced costs ``<= thr``."""
    rows = [np.pad(g, ((0, 0), (0, width - g.shape[1])), constant_values=-1) for g in found]
    if not rows:
        return np.zeros((0, width), np.int64), np.zeros(0), exhaustive
    members = np.unique(_canonical_rows(np.concatenate(rows)), axis=0)
    rc = lattice.cost(members) - np.where(members >= 0, y[np.maximum(members, 0)], 0.0).sum(1)
    if penalty is not None:
        rc = rc + penalty(members)
    keep = rc <= thr
    return members[keep], rc[keep], exhaustive
