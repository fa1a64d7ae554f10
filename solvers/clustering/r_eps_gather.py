"""The threshold 4-approximation for (r, eps)-gather (Aggarwal et al., PODS 2006, §2.3)."""

from __future__ import annotations

from time import perf_counter

import numpy as np
import scipy.sparse as sp

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance, REpsGatherInstance
from anonratio.instances.validation import check_instance, check_random_state, check_seed
from anonratio.solvers.clustering.r_gather import GatherTest, gather_solution, threshold_search

__all__ = ["r_eps_gather", "peel", "NeighbourGraph"]


class NeighbourGraph:
    """The pairs within ``2R`` for a radius that only shrinks after it has grown.

    :meth:`at` calls :meth:`PointMetric.within` when ``2R`` exceeds the largest radius queried
    so far, and otherwise filters that matrix by the stored distances (same floats as
    ``within``'s own decision), so a binary search queries the metric once.
    """

    def __init__(self, instance: ClusteringInstance) -> None:
        self.instance = instance
        self.radius = -1.0
        self.graph: sp.csr_matrix | None = None
        self.dist = np.empty(0)

    def at(self, radius: float) -> sp.csr_matrix:
        """CSR boolean matrix: ``d(i, j) <= radius``, diagonal included."""
        if radius > self.radius or self.graph is None:
            g = self.instance.distances.within(radius)
            rows = np.repeat(np.arange(g.shape[0]), np.diff(g.indptr))
            self.graph, self.radius = g, radius
            self.dist = self.instance.distances.pairs(rows, g.indices)
        if radius == self.radius:
            return self.graph
        keep = self.dist <= radius
        indptr = np.concatenate([[0], np.cumsum(keep)])[self.graph.indptr]
        return sp.csr_matrix(
            (self.graph.data[keep], self.graph.indices[keep], indptr), shape=self.graph.shape
        )

    def candidates(self, lo: float, hi: float) -> np.ndarray:
        """Sorted distinct candidates ``d_ij / 2`` in ``(lo, hi]`` (``hi`` queried already)."""
        self.at(2 * hi)
        half = np.unique(self.dist[(self.dist > 2 * lo) & (self.dist <= 2 * hi)]) / 2
        return half[(half > lo) & (half <= hi)]


def peel(graph: sp.csr_matrix, r: int) -> np.ndarray:
    """The largest set ``S`` in which every point has ``>= r - 1`` *other* points of ``S`` among
    its ``graph`` neighbours (boolean mask): repeatedly remove the points with fewer.

    Removals go in rounds; each round updates the degrees through the removed points' CSR
    rows, so the total work is ``O(nnz)``. The result (the ``(r-1)``-core) does not depend on
    the removal order.
    """
    n = graph.shape[0]
    deg = np.diff(graph.indptr) - 1  # others within the radius (the diagonal is stored)
    alive = np.ones(n, dtype=bool)
    drop = np.flatnonzero(deg < r - 1)
    while drop.size:
        alive[drop] = False
        nb = graph[drop].indices
        deg -= np.bincount(nb, minlength=n)
        nb = nb[alive[nb]]
        drop = np.unique(nb[deg[nb] < r - 1])
    return alive


