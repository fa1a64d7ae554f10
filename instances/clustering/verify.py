"""The independent verifier and the cheap lower bounds of the five clustering problems.

The verifier recomputes every cluster's radius from its center and members (never trusting a
solver's claim), checks the problem's constraints and recomputes the cost; see
:mod:`anonratio.instances.clustering.instance` for the conventions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.base import Verification, _labels_of, finish_verification, lower_bound
from anonratio.instances.base import verify as _verify
from anonratio.instances.clustering.instance import (
    CellularInstance,
    ClusteringInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
)
from anonratio.instances.solution import Solution

__all__ = [
    "ClusteringVerification",
    "cluster_radii",
    "best_centers",
    "clustering_cost",
    "clustering_lower_bound",
    "clustering_info",
    "RADIUS_TOL",
]

#: relative tolerance of a declared radius against the recomputed one
RADIUS_TOL = 1e-9

_MAX_RADIUS = ("r-gather", "r-eps-gather", "kr-center")


@dataclass(frozen=True)
class ClusteringVerification(Verification):
    """:class:`~anonratio.instances.base.Verification` plus the shape of the clustering.

    ``centers`` and ``radii`` are the verified center and radius of each cluster id ``0..m-1``;
    ``facility_cost`` and ``service_cost`` split a cellular cost (``sum f`` and
    ``sum size x radius``).
    """

    n_clusters: int | None = None
    n_unclustered: int | None = None
    min_cluster_size: int | None = None
    max_radius: float | None = None
    facility_cost: float | None = None
    service_cost: float | None = None
    centers: tuple[int, ...] = ()
    radii: tuple[float, ...] = ()

    #: the result columns: clusters, unclustered points, the smallest cluster, the largest radius
    COLUMNS: ClassVar[tuple[str, ...]] = (
        "n_clusters",
        "n_unclustered",
        "min_cluster_size",
        "max_radius",
    )


def cluster_radii(
    instance: ClusteringInstance, labels: ArrayLike, centers: ArrayLike
) -> np.ndarray:
    """Radius of each cluster id ``c`` (``0 .. len(centers)-1``): its farthest member from
    ``centers[c]`` (0 for a cluster without members). ``-1`` labels are ignored."""
    labels = np.asarray(labels, dtype=np.int64)
    centers = np.asarray(centers, dtype=np.int64)
    members = np.flatnonzero(labels >= 0)
    d = instance.distances.pairs(centers[labels[members]], members)
    radii = np.zeros(centers.size)
    np.maximum.at(radii, labels[members], d)
    return radii


def best_centers(instance: ClusteringInstance, labels: ArrayLike) -> np.ndarray:
    """The best center of each cluster id ``0 .. max(labels)`` given its members.

    The point that minimizes the radius (gather problems) or ``f(v) + size x radius``
    (cellular problems); ties go to the lowest index. ``O(n)`` distances per member.
    """
    labels = np.asarray(labels, dtype=np.int64)
    m = int(labels.max()) + 1 if labels.size and labels.max() >= 0 else 0
    cellular = instance.problem not in _MAX_RADIUS
    out = np.zeros(m, dtype=np.int64)
    for c in range(m):
        members = np.flatnonzero(labels == c)
        if members.size == 0:
            continue
        reach = instance.distances.block(members).max(axis=0)  # radius if centered at v
        score = instance.facility + members.size * reach if cellular else reach
        out[c] = int(np.argmin(score))
    return out


def _declared(solution: Any, key: str) -> Any:
    if isinstance(solution, Solution):
        return solution.info.get(key)
    return None


def _check_centers(centers: Any, n: int, m_labels: int, violations: list[str]) -> np.ndarray | None:
    arr = np.asarray(centers)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        violations.append(
            f"info['centers'] must be a 1-D sequence of point indices, got {arr!r:.60}"
        )
        return None
    if arr.size < m_labels:
        violations.append(
            f"labels use cluster ids up to {m_labels - 1} but only {arr.size} centers are given"
        )
        return None
    bad = np.flatnonzero((arr < 0) | (arr >= n))
    if bad.size:
        violations.append(f"center of cluster {int(bad[0])} is {int(arr[bad[0]])}, not a point")
        return None
    return arr.astype(np.int64)


def _check_radii(declared: Any, radii: np.ndarray, violations: list[str]) -> None:
    arr = np.asarray(declared, dtype=float)
    if arr.shape != radii.shape:
        violations.append(f"info['radii'] has {arr.size} entries for {radii.size} clusters")
        return
    wrong = np.flatnonzero(np.abs(arr - radii) > RADIUS_TOL * np.maximum(1.0, radii))
    for c in wrong[:3]:
        violations.append(
            f"cluster {int(c)} declares radius {arr[c]:g} but its farthest member is at "
            f"{radii[c]:g} from its center"
        )


def _constraints(
    instance: ClusteringInstance, labels: np.ndarray, sizes: np.ndarray, violations: list[str]
) -> None:
    n_out = int(np.count_nonzero(labels < 0))
    if isinstance(instance, REpsGatherInstance):
        if n_out > instance.max_outliers:
            violations.append(
                f"{n_out} points are unclustered, more than floor(epsilon n) = "
                f"{instance.max_outliers}"
            )
    elif n_out:
        violations.append(f"{n_out} points are unclustered (label -1); every point needs a cluster")
    r = getattr(instance, "r", 1)
    small = np.flatnonzero(sizes < r)
    for c in small[:3]:
        violations.append(f"cluster {int(c)} has {int(sizes[c])} points, fewer than r = {r}")
    if small.size > 3:
        violations.append(f"... {small.size - 3} more clusters have fewer than r = {r} points")
    if isinstance(instance, KRCenterInstance) and sizes.size > instance.k:
        violations.append(f"{sizes.size} clusters, more than k = {instance.k}")


def clustering_cost(
    instance: ClusteringInstance, sizes: np.ndarray, centers: np.ndarray, radii: np.ndarray
) -> tuple[float, float | None, float | None]:
    """``(cost, facility, service)``: the largest radius for the gather problems; for the
    cellular ones ``sum f(center) + sum size x radius`` and its two parts."""
    if instance.problem in _MAX_RADIUS:
        return (float(radii.max()) if radii.size else 0.0), None, None
    facility = float(instance.facility[centers].sum())
    service = float((sizes * radii).sum())
    return facility + service, facility, service


@_verify.register
def _verify_clustering(
    instance: ClusteringInstance, solution: Any, *, strict: bool = True
) -> ClusteringVerification:
    """Check a clustering: labels, centers, declared radii, the problem's constraints; cost."""
    labels, violations = _labels_of(solution, instance.n)
    if labels is None:
        finish_verification(violations, None, strict)
        return ClusteringVerification(False, None, violations)
    if np.any(labels < -1):
        violations.append("labels must be cluster ids >= 0 (or -1 for an unclustered point)")
        finish_verification(violations, None, strict)
        return ClusteringVerification(False, None, violations)
    m_labels = int(labels.max()) + 1 if labels.max(initial=-1) >= 0 else 0
    declared = _declared(solution, "centers")
    if declared is None:
        centers = best_centers(instance, labels)
    else:
        checked = _check_centers(declared, instance.n, m_labels, violations)
        if checked is None:
            finish_verification(violations, None, strict)
            return ClusteringVerification(False, None, violations)
        centers = checked
    sizes = np.bincount(labels[labels >= 0], minlength=centers.size)
    empty = np.flatnonzero(sizes == 0)
    if empty.size:
        violations.append(f"cluster {int(empty[0])} has a center but no members")
    radii = cluster_radii(instance, labels, centers)
    if _declared(solution, "radii") is not None:
        _check_radii(_declared(solution, "radii"), radii, violations)
    _constraints(instance, labels, sizes, violations)
    stats: dict[str, Any] = {
        "n_clusters": int(np.count_nonzero(sizes)),
        "n_unclustered": int(np.count_nonzero(labels < 0)),
        "min_cluster_size": int(sizes[sizes > 0].min()) if np.any(sizes > 0) else 0,
        "max_radius": float(radii.max()) if radii.size else 0.0,
        "centers": tuple(int(c) for c in centers),
        "radii": tuple(float(x) for x in radii),
    }
    if violations:
        finish_verification(violations, None, strict)
        return ClusteringVerification(False, None, violations, **stats)
    value, facility, service = clustering_cost(instance, sizes, centers, radii)
    return ClusteringVerification(
        True, value, [], facility_cost=facility, service_cost=service, **stats
    )


