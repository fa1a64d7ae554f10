"""A proven lower bound for cellular and r-cellular clustering: the LP relaxation of the cluster
IP (Aggarwal et al., PODS 2006, §3), by column generation and a Lagrangian bound.

The paper's IP over clusters ``c = (v, d)`` (center ``v``, radius ``d`` one of the distances
from ``v``), ``x[i, c] <= y[c]``, ``sum_i x[i, c] >= r y[c]``, ``sum_c x[i, c] = 1``, has an
LP relaxation whose cluster polytopes ``{0 <= x <= y, sum x >= r y}`` are cones over sets: every
vertex of ``{x in [0, 1]^ball : sum x >= r}`` is a set (a box and one cardinality row are
totally unimodular). So the LP is the set-partitioning LP over *configurations* ``(v, d, S)``,
``S`` a subset of the ball ``B(v, d)`` with ``|S| >= r``, of cost ``f(v) + d |S|``. The
clusters are those of :func:`~anonratio.exact.clustering.candidates.cellular_data` (same radii,
same pruning), held as one sorted distance row per center instead of explicit pairs. A
restricted master over the configurations found so far (HiGHS, covering rows ``>= 1``) gives
prices ``alpha``.

**Exact pricing.** For prices ``alpha``, the least reduced cost of a configuration at ``(v, d)``
is ``g(v, d) = f(v) - sum_{i in B} (alpha_i - d)^+ + sum_{i in T} (d - alpha_i)^+`` with ``T``
the ``r`` largest prices in the ball: take every member with ``alpha_i > d``, and fill up to
``r`` with the best others. All ``n^2`` values come from one sort per center
(:class:`ClusterPricer`).

**A valid bound at every iteration** (Lagrangian relaxation of the assignment rows, any sign of
``alpha``). Every clustering is a set of *distinct* clusters ``(v, d)`` (two with the same center
and radius merge and save ``f(v) >= 0``) of at least ``r`` points, hence at most ``K =
floor(n / r)`` of them, each paying at least ``f(v) + sum_{i in S} (d - alpha_i) >= g(v, d)``
after ``alpha`` is taken out. So::

    OPT >= sum_i alpha_i + (sum of the K least values of min(0, g(v, d)) over all clusters).

This holds for any ``alpha`` (no dual feasibility needed, no trust in the master's value); at
optimal prices of the covering LP all ``g >= 0`` and it equals that LP's value (at most the
partitioning LP's; the cap ``K`` can lift it above). A cluster whose least cost
``f(v) + r d`` exceeds an upper bound ``U >= OPT`` (the given solution's cost) is in no optimal
clustering and is left out. Floating point: every ``g`` is a sum of at most ``3n`` terms bounded
by ``S = max f + sum |alpha| + n max d``, each error below ``3 n eps S``; the bound subtracts
``(K + 1) 1e-10 S`` (``n <=`` :data:`MAX_POINTS`, so ``3 n eps < 1e-12``).

Complexity: ``O(n^2 log n)`` time and ``O(n^2)`` memory per pricing round, plus the master LP.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

import highspy
import numpy as np

from anonratio.exact.clustering.candidates import (
    _SLACK,
    CELLULAR,
    _cellular_upper_bound,
    _distances,
)
from anonratio.instances.clustering.instance import ClusteringInstance
from anonratio.instances.clustering.verify import clustering_lower_bound
from anonratio.instances.validation import check_number, check_seed

__all__ = [
    "LPBound",
    "ClusterPricer",
    "ClusterMaster",
    "cheap_bound",
    "lagrangian",
    "lp_bound",
    "MAX_POINTS",
]

#: largest instance priced (about fifteen ``n x n`` arrays at once: 0.5 GB at 2000 points)
MAX_POINTS = 2000
#: float safety margin per priced cluster, relative to the magnitude ``S`` of the sums
_FLOAT_MARGIN = 1e-10
#: the LP is solved when no cluster prices below ``-_RTOL`` times the bound's scale
_RTOL = 1e-7
#: columns added per round, at most (one per center at most)
_MAX_NEW = 400
#: weight of the best prices so far in the smoothed prices (Wentges)
_SMOOTH = 0.5


@dataclass
class LPBound:
    """The bound an :func:`lp_bound` run proved, and how.

    Attributes
    ----------
    value : float
        The best valid lower bound on the optimum: the larger of ``lagrangian`` and ``cheap``.
    source : str
        ``"lp-lagrangian"`` or the cheap bound's name (which one won).
    lagrangian : float or None
        The best Lagrangian bound over the iterations (None if none finished in time).
    cheap : float
        The verifier's closed-form bound (``min f``; ``sum d_{r-1}/2 + min f`` for r-cellular,
        used only when the distances satisfy the triangle inequality, else ``min f``).
    cheap_source : str
    lp_value : float or None
        The last restricted master's value (an upper bound on the LP relaxation).
    solved : bool
        True when no cluster prices negative at the master's prices: ``lagrangian`` is the LP
        relaxation's value (up to the float margin).
    seconds : float
    iterations : int
        Pricing rounds.
    n_columns : int
        Configurations in the final master.
    n_clusters : int
        Clusters ``(v, d)`` priced (at least ``r`` members, least cost within the upper bound).
    n, r : int
    """

    value: float
    source: str
    lagrangian: float | None
    cheap: float
    cheap_source: str
    lp_value: float | None
    solved: bool
    seconds: float
    iterations: int
    n_columns: int
    n_clusters: int
    n: int
    r: int


# ---------------------------------------------------------------------------------------------
# pricing
# ---------------------------------------------------------------------------------------------
def _row_count_le(sorted_rows: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """``out[v, k] = #{j : sorted_rows[v, j] <= queries[v, k]}`` (both row-sorted): one stable
    merge per row (entries of ``sorted_rows`` come first among equals)."""
    n = sorted_rows.shape[1]
    idx = np.argsort(np.concatenate([sorted_rows, queries], axis=1), axis=1, kind="stable")
    running = np.cumsum(idx < n, axis=1)
    rows, pos = np.nonzero(idx >= n)
    out = np.empty(queries.shape, dtype=np.int64)
    out[rows, idx[rows, pos] - n] = running[rows, pos]
    return out


class ClusterPricer:
    """Exact pricing of every cluster ``(v, d)`` of an instance, vectorized over the centers.

    Parameters
    ----------
    d : ndarray, shape (n, n)
        Distances (the verifier's floats).
    f : ndarray, shape (n,)
        Setup costs.
    r : int
        Least cluster size (1 for cellular clustering).
    limit : float
        Clusters with ``f(v) + r d > limit`` are left out (``inf``: none).
    """

    def __init__(self, d: np.ndarray, f: np.ndarray, r: int, limit: float) -> None:
        n = d.shape[0]
        self.d, self.f, self.r = d, f, r
        self.order = np.argsort(d, axis=1, kind="stable")  # members by increasing distance
        self.ds = np.take_along_axis(d, self.order, axis=1)
        tie_end = np.ones((n, n), dtype=bool)  # ds[v, k] is a radius: its ball is order[v, :k+1]
        tie_end[:, :-1] = self.ds[:, :-1] < self.ds[:, 1:]
        self.valid = (
            tie_end & (np.arange(n) >= r - 1)[None, :] & (f[:, None] + r * self.ds <= limit)
        )
        self.n_clusters = int(self.valid.sum())
        self.scale_base = float(f.max(initial=0.0) + n * d.max(initial=0.0))

    def reduced_costs(self, alpha: np.ndarray) -> np.ndarray:
        """``g[v, k]``: the least reduced cost of a configuration at ``(v, ds[v, k])`` under the
        prices ``alpha`` (``inf`` where that is no priced cluster)."""
        a = alpha[self.order]
        ds = self.ds
        rank = np.arange(1, a.shape[1] + 1)
        # Q = sum over the ball of (alpha_i - d)^+: each i adds alpha_i - d for
        # d(i, v) <= d < alpha_i, i.e. for d(i, v) <= d minus for max(d(i, v), alpha_i) <= d
        m = np.maximum(self.d, alpha[None, :])
        morder = np.argsort(m, axis=1, kind="stable")
        ms = np.take_along_axis(m, morder, axis=1)
        mcum = np.cumsum(alpha[morder], axis=1)
        cnt = _row_count_le(ms, ds)
        msum = np.where(cnt > 0, np.take_along_axis(mcum, np.maximum(cnt - 1, 0), axis=1), 0.0)
        q = (np.cumsum(a, axis=1) - ds * rank) - (msum - ds * cnt)
        g = self.f[:, None] - q + self._shortfall(a)
        return np.where(self.valid, g, np.inf)

    def _shortfall(self, a: np.ndarray) -> np.ndarray:
        """``sum_{j in T} (ds[v, k] - a_j)^+`` over the ``r`` largest ``a`` of ``a[v, :k+1]``."""
        n, r, ds = a.shape[0], self.r, self.ds
        if r == 1:
            return np.maximum(ds - np.maximum.accumulate(a, axis=1), 0.0)
        out = np.zeros((n, n))
        top = np.full((n, r), -np.inf)  # the r largest so far, unsorted
        rows = np.arange(n)
        for k in range(n):
            low = top.argmin(axis=1)
            up = a[:, k] > top[rows, low]
            top[rows[up], low[up]] = a[up, k]
            if k >= r - 1:
                out[:, k] = np.maximum(ds[:, k, None] - top, 0.0).sum(axis=1)
        return out

    def configuration(self, v: int, k: int, alpha: np.ndarray) -> tuple[np.ndarray, float]:
        """``(members, cost)`` of the configuration attaining ``g[v, k]``."""
        ball = self.order[v, : k + 1]
        radius = float(self.ds[v, k])
        a = alpha[ball]
        take = a > radius
        if take.sum() < self.r:
            take[np.argsort(-a, kind="stable")[: self.r]] = True
        members = np.sort(ball[take])
        return members, float(self.f[v] + radius * members.size)

    def margin(self, alpha: np.ndarray, k_max: int) -> float:
        """The float safety margin of a Lagrangian bound (module docstring)."""
        return (k_max + 1) * _FLOAT_MARGIN * (self.scale_base + float(np.abs(alpha).sum()))


def lagrangian(alpha: np.ndarray, g: np.ndarray, k_max: int, margin: float) -> float:
    """``sum alpha + (sum of the k_max least min(0, g))``, less ``margin`` (module docstring)."""
    neg = g[g < 0]
    if neg.size > k_max:
        neg = np.partition(neg, k_max - 1)[:k_max]
    return float(alpha.sum() + neg.sum()) - margin


# ---------------------------------------------------------------------------------------------
# the restricted master
# ---------------------------------------------------------------------------------------------
class ClusterMaster:
    """The restricted set-partitioning master over configurations, in HiGHS (one thread).

    Rows are the points, as covering rows (``>= 1``, which every partition satisfies: the
    covering LP is at most the partitioning one, and far easier to generate); every row has an
    artificial column of cost ``big`` (above the one-cluster column, always present), so the
    master is always feasible. The bound never depends on the master's value, only on the
    pricing. Primal simplex, warm-started as columns arrive; :func:`lp_bound` smooths the prices.
    """

    def __init__(self, n: int, big: float, seed: int) -> None:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", int(seed))
        h.setOptionValue("solver", "simplex")  # warm-started as columns arrive
        one = np.ones(n)
        h.addRows(
            n,
            one,
            np.full(n, highspy.kHighsInf),
            0,
            np.zeros(n, np.int32),
            np.zeros(0, np.int32),
            np.zeros(0),
        )
        idx = np.arange(n, dtype=np.int32)
        h.addCols(n, np.full(n, big), np.zeros(n), np.full(n, highspy.kHighsInf), n, idx, idx, one)
        self.highs, self.n_columns = h, 0
        self._seen: set[tuple[bytes, float]] = set()

    def add(self, columns: list[tuple[np.ndarray, float]]) -> int:
        """Add the configurations ``(members, cost)`` not already present; the number added."""
        new = []
        for members, cost in columns:
            key = (members.tobytes(), cost)
            if key not in self._seen:
                self._seen.add(key)
                new.append((members, cost))
        if not new:
            return 0
        sizes = np.array([m.size for m, _ in new])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
        index = np.concatenate([m for m, _ in new]).astype(np.int32)
        k = len(new)
        self.highs.addCols(
            k,
            np.array([c for _, c in new]),
            np.zeros(k),
            np.full(k, highspy.kHighsInf),
            index.size,
            starts,
            index,
            np.ones(index.size),
        )
        self.n_columns += k
        return k

    def solve(self, time_limit: float) -> tuple[float, np.ndarray] | None:
        """``(value, row prices)``, or None when HiGHS did not solve the master in time."""
        # HiGHS's time limit applies to its run clock, which adds up over the runs
        limit = self.highs.getRunTime() + max(0.01, float(time_limit))
        self.highs.setOptionValue("time_limit", limit)
        self.highs.run()
        info = self.highs.getInfo()
        if info.primal_solution_status != 2 or info.dual_solution_status != 2:  # feasible
            return None
        return float(info.objective_function_value), np.asarray(
            self.highs.getSolution().row_dual, dtype=float
        )


# ---------------------------------------------------------------------------------------------
# the bound
# ---------------------------------------------------------------------------------------------
def cheap_bound(instance: ClusteringInstance) -> tuple[float, str]:
    """The verifier's bound where it is valid: ``sum d_{r-1}/2`` needs the triangle inequality."""
    metric = instance.metric != "precomputed" or instance.triangle_violation() is None
    if metric:
        return clustering_lower_bound(instance)
    return float(instance.facility.min()), "min f"


def _start_columns(
    pricer: ClusterPricer, starts: list[tuple[np.ndarray, np.ndarray]]
) -> list[tuple[np.ndarray, float]]:
    """The clusters of the given clusterings, at their centers and true radii, and the best
    single cluster of all points (always a partition)."""
    d, f = pricer.d, pricer.f
    n = d.shape[0]
    v = int(np.argmin(f + n * d.max(axis=1)))
    columns = [(np.arange(n), float(f[v] + n * d[v].max()))]
    for labels, centers in starts:
        for c, center in enumerate(np.asarray(centers).tolist()):
            members = np.flatnonzero(labels == c)
            if members.size:
                cost = f[center] + members.size * float(d[center, members].max())
                columns.append((members, float(cost)))
    return columns


def _new_columns(pricer: ClusterPricer, g: np.ndarray, alpha: np.ndarray, tol: float) -> list:
    """The most negative configuration of each center, the ``_MAX_NEW`` most negative."""
    k_best = g.argmin(axis=1)
    best = g[np.arange(g.shape[0]), k_best]
    centers = np.flatnonzero(best < -tol)
    centers = centers[np.argsort(best[centers], kind="stable")][:_MAX_NEW]
    return [pricer.configuration(int(v), int(k_best[v]), alpha) for v in centers]


def lp_bound(
    instance: ClusteringInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    starts: list[tuple[np.ndarray, np.ndarray]] | None = None,
    upper_bound: float | None = None,
) -> LPBound:
    """A proven lower bound on a cellular or r-cellular optimum: the cluster LP of Aggarwal et
    al. (PODS 2006, §3) by column generation, each round's prices giving a Lagrangian bound.

    Parameters
    ----------
    instance : CellularInstance or RCellularInstance
    time_limit : float
        Seconds (>= 0); the bound at the stop is valid (module docstring).
    seed : int, optional
        HiGHS's random seed (None means 0).
    starts : list of (labels, centers), optional
        Feasible clusterings whose clusters seed the master.
    upper_bound : float, optional
        A cost some clustering reaches (e.g. a start's): clusters that cannot be in a clustering
        that cheap are not priced.

    Returns
    -------
    LPBound

    Raises
    ------
    ValueError
        If the instance is not cellular or r-cellular, or has more than :data:`MAX_POINTS`
        points.

    Notes
    -----
    Assumes nothing of the distances for the Lagrangian bound; the cheap r-cellular bound is
    used only under the triangle inequality. ``O(n^2 log n)`` per round (module docstring).

    References
    ----------
    Aggarwal et al., "Achieving Anonymity via Clustering", PODS 2006, §3 (the cluster IP).
    """
    t0 = perf_counter()
    if not isinstance(instance, CELLULAR):
        raise ValueError(
            f"`instance` must be a cellular or r-cellular instance, got {type(instance).__name__}"
        )
    time_limit = check_number("time_limit", time_limit, low=0)
    seed = check_seed(seed) or 0
    n = instance.n
    if n > MAX_POINTS:
        raise ValueError(f"`instance` has n = {n} points; lp_bound prices at most {MAX_POINTS}")
    deadline = t0 + time_limit
    r = max(int(getattr(instance, "r", 1)), 1)
    d, f = _distances(instance), np.asarray(instance.facility, dtype=float)
    ub = _cellular_upper_bound(d, f, r)
    if upper_bound is not None:
        ub = min(ub, check_number("upper_bound", upper_bound, low=0))
    pricer = ClusterPricer(d, f, r, ub + _SLACK * max(1.0, abs(ub)))
    k_max = n // r
    master = ClusterMaster(n, big=_cellular_upper_bound(d, f, r) + 1.0, seed=seed)
    master.add(_start_columns(pricer, starts or []))
    # prices 0: every cluster's reduced cost f(v) + r d is >= 0, so the bound is 0 (less margin)
    center = np.zeros(n)
    best, lp_value, solved, rounds = -pricer.margin(center, k_max), None, False, 0
    while perf_counter() < deadline:
        solved_master = master.solve(deadline - perf_counter())
        if solved_master is None:
            break
        lp_value, prices = solved_master
        tol = _RTOL * max(1.0, abs(lp_value))
        added = 0
        # Wentges smoothing: price between the best prices so far and the master's; when that
        # finds nothing new (a mis-price), price at the master's own prices
        for alpha in (_SMOOTH * center + (1 - _SMOOTH) * prices, prices):
            g = pricer.reduced_costs(alpha)
            rounds += 1
            value = lagrangian(alpha, g, k_max, pricer.margin(alpha, k_max))
            if value > best:
                best, center = value, alpha
            added = master.add(_new_columns(pricer, g, alpha, tol))
            if added or perf_counter() >= deadline:
                break
        # solved: the bound meets the master, or the master's prices price nothing negative
        solved = best >= lp_value - tol or (alpha is prices and not added)
        if solved or not added:
            break
    cheap, cheap_source = cheap_bound(instance)
    use_lp = best > cheap
    return LPBound(
        value=best if use_lp else cheap,
        source="lp-lagrangian" if use_lp else cheap_source,
        lagrangian=best,
        cheap=cheap,
        cheap_source=cheap_source,
        lp_value=lp_value,
        solved=solved,
        seconds=perf_counter() - t0,
        iterations=rounds,
        n_columns=master.n_columns,
        n_clusters=pricer.n_clusters,
        n=n,
        r=r,
    )
