"""Clustering instances: random point clouds and planted instances with a known optimum.

Point generators return ``(points, meta)`` (coordinates of shape ``(n, dim)`` and what the
generator knows about them); the instance builders turn points into one of the five problems of
Aggarwal et al. (PODS 2006):

* :func:`gaussian_points`: well-separated Gaussian clusters of given sizes (the true groups);
* :func:`uniform_points`: uniform in the unit cube (no structure);
* :func:`outlier_points`: a dense cloud plus far outliers (the case of (r, eps)-gather, §2.3);
* :func:`heavy_tailed_points`: Pareto-distributed radii, so a few points lie very far away;
* :func:`facility_costs`: setup costs for the cellular problems (§3);
* :func:`make_instance`: the instance of a problem name;
* :func:`planted_instance`: groups of exactly ``r`` points around a center, far apart, whose
  optimum is known by construction (r-gather, (r, eps)-gather, (k, r)-center, r-cellular).
"""

from typing import Any

import numpy as np

from anonratio.instances.clustering.instance import CLUSTERING_PROBLEMS, ClusteringInstance
from anonratio.instances.validation import (
    SeedLike,
    as_array,
    check_choice,
    check_int,
    check_number,
    check_random_state,
)

__all__ = [
    "FACILITY_KINDS",
    "PLANTED_PROBLEMS",
    "gaussian_points",
    "uniform_points",
    "outlier_points",
    "heavy_tailed_points",
    "facility_costs",
    "make_instance",
    "planted_instance",
]

#: the kinds of setup costs :func:`facility_costs` draws
FACILITY_KINDS = ("zero", "uniform", "constant")

#: the problems :func:`planted_instance` plants an optimum for (cellular has no size bound)
PLANTED_PROBLEMS = ("r-gather", "r-eps-gather", "kr-center", "r-cellular")

#: groups and outliers of a planted instance sit on a grid of this many times the largest radius
#: (two points of different cells are then more than 10 x the largest radius apart)
GRID_SPACING = 13.0


def _grid_cells(rng: np.random.Generator, m: int, dim: int) -> np.ndarray:
    """``m`` distinct random cells of the smallest ``side^dim`` integer grid holding ``m``."""
    side = 1
    while side**dim < m:
        side += 1
    cells = rng.choice(side**dim, size=m, replace=False)
    return np.stack(np.unravel_index(cells, (side,) * dim), axis=1).astype(float)


