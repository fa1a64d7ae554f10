"""The threshold 2-approximation for r-gather (Aggarwal et al., PODS 2006, §2.2).

Also holds what :mod:`~anonratio.solvers.clustering.kr_center` and
:mod:`~anonratio.solvers.clustering.r_eps_gather` share: the search for the threshold ``R``
over the candidates ``d_ij / 2`` (:func:`threshold_search`), the feasibility test of
Condition (2) with its max-flow (:func:`gather_test`, on the exact balls of
:meth:`~anonratio.instances.clustering.metric.PointMetric.ball`) and the solution assembly
(:func:`gather_solution`).

The search never lists all ``n^2 / 2`` candidates: it starts at a radius below which every
candidate is known to fail (for r-gather ``max_i d_{r-1}(i) / 2``, where Condition (1) starts to
hold), doubles until a radius succeeds, then binary-searches the candidates between the last
failure and the first success (:meth:`PointMetric.candidate_distances`) when there are at most
:data:`PAIR_BUDGET` pairs below the success, and otherwise bisects the floating-point radii
down to two adjacent floats (the test depends on ``R`` only through the pairs with
``d <= 2R``, so the upper float of the final pair is itself a candidate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_flow

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance, RGatherInstance
from anonratio.instances.clustering.verify import clustering_info
from anonratio.instances.validation import check_instance, check_random_state, check_seed

__all__ = [
    "r_gather",
    "gather_test",
    "threshold_search",
    "gather_solution",
    "GatherTest",
    "PAIR_BUDGET",
]

#: at most this many pairs within the upper radius: binary search over the listed candidates;
#: more: bisection of the floating-point radii
PAIR_BUDGET = 2_000_000


@dataclass(frozen=True)
class GatherTest:
    """Outcome of one feasibility test at a radius ``R``.

    ``labels`` (center number per point) and ``centers`` are set when ``ok``; ``reason`` says
    why a test failed.
    """

    ok: bool
    centers: np.ndarray
    labels: np.ndarray | None = None
    reason: str = ""


# ---------------------------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------------------------


def gather_test(
    instance: ClusteringInstance,
    R: float,
    order: np.ndarray,
    *,
    max_centers: int | None = None,
) -> GatherTest:
    """Condition (2) of §2.2 at threshold ``R`` (Condition (1) is the caller's: ``R`` at least
    ``max_i d_{r-1}(i) / 2``).

    Centers: walk ``order``; each point still *unmarked* becomes a center and marks every point
    within ``2R``. Fail when more than ``max_centers`` (the ``k`` of (k, r)-center) or more than
    ``floor(n / r)`` centers are needed (then no flow of value ``r |C|`` exists). Max-flow:
    source -> center (capacity ``r``), center -> point within ``2R`` (1), point -> sink (1);
    succeed iff the flow is ``r |C|``. Each center receives the ``r`` points its flow reaches;
    every other point joins its nearest center, which is within ``2R`` (its marking center is).

    Returns
    -------
    GatherTest
        On success ``labels`` = center number ``0 .. |C|-1`` per point (every center gets at
        least ``r`` points), so the radius is at most ``2R``.
    """
    n, r = instance.n, instance.r  # type: ignore[attr-defined]
    limit = n // r if max_centers is None else min(max_centers, n // r)
    marked = np.zeros(n, dtype=bool)
    centers: list[int] = []
    members: list[np.ndarray] = []
    dists: list[np.ndarray] = []
    for p in order.tolist():
        if marked[p]:
            continue
        if len(centers) == limit:
            why = "more than k centers" if limit == max_centers else "r |C| > n"
            return GatherTest(False, np.asarray(centers, dtype=np.int64), reason=why)
        idx, d = instance.distances.ball(p, 2 * R)
        marked[idx] = True
        centers.append(p)
        members.append(idx)
        dists.append(d)
    m = len(centers)
    sizes = np.array([a.size for a in members])
    owner = np.repeat(np.arange(m), sizes)  # center number of each (center, point) edge
    point = np.concatenate(members)
    dist = np.concatenate(dists)
    labels = _flow_assignment(n, r, owner, point)
    if labels is None:
        return GatherTest(False, np.asarray(centers, dtype=np.int64), reason="no flow of r |C|")
    rest = labels < 0
    if rest.any():  # nearest center among those within 2R (the marking one is)
        edge = np.flatnonzero(rest[point])
        edge = edge[np.lexsort((owner[edge], dist[edge], point[edge]))]
        pts, first = np.unique(point[edge], return_index=True)
        labels[pts] = owner[edge[first]]
    return GatherTest(True, np.asarray(centers, dtype=np.int64), labels)


def _flow_assignment(n: int, r: int, owner: np.ndarray, point: np.ndarray) -> np.ndarray | None:
    """The max-flow of Condition (2): ``r`` points per center, or None when it cannot."""
    m = int(owner.max()) + 1
    source, sink = 0, m + n + 1
    src = np.concatenate([np.zeros(m, np.int64), 1 + owner, 1 + m + np.arange(n)])
    dst = np.concatenate([1 + np.arange(m), 1 + m + point, np.full(n, sink)])
    cap = np.concatenate([np.full(m, r), np.ones(owner.size + n)]).astype(np.int32)
    graph = sp.csr_matrix((cap, (src, dst)), shape=(sink + 1, sink + 1))
    result = maximum_flow(graph, source, sink, method="dinic")
    if result.flow_value < r * m:
        return None
    flow = sp.coo_matrix(result.flow)
    keep = (flow.data > 0) & (flow.row >= 1) & (flow.row <= m) & (flow.col > m) & (flow.col < sink)
    labels = np.full(n, -1, dtype=np.int64)
    labels[flow.col[keep] - 1 - m] = flow.row[keep] - 1
    return labels


def _pairs_within(instance: ClusteringInstance, radius: float) -> int:
    """Number of unordered pairs at distance ``<= radius`` (an upper count for the KD-tree
    metrics, ``n (n-1) / 2`` for the others, whose candidates are listed block by block)."""
    tree = instance.distances.tree
    n = instance.n
    if tree is None:
        return n * (n - 1) // 2
    slack = radius * (1 + 1e-9) + 1e-12
    ordered = tree.count_neighbors(tree, slack, p=instance.distances.p)
    return (int(ordered) - n) // 2


def threshold_search(
    instance: ClusteringInstance,
    start: float,
    test: Callable[[float], GatherTest],
    *,
    candidates: Callable[[float, float], np.ndarray | None] | None = None,
) -> tuple[float, GatherTest, dict[str, Any]]:
    """A candidate ``R = d_ij / 2`` that passes ``test``, with a failing radius just below it.

    ``start`` must be a candidate below which every candidate fails (a radius at which
    Condition (1) just holds). Doubling from ``start`` finds a passing radius ``hi`` (``test``
    must pass for every large enough radius); between the last failure ``lo`` and ``hi`` a
    binary search keeps "``lo`` fails, ``hi`` passes" until no candidate lies strictly
    between them. The test depends on ``R`` only through the pairs with ``d <= 2R``, so the
    returned ``R`` is the smallest candidate above the final ``lo``.

    Parameters
    ----------
    candidates : callable, optional
        ``candidates(lo, hi)``: the sorted candidates in ``(lo, hi]``, or None to bisect the
        floating-point radii instead. Default: :meth:`PointMetric.candidate_distances` when at
        most :data:`PAIR_BUDGET` pairs lie within ``2 hi``.

    Returns
    -------
    R, result, info
        The radius, its passing test, and ``{"largest_refuted", "tests", "search"}``.
    """
    if candidates is None:
        candidates = lambda lo, hi: _default_candidates(instance, lo, hi)  # noqa: E731
    tests = 1
    best = test(start)
    if best.ok:
        return start, best, {"largest_refuted": None, "tests": tests, "search": "start"}
    lo = start
    hi = 2 * start if start > 0 else float(instance.distances.row(0).max())
    if not hi > 0:
        raise RuntimeError("internal error: the test fails at 0 although all points coincide")
    while True:  # doubling: every radius of at least half the diameter passes
        tests += 1
        best = test(hi)
        if best.ok:
            break
        lo, hi = hi, 2 * hi
    cand = candidates(lo, hi)
    if cand is not None:
        if cand.size == 0:
            raise RuntimeError(f"internal error: no candidate in ({lo!r}, {hi!r}]")
        low, high = -1, cand.size - 1  # cand[-1] has the pairs of hi: it passes
        while high - low > 1:
            mid = (low + high) // 2
            tests += 1
            result = test(float(cand[mid]))
            if result.ok:
                high, best = mid, result
            else:
                low = mid
        lo = float(cand[low]) if low >= 0 else lo
        hi, search = float(cand[high]), "candidates"
    else:
        while True:  # adjacent floats lo < hi: hi = d_ij / 2 of a pair that decides the test
            middle = lo + (hi - lo) / 2
            if not lo < middle < hi:
                break
            tests += 1
            result = test(middle)
            if result.ok:
                hi, best = middle, result
            else:
                lo = middle
        search = "bisection"
    return hi, best, {"largest_refuted": lo, "tests": tests, "search": search}


def _default_candidates(instance: ClusteringInstance, lo: float, hi: float) -> np.ndarray | None:
    if _pairs_within(instance, 2 * hi) > PAIR_BUDGET:
        return None
    cand = instance.distances.candidate_distances(2 * lo, 2 * hi) / 2  # d / 2 * 2 == d exactly
    return cand[(cand > lo) & (cand <= hi)]


def gather_solution(
    instance: ClusteringInstance,
    labels: np.ndarray,
    centers: np.ndarray,
    *,
    algorithm: str,
    seed: int | None,
    t0: float,
    lower_bound: float | None,
    info: dict[str, Any],
) -> Solution:
    """The :class:`Solution` of a max-radius clustering: objective = largest true radius."""
    base = clustering_info(instance, labels, centers)
    objective = max(base["radii"], default=0.0)
    return Solution.with_bound(
        labels,
        algorithm,
        objective=objective,
        bound=lower_bound,
        t0=t0,
        params=instance.params,
        seed=seed,
        status="feasible",
        info={**base, **info},
    )


# ---------------------------------------------------------------------------------------------
# r-gather
# ---------------------------------------------------------------------------------------------
def r_gather(
    instance: RGatherInstance, *, seed: int | np.random.Generator | None = None
) -> Solution:
    """The threshold 2-approximation for r-gather (Aggarwal et al., PODS 2006, §2.2).

    Find a threshold ``R`` (a candidate ``d_ij / 2``) meeting Condition (1) (every point has
    ``r - 1`` others within ``2R``) and Condition (2) (greedy centers plus a max-flow give each
    center ``r`` points within ``2R``, see :func:`gather_test`), with every candidate just below
    it refuted; cluster around the centers of the passing test. Radius at most ``2R <= 2 OPT``.

    Parameters
    ----------
    instance : RGatherInstance
        Points in a metric space (the guarantee needs the triangle inequality).
    seed : int, numpy.random.Generator or None
        Draws the order in which Condition (2) picks centers (one order for the whole search).

    Returns
    -------
    Solution
        ``objective`` = largest radius (``<= 2R``); ``lower_bound`` = ``R``; ``info``:
        ``centers``, ``radii``, ``R``, ``threshold_lower_bound`` (= ``R``),
        ``largest_refuted`` (a radius at which the test failed, None when the search's first
        radius passed), ``n_centers``, ``tests`` (feasibility tests run), ``search``.

    Notes
    -----
    *Deviation from the text.* The conference text opens a cluster at an arbitrary point only
    "if there are at least r unmarked points within distance 2R". With that count the procedure
    can fail at ``R >= d*/2``: with ``r = 2`` and the points 0, 1, 2, 3 on a line (``d* = 1``),
    picking 1 first marks 0, 1, 2; then 3 has only itself unmarked and is never covered, which
    would break Lemma 2.1. Implemented is the rule whose proof holds (the k-center threshold
    rule): every *unmarked* point picked becomes a center and marks all points within ``2R``,
    and the max-flow alone decides.

    *Certificate.* Lemma 2.1's proof shows that every ``R >= d*/2`` passes, for any pick order
    (``d*``: the largest diameter of an optimal cluster): centers are pairwise more than ``2R``
    apart, so each optimal cluster holds at most one, and each center can take the ``>= r``
    points of its own optimal cluster. Hence a refuted radius is below ``d*/2``; ``d*/2`` is a
    candidate, so it is at least the smallest candidate ``R`` above the largest refuted radius;
    and ``OPT >= d*/2`` by the triangle inequality. So ``R <= OPT`` and the cost is at most
    ``2R <= 2 OPT``. Condition (2) is not monotone in ``R``, so ``R`` need not be the smallest
    passing candidate, but the bound only needs a refuted radius just below it.

    Time: ``O(log)`` tests (doubling, then a binary search over the listed candidates or about
    60 bisections of the float radii); a test costs one KD-tree ball query per center and a
    Dinic max-flow on ``O(sum of ball sizes)`` edges. ``r = 1``: every point alone, radius 0.

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu,
    "Achieving Anonymity via Clustering", PODS 2006, §2.2 (Lemma 2.1, Theorem 2.2).

    Examples
    --------
    >>> from anonratio.instances.clustering import RGatherInstance
    >>> sol = r_gather(RGatherInstance([[0.0], [1.0], [2.0], [3.0]], r=2), seed=0)
    >>> sol.objective <= 2 * 1.0, sol.lower_bound <= 1.0
    (True, True)
    """
    t0 = perf_counter()
    check_instance(instance, RGatherInstance)
    rng, seed_rec = check_random_state(seed), check_seed(seed)
    n, r = instance.n, instance.r
    if r == 1:
        labels = np.arange(n)
        info: dict[str, Any] = {"R": 0.0, "threshold_lower_bound": 0.0, "largest_refuted": None}
        info |= {"n_centers": n, "tests": 0, "search": "r = 1"}
        return gather_solution(
            instance,
            labels,
            labels,
            algorithm="r-gather",
            seed=seed_rec,
            t0=t0,
            lower_bound=0.0,
            info=info,
        )
    start = float(instance.distances.kth_neighbor_distances(r - 1).max()) / 2
    order = rng.permutation(n)
    R, result, search = threshold_search(instance, start, lambda x: gather_test(instance, x, order))
    assert result.labels is not None
    info = {"R": R, "threshold_lower_bound": R, "largest_refuted": search["largest_refuted"]}
    info |= {"n_centers": int(result.centers.size), "tests": search["tests"]}
    info["search"] = search["search"]
    return gather_solution(
        instance,
        result.labels,
        result.centers,
        algorithm="r-gather",
        seed=seed_rec,
        t0=t0,
        lower_bound=R,
        info=info,
    )
