"""The dual growth of Procedure 1 (Aggarwal et al., PODS 2006, §3) as an event simulation.

A *cluster* is a pair ``c = (v, d)``: a center ``v`` (an input point) and a radius ``d``, one of
the distinct distances from ``v``; its potential members are the points within ``d`` of ``v``
and its setup cost is ``f(v) + lam d`` (``lam = 0`` for CELLULAR CLUSTERING, ``lam = r`` for the
augmented instance of §3.1, which also drops the clusters with fewer than ``min_members``
potential members). Every *unassigned* point has the same dual ``alpha = t`` (the time); an edge
``(i, c)`` is tight iff ``alpha_i >= d``, and a tight edge pays ``alpha_i - d`` towards the setup
cost. A cluster opens when the payments reach its setup cost; then (steps 7-12 of Procedure 1)

* ``V_U`` = its unassigned potential members join it, freeze and become *dead*;
* ``V_I`` = the *idle* points with a tight edge to it become *dead*;
* every other cluster with a tight edge from a point of ``V_U`` or ``V_I`` is shut down for good,
  and the unassigned points with a tight edge to a shut cluster (``V_IU``) join the opened
  cluster, freeze and become *idle*.

The run ends when no point is unassigned. The duals stay feasible for the cluster LP (every
cluster receives at most its setup cost), so ``sum alpha`` bounds the optimum from below.

Events instead of a time step: with ``u`` unassigned potential members and fixed payments ``F``
from frozen ones (those with ``alpha > d``), cluster ``(v, d)`` opens at
``d + (setup - F) / u``. Freezing points and shutting clusters only delay openings, so a lazy
heap keyed per center is exact: pop the smallest key, recompute that center's earliest opening
from the current state (one vectorized pass over its sorted neighbour list), open if the key still
holds, otherwise push the new key. Only radii up to ``T_max = max_p (f(p) + (1 + lam) d_p)``
(``d_p`` the smallest radius of a cluster centered at ``p``) matter: every point is frozen by
then, since ``p``'s own cluster opens by that time while ``p`` is unassigned. The neighbour lists
start shorter and grow on demand: an event at time ``T`` is certain once every radius up to
``T`` is listed.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Literal

import numpy as np

from anonratio.instances.clustering.metric import BLOCK, PointMetric
from anonratio.solvers.clustering.neighbour_rows import ranges

__all__ = ["NeighbourLists", "DualGrowth", "neighbour_lists", "grow_duals", "growth_cap"]

#: relative tolerance of the event times (a recomputed time this close to its key is on time)
TIME_TOL = 1e-12

#: the first neighbour lists give every point at least this many neighbours
START_NEIGHBOURS = 16

#: factor by which the neighbour lists' radius grows when an event may lie beyond it
GROWTH = 1.5

_UNASSIGNED, _IDLE, _DEAD = 0, 1, 2


@dataclass(frozen=True)
class NeighbourLists:
    """Every point's neighbours within ``cap``, nearest first, in CSR form.

    Row ``v`` is ``nbr[ptr[v]:ptr[v+1]]`` (point indices, ties by index) at distances
    ``dst[ptr[v]:ptr[v+1]]`` (non-decreasing; ``v`` itself, at 0, is among the first).
    ``key[k] = row(k) * (len(values) + 1) + rank(dst[k])`` is globally sorted, so one
    ``searchsorted`` finds a distance in any row; ``values`` are the distinct distances.
    """

    ptr: np.ndarray
    nbr: np.ndarray
    dst: np.ndarray
    key: np.ndarray
    values: np.ndarray
    cap: float

    def row_position(
        self, rows: np.ndarray, dist: np.ndarray, side: Literal["left", "right"]
    ) -> np.ndarray:
        """Per query, the position in row ``rows[q]`` of the first entry with distance
        ``>= dist[q]`` (``side="left"``) or ``> dist[q]`` (``side="right"``)."""
        rank = np.searchsorted(self.values, dist, side=side)
        return np.searchsorted(self.key, rows * (self.values.size + 1) + rank, side="left")


@dataclass(frozen=True)
class DualGrowth:
    """The outcome of :func:`grow_duals`.

    ``labels[i]`` = the opened cluster point ``i`` joined (0 .. m-1, in opening order; a cluster
    may end up without members when it only had idle support); ``centers``, ``radii`` (the
    opening radius ``d``) and ``times`` per opened cluster; ``alpha`` the final duals;
    ``events`` (clusters opened), ``stale_pops`` (heap keys that had become too early),
    ``extensions`` (times the neighbour lists grew); ``lists`` the final neighbour lists.
    """

    labels: np.ndarray
    centers: np.ndarray
    radii: np.ndarray
    times: np.ndarray
    alpha: np.ndarray
    events: int
    stale_pops: int
    extensions: int
    lists: NeighbourLists

    @property
    def dual(self) -> float:
        """The dual objective ``sum alpha`` (a lower bound on the LP optimum)."""
        return float(self.alpha.sum())


def _block_neighbours(
    metric: PointMetric, rows: np.ndarray, cap: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(counts, cols, dists)``: the neighbours within ``cap`` of each row, nearest first
    (ties by index), concatenated row after row."""
    tree = metric.tree
    if tree is not None:  # preselect with the tree, decide with pairs()
        p = 2.0 if metric.metric == "euclidean" else 1.0
        hits = tree.query_ball_point(
            metric.points[rows], cap * (1 + 1e-9) + 1e-12, p=p, return_sorted=True
        )
        lens = np.array([len(h) for h in hits], dtype=np.int64)
        flat = np.concatenate([np.asarray(h, dtype=np.int64) for h in hits])
        local = np.repeat(np.arange(rows.size), lens)
        slot = np.arange(flat.size) - np.repeat(np.cumsum(lens) - lens, lens)
        cols = np.full((rows.size, int(lens.max())), -1, dtype=np.int64)
        dist = np.full(cols.shape, np.inf)
        cols[local, slot] = flat
        dist[local, slot] = metric.pairs(rows[local], flat)
    else:
        dist = metric.block(rows)
        cols = np.broadcast_to(np.arange(metric.n, dtype=np.int64), dist.shape)
    dist[dist > cap] = np.inf
    order = np.argsort(dist, axis=1, kind="stable")  # columns ascend: ties by index
    dist = np.take_along_axis(dist, order, axis=1)
    cols = np.take_along_axis(cols, order, axis=1)
    counts = np.count_nonzero(np.isfinite(dist), axis=1)
    keep = np.arange(dist.shape[1])[None, :] < counts[:, None]
    return counts, cols[keep], dist[keep]


