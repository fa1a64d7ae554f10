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

__all__ = ["clustering_optimum", "subset_costs"]

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
