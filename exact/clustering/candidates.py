"""The data of the exact clustering models (Aggarwal et al., PODS 2006, §2 and §3).

Both exact layers (:mod:`anonratio.exact.clustering.cpsat` and
:mod:`anonratio.exact.clustering.ilp`) build the same model from the same data, made here:

* :func:`gather_data` — r-gather, (r, eps)-gather and (k, r)-center (min max radius): the
  candidate radii (the sorted distinct distances up to an upper bound), the potential
  ``(member, center)`` pairs within that bound, and for each potential center the least radius
  of a cluster of ``r`` points around it;
* :func:`cellular_data` — cellular and r-cellular clustering: the paper's clusters
  ``c = (v, d)`` (§3: a center ``v`` and a radius ``d``, one of the distances from ``v``), their
  potential members ``{i : d(i, v) <= d}`` and the objective coefficients, scaled to integers
  when that is exact.

Distances come from ``instance.distances.block`` (through ``PointMetric.pairs``), the floats the
verifier recomputes radii with. The models are for small ``n`` (an ``n x n`` matrix; the
cellular model has ``O(n^3)`` pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonratio.exact.clustering.deadline import check_deadline
from anonratio.exact.options import check_upper_bound
from anonratio.exact.run import RunResult, check_run_options, decide_status
from anonratio.instances import Solution, verify
from anonratio.instances.clustering.instance import (
    CellularInstance,
    ClusteringInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from anonratio.instances.clustering.verify import (
    ClusteringVerification,
    clustering_cost,
    clustering_info,
    clustering_lower_bound,
)
from anonratio.instances.validation import check_instance

__all__ = [
    "GATHER",
    "CELLULAR",
    "GatherData",
    "CellularData",
    "solve_iv",
    "hint_clusters",
    "gather_data",
    "cellular_data",
    "make_solution",
    "groups",
]

#: the min-max-radius problems (§2) and the cellular ones (§3)
GATHER = (RGatherInstance, REpsGatherInstance, KRCenterInstance)
CELLULAR = (CellularInstance, RCellularInstance)

#: largest scaled objective for which integer coefficients are summed exactly in floats
_EXACT_INT = 2.0**53
#: relative slack when pruning by an upper bound computed in floats
_SLACK = 1e-9
#: relative tolerance (times ``max(1, |cost|)``) for a verified cost to equal the proven bound
_TOL = 1e-6


# ---------------------------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------------------------
def solve_iv(
    instance: Any, time_limit: Any, seed: Any, threads: Any, hint: Any, upper_bound: Any
) -> tuple[float, int, int, tuple[np.ndarray, np.ndarray] | None, float | None]:
    """Validate the common arguments; return ``(time_limit, seed, threads, hint, upper_bound)``
    with the hint as ``(labels, centers)`` (:func:`hint_clusters`)."""
    check_instance(instance, ClusteringInstance)
    if not isinstance(instance, GATHER + CELLULAR):
        raise TypeError(
            "`instance` must be an r-gather, r-eps-gather, kr-center, cellular or r-cellular "
            f"instance, got {type(instance).__name__}"
        )
    time_limit, solver_seed, threads = check_run_options(time_limit, seed, threads)
    upper_bound = check_upper_bound(upper_bound)
    return time_limit, solver_seed, threads, hint_clusters(instance, hint), upper_bound


def hint_clusters(instance: ClusteringInstance, hint: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """``(labels, centers)`` of a feasible hint, or None without one.

    ``hint`` is a :class:`Solution` (its ``info["centers"]`` are used when given) or a labels
    array (each cluster then gets the verifier's best center). ``ValueError`` when it has no
    labels or is infeasible.
    """
    if hint is None:
        return None
    labels = hint.labels if isinstance(hint, Solution) else hint
    if labels is None:
        raise ValueError("`hint` must be a Solution with labels or a labels array, got none")
    check = verify(
        instance, hint if isinstance(hint, Solution) else np.asarray(labels), strict=False
    )
    if not check.feasible:
        raise ValueError(f"`hint` must be a feasible solution: {'; '.join(check.violations[:3])}")
    assert isinstance(check, ClusteringVerification)  # the verifier of a clustering instance
    return np.asarray(labels, dtype=np.int64), np.asarray(check.centers, dtype=np.int64)


def groups(keys: np.ndarray, size: int) -> list[np.ndarray]:
    """Indices ``p`` with ``keys[p] == j``, for each ``j < size`` (a model's row of pairs)."""
    order = np.argsort(keys, kind="stable")
    return np.split(order, np.searchsorted(keys[order], np.arange(1, size)))


def _distances(instance: ClusteringInstance) -> np.ndarray:
    # block() goes through PointMetric.pairs: the verifier's floats
    return instance.distances.block(np.arange(instance.n))


def _point_of(centers: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Center of each point's cluster (-1 for an unclustered point)."""
    return np.where(labels >= 0, centers[np.maximum(labels, 0)], -1)


# ---------------------------------------------------------------------------------------------
# r-gather, (r, eps)-gather, (k, r)-center
# ---------------------------------------------------------------------------------------------
@dataclass
class GatherData:
    """The min-max-radius model's data; the radius is an index into ``cand``."""

    cand: np.ndarray  # sorted distinct distances <= the upper bound (candidate radii)
    pi: np.ndarray  # pair p: point pi[p] may join the cluster centered at pv[p]
    pv: np.ndarray
    pt: np.ndarray  # index in cand of d(pi[p], pv[p])
    centers: np.ndarray  # potential centers (r points within the upper bound)
    center_t: np.ndarray  # least radius (index) of a cluster of r points at each center
    t_lb: int  # proven lower bound on the radius index
    max_clusters: int
    max_outliers: int
    r: int
    hint_pair: np.ndarray | None = None  # the hint's pair of each point (-1: unclustered)
    hint_t: int | None = None  # the hint's radius index
    infeasible: str | None = None  # a reason when no solution fits the upper bound
    info: dict = field(default_factory=dict)

    def decode(self, chosen: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, centers)`` from the chosen pairs (one per clustered point)."""
        center = np.full(n, -1, dtype=np.int64)
        center[self.pi[chosen]] = self.pv[chosen]
        used, labels = np.unique(center[center >= 0], return_inverse=True)
        out = np.full(n, -1, dtype=np.int64)
        out[center >= 0] = labels
        return out, used

    def nonzeros(self) -> int:
        """Coefficients of the model (an upper estimate): per pair, its assignment row, the
        link to its center and its radius level (two each) and its center's size row; per
        center, its size, least-radius (two) and cluster-count rows; per radius level, two
        (monotone levels) and the objective's; per point, two for its outlier variable."""
        levels = self.cand.size - self.t_lb
        points = int(self.pi.max()) + 1 if self.pi.size and self.max_outliers else 0
        return int(6 * self.pi.size + 4 * self.centers.size + 3 * levels + 2 * points)


def gather_data(
    instance: ClusteringInstance,
    *,
    hint: tuple[np.ndarray, np.ndarray] | None = None,
    upper_bound: float | None = None,
    deadline: float = math.inf,
) -> GatherData:
    """Candidate radii, pairs and bounds of a min-max-radius instance.

    The upper bound is the least of: one cluster (the ``n - q`` points nearest to the best
    center, ``q`` the most points a solution may leave out:
    :attr:`~anonratio.instances.clustering.instance.REpsGatherInstance.max_unclustered`, which
    is below ``floor(eps n)`` when ``r > n - floor(eps n)``), the hint's radius and
    ``upper_bound``. Pairs beyond it,
    and centers without ``r`` points within it, are dropped. The lower bound is the least
    ``r``-point radius over the centers and, when the distances are a metric, the verifier's
    :func:`~anonratio.instances.clustering.verify.clustering_lower_bound` (``d_{r-1}(i) / 2``).
    :class:`~anonratio.exact.clustering.deadline.BuildTimeout` once ``deadline`` (a
    ``time.perf_counter`` reading) has passed.
    """
    n, r = instance.n, instance.r  # type: ignore[attr-defined]
    q = getattr(instance, "max_unclustered", 0)
    k = getattr(instance, "k", n)
    check_deadline(deadline, "computing the distances")
    d = _distances(instance)
    check_deadline(deadline, "listing the candidate radii")
    srt = np.sort(d, axis=1)
    ub = float(srt[:, n - q - 1].min())  # one cluster of the n - q nearest points
    info: dict[str, Any] = {"one_cluster_radius": ub}
    hint_center = None
    if hint is not None:
        hint_center = _point_of(hint[1], hint[0])
        inside = np.flatnonzero(hint_center >= 0)
        hint_cost = float(d[hint_center[inside], inside].max())
        info["hint_cost"] = hint_cost
        ub = min(ub, hint_cost)
    if upper_bound is not None:
        ub = min(ub, upper_bound)
    cand = np.unique(d[d <= ub])
    # a center needs r points within the radius: its r-th smallest distance
    least = srt[:, r - 1]
    centers = np.flatnonzero(least <= ub)
    keep = (d <= ub) & np.isin(np.arange(n), centers)[None, :]
    pi, pv = np.nonzero(keep)  # d[i, v]: member i, center v
    pt = np.searchsorted(cand, d[pi, pv])
    center_t = np.searchsorted(cand, least[centers])
    t_lb = int(center_t.min()) if centers.size else cand.size
    check_deadline(deadline, "listing the candidate pairs")
    metric = instance.metric != "precomputed" or instance.triangle_violation() is None
    if metric:  # d_{r-1}(i) / 2 (needs the triangle inequality); floats: a relative slack
        lb = clustering_lower_bound(instance)[0]
        t_lb = max(t_lb, int(np.searchsorted(cand, lb * (1 - _SLACK) - 1e-12)))
    data = GatherData(cand, pi, pv, pt, centers, center_t, t_lb, min(k, n // r), q, r, info=info)
    uncovered = n - np.unique(pi).size
    if uncovered > q:
        data.infeasible = f"{uncovered} points have no center within upper bound {ub:g}"
    elif t_lb >= cand.size:
        data.infeasible = f"the lower bound exceeds the upper bound {ub:g}"
    if hint_center is not None and not data.infeasible and info["hint_cost"] <= ub:
        pair_id = np.full((n, n), -1, dtype=np.int64)
        pair_id[pi, pv] = np.arange(pi.size)
        centered = hint_center >= 0
        data.hint_pair = np.where(centered, pair_id[np.arange(n), np.maximum(hint_center, 0)], -1)
        data.hint_t = int(np.searchsorted(cand, info["hint_cost"]))
    info.update(
        n_candidate_radii=int(cand.size),
        n_pairs=int(pi.size),
        n_centers=int(centers.size),
        upper_bound_used=ub,
        lower_bound_used=float(cand[t_lb]) if t_lb < cand.size else None,
        triangle_inequality=bool(metric),
    )
    return data


# ---------------------------------------------------------------------------------------------
# cellular, r-cellular
# ---------------------------------------------------------------------------------------------
@dataclass
class CellularData:
    """The cluster model's data: clusters ``(cv[c], crad[c])``, pairs grouped by cluster."""

    cv: np.ndarray  # center of cluster c
    crad: np.ndarray  # radius of cluster c
    pi: np.ndarray  # pair p: point pi[p] is a potential member of cluster pc[p]
    pc: np.ndarray
    start: np.ndarray  # pairs of cluster c: start[c] .. start[c + 1] - 1
    coef_y: np.ndarray  # objective coefficient of opening c: f(cv[c]) (scaled)
    coef_x: np.ndarray  # objective coefficient of pair p: crad[pc[p]] (scaled)
    scale: float | None  # 10^p when the coefficients are exact integers after scaling by it
    r: int
    hint_pair: np.ndarray | None = None  # the hint's pair of each point
    infeasible: str | None = None
    info: dict = field(default_factory=dict)

    def decode(self, chosen: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, centers)`` from the chosen pairs (one per point)."""
        cluster = np.empty(n, dtype=np.int64)
        cluster[self.pi[chosen]] = self.pc[chosen]
        used, labels = np.unique(cluster, return_inverse=True)
        return labels.astype(np.int64), self.cv[used]

    def unscale(self, value: float | None) -> float | None:
        """A model objective or bound in the instance's units."""
        if value is None or self.scale is None:
            return value
        return value / self.scale

    def nonzeros(self) -> int:
        """Coefficients of the model: per pair, its objective, assignment and link to its
        cluster (two); per cluster, its objective; r-cellular adds each cluster's size row."""
        n_pairs, n_clusters = self.pi.size, self.cv.size
        size_rows = n_pairs + n_clusters if self.r > 1 else 0
        return int(4 * n_pairs + n_clusters + size_rows)


def _cellular_upper_bound(d: np.ndarray, f: np.ndarray, r: int) -> float:
    """One cluster at the best center; for ``r = 1`` also every point alone (best center)."""
    n = d.shape[0]
    ub = float((f + n * d.max(axis=1)).min())
    if r == 1:
        ub = min(ub, float((f[:, None] + d).min(axis=0).sum()))
    return ub


def _integer_scale(values: np.ndarray, total: float) -> float | None:
    """The least ``10^p`` (``p <= 6``) making every value an exact integer, or None.

    Exact means ``round(v 10^p) / 10^p == v`` for every value (the float *is* that decimal) and
    the largest possible objective, ``total 10^p``, below ``2^53``.
    """
    for p in range(7):
        s = 10.0**p
        if total * s >= _EXACT_INT:
            return None
        if np.all(np.round(values * s) / s == values):
            return s
    return None


def cellular_data(
    instance: ClusteringInstance,
    *,
    hint: tuple[np.ndarray, np.ndarray] | None = None,
    upper_bound: float | None = None,
    deadline: float = math.inf,
) -> CellularData:
    """The clusters ``(v, d)`` of §3 worth considering, their potential members and costs.

    Radii are the distinct distances from ``v`` (a tight cluster's radius is one). Safe pruning,
    with ``U`` the least of one cluster, all singletons (``r = 1``), the hint's cost and
    ``upper_bound``: a cluster needs ``max(r, 1)`` potential members, and its cost is at least
    ``f(v) + max(r, 1) d``, so one above ``U`` is dropped.
    :class:`~anonratio.exact.clustering.deadline.BuildTimeout` once ``deadline`` (a
    ``time.perf_counter`` reading) has passed.
    """
    n = instance.n
    r = max(getattr(instance, "r", 1), 1)
    f = np.asarray(instance.facility, dtype=float)
    check_deadline(deadline, "computing the distances")
    d = _distances(instance)
    ub = _cellular_upper_bound(d, f, r)
    info: dict[str, Any] = {"trivial_cost": ub}
    hint_rad = None
    if hint is not None:
        labels, centers = hint
        hint_rad = np.zeros(centers.size)
        np.maximum.at(hint_rad, labels, d[centers[labels], np.arange(n)])
        sizes = np.bincount(labels, minlength=centers.size)
        hint_cost = float((f[centers] + sizes * hint_rad).sum())
        info["hint_cost"] = hint_cost
        ub = min(ub, hint_cost)
    if upper_bound is not None:
        ub = min(ub, upper_bound)
    limit = ub + _SLACK * max(1.0, abs(ub))
    cv_parts: list[np.ndarray] = []
    crad_parts: list[np.ndarray] = []
    pi_parts: list[np.ndarray] = []
    pc_parts: list[np.ndarray] = []
    n_clusters = 0
    for v in range(n):  # the clusters centered at v, members by increasing distance
        check_deadline(deadline, "listing the candidate clusters")
        order = np.argsort(d[v], kind="stable")
        row = d[v, order]
        rad = np.unique(row)
        count = np.searchsorted(row, rad, side="right")
        keep = (count >= r) & (f[v] + r * rad <= limit)
        rad, count = rad[keep], count[keep]
        first = np.cumsum(count) - count
        pos = np.arange(count.sum()) - np.repeat(first, count)
        cv_parts.append(np.full(rad.size, v))
        crad_parts.append(rad)
        pi_parts.append(order[pos])
        pc_parts.append(n_clusters + np.repeat(np.arange(rad.size), count))
        n_clusters += rad.size
    cv, crad = np.concatenate(cv_parts).astype(np.int64), np.concatenate(crad_parts)
    pi = np.concatenate(pi_parts).astype(np.int64)
    pc = np.concatenate(pc_parts).astype(np.int64)
    start = np.searchsorted(pc, np.arange(n_clusters + 1))
    coef_y, coef_x = f[cv], crad[pc]
    scale = _integer_scale(np.concatenate([coef_y, crad]), float(coef_y.sum() + coef_x.sum()) + 1.0)
    if scale is not None:
        coef_y, coef_x = np.round(coef_y * scale), np.round(coef_x * scale)
    data = CellularData(cv, crad, pi, pc, start, coef_y, coef_x, scale, r, info=info)
    uncovered = n - np.unique(pi).size
    if uncovered:
        data.infeasible = f"{uncovered} points are in no cluster of cost <= {ub:g}"
    elif hint_rad is not None and info["hint_cost"] <= ub:
        data.hint_pair = _cellular_hint(data, hint, hint_rad, n)
    info.update(
        n_clusters=int(n_clusters),
        n_clusters_max=int(n * n),
        n_pairs=int(pi.size),
        objective_scaling="float" if scale is None else f"integer x {scale:g}",
        upper_bound_used=ub,
    )
    return data


def _cellular_hint(data: CellularData, hint: Any, hint_rad: np.ndarray, n: int) -> np.ndarray:
    """The pair of each point in the hint: its cluster ``(center, radius)`` and itself.

    Two hint clusters with the same center and radius become one (it pays ``f`` once).
    """
    labels, centers = hint
    lookup = {
        (int(v), float(x)): c for c, (v, x) in enumerate(zip(data.cv, data.crad, strict=True))
    }
    out = np.empty(n, dtype=np.int64)
    for c, (v, rad) in enumerate(zip(centers.tolist(), hint_rad.tolist(), strict=True)):
        cid = lookup[(v, rad)]
        lo, hi = data.start[cid], data.start[cid + 1]
        members = np.flatnonzero(labels == c)
        # the pairs of cid list its potential members: find each hint member among them
        seg = data.pi[lo:hi]
        by_point = np.argsort(seg)
        out[members] = lo + by_point[np.searchsorted(seg, members, sorter=by_point)]
    return out


# ---------------------------------------------------------------------------------------------
# the Solution of a run
# ---------------------------------------------------------------------------------------------
def make_solution(
    instance: ClusteringInstance,
    run: RunResult | None,
    decoded: tuple[np.ndarray, np.ndarray] | None,
    bound: float | None,
    data_info: dict[str, Any],
    *,
    algorithm: str,
    params: dict[str, Any],
    seed: Any,
    t0: float,
    infeasible: str | None = None,
    resolution: float = 0.0,
) -> Solution:
    """The :class:`Solution` of a run (``run=None``: the preprocessing proved ``infeasible``).

    ``objective`` is the verified cost of the decoded clustering (each cluster's true radius),
    and the status is decided again, in the instance's units, from that cost and the solver's
    ``bound`` (:func:`~anonratio.exact.status.decide_status`): a model's radius or cluster cost
    may exceed the true one before the search has closed. The cost is ``optimal`` when it is
    within a relative ``1e-6`` of the bound, or within ``resolution``: the least cost difference
    that a model with rounded (scaled) coefficients can tell apart (optimal within the scaling's
    resolution). A bound above ``params["upper_bound"]`` makes the run ``infeasible``.
    """
    info = dict(data_info)
    if run is None:
        info["reason"] = infeasible
        return Solution.with_bound(
            None,
            algorithm,
            params=params,
            seed=seed,
            status="infeasible",
            objective=None,
            bound=None,
            t0=t0,
            info=info,
        )
    info.update(run.info)
    labels = centers = cost = None
    if decoded is not None:
        labels, centers = decoded
        info.update(clustering_info(instance, labels, centers))
        sizes = np.bincount(labels[labels >= 0], minlength=centers.size)
        cost = clustering_cost(instance, sizes, centers, np.asarray(info["radii"]))[0]
        info["model_objective"] = run.objective
    status, bound = decide_status(
        has_solution=labels is not None,
        objective=cost,
        bound=bound,
        proven_optimal=run.status == "optimal",
        proven_infeasible=run.status == "infeasible",
        hit_limit=run.status == "time_limit",
        failed=run.status == "error",
        abs_tol=None if cost is None else max(_TOL * max(1.0, abs(cost)), resolution),
    )
    ub = params.get("upper_bound")
    if (
        status != "error"
        and ub is not None
        and bound is not None
        and bound > ub + _SLACK * max(1.0, ub)
    ):
        # the cellular models prune by upper_bound but do not cap their objective: a proven
        # bound above it shows that no clustering costs that little
        status = "infeasible"
    if status == "infeasible":
        info["reason"] = f"no clustering costs at most upper_bound={params.get('upper_bound')}"
    if status in ("error", "infeasible"):
        labels, cost, bound = None, None, None
        for key in ("centers", "radii"):
            info.pop(key, None)
    return Solution.with_bound(
        labels,
        algorithm,
        params=params,
        seed=seed,
        status=status,
        objective=cost,
        bound=bound,
        t0=t0,
        info=info,
    )
