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

#: entries per chunk of the row pool (at least n + 1: a chunk holds any row)
CHUNK = 1 << 22

#: the pool is compacted once it holds this many times the listed entries (and a chunk)
COMPACT = 1.5

#: factor by which a lengthened row multiplies its number of neighbours
GROWTH = 1.5

#: margin on the neighbours a row's density so far puts within a radius it must reach
REACH = 1.2


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
    unchanged). The pool is a list of chunks, so growing it never copies more than one
    chunk.

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
        #: entries per chunk of the pool (a row never straddles two chunks)
        self.chunk = max(CHUNK, n + 1)
        self._dtype = np.int32 if n < 2**31 else np.int64
        self.nbrs: list[np.ndarray] = []  # the chunks; the last one grows until full
        self.dsts: list[np.ndarray] = []
        self.shuts: list[np.ndarray] = []
        self.used = 0  # entries used in the last chunk
        #: entries written in all (rows written again leave their old copy behind), and listed
        self.written = self.live = 0
        #: rows written again longer (the first rows excluded)
        self.extensions = 0
        k = min(n, max(min_len, START_NEIGHBOURS))
        everyone = np.arange(n, dtype=np.int64)
        for lo in range(0, n, QUERY_ROWS):
            self._write(everyone[lo : lo + QUERY_ROWS], k)
        self.extensions = 0
        self.ensure(everyone, 0.0)  # duplicates: every row lists at least the point itself

    # -----------------------------------------------------------------------------------------
    def view(self, v: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(neighbours, distances, shut)`` of row ``v`` (views: marks written through)."""
        c, s = divmod(self.start.item(v), self.chunk)
        e = s + self.length.item(v)
        return self.nbrs[c][s:e], self.dsts[c][s:e], self.shuts[c][s:e]

    def row(self, v: int) -> tuple[np.ndarray, np.ndarray]:
        """``(neighbours, distances)`` of row ``v`` (views)."""
        nbr, dst, _ = self.view(v)
        return nbr, dst

    def distances(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(lengths, distances)``: the given rows' distances, concatenated in their order."""
        rows = np.asarray(rows, dtype=np.int64)
        lens = self.length[rows]
        out = np.empty(int(lens.sum()))
        where = np.concatenate(([0], np.cumsum(lens)))
        chunk, offset = np.divmod(self.start[rows], self.chunk)
        for c in np.unique(chunk).tolist():
            sel = np.flatnonzero(chunk == c)
            src = ranges(offset[sel], offset[sel] + lens[sel])
            out[ranges(where[sel], where[sel] + lens[sel])] = self.dsts[c][src]
        return lens, out

    def take(self, pool: list[np.ndarray], at: np.ndarray) -> np.ndarray:
        """The entries of ``pool`` (:attr:`nbrs`, :attr:`dsts` or :attr:`shuts`) at the pool
        positions ``at``."""
        if len(pool) == 1:
            return pool[0][at]
        out = np.empty(at.size, dtype=pool[0].dtype)
        chunk, offset = np.divmod(at, self.chunk)
        for c in np.unique(chunk).tolist():
            sel = chunk == c
            out[sel] = pool[c][offset[sel]]
        return out

    def padded(
        self, rows: np.ndarray, width: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(nbr, dst, shut, valid)``: the given rows as rectangles of ``width`` columns (at
        least the longest row), padded with ``nbr = 0``, ``dst = inf`` and ``shut = True``."""
        rows = np.asarray(rows, dtype=np.int64)
        lens = self.length[rows]
        if width is None:
            width = max(int(lens.max()) if lens.size else 0, 1)
        at = ranges(self.start[rows], self.start[rows] + lens)
        valid = np.arange(width)[None, :] < lens[:, None]
        nbr = np.zeros(valid.shape, dtype=np.int64)
        dst = np.full(valid.shape, np.inf)
        shut = np.ones(valid.shape, dtype=bool)
        nbr[valid] = self.take(self.nbrs, at)
        dst[valid] = self.take(self.dsts, at)
        shut[valid] = self.take(self.shuts, at)
        return nbr, dst, shut, valid

    @property
    def cap(self) -> float:
        """The largest distance listed in any row."""
        rows = np.flatnonzero(self.length > 0)
        return float(self.take(self.dsts, self.start[rows] + self.length[rows] - 1).max())

    def ensure_one(self, v: int, radius: float) -> None:
        """:meth:`ensure` for the single row ``v``, with fewer numpy calls."""
        bound = self.bound
        if bound[v] > radius:
            return
        if self.metric.tree is None:
            self.ensure(np.array([v], dtype=np.int64), radius)
            return
        while True:
            k = min(self.n, max(int(GROWTH * int(self.asked[v])), START_NEIGHBOURS))
            if k < self.n:
                self._write_one(v, k)
            else:
                self._write_block(np.array([v], dtype=np.int64), k)
            self.extensions += 1
            if self.written > max(COMPACT * self.live, self.chunk):
                self._compact()
            b = float(bound[v])
            if b > radius or b == np.inf:
                return

    def ensure(self, rows: np.ndarray, radius: float) -> None:
        """Lengthen the given rows until each is complete beyond ``radius`` (``bound > radius``)."""
        rows = np.asarray(rows, dtype=np.int64)
        todo = rows[self.bound[rows] <= radius]  # a complete row has bound inf
        while todo.size:
            todo = np.unique(todo)
            k = int(min(self.n, max(int(GROWTH * int(self.asked[todo].max())), START_NEIGHBOURS)))
            for lo in range(0, todo.size, QUERY_ROWS):
                self._write(todo[lo : lo + QUERY_ROWS], k)
            self.extensions += int(todo.size)
            if self.written > max(COMPACT * self.live, self.chunk):
                self._compact()
            todo = todo[(self.bound[todo] <= radius) & (self.bound[todo] < np.inf)]

    def ensure_each(self, rows: np.ndarray, radii: np.ndarray) -> None:
        """Lengthen each row ``rows[i]`` (distinct) until it is complete beyond ``radii[i]``,
        the rows asking the tree for the same number of neighbours in one batch.

        A row asks for :data:`GROWTH` times its last number at least, and for as many as its
        density so far (``length / bound ** dim``) puts within the radius, rounded up to the
        next number of the steps of :meth:`ensure_one` (so few batches): a row that must reach
        far gets there in one or two queries rather than one per step."""
        rows = np.asarray(rows, dtype=np.int64)
        radii = np.asarray(radii, dtype=float)
        todo = self.bound[rows] <= radii
        rows, radii = rows[todo], radii[todo]
        while rows.size:
            if self.metric.tree is None:
                self.ensure(rows, float(radii.min()))
            else:
                k = self._steps(rows, radii)
                for size in np.unique(k).tolist():
                    group = rows[k == size]
                    for lo in range(0, group.size, QUERY_ROWS):
                        self._write(group[lo : lo + QUERY_ROWS], size)
                self.extensions += int(rows.size)
                if self.written > max(COMPACT * self.live, self.chunk):
                    self._compact()
            left = (self.bound[rows] <= radii) & (self.bound[rows] < np.inf)
            rows, radii = rows[left], radii[left]

    def _steps(self, rows: np.ndarray, radii: np.ndarray) -> np.ndarray:
        """Per row (KD-tree metrics), the number of neighbours :meth:`ensure_each` asks for."""
        grown = np.maximum((GROWTH * self.asked[rows]).astype(np.int64), START_NEIGHBOURS)
        bound = self.bound[rows]
        dim = self.metric.points.shape[1]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            dense = self.length[rows] * (radii / bound) ** dim * REACH
        need = np.where(bound > 0, np.minimum(dense, self.n), self.n)
        steps = [START_NEIGHBOURS]
        while steps[-1] < self.n:
            steps.append(int(GROWTH * steps[-1]))
        at = np.minimum(np.searchsorted(steps, need), len(steps) - 1)
        return np.minimum(self.n, np.maximum(grown, np.asarray(steps)[at]))

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
        self._place(rows, lens, cols[keep], dist[keep])
        self.bound[rows] = bound
        self.asked[rows] = k

    def _place(
        self,
        rows: np.ndarray,
        lens: np.ndarray,
        nbr: np.ndarray,
        dst: np.ndarray,
        shut: np.ndarray | None = None,
    ) -> None:
        """Write the rows' entries (concatenated) at the pool's end, as many rows per chunk as
        it holds; the shut marks are given, or kept from each row's old copy."""
        ends = np.cumsum(lens)
        self.live += int(lens.sum() - self.length[rows].sum())
        first = 0
        while first < rows.size:
            base = int(ends[first - 1]) if first else 0
            if not self.nbrs:
                self._new_chunk()
            last = int(np.searchsorted(ends, base + self.chunk - self.used, side="right"))
            if last == first:
                self._new_chunk()
                continue
            size = int(ends[last - 1]) - base
            at = self._take(size)
            group = rows[first:last]
            offsets = at + (ends[first:last] - lens[first:last]) - base
            self.nbrs[-1][at : at + size] = nbr[base : base + size]
            self.dsts[-1][at : at + size] = dst[base : base + size]
            marks = self.shuts[-1]
            if shut is not None:
                marks[at : at + size] = shut[base : base + size]
            else:
                marks[at : at + size] = False
                for v, off in zip(group.tolist(), offsets.tolist(), strict=True):
                    if self.length[v]:  # keep the shut marks of the row's old prefix
                        old = self.view(v)[2]
                        marks[off : off + old.size] = old
            self.start[group] = (len(self.nbrs) - 1) * self.chunk + offsets
            self.length[group] = lens[first:last]
            first = last

    def _compact(self) -> None:
        """Write the rows again into fresh chunks, one old chunk at a time, dropping the old
        copies of lengthened rows (the peak is the rows plus one chunk)."""
        old = (self.nbrs, self.dsts, self.shuts)
        self.nbrs, self.dsts, self.shuts = [], [], []
        self.used = self.written = 0
        rows = np.flatnonzero(self.length > 0)
        chunk, offset = np.divmod(self.start[rows], self.chunk)
        lens = self.length[rows]
        self.length[rows] = 0  # placed afresh below
        self.live = 0
        for c in range(len(old[0])):
            sel = np.flatnonzero(chunk == c)
            idx = ranges(offset[sel], offset[sel] + lens[sel])
            self._place(rows[sel], lens[sel], old[0][c][idx], old[1][c][idx], old[2][c][idx])
            for arrays in old:  # free the old chunk now (the peak is the rows plus one chunk)
                arrays[c] = np.empty(0, dtype=arrays[c].dtype)

    def _write_one(self, v: int, k: int) -> None:
        """:meth:`_write_block` for one row of a KD-tree metric, with fewer numpy calls."""
        metric = self.metric
        if metric.tree is None:
            raise TypeError("one row at a time is for KD-tree metrics (explicit points)")
        tdist, cols = metric.tree.query(metric.points[v], k=k, p=metric.p)
        dist = metric.pairs(v, cols)
        order = np.lexsort((cols, dist))
        dist, cols = dist[order], cols[order]
        bound = float(tdist[-1]) * (1.0 - SLACK)
        if bound > self.t_max:
            bound = np.inf
        size = min(
            int(np.searchsorted(dist, bound, side="left")),
            int(np.searchsorted(dist, self.t_max, side="right")),
        )
        if not self.nbrs or self.used + size > self.chunk:
            self._new_chunk()
        at = self._take(size)
        old = self.view(v)[2]
        self.nbrs[-1][at : at + size] = cols[:size]
        self.dsts[-1][at : at + size] = dist[:size]
        shut = self.shuts[-1]
        shut[at : at + old.size] = old
        shut[at + old.size : at + size] = False
        self.start[v] = (len(self.nbrs) - 1) * self.chunk + at
        self.live += size - int(self.length[v])
        self.length[v], self.bound[v], self.asked[v] = size, bound, k

    def _new_chunk(self) -> None:
        """Start a new chunk (small at first; the last chunk grows as it fills)."""
        size = min(self.chunk, 4 * self.n + 1024)
        self.nbrs.append(np.empty(size, dtype=self._dtype))
        self.dsts.append(np.empty(size))
        self.shuts.append(np.zeros(size, dtype=bool))
        self.used = 0

    def _take(self, size: int) -> int:
        """Room for ``size`` entries in the last chunk (``used + size <= chunk``): their offset."""
        need = self.used + size
        if need > self.dsts[-1].size:  # grow the last chunk, up to the chunk size
            grown = min(self.chunk, max(need, 2 * self.dsts[-1].size))
            for arrays in (self.nbrs, self.dsts, self.shuts):
                new = np.empty(grown, dtype=arrays[-1].dtype)
                new[: self.used] = arrays[-1][: self.used]
                arrays[-1] = new
        at, self.used = self.used, need
        self.written += size
        return at
