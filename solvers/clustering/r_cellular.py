"""The 80-approximation for r-CELLULAR CLUSTERING (Aggarwal et al., PODS 2006, §3.1).

Three steps:

1. *Augment*: the CELLULAR CLUSTERING instance whose cluster ``(v, d)`` costs ``f(v) + r d`` and
   exists only with at least ``r`` potential members; an optimal r-cellular solution costs at
   most ``2 OPT_r`` there. Procedure 1 (:mod:`.dual_events`) clusters it.
2. *Share*: every opened cluster (center ``P``) also takes the ``r`` points nearest ``P``
   (within its opening radius, which had ``r`` potential members); points may now belong to
   several clusters, each of which has at least ``r`` members.
3. *Unshare*: clusters in increasing radius open when at least ``r`` of their members are
   still unassigned and take them; the others are *leftover*. Each unassigned point goes to the
   first leftover cluster containing it, and each leftover cluster hangs below an open cluster
   (of no larger radius) holding one of its members (Figure 4). Per tree, a greedy grouping
   makes clusters of at least ``r`` points (Lemma 3.4: at most ``2r - 1`` with leftover
   points), centered at the center of their largest leftover cluster (Lemma 3.5: radius at
   most 5 times its radius).
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import RCellularInstance
from anonratio.instances.clustering.verify import clustering_lower_bound
from anonratio.instances.validation import check_instance, check_seed
from anonratio.solvers.clustering.dual_events import grow_duals_by_events
from anonratio.solvers.clustering.neighbour_rows import RowStore
from anonratio.solvers.clustering.primal_dual import cellular_cost, growth_clustering

__all__ = ["r_cellular", "SharedClusters", "share", "unshare", "group_weights"]


def _members_of(ids: np.ndarray, m: int) -> list[np.ndarray]:
    """For each id ``0 .. m-1``, the indices ``i`` with ``ids[i] == id`` (ascending)."""
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(m + 1))
    return [order[bounds[c] : bounds[c + 1]] for c in range(m)]


@dataclass(frozen=True)
class SharedClusters:
    """Clusters that may overlap: members of cluster ``c`` are ``members[ptr[c]:ptr[c+1]]``
    around ``centers[c]``, at true radius ``radii[c]``."""

    ptr: np.ndarray
    members: np.ndarray
    centers: np.ndarray
    radii: np.ndarray

    def of(self, c: int) -> np.ndarray:
        """Members of cluster ``c``."""
        return self.members[self.ptr[c] : self.ptr[c + 1]]

    def cost(self, facility: np.ndarray) -> float:
        """The shared cost: ``sum f(center) + size x radius`` (a point pays in each cluster)."""
        sizes = np.diff(self.ptr)
        return float(facility[self.centers].sum() + (sizes * self.radii).sum())


def share(
    instance: RCellularInstance,
    rows: RowStore,
    labels: np.ndarray,
    centers: np.ndarray,
) -> SharedClusters:
    """Step 2: each cluster of ``labels`` also takes the ``r`` points nearest its center.

    ``rows`` are the neighbour rows of the augmented run (nearest first, ties by index, each
    complete below its bound); a row listing fewer than ``r`` points (ties at its bound) is
    lengthened first, so its first ``r`` points are the ``r`` nearest, the center included.
    """
    r = instance.r
    parts = []
    own_of = _members_of(labels, centers.size)
    for c, v in enumerate(centers.tolist()):
        own = own_of[c]
        while rows.length[v] < r and rows.bound[v] < np.inf:
            rows.ensure_one(v, float(rows.bound[v]))
        near = rows.row(v)[0][:r]
        parts.append(np.union1d(own, near))
    sizes = np.array([p.size for p in parts], dtype=np.int64)
    ptr = np.concatenate(([0], np.cumsum(sizes)))
    members = np.concatenate(parts).astype(np.int64)
    owner = np.repeat(np.arange(centers.size), sizes)
    radii = np.zeros(centers.size)
    np.maximum.at(radii, owner, instance.distances.pairs(centers[owner], members))
    return SharedClusters(ptr, members, centers.astype(np.int64), radii)


def group_weights(m: int, weights: list[int], r: int) -> list[tuple[list[int], int]]:
    """The greedy grouping of one tree of Figure 4, on weights only.

    Parameters
    ----------
    m : int
        Number of first-level nodes (the open cluster's points, weight 1 each; ``m >= r``).
    weights : list of int
        Weights of the second-level nodes (leftover clusters), each ``1 .. r-1``, in grouping
        order.
    r : int

    Returns
    -------
    list of (positions, k)
        Each group as the positions in ``weights`` of its second-level nodes and its number
        ``k`` of first-level nodes; every group weighs at least ``r``.

    Notes
    -----
    Second-level nodes are collected until their weight reaches ``r``, repeatedly. The rest
    (weight ``W_s < r``) joins ``r - W_s`` first-level nodes when ``W_s + m >= 2r`` (the other
    first-level nodes form a group of their own), else all ``m``. With no rest at all, the
    first level stays one group (splitting it would pay the center's setup cost twice).
    """
    groups: list[tuple[list[int], int]] = []
    batch: list[int] = []
    weight = 0
    for pos, w in enumerate(weights):
        batch.append(pos)
        weight += w
        if weight >= r:
            groups.append((batch, 0))
            batch, weight = [], 0
    if not batch:
        groups.append(([], m))
    elif weight + m >= 2 * r:
        groups += [(batch, r - weight), ([], m - r + weight)]
    else:
        groups.append((batch, m))
    return groups


def unshare(
    instance: RCellularInstance, shared: SharedClusters
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Step 3: disjoint clusters of at least ``r`` points from a feasible shared solution.

    Returns ``(labels, centers, stats)`` with ``stats`` = ``n_open``, ``n_leftover``,
    ``n_second_level`` (leftover clusters that received points) and ``n_mixed`` (final clusters
    holding leftover points).
    """
    r, n = instance.r, instance.n
    order = np.argsort(shared.radii, kind="stable")
    owner = np.full(n, -1, dtype=np.int64)  # open cluster of each assigned point
    link: dict[int, int] = {}  # leftover cluster -> open cluster of its tree
    for c in order.tolist():
        mem = shared.of(c)
        taken = owner[mem]
        if np.count_nonzero(taken < 0) >= r:
            owner[mem[taken < 0]] = c
        else:  # a member went to an earlier (no larger) open cluster
            holders = np.unique(taken[taken >= 0])
            assert holders.size, "a leftover cluster must share a member with an open cluster"
            link[c] = int(holders[np.argmin(shared.radii[holders])])
    temp = np.full(n, -1, dtype=np.int64)  # leftover cluster of each unassigned point
    for c in order.tolist():
        if c in link:
            mem = shared.of(c)
            free = mem[(owner[mem] < 0) & (temp[mem] < 0)]
            temp[free] = c
    assert np.all((owner >= 0) | (temp >= 0)), "every point lies in some shared cluster"
    m = shared.centers.size
    temp_of = _members_of(temp, m)
    owner_of = _members_of(owner, m)
    tree: dict[int, list[int]] = {}
    for c in order.tolist():  # second-level nodes in increasing radius
        if c in link and temp_of[c].size:
            tree.setdefault(link[c], []).append(c)
    labels = np.full(n, -1, dtype=np.int64)
    centers: list[int] = []
    n_mixed = 0
    for o in order.tolist():
        if o in link:
            continue
        first = owner_of[o]
        second = tree.get(o, [])
        pts = [temp_of[c] for c in second]
        plan = group_weights(first.size, [p.size for p in pts], r)
        pool = first
        mixed = [g for g in plan if g[0]]
        for positions, k in mixed:
            big = second[max(positions, key=lambda q: shared.radii[second[q]])]
            center = int(shared.centers[big])  # Lemma 3.5: the largest leftover's center
            if k and k < pool.size:  # the k first-level points nearest that center
                near = np.argsort(instance.distances.pairs(center, pool), kind="stable")
                take, pool = pool[near[:k]], pool[near[k:]]
            elif k:
                take, pool = pool, pool[:0]
            else:
                take = pool[:0]
            labels[np.concatenate([pts[q] for q in positions] + [take])] = len(centers)
            centers.append(center)
            n_mixed += 1
        if any(not g[0] for g in plan):
            labels[pool] = len(centers)
            centers.append(int(shared.centers[o]))
    sizes = np.bincount(labels, minlength=len(centers))
    assert labels.min() >= 0 and sizes.min() >= r, "every final cluster has at least r points"
    stats = {
        "n_open": len(order) - len(link),
        "n_leftover": len(link),
        "n_second_level": sum(len(nodes) for nodes in tree.values()),
        "n_mixed": n_mixed,
    }
    return labels, np.asarray(centers, dtype=np.int64), stats


def r_cellular(instance: RCellularInstance, *, seed: Any = None) -> Solution:
    """The §3.1 algorithm (Aggarwal et al., PODS 2006): an 80-approximation for r-CELLULAR
    CLUSTERING (Theorem 3.6).

    Augment (setup ``f(v) + r d``, clusters with fewer than ``r`` potential members dropped),
    run Procedure 1, share (each cluster takes the ``r`` points nearest its center), unshare
    (Figure 4's trees and greedy grouping). Deterministic (``seed`` is only recorded).

    Parameters
    ----------
    instance : RCellularInstance
        Points, metric, ``r`` and setup costs (0 by default). The guarantee assumes the
        triangle inequality.
    seed : None or int
        Recorded in the solution; the algorithm uses no randomness.

    Returns
    -------
    Solution
        Every cluster has at least ``r`` points. ``lower_bound`` = the larger of
        ``sum_i d_{r-1}(i) / 2 + min f`` and half the augmented run's dual (the augmented
        instance's LP optimum is at most ``2 OPT_r``). ``info``: ``centers``, ``radii``,
        ``dual_augmented``, ``cost_step1`` (Procedure 1's clusters at their true radii, sizes
        ignored), ``cost_shared`` (the shared solution, a point paying in each of its
        clusters), ``n_step1``, ``n_open``, ``n_leftover``, ``n_second_level`` (leftover
        clusters with points), ``n_mixed`` (final clusters with leftover points), ``events``,
        ``stale_pops``, ``extensions``, ``cap``.

    Notes
    -----
    Cost ``<= 80 OPT_r`` (Theorem 3.6; the paper's accounting). The augmented growth lists the
    pairs its events need (:func:`~.dual_events.grow_duals_by_events`: neighbour rows grown on
    demand, radii up to ``max_p f(p) + (1 + r) d_{r-1}(p)``); share and unshare are linear in
    the shared clusters' total size plus a Python loop over clusters.

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu,
    "Achieving Anonymity via Clustering", PODS 2006, §3.1 (Figure 4, Lemmas 3.4-3.5,
    Theorem 3.6).

    Examples
    --------
    >>> inst = RCellularInstance([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]], r=3)
    >>> sol = r_cellular(inst)
    >>> sol.labels.tolist(), sol.objective
    ([0, 0, 0, 1, 1, 1], 6.0)
    """
    t0 = perf_counter()
    check_instance(instance, RCellularInstance)
    seed_rec = check_seed(seed)
    r = instance.r
    growth = grow_duals_by_events(
        instance.distances, instance.facility, lam=float(r), min_members=r
    )
    cap = growth.rows.cap  # before share lengthens any row
    step1, centers1, _ = growth_clustering(growth)
    cost1, _ = cellular_cost(instance, step1, centers1)
    shared = share(instance, growth.rows, step1, centers1)
    labels, centers, stats = unshare(instance, shared)
    cost, info = cellular_cost(instance, labels, centers)
    dual = growth.dual
    bound = max(clustering_lower_bound(instance)[0], dual / 2)
    info.update(
        dual_augmented=dual,
        cost_step1=cost1,
        cost_shared=shared.cost(instance.facility),
        n_step1=int(centers1.size),
        **stats,
        events=growth.events,
        stale_pops=growth.stale_pops,
        extensions=growth.extensions,
        cap=cap,
    )
    return Solution(
        labels=labels,
        algorithm="r-cellular",
        params=instance.params,
        seed=seed_rec,
        status="feasible",
        objective=cost,
        lower_bound=bound,
        time_s=perf_counter() - t0,
        info=info,
    )