def eps_clusters(
    instance: ClusteringInstance, graph: sp.csr_matrix, alive: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """§2.3's clusters of the points of ``S`` (``alive``); returns ``(labels, centers)``.

    Walk the points of ``S`` in ``order``: a point ``p`` not yet assigned with at least ``r - 1``
    other unassigned points of ``S`` within ``2R`` opens a cluster holding all of them (radius
    ``<= 2R``). A point of ``S`` still unassigned at the end joins, among the clusters of its
    assigned neighbours within ``2R``, the one with the nearest center (``<= 4R``). Points
    outside ``S`` get -1.
    """
    r = instance.r  # type: ignore[attr-defined]
    n = instance.n
    labels = np.full(n, -1, dtype=np.int64)
    free = alive.copy()
    indptr, indices = graph.indptr, graph.indices
    centers: list[int] = []
    for p in order.tolist():  # a point that cannot open a cluster never can later
        if not free[p]:
            continue
        nb = indices[indptr[p] : indptr[p + 1]]
        nb = nb[free[nb]]
        if nb.size >= r:
            labels[nb] = len(centers)
            free[nb] = False
            centers.append(p)
    left = np.flatnonzero(free)
    if left.size:
        # A leftover u of S has >= r-1 others of S within 2R, i.e. >= r points of S in its
        # neighbourhood. When u was visited it could not open a cluster (it is still free), so
        # fewer than r of them were free: some neighbour was already assigned, and it stays so.
        sub = graph[left].tocoo()
        owner = left[sub.row]
        nbr = sub.col
        keep = labels[nbr] >= 0
        owner, cluster = owner[keep], labels[nbr[keep]]
        if np.setdiff1d(left, owner).size:
            raise RuntimeError("internal error: a leftover point has no assigned neighbour")
        center_arr = np.asarray(centers, dtype=np.int64)
        d = instance.distances.pairs(owner, center_arr[cluster])
        pick = np.lexsort((cluster, d, owner))
        pts, first = np.unique(owner[pick], return_index=True)
        labels[pts] = cluster[pick[first]]
    return labels, np.asarray(centers, dtype=np.int64)


def r_eps_gather(
    instance: REpsGatherInstance, *, seed: int | np.random.Generator | None = None
) -> Solution:
    """The threshold 4-approximation for (r, eps)-gather (Aggarwal et al., PODS 2006, §2.3).

    Find the smallest candidate ``R = d_ij / 2`` such that some set ``S`` of at least
    ``n - floor(eps n)`` points has every point with ``r - 1`` other points of ``S`` within
    ``2R`` (:func:`peel` finds the largest such ``S``); cluster ``S`` (:func:`eps_clusters`);
    the points outside ``S`` stay unclustered. Radius at most ``4R <= 4 OPT``.

    Parameters
    ----------
    instance : REpsGatherInstance
        Points in a metric space (the guarantee needs the triangle inequality).
    seed : int, numpy.random.Generator or None
        Draws the order in which points of ``S`` try to open clusters.

    Returns
    -------
    Solution
        ``labels`` with ``-1`` for the points outside ``S``; ``objective`` = largest radius
        (``<= 4R``); ``lower_bound`` = ``R``; ``info``: ``centers``, ``radii``, ``R``,
        ``threshold_lower_bound``, ``largest_refuted``, ``n_centers``, ``n_core`` (``|S|``),
        ``tests``, ``search``.

    Notes
    -----
    The condition is monotone in ``R`` (a larger radius only adds pairs, so the peeled set
    only grows), so the binary search finds the smallest passing candidate. Lower bound: take
    an optimal solution and ``d*`` the largest diameter of its clusters; its clustered points
    (at least ``n - floor(eps n)``) each have ``r - 1`` cluster mates within ``d* = 2 (d*/2)``,
    so the candidate ``d*/2`` passes and ``R <= d*/2 <= OPT`` (triangle inequality).

    The search starts at the ``(floor(eps n) + 1)``-th largest ``d_{r-1}(i) / 2``: below it more
    than ``floor(eps n)`` points have fewer than ``r - 1`` others within ``2R`` at all.
    Each test builds (or filters) the sparse neighbourhood matrix within ``2R`` and peels it in
    ``O(nnz)``.

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu,
    "Achieving Anonymity via Clustering", PODS 2006, §2.3 (Theorem 2.3).

    Examples
    --------
    >>> from anonratio.instances.clustering import REpsGatherInstance
    >>> inst = REpsGatherInstance([[0.0], [0.5], [1.0], [50.0]], r=3, epsilon=0.25)
    >>> sol = r_eps_gather(inst, seed=0)
    >>> sol.labels.tolist(), sol.lower_bound
    ([0, 0, 0, -1], 0.5)
    """
    t0 = perf_counter()
    check_instance(instance, REpsGatherInstance)
    rng, seed_rec = check_random_state(seed), check_seed(seed)
    n, r, q = instance.n, instance.r, instance.max_outliers
    half = instance.distances.kth_neighbor_distances(r - 1) / 2
    start = float(np.sort(half)[::-1][q])
    neighbours = NeighbourGraph(instance)

    def test(R: float) -> GatherTest:
        alive = peel(neighbours.at(2 * R), r)
        ok = int(alive.sum()) >= n - q
        return GatherTest(ok, np.empty(0, dtype=np.int64), alive.astype(np.int64) if ok else None)

    R, result, search = threshold_search(instance, start, test, candidates=neighbours.candidates)
    assert result.labels is not None
    alive = result.labels.astype(bool)
    labels, centers = eps_clusters(instance, neighbours.at(2 * R), alive, rng.permutation(n))
    info = {"R": R, "threshold_lower_bound": R, "largest_refuted": search["largest_refuted"]}
    info |= {"n_centers": int(centers.size), "n_core": int(alive.sum())}
    info |= {"tests": search["tests"], "search": search["search"]}
    return gather_solution(
        instance,
        labels,
        centers,
        algorithm="r-eps-gather",
        seed=seed_rec,
        t0=t0,
        lower_bound=R,
        info=info,
    )
