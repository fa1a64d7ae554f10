"""Distances between the points of a clustering instance, without an n x n matrix when avoidable.

Aggarwal et al. (PODS 2006) cluster records viewed as points of a metric space. A
:class:`PointMetric` answers the three questions every algorithm of the paper asks:

* the distance of given pairs (:meth:`PointMetric.pairs`) and from one point to all
  (:meth:`PointMetric.row`, :meth:`PointMetric.block`);
* ``d_m(i)``, the distance from each point to its ``m``-th nearest *other* point
  (:meth:`PointMetric.kth_neighbor_distances`);
* every pair within a radius, as a sparse matrix (:meth:`PointMetric.within`).

Coordinates with ``euclidean`` or ``manhattan`` distance are served by a KD-tree
(``scipy.spatial.cKDTree``), so that neighbourhoods of 10,000 points never need an n^2 matrix;
``hamming`` (the number of coordinates in which two records differ, for categorical codes) and
``precomputed`` (an explicit distance matrix) by blocks of at most :data:`BLOCK` rows.

Every distance the package compares comes from :meth:`PointMetric.pairs` or
:meth:`PointMetric.block` (the KD-tree only preselects candidates within a slightly larger
radius), so a radius computed by an algorithm and the radius recomputed by the verifier are the
same floating-point number.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

__all__ = ["METRICS", "MINKOWSKI_P", "PointMetric", "BLOCK"]

#: the metrics a clustering instance accepts
METRICS = ("euclidean", "manhattan", "hamming", "precomputed")

#: rows per block of dense distance computations
BLOCK = 512

#: the Minkowski exponent of the metrics a KD-tree serves
MINKOWSKI_P = {"euclidean": 2.0, "manhattan": 1.0}


class PointMetric:
    """The distance function of ``n`` points.

    Parameters
    ----------
    points : ndarray, shape (n, d) or (n, n)
        Coordinates, or the distance matrix itself when ``metric == "precomputed"`` (already
        validated by the instance).
    metric : {"euclidean", "manhattan", "hamming", "precomputed"}
    """

    def __init__(self, points: np.ndarray, metric: str) -> None:
        self.points = points
        self.metric = metric
        self.n = int(points.shape[0])
        #: Minkowski exponent for the KD-tree (None: hamming and precomputed, served by blocks)
        self.p = MINKOWSKI_P.get(metric)
        self._tree: cKDTree | None = None

    @property
    def tree(self) -> cKDTree | None:
        """The KD-tree over the coordinates (``None`` for hamming and precomputed)."""
        if self._tree is None and self.p is not None:
            self._tree = cKDTree(self.points)
        return self._tree

    # -----------------------------------------------------------------------------------------
    # distances of given pairs
    # -----------------------------------------------------------------------------------------
    def pairs(self, i: np.ndarray | int, j: np.ndarray | int) -> np.ndarray:
        """``d(i[t], j[t])`` for every ``t`` (broadcast)."""
        i, j = np.broadcast_arrays(np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64))
        if self.metric == "precomputed":
            return self.points[i, j].astype(float)
        diff = self.points[i] - self.points[j]
        if self.metric == "euclidean":
            return np.sqrt(np.einsum("...k,...k->...", diff, diff))
        if self.metric == "manhattan":
            return np.abs(diff).sum(axis=-1)
        return np.count_nonzero(diff != 0, axis=-1).astype(float)  # hamming

    def block(self, rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """Dense distances ``D[a, b] = d(rows[a], cols[b])`` (``cols``: every point)."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.metric == "precomputed":
            out = self.points[rows] if cols is None else self.points[np.ix_(rows, cols)]
            return out.astype(float)
        if cols is None:
            cols = np.arange(self.n)
        return self.pairs(rows[:, None], np.asarray(cols, dtype=np.int64)[None, :])

    def row(self, i: int) -> np.ndarray:
        """Distances from point ``i`` to every point, shape (n,)."""
        return self.block(np.array([i]))[0]

    def dense(self) -> np.ndarray:
        """The full ``n x n`` matrix (small instances: exact models, brute force)."""
        if self.metric == "precomputed":
            return self.points.astype(float)
        if self.metric == "hamming":  # counts; a fraction times d is not always exact
            return np.rint(cdist(self.points, self.points, "hamming") * self.points.shape[1])
        return self.block(np.arange(self.n))

    def _blocks(self) -> Iterator[np.ndarray]:
        for start in range(0, self.n, BLOCK):
            yield np.arange(start, min(start + BLOCK, self.n))

    # -----------------------------------------------------------------------------------------
    # neighbourhoods
    # -----------------------------------------------------------------------------------------
    def kth_neighbor_distances(self, m: int) -> np.ndarray:
        """``d_m(i)``: distance from each point to its ``m``-th nearest other point.

        ``m = 0`` gives zeros; ``m`` must be at most ``n - 1``. Ties and duplicate points count
        as separate neighbours (a duplicate is at distance 0).
        """
        if m <= 0:
            return np.zeros(self.n)
        if m > self.n - 1:
            raise ValueError(f"`m` must be at most n - 1 = {self.n - 1}, got {m}")
        tree = self.tree
        if tree is not None:
            # the (m+1)-th smallest distance counting the point itself (distance 0) is d_m
            _, idx = tree.query(self.points, k=m + 1, p=self.p)
            idx = np.asarray(idx).reshape(self.n, m + 1)
            d = self.pairs(np.arange(self.n)[:, None], idx)
            return np.sort(d, axis=1)[:, m]
        out = np.empty(self.n)
        for rows in self._blocks():
            d = self.block(rows)
            out[rows] = np.partition(d, m, axis=1)[:, m]  # column 0 of the sorted row is d(i,i)=0
        return out

    def ball(self, i: int, radius: float) -> tuple[np.ndarray, np.ndarray]:
        """``(points, distances)``: every ``j`` with ``d(i, j) <= radius`` (``i`` included).

        The KD-tree only preselects within a slightly larger radius; the decision uses
        :meth:`pairs`, so it agrees with :meth:`within` and with the verifier.
        """
        if self.tree is not None:
            slack = radius * (1 + 1e-9) + 1e-12
            cand = np.asarray(self.tree.query_ball_point(self.points[i], slack, p=self.p))
            cand = cand.astype(np.int64)
        else:
            cand = np.arange(self.n)
        d = self.pairs(i, cand)
        keep = d <= radius
        return cand[keep], d[keep]

    def nearest(self, i: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(points, distances)`` of the ``k`` points nearest to ``i`` (``i`` included), nearest
        first, ties by index; distances from :meth:`pairs` (the KD-tree only ranks)."""
        k = min(k, self.n)
        if self.tree is not None:
            _, idx = self.tree.query(self.points[i], k=k, p=self.p)
            idx = np.atleast_1d(np.asarray(idx, dtype=np.int64))
        else:
            row = self.row(i)
            idx = np.argpartition(row, k - 1)[:k] if k < self.n else np.arange(self.n)
        d = self.pairs(i, idx)
        rank = np.lexsort((idx, d))
        return idx[rank], d[rank]

    def within(self, radius: float) -> sp.csr_matrix:
        """Every pair at distance ``<= radius``, the diagonal included, as a CSR matrix.

        ``M[i, j] = True`` iff ``d(i, j) <= radius``; rows are sorted by column. The matrix is
        boolean so that zero distances are kept as entries.
        """
        rows_out: list[np.ndarray] = []
        cols_out: list[np.ndarray] = []
        tree = self.tree
        if tree is not None:
            slack = radius * (1 + 1e-9) + 1e-12  # preselect, then decide with pairs()
            pairs = tree.query_pairs(slack, p=self.p, output_type="ndarray")
            if pairs.size:
                keep = self.pairs(pairs[:, 0], pairs[:, 1]) <= radius
                pairs = pairs[keep]
                rows_out += [pairs[:, 0], pairs[:, 1]]
                cols_out += [pairs[:, 1], pairs[:, 0]]
            rows_out.append(np.arange(self.n))
            cols_out.append(np.arange(self.n))
        else:
            for rows in self._blocks():
                r, c = np.nonzero(self.block(rows) <= radius)
                rows_out.append(rows[r])
                cols_out.append(c)
        r = np.concatenate(rows_out) if rows_out else np.empty(0, dtype=np.int64)
        c = np.concatenate(cols_out) if cols_out else np.empty(0, dtype=np.int64)
        data = np.ones(r.size, dtype=bool)
        out = sp.csr_matrix((data, (r, c)), shape=(self.n, self.n))
        out.sum_duplicates()
        out.sort_indices()
        return out

    def candidate_distances(self, low: float, high: float) -> np.ndarray:
        """The distinct pairwise distances in ``[low, high]``, sorted (the threshold candidates)."""
        if self.p is not None:
            assert self.tree is not None
            slack = high * (1 + 1e-9) + 1e-12
            pairs = self.tree.query_pairs(slack, p=self.p, output_type="ndarray")
            d = self.pairs(pairs[:, 0], pairs[:, 1]) if pairs.size else np.empty(0)
        else:
            parts = []
            for rows in self._blocks():
                block = self.block(rows)
                mask = np.arange(self.n)[None, :] > rows[:, None]  # each pair once
                parts.append(block[mask])
            d = np.concatenate(parts) if parts else np.empty(0)
        d = d[(d >= low) & (d <= high)]
        return np.unique(d)