def clustering_lower_bound(instance: ClusteringInstance) -> tuple[float, str]:
    """``(value, source)``: a bound every feasible solution's cost reaches.

    With ``d_m(i)`` the distance from point ``i`` to its ``m``-th nearest other point (the
    triangle inequality is assumed: two members of a cluster of radius ``R`` are within ``2R``):

    * r-gather and (k, r)-center: ``max_i d_{r-1}(i) / 2`` (every point shares a cluster with
      ``r - 1`` others);
    * (r, eps)-gather: the ``(floor(eps n) + 1)``-th largest ``d_{r-1}(i) / 2`` (only
      ``floor(eps n)`` points may stay out);
    * r-cellular: ``sum_i d_{r-1}(i) / 2 + min f`` (each point pays its cluster's radius; some
      cluster pays a setup cost);
    * cellular: ``min f`` (the primal-dual's dual objective is the run's own, stronger bound).

    A precomputed matrix that breaks the triangle inequality
    (:meth:`~anonratio.instances.clustering.instance.ClusteringInstance.triangle_violation`,
    ``O(n^3)``) gets ``d_1(i)`` in place of ``d_{r-1}(i) / 2``: every point of a cluster of at
    least two is within its radius of the center or, being the center, has a member within it.
    """
    if isinstance(instance, CellularInstance):
        return float(instance.facility.min()), "min f"
    r = instance.r  # type: ignore[attr-defined]
    if instance.metric == "precomputed" and instance.triangle_violation() is not None:
        # no triangle inequality: a point still lies within R of its center, or is the center
        # with another member within R, so it pays at least its nearest other point's distance
        half, name = instance.distances.kth_neighbor_distances(min(r - 1, 1)), "d_1"
    else:
        half, name = instance.distances.kth_neighbor_distances(r - 1) / 2, "d_{r-1}/2"
    if isinstance(instance, RCellularInstance):
        return float(half.sum() + instance.facility.min()), f"sum {name} + min f"
    if isinstance(instance, REpsGatherInstance):
        q = instance.max_outliers
        return float(np.sort(half)[::-1][q]), f"(floor(eps n)+1)-th largest {name}"
    return float(half.max()), f"max {name}"


@lower_bound.register
def _lower_bound_clustering(instance: ClusteringInstance) -> tuple[float, str]:
    return clustering_lower_bound(instance)


def clustering_info(
    instance: ClusteringInstance, labels: ArrayLike, centers: Sequence[int] | np.ndarray
) -> dict[str, list]:
    """``{"centers": [...], "radii": [...]}`` for ``Solution.info``: the centers as a JSON list
    and each cluster's true radius (what :func:`verify` checks a declared radius against)."""
    centers = np.asarray(centers, dtype=np.int64).reshape(-1)
    radii = cluster_radii(instance, labels, centers)
    return {"centers": [int(c) for c in centers], "radii": [float(x) for x in radii]}
