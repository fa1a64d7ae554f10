"""Minimum-size k-medoids: a Lloyd-style baseline for r-gather and r-cellular clustering (not
from the paper; compared against its approximation algorithms)."""

from __future__ import annotations

from time import perf_counter

import numpy as np
from scipy.spatial import cKDTree

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import (
    ClusteringInstance,
    RCellularInstance,
    RGatherInstance,
)
from anonratio.instances.clustering.verify import clustering_info
from anonratio.instances.validation import (
    check_instance,
    check_int,
    check_random_state,
    check_seed,
)

__all__ = ["min_size_kmeans"]

_BLOCK = 512


def _plus_plus(instance: ClusteringInstance, m: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding over the input points (probability proportional to squared distance)."""
    n = instance.n
    centers = [int(rng.integers(n))]
    gap = instance.distances.row(centers[0]) ** 2
    for _ in range(m - 1):
        total = gap.sum()
        c = int(rng.choice(n, p=gap / total)) if total > 0 else int(rng.integers(n))
        centers.append(c)
        gap = np.minimum(gap, instance.distances.row(c) ** 2)
    return np.asarray(centers, dtype=np.int64)


def _nearest_center(
    instance: ClusteringInstance, points: np.ndarray, centers: np.ndarray
) -> np.ndarray:
    """Index into ``centers`` of the nearest center of each of ``points`` (KD-tree or blocks)."""
    metric = instance.distances
    if metric.tree is not None:
        tree = cKDTree(metric.points[centers])
        return np.asarray(tree.query(metric.points[points], p=metric.p)[1], np.int64)
    out = np.empty(points.size, dtype=np.int64)
    for start in range(0, points.size, _BLOCK):
        rows = points[start : start + _BLOCK]
        out[start : start + _BLOCK] = np.argmin(metric.block(rows, centers), axis=1)
    return out


def _assign(
    instance: ClusteringInstance, centers: np.ndarray, r: int
) -> tuple[np.ndarray, np.ndarray]:
    """Nearest center, then repair; returns ``(labels, centers)`` (fewer centers, maybe).

    A cluster short of ``r`` first takes, among the ``2r`` points nearest to its center, those
    of clusters holding more than ``r``; a cluster still short is dissolved (its points go to
    the nearest remaining center) until every cluster has ``r`` points.
    """
    n = instance.n
    labels = _nearest_center(instance, np.arange(n), centers)
    sizes = np.bincount(labels, minlength=centers.size)
    for c in np.flatnonzero(sizes < r).tolist():
        near, _ = instance.distances.nearest(int(centers[c]), 2 * r)
        for p in near.tolist():
            if sizes[c] >= r:
                break
            if labels[p] != c and sizes[labels[p]] > r:
                sizes[labels[p]] -= 1
                labels[p], sizes[c] = c, sizes[c] + 1
    while True:
        short = sizes < r
        if not short.any():
            return labels, centers
        if short.all():  # keep the largest cluster
            short[int(np.argmax(sizes))] = False
        keep = np.flatnonzero(~short)
        renumber = np.full(centers.size, -1, dtype=np.int64)
        renumber[keep] = np.arange(keep.size)
        centers, labels = centers[keep], renumber[labels]
        moved = np.flatnonzero(labels < 0)
        labels[moved] = _nearest_center(instance, moved, centers)
        sizes = np.bincount(labels, minlength=centers.size)


def _cost(instance: ClusteringInstance, labels: np.ndarray, centers: np.ndarray) -> float:
    radii = np.asarray(clustering_info(instance, labels, centers)["radii"])
    if isinstance(instance, RCellularInstance):
        sizes = np.bincount(labels, minlength=centers.size)
        return float(instance.facility[centers].sum() + (sizes * radii).sum())
    return float(radii.max())


def _medoids(instance: ClusteringInstance, labels: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """Best member of each cluster: the smallest radius (r-gather) or ``f + size x radius``."""
    out = centers.copy()
    groups = np.split(np.argsort(labels, kind="stable"), np.cumsum(np.bincount(labels))[:-1])
    for c, members in enumerate(groups):
        reach = instance.distances.block(members, members).max(axis=1)
        score = reach
        if isinstance(instance, RCellularInstance):
            score = instance.facility[members] + members.size * reach
        out[c] = members[int(np.argmin(score))]
    return out


def min_size_kmeans(
    instance: RGatherInstance | RCellularInstance,
    *,
    seed: int | np.random.Generator | None = None,
    max_iter: int = 20,
) -> Solution:
    """Minimum-size k-medoids: Lloyd iterations whose clusters keep at least ``r`` points.

    ``m = floor(n / r)`` centers from k-means++ seeding over the input points; then alternate
    (a) assignment: every point to its nearest center, repaired so that every cluster has
    ``r`` points (a short cluster takes the points nearest to its center from clusters with
    more than ``r``), and (b) update: each cluster's center becomes its best member (smallest
    radius for r-gather, smallest ``f(center) + size x radius`` for r-cellular), until the
    labels repeat or ``max_iter`` rounds. The best clustering seen is returned.

    Parameters
    ----------
    instance : RGatherInstance or RCellularInstance
    seed : int, numpy.random.Generator or None
        Drives the k-means++ seeding (deterministic per seed).
    max_iter : int
        Most assignment/update rounds (``>= 1``).

    Returns
    -------
    Solution
        Always feasible; ``objective`` = the problem's cost (largest radius, or the cellular
        sum); ``lower_bound`` None; ``info``: ``centers``, ``radii``, ``n_clusters``,
        ``iterations``, ``sum_distance`` (total member-to-center distance: what the nearest-
        center assignment decreases), ``converged``.

    Notes
    -----
    A heuristic without a guarantee. Each round costs ``O(n m)`` distances for the assignment
    (in blocks), ``O(n)`` per short cluster for the repair and ``O(sum |c|^2)`` for the update.
    """
    t0 = perf_counter()
    if not isinstance(instance, RCellularInstance):
        check_instance(instance, RGatherInstance)
    max_iter = check_int("max_iter", max_iter, low=1)
    rng, seed_rec = check_random_state(seed), check_seed(seed)
    r = instance.r
    centers = _plus_plus(instance, instance.n // r, rng)
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    previous = None
    converged = False
    iterations = 0
    for _ in range(max_iter):
        iterations += 1
        labels, centers = _assign(instance, centers, r)
        centers = _medoids(instance, labels, centers)
        cost = _cost(instance, labels, centers)
        if best is None or cost < best[0]:
            best = (cost, labels, centers)
        if previous is not None and np.array_equal(previous, labels):
            converged = True
            break
        previous = labels
    assert best is not None
    cost, labels, centers = best
    base = clustering_info(instance, labels, centers)
    sum_distance = float(instance.distances.pairs(np.arange(instance.n), centers[labels]).sum())
    info = {**base, "n_clusters": int(centers.size), "iterations": iterations}
    info |= {"sum_distance": sum_distance, "converged": converged}
    return Solution(
        labels=labels,
        algorithm="min-size-kmeans",
        params={**instance.params, "max_iter": max_iter},
        seed=seed_rec,
        status="feasible",
        objective=cost,
        time_s=perf_counter() - t0,
        info=info,
    )
