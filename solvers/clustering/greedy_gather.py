"""Greedy r-gather: a baseline that grows clusters from the points with the densest
neighbourhoods (not from the paper; compared against §2.2's threshold algorithm)."""

from __future__ import annotations

from time import perf_counter

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import RGatherInstance
from anonratio.instances.validation import check_instance, check_random_state, check_seed
from anonratio.solvers.clustering.r_gather import gather_solution

__all__ = ["greedy_gather"]


def greedy_gather(
    instance: RGatherInstance, *, seed: int | np.random.Generator | None = None
) -> Solution:
    """Greedy r-gather: clusters of exactly ``r`` nearest unassigned points, then attach the rest.

    With ``tau = max_i d_{r-1}(i)`` (twice the lower bound ``max_i d_{r-1}(i) / 2``), visit the
    points by increasing ``d_{r-1}(i)`` (ties: a random order from ``seed``). A still unassigned
    point ``p`` whose ``r - 1`` nearest unassigned other points are within ``tau`` opens a
    cluster with them. Every point left over joins the cluster with the nearest center.

    Parameters
    ----------
    instance : RGatherInstance
    seed : int, numpy.random.Generator or None
        Breaks ties in the visiting order.

    Returns
    -------
    Solution
        Always feasible (every cluster has at least ``r`` points); ``lower_bound`` =
        ``tau / 2``; ``info``: ``centers``, ``radii``, ``tau``, ``n_leftover`` (points attached
        at the end), ``bound`` (``2 tau``).

    Notes
    -----
    A baseline without a ratio claimed by the paper, but its cost is at most
    ``2 tau <= 4 OPT``: the first point visited always opens a cluster (its ``r - 1`` nearest
    are within ``d_{r-1}(p) <= tau``); a leftover point ``u`` could not open a cluster when
    visited although it has ``r - 1`` others within ``d_{r-1}(u) <= tau``, so one of them
    ``q`` was already in a cluster, whose center is within ``tau`` of ``q``, hence within
    ``2 tau`` of ``u``; and ``tau / 2 <= OPT``.

    Time: one KD-tree ``k``-nearest query per point (``k = 2r``, doubled when the unassigned
    ones run short; one distance row per point for hamming and precomputed) and one nearest-
    center query per leftover point.
    """
    t0 = perf_counter()
    check_instance(instance, RGatherInstance)
    rng, seed_rec = check_random_state(seed), check_seed(seed)
    n, r = instance.n, instance.r
    dk = instance.distances.kth_neighbor_distances(r - 1)
    tau = float(dk.max())
    visit = np.lexsort((rng.permutation(n), dk))
    labels = np.full(n, -1, dtype=np.int64)
    free = np.ones(n, dtype=bool)
    centers: list[int] = []
    for p in visit.tolist():
        if not free[p]:
            continue
        k = 2 * r
        while True:
            idx, d = instance.distances.nearest(p, k)
            ok = free[idx] & (idx != p) & (d <= tau)
            if np.count_nonzero(ok) >= r - 1 or k >= n or d[-1] > tau:
                break
            k *= 2
        mates = idx[ok][: r - 1]
        if mates.size == r - 1:
            members = np.append(mates, p)
            labels[members] = len(centers)
            free[members] = False
            centers.append(p)
    center_arr = np.asarray(centers, dtype=np.int64)
    left = np.flatnonzero(free)
    for start in range(0, left.size, 512):  # nearest center, in blocks
        rows = left[start : start + 512]
        d = instance.distances.block(rows, center_arr)
        labels[rows] = np.argmin(d, axis=1)
    info = {"tau": tau, "n_leftover": int(left.size), "bound": 2 * tau}
    return gather_solution(
        instance,
        labels,
        center_arr,
        algorithm="greedy-gather",
        seed=seed_rec,
        t0=t0,
        lower_bound=tau / 2,
        info=info,
    )
