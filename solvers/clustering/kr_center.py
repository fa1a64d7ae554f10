"""The threshold 2-approximation for (k, r)-center (Aggarwal et al., PODS 2006, §2.4)."""

from __future__ import annotations

from time import perf_counter

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance, KRCenterInstance
from anonratio.instances.validation import check_instance, check_random_state, check_seed
from anonratio.solvers.clustering.r_gather import gather_solution, gather_test, threshold_search

__all__ = ["kr_center", "farthest_first_bound"]


def farthest_first_bound(instance: ClusteringInstance, k: int) -> float:
    """``D / 2`` where ``D`` is the smallest pairwise distance among ``k + 1`` farthest-first
    points (Gonzalez): two of them share one of at most ``k`` clusters, so every clustering into
    at most ``k`` clusters has a diameter ``>= D`` and a radius ``>= D / 2``. ``D / 2`` is a
    candidate ``d_ij / 2``. 0 when ``k >= n``. ``O(n k)`` time."""
    n = instance.n
    if k >= n:
        return 0.0
    gap = instance.distances.row(0)  # distance to the nearest pick so far (first pick: 0)
    last = 0.0
    for _ in range(k):  # k more picks; gaps at pick time never increase
        far = int(np.argmax(gap))
        last = float(gap[far])
        if last == 0:
            return 0.0
        gap = np.minimum(gap, instance.distances.row(far))
    return last / 2


def kr_center(
    instance: KRCenterInstance, *, seed: int | np.random.Generator | None = None
) -> Solution:
    """The threshold 2-approximation for (k, r)-center (Aggarwal et al., PODS 2006, §2.4).

    The r-gather algorithm (:func:`~anonratio.solvers.clustering.r_gather.r_gather`) with one
    more failure in Condition (2): more than ``k`` centers (more precisely more than
    ``k' = min(k, floor(n / r))``, the most clusters of ``r`` points there can be). Radius at
    most ``2R <= 2 OPT``.

    Parameters
    ----------
    instance : KRCenterInstance
        Points in a metric space (the guarantee needs the triangle inequality).
    seed : int, numpy.random.Generator or None
        Draws the order in which Condition (2) picks centers.

    Returns
    -------
    Solution
        ``objective`` = largest radius; ``lower_bound`` = ``R``; ``info``: ``centers``,
        ``radii``, ``R``, ``threshold_lower_bound``, ``largest_refuted``, ``n_centers``,
        ``tests``, ``search``, ``start`` (the first radius tried), ``farthest_first_bound``.

    Notes
    -----
    Centers are picked among the *unmarked* points (see the Notes of ``r_gather`` for why the
    text's "at least r unmarked points" count is not used), so they are pairwise more than
    ``2R`` apart. At ``R >= d*/2`` (``d*``: the largest diameter of an optimal cluster) each
    optimal cluster holds at most one center, so at most ``k'`` centers are opened and the flow
    of Lemma 2.1 exists: every such ``R`` passes. As for r-gather, the returned candidate ``R``
    has a refuted radius just below it, hence ``R <= d*/2 <= OPT``.

    The search starts at ``max(max_i d_{r-1}(i) / 2, D / 2)`` (Condition (1), and the
    farthest-first bound of :func:`farthest_first_bound` with ``k'`` clusters); every candidate
    below either is below ``d*/2``. Doubling always ends: at half the diameter one center
    covers all points.

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu,
    "Achieving Anonymity via Clustering", PODS 2006, §2.4.

    Examples
    --------
    >>> from anonratio.instances.clustering import KRCenterInstance
    >>> sol = kr_center(KRCenterInstance([[0.0], [1.0], [10.0], [11.0]], k=1, r=2), seed=0)
    >>> len(sol.info["centers"]), sol.objective <= 2 * sol.lower_bound
    (1, True)
    """
    t0 = perf_counter()
    check_instance(instance, KRCenterInstance)
    rng, seed_rec = check_random_state(seed), check_seed(seed)
    n, r = instance.n, instance.r
    k_eff = min(instance.k, n // r)
    gather = float(instance.distances.kth_neighbor_distances(r - 1).max()) / 2
    farthest = farthest_first_bound(instance, k_eff)
    start = max(gather, farthest)
    order = rng.permutation(n)
    R, result, search = threshold_search(
        instance, start, lambda x: gather_test(instance, x, order, max_centers=k_eff)
    )
    assert result.labels is not None
    info = {"R": R, "threshold_lower_bound": R, "largest_refuted": search["largest_refuted"]}
    info |= {"n_centers": int(result.centers.size), "tests": search["tests"]}
    info |= {"search": search["search"], "start": start, "farthest_first_bound": farthest}
    return gather_solution(
        instance,
        result.labels,
        result.centers,
        algorithm="kr-center",
        seed=seed_rec,
        t0=t0,
        lower_bound=R,
        info=info,
    )