def _directions(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """``n`` unit vectors uniform on the sphere of ``R^dim`` (``±1`` in one dimension)."""
    if dim == 1:
        return rng.choice([-1.0, 1.0], size=(n, 1))
    u = rng.normal(size=(n, dim))
    norm = np.linalg.norm(u, axis=1, keepdims=True)
    return u / np.where(norm > 0, norm, 1.0)


def gaussian_points(
    sizes: Any,
    *,
    dim: int = 2,
    spread: float = 1.0,
    separation: float = 10.0,
    seed: SeedLike = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Gaussian clusters of the given sizes, centers ``separation x spread`` apart or more.

    The centers are distinct random nodes of an integer grid scaled by ``separation * spread``;
    each cluster is isotropic Gaussian with standard deviation ``spread``. The points are
    shuffled, and ``meta["groups"]`` gives each point's true cluster.

    Returns
    -------
    points : ndarray, shape (sum(sizes), dim)
    meta : dict
        ``{"family": "gaussian", "groups": [...], "centers": [[...], ...]}``.

    Examples
    --------
    >>> pts, meta = gaussian_points([3, 5], seed=0)
    >>> pts.shape, sorted(meta["groups"])
    ((8, 2), [0, 0, 0, 1, 1, 1, 1, 1])
    """
    arr = as_array("sizes", sizes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"`sizes` must be a non-empty sequence of cluster sizes, got {sizes!r:.80}"
        )
    sizes_ = [check_int(f"sizes[{g}]", s, low=1) for g, s in enumerate(arr.tolist())]
    dim = check_int("dim", dim, low=1)
    spread = check_number("spread", spread, low=0, closed="neither")
    separation = check_number("separation", separation, low=0, closed="neither")
    rng = check_random_state(seed)
    centers = _grid_cells(rng, len(sizes_), dim) * (separation * spread)
    groups = np.repeat(np.arange(len(sizes_)), sizes_)
    pts = centers[groups] + rng.normal(0.0, spread, size=(groups.size, dim))
    perm = rng.permutation(groups.size)
    meta = {"family": "gaussian", "groups": groups[perm].tolist(), "centers": centers.tolist()}
    return pts[perm], meta


def uniform_points(
    n: int, *, dim: int = 2, seed: SeedLike = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """``n`` points uniform in the unit cube ``[0, 1)^dim``.

    Examples
    --------
    >>> pts, meta = uniform_points(5, dim=3, seed=0)
    >>> pts.shape, meta["family"]
    ((5, 3), 'uniform')
    """
    n = check_int("n", n, low=1)
    dim = check_int("dim", dim, low=1)
    rng = check_random_state(seed)
    return rng.random((n, dim)), {"family": "uniform"}


def outlier_points(
    n: int, *, n_outliers: int, dim: int = 2, spread: float = 1.0, seed: SeedLike = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """``n`` points: ``n - n_outliers`` in a Gaussian cloud (standard deviation ``spread``) at the
    origin, and ``n_outliers`` far outliers, at distance ``20 .. 100 x spread`` from the origin in
    random directions.

    Returns
    -------
    points : ndarray, shape (n, dim)
    meta : dict
        ``{"family": "outliers", "outlier": [bool per point]}`` (the points are shuffled).

    Examples
    --------
    >>> pts, meta = outlier_points(10, n_outliers=2, seed=0)
    >>> pts.shape, sum(meta["outlier"])
    ((10, 2), 2)
    """
    n = check_int("n", n, low=1)
    n_outliers = check_int("n_outliers", n_outliers, low=0, high=n, high_name="n")
    dim = check_int("dim", dim, low=1)
    spread = check_number("spread", spread, low=0, closed="neither")
    rng = check_random_state(seed)
    cloud = rng.normal(0.0, spread, size=(n - n_outliers, dim))
    far = _directions(rng, n_outliers, dim) * rng.uniform(
        20 * spread, 100 * spread, (n_outliers, 1)
    )
    pts = np.concatenate([cloud, far])
    outlier = np.arange(n) >= n - n_outliers
    perm = rng.permutation(n)
    return pts[perm], {"family": "outliers", "outlier": outlier[perm].tolist()}


def heavy_tailed_points(
    n: int, *, dim: int = 2, tail: float = 1.5, seed: SeedLike = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """``n`` points in random directions at Pareto-distributed distances from the origin.

    The distance is ``1 + Lomax(tail)`` (a Pareto law with scale 1 and index ``tail``:
    ``P(radius > t) = t^-tail``); a small ``tail`` gives a few points very far away (infinite
    variance for ``tail <= 2``, infinite mean for ``tail <= 1``).

    Returns
    -------
    points : ndarray, shape (n, dim)
    meta : dict
        ``{"family": "heavy-tailed", "radii": [distance of each point from the origin]}``.

    Examples
    --------
    >>> pts, meta = heavy_tailed_points(6, tail=1.0, seed=0)
    >>> pts.shape, min(meta["radii"]) >= 1
    ((6, 2), True)
    """
    n = check_int("n", n, low=1)
    dim = check_int("dim", dim, low=1)
    tail = check_number("tail", tail, low=0, closed="neither")
    rng = check_random_state(seed)
    radii = 1.0 + rng.pareto(tail, size=n)
    pts = _directions(rng, n, dim) * radii[:, None]
    return pts, {"family": "heavy-tailed", "radii": radii.tolist()}


def facility_costs(
    points_or_n: Any, *, kind: str = "uniform", scale: float = 1.0, seed: SeedLike = None
) -> np.ndarray:
    """Setup costs ``f(v)`` of the cellular problems (§3), one per point.

    Parameters
    ----------
    points_or_n : int or array_like
        The number of points, or the points (one row each).
    kind : {"zero", "uniform", "constant"}
        All zero; uniform in ``[0, scale)``; all equal to ``scale``.
    scale : float
        A non-negative number.

    Examples
    --------
    >>> facility_costs(3, kind="constant", scale=2.5).tolist()
    [2.5, 2.5, 2.5]
    """
    if isinstance(points_or_n, int | np.integer) and not isinstance(points_or_n, bool):
        n = check_int("points_or_n", points_or_n, low=1)
    else:
        arr = as_array("points_or_n", points_or_n)
        if arr.ndim == 0 or arr.shape[0] == 0:
            raise ValueError(
                f"`points_or_n` must be a positive integer or a non-empty array of points, "
                f"got {points_or_n!r:.80}"
            )
        n = int(arr.shape[0])
    kind = check_choice("kind", kind, FACILITY_KINDS)
    scale = check_number("scale", scale, low=0)
    rng = check_random_state(seed)
    if kind == "zero":
        return np.zeros(n)
    if kind == "constant":
        return np.full(n, scale)
    return rng.uniform(0.0, scale, size=n)


def make_instance(
    problem: str, points: Any, *, metric: str = "euclidean", **params: Any
) -> ClusteringInstance:
    """The instance of ``problem`` on ``points`` with the problem's parameters ``params``.

    Examples
    --------
    >>> make_instance("kr-center", [[0.0], [1.0], [5.0], [6.0]], k=2, r=2).params
    {'k': 2, 'r': 2}
    """
    cls = CLUSTERING_PROBLEMS[check_choice("problem", problem, CLUSTERING_PROBLEMS)]
    unknown = sorted(set(params) - set(cls.PARAMS))
    if unknown:
        raise ValueError(
            f"`{unknown[0]}` is not a parameter of {problem!r}; it takes {list(cls.PARAMS)}"
        )
    return cls(points, metric=metric, **params)


def _check_radius(radius: Any) -> tuple[float, float]:
    arr = as_array("radius", radius)
    if arr.shape != (2,):
        raise ValueError(f"`radius` must be a pair (low, high), got {radius!r:.80}")
    low = check_number("radius[0]", arr[0].item(), low=0, closed="neither")
    high = check_number("radius[1]", arr[1].item(), low=low)
    return low, high


def _planted_points(
    rng: np.random.Generator, rho: np.ndarray, r: int, dim: int, n_outliers: int
) -> tuple[np.ndarray, np.ndarray]:
    """Points of the planted groups (center first, then ``r - 1`` on its circle) and outliers,
    and the group of each point (``-1``: outlier), before shuffling."""
    groups = rho.size
    cells = _grid_cells(rng, groups + n_outliers, dim) * (GRID_SPACING * rho.max())
    ring = np.zeros((r - 1, dim))
    if dim == 1:
        ring[:, 0] = np.where(np.arange(r - 1) % 2 == 0, 1.0, -1.0)
    blocks = []
    for g in range(groups):
        if dim > 1:  # evenly spaced on a circle of a random plane, randomly rotated
            q, _ = np.linalg.qr(rng.normal(size=(dim, 2)))
            angle = rng.uniform(0, 2 * np.pi) + 2 * np.pi * np.arange(r - 1) / (r - 1)
            ring = np.cos(angle)[:, None] * q[:, 0] + np.sin(angle)[:, None] * q[:, 1]
        blocks.append(cells[g] + np.concatenate([np.zeros((1, dim)), rho[g] * ring]))
    pts = np.concatenate([*blocks, cells[groups:]])
    label = np.concatenate([np.repeat(np.arange(groups), r), np.full(n_outliers, -1)])
    return pts, label


def planted_instance(
    problem: str,
    *,
    groups: int,
    r: int,
    radius: tuple[float, float] = (1.0, 3.0),
    dim: int = 2,
    n_outliers: int = 0,
    seed: SeedLike = None,
) -> tuple[ClusteringInstance, dict[str, Any]]:
    """An instance of ``problem`` whose optimum is known by construction.

    ``groups`` groups of exactly ``r`` points: a center ``c_g`` and ``r - 1`` points at distance
    exactly ``rho_g`` (uniform in ``radius``) from it, evenly spaced on a circle (``±rho_g`` in
    one dimension); the groups (and the ``n_outliers`` outliers, r-eps-gather only) sit on
    distinct nodes of a grid of spacing ``13 max rho``, so two points of different groups (or an
    outlier and any other point) are more than ``10 max rho`` apart. Then, with the triangle
    inequality (a cluster holding two points at distance ``d`` has radius ``>= d / 2``):

    * r-gather: a cluster mixing groups has radius ``> 5 max rho``, so a solution below that
      keeps every cluster inside a group of exactly ``r`` points, i.e. clusters are the groups;
      the best center of group ``g`` is ``c_g`` (radius ``rho_g``; a circle point has another
      circle point at ``>= sqrt(3) rho_g``, or with ``r = 2`` also ``rho_g``): optimum
      ``max rho_g``.
    * kr-center with ``k = groups``: the same argument (the groups use exactly ``k`` clusters).
    * r-eps-gather with ``epsilon = n_outliers / n`` (``floor(eps n) = n_outliers``): a cluster
      holding an outlier has radius ``> 5 max rho`` (``r >= 2``), so below that all outliers are
      out, the budget is spent and every group is clustered as above: optimum ``max rho_g``.
    * r-cellular with ``f = 0``: each point pays its cluster's radius, ``>= rho_g`` whether its
      cluster is its whole group (as above) or mixes groups (``> 5 max rho``): optimum
      ``sum_g r rho_g``, reached by the groups.

    Cellular clustering has no size bound (singletons cost 0), so no optimum is planted for it.

    Parameters
    ----------
    problem : {"r-gather", "r-eps-gather", "kr-center", "r-cellular"}
    groups : int
        Number of groups (>= 1).
    r : int
        Group size and the problem's ``r`` (>= 2).
    radius : (float, float)
        Range ``0 < low <= high`` of the group radii ``rho_g``.
    dim : int
        Dimension of the points (euclidean metric).
    n_outliers : int
        Far isolated points, r-eps-gather only.
    seed : int, Generator or None

    Returns
    -------
    instance : ClusteringInstance
    meta : dict
        ``family``, ``optimum`` (computed from the float distances, as the verifier computes
        them), ``radii`` (``rho_g``), ``labels`` (group per point, ``-1`` for an outlier) and
        ``centers`` (the index of each ``c_g``): a witness solution of cost ``optimum``.

    Examples
    --------
    >>> inst, meta = planted_instance("r-gather", groups=3, r=4, seed=0)
    >>> inst.n, inst.params, abs(meta["optimum"] - max(meta["radii"])) < 1e-9
    (12, {'r': 4}, True)
    """
    problem = check_choice("problem", problem, CLUSTERING_PROBLEMS)
    if problem not in PLANTED_PROBLEMS:
        raise ValueError(
            f"`problem` {problem!r} has no planted optimum (no cluster size bound: every point "
            f"alone costs only its setup cost); choose one of {list(PLANTED_PROBLEMS)}"
        )
    groups = check_int("groups", groups, low=1)
    r = check_int("r", r, low=2)
    low, high = _check_radius(radius)
    dim = check_int("dim", dim, low=1)
    n_outliers = check_int("n_outliers", n_outliers, low=0)
    if n_outliers and problem != "r-eps-gather":
        raise ValueError(
            f"`n_outliers` must be 0 for {problem!r} (only r-eps-gather may leave points out), "
            f"got {n_outliers}"
        )
    rng = check_random_state(seed)
    rho = rng.uniform(low, high, size=groups)
    pts, label = _planted_points(rng, rho, r, dim, n_outliers)
    perm = rng.permutation(label.size)
    pts, label = pts[perm], label[perm]
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    centers = inv[np.arange(groups) * r]  # the center of group g was point g r before shuffling
    n = label.size
    params: dict[str, Any] = {"r": r}
    if problem == "kr-center":
        params["k"] = groups
    elif problem == "r-eps-gather":
        eps = n_outliers / n
        while np.floor(eps * n) < n_outliers:  # floor(eps n) = n_outliers exactly
            eps = float(np.nextafter(eps, 1.0))
        params["epsilon"] = eps
    inst = make_instance(problem, pts, **params)
    members = np.flatnonzero(label >= 0)
    d = inst.distances.pairs(centers[label[members]], members)
    radii = np.zeros(groups)
    np.maximum.at(radii, label[members], d)
    if problem == "r-cellular":
        optimum = float((np.bincount(label[members], minlength=groups) * radii).sum())
    else:
        optimum = float(radii.max())
    meta = {
        "family": f"{problem}-planted",
        "optimum": optimum,
        "radii": rho.tolist(),
        "labels": label.tolist(),
        "centers": centers.tolist(),
        "groups": groups,
        "r": r,
        "n_outliers": n_outliers,
    }
    return inst, meta