def neighbour_lists(metric: PointMetric, cap: float) -> NeighbourLists:
    """Every pair within ``cap`` (distances from :meth:`PointMetric.pairs`), rows sorted.

    Coordinates with a KD-tree are preselected by the tree, other metrics read in dense
    blocks; rows are sorted in blocks of :data:`BLOCK`, so the working memory is
    ``O(BLOCK * longest row)`` plus the output.
    """
    n = metric.n
    counts, cols, dists = [], [], []
    for start in range(0, n, BLOCK):
        c, nb, d = _block_neighbours(metric, np.arange(start, min(start + BLOCK, n)), cap)
        counts.append(c)
        cols.append(nb.astype(np.int32))
        dists.append(d)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.concatenate(counts), out=ptr[1:])
    dst = np.concatenate(dists)
    values, rank = np.unique(dst, return_inverse=True)
    row = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    key = row * (values.size + 1) + rank.reshape(-1)
    return NeighbourLists(ptr, np.concatenate(cols), dst, key, values, float(cap))


def growth_cap(metric: PointMetric, facility: np.ndarray, lam: float, min_members: int) -> float:
    """``T_max``: every point is frozen by this time, so larger radii never matter."""
    d_min = metric.kth_neighbor_distances(min_members - 1)
    return float(np.max(facility + (1.0 + lam) * d_min))


