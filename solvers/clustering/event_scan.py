"""The earliest openings of many centers at once, for the event simulation of Procedure 1.

:mod:`.dual_events` computes a center's earliest opening time over its listed clusters
(Aggarwal et al., PODS 2006, §3) at each heap pop, one center at a time; when a first key comes
up it tightens those of the next heap entries together. :func:`scan_rows` computes the earliest
openings of a batch of centers in one numpy pass over their neighbour rows (padded to a
rectangle), and :func:`unlisted_bounds` bounds the clusters beyond the rows from the nearest
unassigned points. Both do, entry by entry, the floating-point operations
of the one-center pass of :mod:`.dual_growth`, in the same order: the payments are a running
sum (``cumsum`` along a row is a sequential sum) of the duals of the tight frozen points
entering minus those leaving, so the times are the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from anonratio.solvers.clustering.dual_growth import TIME_TOL
from anonratio.solvers.clustering.neighbour_rows import RowStore

__all__ = [
    "MARGIN",
    "Scan",
    "first_keys",
    "scan_rows",
    "row_positions",
    "tightened_keys",
    "unlisted_bounds",
]

#: a radius this much (relatively) beyond the best time cannot beat it (float noise in payments)
MARGIN = 1e-9

#: padded entries per rectangle of rows scanned together (bounds the working memory)
CELLS = 1 << 18

#: queries times row width up to which :func:`row_positions` compares directly
COMPARE = 1 << 16

_UNASSIGNED = 0


@dataclass(frozen=True)
class Scan:
    """Per center of a batch: ``best`` (earliest opening ``>= t`` over its listed live
    clusters, ``inf`` when none), ``k`` (its row position, ``-1`` when none) and ``decided``
    (a listed radius beyond ``best`` was reached, so no longer radius can beat it)."""

    best: np.ndarray
    k: np.ndarray
    decided: np.ndarray


def scan_rows(
    rows: RowStore,
    centers: np.ndarray,
    state: np.ndarray,
    alpha: np.ndarray,
    setup: tuple[np.ndarray, float],
    m: int,
    t: float,
) -> Scan:
    """The earliest opening of each of ``centers`` over its listed live clusters.

    A cluster ``(v, dst[k])`` is live when it is the last entry of its tie group, has at least
    ``m`` potential members and is not shut. With ``u`` its unassigned potential members,
    ``tight`` the frozen ones whose dual reaches the radius and ``C`` the running sum of their
    duals (each entering at its position, leaving at the first radius beyond its dual), it
    opens at ``d + (setup - (C - tight d)) / u``, or at ``t`` when ``u = 0`` and the idle points
    already pay its setup ``f(v) + lam d``; never before ``t``.

    Parameters
    ----------
    rows : RowStore
    centers : ndarray of int
        Distinct centers.
    state, alpha : ndarray, shape (n,)
        Points' states (``0`` unassigned) and duals.
    setup : (ndarray, float)
        ``(f, lam)``: the setup cost of cluster ``(v, d)`` is ``f[v] + lam d``.
    m : int
        Fewest potential members of a cluster.
    t : float
        The current time.
    """
    centers = np.asarray(centers, dtype=np.int64)
    lens = rows.length[centers]
    longest = max(int(lens.max()), 1) if lens.size else 1
    if centers.size * longest <= CELLS:  # one rectangle (the usual case)
        return Scan(*_scan_block(rows, centers, longest, state, alpha, setup, m, t))
    best = np.full(centers.size, np.inf)
    where = np.full(centers.size, -1, dtype=np.int64)
    decided = np.zeros(centers.size, dtype=bool)
    order = np.argsort(lens, kind="stable")
    widths = np.maximum(lens[order], 1)
    lo = 0
    while lo < order.size:  # rectangles of rows of similar lengths
        fits = np.arange(1, order.size - lo + 1) * widths[lo:] <= CELLS
        hi = lo + max(int(np.count_nonzero(fits)), 1)  # widths ascend: a prefix fits
        sel = order[lo:hi]
        out = _scan_block(rows, centers[sel], int(widths[hi - 1]), state, alpha, setup, m, t)
        best[sel], where[sel], decided[sel] = out
        lo = hi
    return Scan(best, where, decided)


def _scan_block(
    rows: RowStore,
    centers: np.ndarray,
    width: int,
    state: np.ndarray,
    alpha: np.ndarray,
    setup: tuple[np.ndarray, float],
    m: int,
    t: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    nbr, dst, shut, valid = rows.padded(centers, width)
    count, cols = centers.size, np.arange(width)
    frozen = state[nbr] != _UNASSIGNED
    u = np.cumsum(valid & ~frozen, axis=1)
    a = alpha[nbr]
    tight = frozen & (a >= dst)  # padding: dst = inf
    r_t, k_t = np.nonzero(tight)  # row-major: in row order within each row
    a_t = a[r_t, k_t]
    # running sums of the duals of the tight points, each entering at its position and
    # leaving at the first radius beyond its dual (summed in row order)
    stop = row_positions(dst, valid, r_t, a_t)
    size = width + 1
    leave = r_t * size + stop
    gone = np.bincount(leave, a_t, count * size).reshape(count, size)[:, :width]
    n_gone = np.bincount(leave, minlength=count * size).reshape(count, size)[:, :width]
    paid_sum = np.cumsum(np.where(tight, a, 0.0) - gone, axis=1)
    n_tight = np.cumsum(tight - n_gone, axis=1)
    f, lam = setup
    with np.errstate(invalid="ignore", divide="ignore"):
        cost = f[centers][:, None] + lam * dst
        short = cost - (paid_sum - n_tight * dst)
        times = np.where(u > 0, dst + short / np.maximum(u, 1), np.inf)
        idle_pay = (u == 0) & (n_tight > 0) & (short <= TIME_TOL * np.maximum(1.0, cost))
    times[idle_pay] = t
    live = valid & ~shut
    live[:, :-1] &= dst[:, 1:] != dst[:, :-1]  # the last entry of a tie group = a cluster
    if m > 1:
        live[:, : m - 1] = False  # fewer than m potential members
    times = np.where(live, np.maximum(times, t), np.inf)
    # the pass stops at the first radius beyond the best time of the clusters before it
    before = np.empty_like(times)
    before[:, 0] = np.inf
    np.minimum.accumulate(times[:, :-1], axis=1, out=before[:, 1:])
    beyond = valid & (dst > before * (1.0 + MARGIN))
    decided = beyond.any(axis=1)
    cut = np.where(decided, beyond.argmax(axis=1), width)
    times[cols[None, :] >= cut[:, None]] = np.inf
    k = times.argmin(axis=1)  # the first of the earliest
    rowid = np.arange(count)
    best = times[rowid, k]
    k[best == np.inf] = -1
    return best, k, np.asarray(decided)


def row_positions(
    dst: np.ndarray,
    valid: np.ndarray,
    r_q: np.ndarray,
    x_q: np.ndarray,
    side: Literal["left", "right"] = "right",
) -> np.ndarray:
    """Per query ``q``, the number of entries of row ``r_q[q]`` of the padded sorted rows
    ``dst`` at distance ``<= x_q[q]`` (``side="right"``) or ``< x_q[q]`` (``"left"``): exact
    comparisons, through the ranks of every value involved."""
    if r_q.size == 0:
        return np.zeros(0, dtype=np.int64)
    if r_q.size * dst.shape[1] <= COMPARE:  # few queries: compare with their rows
        return np.count_nonzero(
            dst[r_q] <= x_q[:, None] if side == "right" else dst[r_q] < x_q[:, None], axis=1
        )
    listed = dst[valid]
    values, rank = np.unique(np.concatenate((listed, x_q)), return_inverse=True)
    rank = rank.reshape(-1)
    top = values.size + 1
    ranks = np.full(dst.shape, values.size, dtype=np.int64)  # padding: beyond every value
    ranks[valid] = rank[: listed.size]
    key = (np.arange(dst.shape[0], dtype=np.int64)[:, None] * top + ranks).reshape(-1)
    query = r_q * top + rank[listed.size :]
    return np.searchsorted(key, query, side=side) - r_q * dst.shape[1]


def unlisted_bounds(near: np.ndarray, bound: np.ndarray, f: np.ndarray, lam: float) -> np.ndarray:
    """Lower bounds on the opening times of clusters of radius ``d >= bound`` (``> t``).

    Frozen points have duals ``<= t < d``: only the ``U(d)`` unassigned potential members
    pay, so cluster ``(v, d)`` opens no earlier than ``d + setup(d) / U(d)``. With ``near`` the
    distances (row by row, ascending, lowered by the KD-tree slack) to a center's nearest
    unassigned points, ``U(d) <= j`` for ``d < near[j]``: the bound is ``min_j (d_j + setup(d_j)
    / j)`` with ``d_j = max(bound, near[j-1])``, and ``max(bound, near[-1])`` for the radii beyond.

    Parameters
    ----------
    near : ndarray, shape (count, K)
    bound : ndarray, shape (count,)
        The radius from which the rows are not listed.
    f : ndarray, shape (count,)
        The centers' setup costs; ``lam`` their cost per unit of radius.
    """
    d = np.maximum(bound[:, None], near)
    j = np.arange(1, near.shape[1] + 1)[None, :]
    with np.errstate(invalid="ignore"):
        terms = np.where(d == np.inf, np.inf, d + (f[:, None] + lam * d) / j)  # 0 x inf: nan
    return np.minimum(np.maximum(bound, near[:, -1]), terms.min(axis=1))


def tightened_keys(
    scan: Scan,
    bound: np.ndarray,
    floors: np.ndarray,
    t: float,
    unlisted: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """``(key, exact)`` per center of ``scan``: its earliest opening (``exact``) when its row
    decides it, alone or with the bound beyond it, else the larger of its key (``floors``)
    and that bound, as the one-center pass of :mod:`.dual_events` would find, without
    lengthening any row.

    Parameters
    ----------
    scan : Scan
        The pass over the centers' rows in the current state.
    bound : ndarray
        The rows' bounds (complete below).
    floors : ndarray
        The centers' keys (``>= t``).
    t : float
        The current time.
    unlisted : callable
        ``unlisted(at)``: the lower bounds beyond the rows of the centers at positions ``at``
        (rows complete beyond ``t``, :func:`unlisted_bounds`).
    """
    best = scan.best
    reach = best * (1.0 + MARGIN)
    exact = scan.decided | (reach < bound) | (bound == np.inf)
    new = np.where(exact, best, floors)
    ask = np.flatnonzero(~exact & (bound > t))
    if ask.size:
        low = unlisted(ask)
        decide = (reach[ask] < low) | (low == np.inf)
        exact[ask[decide]] = True
        new[ask[decide]] = best[ask[decide]]
        later = ~decide & (low > floors[ask]) & (best[ask] > low)
        new[ask[later]] = low[later]
    return new, exact


def first_keys(
    rows: RowStore, centers: np.ndarray, setup: tuple[np.ndarray, float], m: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(key, decided)`` per center before any event: the earliest opening with every point
    unassigned and nothing paid (``d + setup / count``) when its row decides it, else the
    smaller of that and the row's bound (a lower bound)."""
    f, lam = setup
    lens, d = rows.distances(centers)
    ptr = np.concatenate(([0], np.cumsum(lens)))
    row = np.repeat(centers, lens)
    pos = np.arange(d.size) - np.repeat(ptr[:-1], lens)
    last = np.ones(d.size, dtype=bool)  # the last entry of a tie group = a cluster
    last[:-1] = d[1:] != d[:-1]
    last[ptr[1:] - 1] = True
    cluster = last & (pos + 1 >= m)
    times = np.where(cluster, d + (f[row] + lam * d) / (pos + 1), np.inf)
    best = np.minimum.reduceat(times, ptr[:-1])
    bound = rows.bound[centers]
    decided = best * (1 + MARGIN) < bound
    return np.where(decided, best, np.minimum(best, bound)), decided
