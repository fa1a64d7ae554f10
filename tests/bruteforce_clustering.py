"""Brute-force optima of the five clustering problems (on ``pythonpath``: ``from
bruteforce_clustering import clustering_optimum``), independent of the exact models.

A dynamic program over subsets (``n <= 10``): the best center of every subset is found by
trying every point, then the cheapest partition is built cluster by cluster, the cluster of the
lowest remaining point enumerated over the subsets of the rest (that point may instead be left
out, for (r, eps)-gather). Conventions as the verifier's: centers are any input points, need not
belong to their cluster.
"""

from functools import cache

import numpy as np
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path
from scipy.spatial.distance import pdist, squareform

from anonratio.instances.clustering import (
    CellularInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)

__all__ = ["clustering_optimum", "subset_costs", "points", "any_instances", "PROBLEMS"]

PROBLEMS = ("r-gather", "r-eps-gather", "kr-center", "cellular", "r-cellular")

_MAX_RADIUS = ("r-gather", "r-eps-gather", "kr-center")


def subset_costs(instance):
    """``(size, cost)`` per subset mask: ``cost`` is the smallest radius (gather problems) or the
    smallest ``f(v) + |S| radius`` (cellular problems) over all centers ``v``."""
    n = instance.n
    d = instance.distances.dense()
    full = 1 << n
    reach = np.zeros((full, n))  # reach[S, v] = max_{i in S} d(v, i)
    size = np.zeros(full, dtype=np.int64)
    for mask in range(1, full):
        low = (mask & -mask).bit_length() - 1
        rest = mask & (mask - 1)
        reach[mask] = np.maximum(reach[rest], d[:, low])
        size[mask] = size[rest] + 1
    if instance.problem in _MAX_RADIUS:
        cost = reach.min(axis=1)
    else:
        cost = (instance.facility[None, :] + size[:, None] * reach).min(axis=1)
    return size, cost


def clustering_optimum(instance):
    """The optimum cost of a small clustering instance (``inf`` if none is feasible)."""
    n = instance.n
    if n > 10:
        raise ValueError(f"brute force needs n <= 10, got {n}")
    size, cost = subset_costs(instance)
    r = getattr(instance, "r", 1)
    k = getattr(instance, "k", n)
    q = getattr(instance, "max_outliers", 0)
    combine = max if instance.problem in _MAX_RADIUS else (lambda a, b: a + b)
    inf = float("inf")

    @cache
    def best(mask, clusters_left, outliers_left):
        if mask == 0:
            return 0.0
        low = mask & -mask
        rest = mask ^ low
        out = inf
        if outliers_left > 0:  # the lowest point stays unclustered
            out = best(rest, clusters_left, outliers_left - 1)
        if clusters_left == 0:
            return out
        sub = rest
        while True:
            s = sub | low
            if size[s] >= r:
                tail = best(mask ^ s, clusters_left - 1, outliers_left)
                if tail < inf:
                    out = min(out, combine(float(cost[s]), tail))
            if sub == 0:
                break
            sub = (sub - 1) & rest
        return out

    value = best((1 << n) - 1, k, q)
    best.cache_clear()
    return value


@st.composite
def points(draw, max_n=9):
    """Small point sets: integer grids (ties, duplicates), floats, or the shortest-path metric
    of a random connected weighted graph."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    kind = draw(st.sampled_from(["grid", "float", "graph"]))
    if kind == "grid":
        metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming"]))
        return rng.integers(0, 3, size=(n, 2)).astype(float), metric
    if kind == "float":
        return rng.random((n, draw(st.integers(1, 3)))), "euclidean"
    w = np.zeros((n, n))
    for v in range(1, n):  # a random tree plus chords
        w[v, rng.integers(v)] = rng.integers(1, 6)
    extra = rng.random((n, n)) < 0.3
    w[extra] = rng.integers(1, 6, size=int(extra.sum()))
    return shortest_path(np.triu(w + w.T, 1), directed=False), "precomputed"


@st.composite
def any_instances(draw, max_n=8):
    """A tiny instance of any problem: rounded coordinates (duplicates occur) or a matrix."""
    n = draw(st.integers(2, max_n))
    metric = draw(st.sampled_from(["euclidean", "manhattan", "hamming", "precomputed"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if metric == "hamming":
        pts = rng.integers(0, 2, size=(n, 3))
    elif metric == "manhattan":
        pts = rng.integers(0, 4, size=(n, 2))
    else:
        pts = rng.random((n, 2)).round(draw(st.sampled_from([1, 3])))
    if metric == "precomputed":
        pts = squareform(pdist(pts))
    problem = draw(st.sampled_from(PROBLEMS))
    r = draw(st.integers(1, min(3, n)))
    f = rng.random(n).round(1) * 2 if draw(st.booleans()) else None
    if problem == "r-gather":
        return RGatherInstance(pts, r, metric=metric)
    if problem == "r-eps-gather":
        eps = draw(st.sampled_from([0.0, 0.15, 0.3, 0.6]))
        r = draw(st.sampled_from([r, n]))  # r = n: every point clustered, whatever eps allows
        return REpsGatherInstance(pts, r, eps, metric=metric)
    if problem == "kr-center":
        return KRCenterInstance(pts, draw(st.integers(1, 3)), r, metric=metric)
    if problem == "cellular":
        return CellularInstance(pts, f, metric=metric)
    return RCellularInstance(pts, r, f, metric=metric)