class _Growth:
    """The mutable state of one run (points' states and duals, shut clusters, the heap)."""

    nl: NeighbourLists
    shut: np.ndarray
    cluster: np.ndarray

    def __init__(
        self, metric: PointMetric, facility: np.ndarray, lam: float, m: int, t_max: float
    ) -> None:
        self.metric, self.f, self.lam, self.m = metric, facility, float(lam), int(m)
        self.t_max = t_max
        n = facility.size
        self.state = np.zeros(n, dtype=np.int8)
        self.alpha = np.zeros(n)
        self.label = np.full(n, -1, dtype=np.int64)
        self.t = 0.0
        self.n_unassigned = n
        self.extensions = 0
        # start with the radii that give every center a few clusters, grow on demand
        k = min(n - 1, max(m - 1, START_NEIGHBOURS))
        first = min(t_max, float(metric.kth_neighbor_distances(k).max()))
        self._install(neighbour_lists(metric, first))
        # initial keys: everybody unassigned, nothing paid: d + setup / count
        ptr, dst = self.nl.ptr, self.nl.dst
        row = np.repeat(np.arange(n), np.diff(ptr))
        pos = np.arange(dst.size) - ptr[row]
        times = np.where(self.cluster, dst + (facility[row] + lam * dst) / (pos + 1), np.inf)
        keys = np.minimum.reduceat(times, ptr[:-1])
        self.heap = [(float(k), int(v)) for v, k in enumerate(keys) if np.isfinite(k)]
        heapq.heapify(self.heap)

    def _install(self, nl: NeighbourLists) -> None:
        """Use neighbour lists ``nl`` (a longer cap than the current ones keeps each row's
        prefix, so the shut marks carry over position by position)."""
        ptr, dst = nl.ptr, nl.dst
        pos = np.arange(dst.size) - np.repeat(ptr[:-1], np.diff(ptr))  # position within its row
        last = np.ones(dst.size, dtype=bool)  # the last entry of a tie group = a cluster
        last[:-1] = dst[1:] != dst[:-1]
        last[ptr[1:] - 1] = True
        shut = np.zeros(dst.size, dtype=bool)
        if hasattr(self, "nl"):
            old = np.diff(self.nl.ptr)
            shut[ranges(ptr[:-1], ptr[:-1] + old)] = self.shut
        self.nl, self.shut = nl, shut
        self.cluster = last & (pos + 1 >= self.m)  # eliminated: fewer than m potential members

    def _extend(self) -> None:
        """Longer neighbour lists: the next event may involve a radius beyond the cap."""
        cap = self.nl.cap
        goal = max(GROWTH * cap, self.heap[0][0] if self.heap else 0.0)
        self._install(neighbour_lists(self.metric, min(self.t_max, goal)))
        self.extensions += 1
        # every center may now have an earlier cluster, but none opens before the old cap
        self.heap = [(cap, v) for v in range(self.f.size)]

    def earliest(self, v: int) -> tuple[float, int]:
        """Earliest opening time (``>= t``) over ``v``'s live clusters and its row position."""
        s, e = int(self.nl.ptr[v]), int(self.nl.ptr[v + 1])
        cols, d = self.nl.nbr[s:e], self.nl.dst[s:e]
        st = self.state[cols]
        u = np.cumsum(st == _UNASSIGNED)
        setup = self.f[v] + self.lam * d
        paid = np.zeros(d.size)
        tight = np.zeros(d.size, dtype=np.int64)
        frozen = np.flatnonzero((st != _UNASSIGNED) & (self.alpha[cols] >= d))
        if frozen.size:  # j pays alpha_j - d_k to the clusters with d(j, v) <= d_k <= alpha_j
            a = self.alpha[cols[frozen]]
            stop = np.searchsorted(d, a, side="right")
            size = d.size + 1
            total = np.bincount(frozen, a, size) - np.bincount(stop, a, size)
            starts = np.bincount(frozen, minlength=size) - np.bincount(stop, minlength=size)
            tight = np.cumsum(starts)[:-1]
            paid = np.cumsum(total)[:-1] - tight * d
        live = self.cluster[s:e] & ~self.shut[s:e]
        short = setup - paid
        with np.errstate(divide="ignore", invalid="ignore"):
            times = np.where(u > 0, d + short / np.maximum(u, 1), np.inf)
        # only frozen (idle) points support it: it opens now if they already pay enough
        paid_up = (u == 0) & (tight > 0) & (short <= TIME_TOL * np.maximum(1.0, setup))
        times[paid_up] = self.t
        times = np.where(live, np.maximum(times, self.t), np.inf)
        k = int(np.argmin(times))
        return float(times[k]), k

    def open(self, v: int, k: int, cid: int) -> None:
        """Open cluster ``(v, dst[ptr[v] + k])`` as cluster id ``cid`` at time ``t``."""
        nl, t = self.nl, self.t
        s = int(nl.ptr[v])
        radius = float(nl.dst[s + k])
        members = nl.nbr[s : s + k + 1].astype(np.int64)
        st = self.state[members]
        v_u = members[st == _UNASSIGNED]
        v_i = members[(st == _IDLE) & (self.alpha[members] >= radius)]
        self.shut[s + k] = True  # opened: never again
        self.state[v_u] = _DEAD
        self.alpha[v_u] = t
        self.label[v_u] = cid
        self.state[v_i] = _DEAD
        self.n_unassigned -= v_u.size
        v_iu = self._shut_down(v_u, v_i)
        self.state[v_iu] = _IDLE
        self.alpha[v_iu] = t
        self.label[v_iu] = cid
        self.n_unassigned -= v_iu.size

    def _tight_pairs(self, dead: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(centers, dist, alpha)`` of the pairs ``(p, v')`` with ``d(p, v') <= alpha_p``."""
        nl = self.nl
        a = self.alpha[dead]
        starts = nl.ptr[dead]
        stops = nl.row_position(dead, a, side="right")  # neighbours within alpha_p of p
        idx = ranges(starts, stops)
        who = np.repeat(np.arange(dead.size), np.maximum(stops - starts, 0))
        return nl.nbr[idx].astype(np.int64), nl.dst[idx], a[who]

    def _shut_down(self, v_u: np.ndarray, v_i: np.ndarray) -> np.ndarray:
        """Shut every cluster with a tight edge from ``v_u`` (all with dual ``t``) or ``v_i``;
        return the unassigned points with a tight edge to a shut cluster (left unassigned for
        the caller)."""
        nl = self.nl
        centers, dist, a = self._tight_pairs(v_i)
        c_u, d_u, _ = self._tight_pairs(v_u)
        if c_u.size:  # one range per center for V_U: from its nearest point of V_U up to t
            nearest = np.full(self.f.size, np.inf)
            np.minimum.at(nearest, c_u, d_u)
            hit = np.flatnonzero(np.isfinite(nearest))
            centers = np.concatenate((centers, hit))
            dist = np.concatenate((dist, nearest[hit]))
            a = np.concatenate((a, np.full(hit.size, self.t)))
        if centers.size == 0:
            return np.empty(0, dtype=np.int64)
        lo = nl.row_position(centers, dist, side="left")  # cluster (v', d(p, v')) ...
        hi = nl.row_position(centers, a, side="right")  # ... up to radius alpha_p
        lo = np.maximum(lo, nl.ptr[centers] + self.m - 1)  # eliminated radii are not clusters
        self._mark_shut(lo, hi)
        hit = hi > lo
        if not hit.any():
            return np.empty(0, dtype=np.int64)
        # the unassigned points within the largest shut radius of each center
        reach = np.full(self.f.size, -1, dtype=np.int64)
        np.maximum.at(reach, centers[hit], hi[hit])
        touched = np.flatnonzero(reach >= 0)
        pts = nl.nbr[ranges(nl.ptr[touched], reach[touched])]
        return np.unique(pts[self.state[pts] == _UNASSIGNED]).astype(np.int64)

    def _mark_shut(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Mark the positions of the union of the ranges ``[lo, hi)`` shut."""
        keep = hi > lo
        if not keep.any():
            return
        lo, hi = lo[keep], hi[keep]
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
        reach = np.maximum.accumulate(hi)
        fresh = np.ones(lo.size, dtype=bool)
        fresh[1:] = lo[1:] > reach[:-1]
        heads = np.flatnonzero(fresh)
        self.shut[ranges(lo[heads], np.maximum.reduceat(hi, heads))] = True

    def run(self) -> tuple[list[int], list[float], list[float], int]:
        centers: list[int] = []
        radii: list[float] = []
        times: list[float] = []
        stale = 0
        while self.n_unassigned > 0:
            if (not self.heap or self.heap[0][0] > self.nl.cap) and self.nl.cap < self.t_max:
                self._extend()  # a cluster beyond the cap might open first
                continue
            if not self.heap:
                raise RuntimeError("dual growth ran out of clusters with points unassigned")
            key, v = heapq.heappop(self.heap)
            when, k = self.earliest(v)
            if when > key + TIME_TOL * max(1.0, abs(key)):
                stale += 1
                if np.isfinite(when):
                    heapq.heappush(self.heap, (when, v))
                continue
            self.t = max(self.t, when)
            centers.append(v)
            radii.append(float(self.nl.dst[self.nl.ptr[v] + k]))
            times.append(self.t)
            self.open(v, k, len(centers) - 1)
            when, _ = self.earliest(v)
            if np.isfinite(when):
                heapq.heappush(self.heap, (when, v))
        return centers, radii, times, stale


def grow_duals(
    metric: PointMetric, facility: np.ndarray, *, lam: float = 0.0, min_members: int = 1
) -> DualGrowth:
    """Run Procedure 1 on the clusters ``(v, d)`` with setup ``f(v) + lam d`` and at least
    ``min_members`` potential members.

    Parameters
    ----------
    metric : PointMetric
        The distances (assumed to satisfy the triangle inequality for the guarantees).
    facility : ndarray, shape (n,)
        Setup cost ``f(v) >= 0`` of each potential center.
    lam : float
        Setup cost per unit of radius (``r`` in the augmented instance of §3.1).
    min_members : int
        Clusters with fewer potential members do not exist (``r`` in §3.1; ``1``: all exist).

    Returns
    -------
    DualGrowth
        The clusters opened, each point's cluster and the final duals.

    Notes
    -----
    The neighbour lists start at the radius that gives every point :data:`START_NEIGHBOURS`
    neighbours (or ``min_members``) and grow by :data:`GROWTH` whenever the next event might
    involve a longer radius, up to ``T_max`` (:func:`growth_cap`): ``O(nnz log nnz)`` for the
    ``nnz`` pairs within the final cap. Then per heap pop one ``O(row length)`` numpy pass over
    the center's neighbours, and per opening a pass over the neighbourhoods of the points it
    kills. The duals satisfy, for every cluster ``(v, d)``,
    ``sum_i max(alpha_i - d, 0) <= f(v) + lam d`` over its potential members (dual feasibility).
    """
    facility = np.asarray(facility, dtype=float)
    t_max = growth_cap(metric, facility, lam, min_members)
    state = _Growth(metric, facility, lam, min_members, t_max)
    centers, radii, times, stale = state.run()
    return DualGrowth(
        labels=state.label,
        centers=np.asarray(centers, dtype=np.int64),
        radii=np.asarray(radii, dtype=float),
        times=np.asarray(times, dtype=float),
        alpha=state.alpha,
        events=len(centers),
        stale_pops=stale,
        extensions=state.extensions,
        lists=state.nl,
    )
