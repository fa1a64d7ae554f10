"""Per-point neighbour lists grown on demand, for the event simulation of Procedure 1.

:mod:`.dual_events` needs, for a point ``v``, its neighbours nearest first up to the radius its
next event may reach; nearly every point needs far less than the largest radius any point
needs. A :class:`RowStore` keeps one row per point, each *complete* below its own ``bound``
(every point at distance ``< bound[v]`` is listed, nothing at ``>= bound[v]``), and lengthens
rows in batches when asked for a larger radius: a KD-tree query with a doubled number of
neighbours (coordinates), or the whole row at once (hamming and precomputed distances, read in
blocks of :data:`~anonratio.instances.clustering.metric.BLOCK` rows, as the instances of those
metrics are small). Distances come from :meth:`PointMetric.pairs` (the tree only ranks), so
they are the floating-point numbers the verifier recomputes. No row goes beyond ``t_max``.
"""

from __future__ import annotations

import numpy as np

from anonratio.instances.clustering.metric import BLOCK, PointMetric

__all__ = ["RowStore", "ranges"]

#: relative slack between a KD-tree distance and :meth:`PointMetric.pairs` of the same pair
SLACK = 1e-9

#: the first rows give every point at least this many neighbours (as the whole-matrix lists did)
START_NEIGHBOURS = 16

#: rows per KD-tree query (bounds the working memory of a batch)
QUERY_ROWS = 8192

#: factor by which a lengthened row multiplies its number of neighbours
GROWTH = 2


def ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, e)`` over the pairs (empty ranges allowed)."""
    lens = np.maximum(ends - starts, 0)
    total = int(lens.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    keep = lens > 0
    starts, lens = starts[keep], lens[keep]
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return np.arange(total, dtype=np.int64) + offsets


class RowStore:
    """Every point's neighbours, nearest first (ties by index), each row complete below its bound.

    Row ``v`` is ``nbr[start[v] : start[v] + length[v]]`` at distances ``dst[...]``
    (non-decreasing, ``v`` itself among the first at 0); ``shut[...]`` marks, position by
    position, the clusters ``(v, dst[k])`` shut down for good. Rows live in one pool; a
    lengthened row is written again at the pool's end (its prefix, and the prefix's shut marks,
    unchanged), so the pool holds at most about twice the listed pairs.

    Parameters
    ----------
    metric : PointMetric
    t_max : float
        No radius beyond it matters; a row that reaches it is complete (``bound = inf``).
    min_len : int
        The first rows list at least this many neighbours per point (when there are).
    """

    def __init__(self, metric: PointMetric, t_max: float, min_len: int) -> None:
        self.metric, self.t_max = metric, float(t_max)
        n = self.n = metric.n
        self.start = np.zeros(n, dtype=np.int64)
        self.length = np.zeros(n, dtype=np.int64)
        self.bound = np.zeros(n)
        self.asked = np.zeros(n, dtype=np.int64)  # neighbours asked of the tree last time
        dtype = np.int32 if n < 2**31 else np.int64
        self.nbr = np.empty(0, dtype=dtype)
        self.dst = np.empty(0)
        self.shut = np.zeros(0, dtype=bool)
        self.used = 0
        #: rows written again longer (the first rows excluded)
        self.extensions = 0
        k = min(n, max(min_len, START_NEIGHBOURS))
        everyone = np.arange(n, dtype=np.int64)
        for lo in range(0, n, QUERY_ROWS):
            self._write(everyone[lo : lo + QUERY_ROWS], k)
        self.extensions = 0
        self.ensure(everyone, 0.0)  # duplicates: every row lists at least the point itself

    # -----------------------------------------------------------------------------------------
    def row(self, v: int) -> tuple[np.ndarray, np.ndarray]:
        """``(neighbours, distances)`` of row ``v`` (views)."""
        s = int(self.start[v])
        e = s + int(self.length[v])
        return self.nbr[s:e], self.dst[s:e]

    @property
    def cap(self) -> float:
        """The largest distance listed in any row."""
        ends = self.start + self.length - 1
        return float(self.dst[ends[self.length > 0]].max())

    def ensure(self, rows: np.ndarray, radius: float) -> None:
        """Lengthen the given rows until each is complete beyond ``radius`` (``bound > radius``)."""
        rows = np.asarray(rows, dtype=np.int64)
        todo = rows[self.bound[rows] <= radius]  # a complete row has bound inf
        while todo.size:
            todo = np.unique(todo)
            k = int(min(self.n, max(GROWTH * int(self.asked[todo].max()), START_NEIGHBOURS)))
            for lo in range(0, todo.size, QUERY_ROWS):
                self._write(todo[lo : lo + QUERY_ROWS], k)
            self.extensions += int(todo.size)
            todo = todo[(self.bound[todo] <= radius) & (self.bound[todo] < np.inf)]

    # -----------------------------------------------------------------------------------------
    def _candidates(self, rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(cols, dist, bound)``: per row ``k`` candidates with their distances (shape
        ``(len(rows), k)``, any order) and the bound below which they are complete."""
        metric, n = self.metric, self.n
        tree = metric.tree
        if tree is None or k >= n:  # every point is a candidate
            if tree is None:
                dist = metric.block(rows)
            else:
                cols = np.broadcast_to(np.arange(n, dtype=np.int64), (rows.size, n))
                dist = metric.pairs(np.repeat(rows, n), cols.reshape(-1)).reshape(cols.shape)
            cols = np.broadcast_to(np.arange(n, dtype=np.int64), dist.shape)
            return cols, dist, np.full(rows.size, np.inf)
        tdist, cols = tree.query(metric.points[rows], k=k, p=metric.p)
        cols = np.asarray(cols, dtype=np.int64).reshape(rows.size, k)
        dist = metric.pairs(np.repeat(rows, k), cols.reshape(-1)).reshape(cols.shape)
        bound = np.asarray(tdist).reshape(rows.size, k)[:, -1] * (1.0 - SLACK)
        return cols, dist, bound

    def _write(self, rows: np.ndarray, k: int) -> None:
        """Write ``rows`` again from ``k`` candidates each (dense metrics: in blocks)."""
        if rows.size == 1 and self.metric.tree is not None and k < self.n:
            self._write_one(int(rows[0]), k)
            return
        step = BLOCK if self.metric.tree is None or k >= self.n else rows.size
        for lo in range(0, rows.size, step):
            self._write_block(rows[lo : lo + step], k)

    def _write_block(self, rows: np.ndarray, k: int) -> None:
        cols, dist, bound = self._candidates(rows, k)
        order = np.lexsort((cols, dist), axis=1)  # nearest first, ties by index
        dist = np.take_along_axis(dist, order, axis=1)
        cols = np.take_along_axis(cols, order, axis=1)
        bound = np.where(bound > self.t_max, np.inf, bound)
        keep = (dist < bound[:, None]) & (dist <= self.t_max)  # a prefix of each row
        lens = np.count_nonzero(keep, axis=1)
        total = int(lens.sum())
        self._reserve(total)
        new_start = self.used + np.concatenate(([0], np.cumsum(lens)[:-1]))
        sl = slice(self.used, self.used + total)
        self.nbr[sl] = cols[keep]
        self.dst[sl] = dist[keep]
        old_start, old_len = self.start[rows], self.length[rows]
        self.shut[sl] = False
        self.shut[ranges(new_start, new_start + old_len)] = self.shut[
            ranges(old_start, old_start + old_len)
        ]
        self.used += total
        self.start[rows], self.length[rows] = new_start, lens
        self.bound[rows] = bound
        self.asked[rows] = k

    def _write_one(self, v: int, k: int) -> None:
        """:meth:`_write_block` for one row of a KD-tree metric, with fewer numpy calls."""
        metric = self.metric
        tdist, cols = metric.tree.query(metric.points[v], k=k, p=metric.p)
        cols = np.asarray(cols, dtype=np.int64)
        dist = metric.pairs(np.full(k, v, dtype=np.int64), cols)
        order = np.lexsort((cols, dist))
        dist, cols = dist[order], cols[order]
        bound = float(tdist[-1]) * (1.0 - SLACK)
        if bound > self.t_max:
            bound = np.inf
        size = min(
            int(np.searchsorted(dist, bound, side="left")),
            int(np.searchsorted(dist, self.t_max, side="right")),
        )
        self._reserve(size)
        new, old, old_len = self.used, int(self.start[v]), int(self.length[v])
        self.nbr[new : new + size] = cols[:size]
        self.dst[new : new + size] = dist[:size]
        self.shut[new : new + old_len] = self.shut[old : old + old_len]
        self.shut[new + old_len : new + size] = False
        self.used += size
        self.start[v], self.length[v], self.bound[v], self.asked[v] = new, size, bound, k

    def _reserve(self, extra: int) -> None:
        need = self.used + extra
        if need <= self.dst.size:
            return
        size = max(need, 2 * self.dst.size)
        for name in ("nbr", "dst", "shut"):
            old = getattr(self, name)
            new = np.empty(size, dtype=old.dtype)
            new[: self.used] = old[: self.used]
            setattr(self, name, new)
