"""Anonymity via clustering (Aggarwal, Feder, Kenthapadi, Khuller, Panigrahy, Thomas, Zhu,
PODS 2006): the instances of its five problems.

Records are points of a metric space; a solution partitions them into clusters, each with a
*center* (an input point) and a *radius* (the largest distance from the center to a member), and
publishes the centers. Five problems share the instance data (points and a metric, and for the
cellular problems a setup cost per potential center):

===============  ============================  ===========================================
problem          feasible                      cost
===============  ============================  ===========================================
``r-gather``     every cluster has >= r        largest radius (§2, Definition 2.1)
``r-eps-gather`` as r-gather; at most          largest radius (§2.3)
                 floor(eps n) points left
                 unclustered (label -1)
``kr-center``    >= r points per cluster,      largest radius (§2.4)
                 at most k clusters
``cellular``     any partition                 sum over clusters of f(center) +
                                               size x radius (§3, Definition 3.1)
``r-cellular``   every cluster has >= r        as cellular (§3.1; setup costs default to 0)
===============  ============================  ===========================================

Conventions (the verifier and the exact models use the same):

* A center is any input point; it need **not** belong to its own cluster (the paper's
  reassignment by max-flow and its regrouping in §3.1 may send a center's own point elsewhere).
  Two clusters may share a center; each pays the setup cost (the paper's clusters are
  (center, radius) pairs).
* A :class:`~anonratio.instances.Solution` labels each point with its cluster id ``0 .. m-1``
  (``-1``: unclustered, ``r-eps-gather`` only) and gives ``info["centers"]``, the center of each
  cluster id; ``info["radii"]``, when given, must be the clusters' true radii. Without centers
  (plain labels) the verifier gives each cluster its best center: the smallest radius, or for
  the cellular problems the smallest ``f(v) + size x radius``.
* Every guarantee assumes the triangle inequality; coordinates always satisfy it, an explicit
  matrix is checked on request (:meth:`ClusteringInstance.triangle_violation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np

from anonratio.instances.base import instance_fields, register_problem
from anonratio.instances.clustering.metric import METRICS, PointMetric
from anonratio.instances.errors import InfeasibleInstanceError
from anonratio.instances.validation import as_array, check_choice, check_int, check_number

__all__ = [
    "ClusteringInstance",
    "RGatherInstance",
    "REpsGatherInstance",
    "KRCenterInstance",
    "CellularInstance",
    "RCellularInstance",
    "CLUSTERING_PROBLEMS",
    "check_points",
    "check_facility_costs",
]


def check_points(points: Any, metric: str) -> np.ndarray:
    """Validate coordinates ``(n, d)`` or, for ``metric="precomputed"``, a distance matrix.

    A distance matrix must be square, finite, non-negative, symmetric with a zero diagonal;
    coordinates finite (hamming coordinates are category codes and may be any finite numbers).
    The message names the first offending entry.
    """
    arr = as_array("points", points)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise ValueError(f"`points` must be numbers, got dtype {arr.dtype}")
    arr = np.array(arr, dtype=float)
    if arr.ndim == 1 and metric != "precomputed":
        arr = arr.reshape(-1, 1)  # one attribute
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"`points` must be a non-empty 2-D array, got shape {arr.shape}")
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        i, j = bad[0]
        raise ValueError(f"`points` must be finite, got {arr[i, j]} at [{i}, {j}]")
    if metric != "precomputed":
        return arr
    n = arr.shape[0]
    if arr.shape != (n, n):
        raise ValueError(f"a precomputed `points` matrix must be square, got shape {arr.shape}")
    neg = np.argwhere(arr < 0)
    if neg.size:
        i, j = neg[0]
        raise ValueError(f"distances must be non-negative, got {arr[i, j]} at [{i}, {j}]")
    diag = np.flatnonzero(np.diag(arr) != 0)
    if diag.size:
        i = diag[0]
        raise ValueError(f"a distance matrix needs a zero diagonal, got {arr[i, i]} at [{i}, {i}]")
    asym = np.argwhere(arr != arr.T)
    if asym.size:
        i, j = asym[0]
        raise ValueError(
            f"a distance matrix must be symmetric, got {arr[i, j]} at [{i}, {j}] and "
            f"{arr[j, i]} at [{j}, {i}]"
        )
    return arr


def check_facility_costs(facility_costs: Any, n: int) -> np.ndarray:
    """Setup costs ``f(v)``: ``None`` (all 0) or ``n`` finite non-negative numbers."""
    if facility_costs is None:
        return np.zeros(n)
    arr = as_array("facility_costs", facility_costs)
    if arr.ndim == 0:
        raise ValueError(
            f"`facility_costs` must be a sequence of {n} numbers (one per point), "
            f"got {facility_costs!r:.80}"
        )
    if arr.shape != (n,):
        raise ValueError(
            f"`facility_costs` must have one entry per point ({n}), got shape {arr.shape}"
        )
    for i, x in enumerate(arr.tolist()):
        check_number(f"facility_costs[{i}]", x, low=0)
    return arr.astype(float)


@dataclass(frozen=True, eq=False)
class ClusteringInstance:
    """Points with a metric: the data shared by the five clustering problems.

    Parameters
    ----------
    points : array_like, shape (n, d), or (n, n) with ``metric="precomputed"``
        Coordinates of the records (one row each), or the distance matrix.
    metric : {"euclidean", "manhattan", "hamming", "precomputed"}
        ``hamming`` counts the coordinates in which two rows differ (categorical codes).
    """

    #: the registered problem name (set by :func:`~anonratio.instances.base.register_problem`)
    problem: ClassVar[str]
    #: the problem parameters, in the order of the constructor
    PARAMS: ClassVar[tuple[str, ...]] = ()

    points: np.ndarray
    metric: str = field(default="euclidean", kw_only=True)

    def __post_init__(self) -> None:
        metric = check_choice("metric", self.metric, METRICS)
        arr = check_points(self.points, metric)
        arr.setflags(write=False)
        object.__setattr__(self, "metric", metric)
        object.__setattr__(self, "points", arr)
        self._check_params()

    def _check_params(self) -> None:
        """Validate the problem parameters (subclasses)."""

    def _check_r(self) -> None:
        r = check_int("r", self.r, low=1)  # type: ignore[attr-defined]
        if r > self.n:
            raise InfeasibleInstanceError(
                f"`r` = {r} exceeds the number of points n = {self.n}: no cluster can reach r"
            )
        object.__setattr__(self, "r", r)

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.points.shape[0])

    @cached_property
    def distances(self) -> PointMetric:
        """The distance function (:class:`~anonratio.instances.clustering.metric.PointMetric`)."""
        return PointMetric(self.points, self.metric)

    @property
    def facility(self) -> np.ndarray:
        """Setup cost of each potential center (zeros for the gather problems)."""
        costs = getattr(self, "facility_costs", None)
        return np.zeros(self.n) if costs is None else costs

    @property
    def params(self) -> dict[str, Any]:
        """The scalar problem parameters of a run (``{"r": 3}``; setup costs are data)."""
        return {name: getattr(self, name) for name in self.PARAMS if name != "facility_costs"}

    def triangle_violation(self, *, tol: float = 1e-9) -> tuple[int, int, int, float] | None:
        """The worst triple ``(i, j, m, excess)`` with ``d(i, j) > d(i, m) + d(m, j)``, or None.

        Coordinates always define a metric; an explicit matrix may not, and every guarantee of
        the paper assumes one. ``O(n^3)`` time in blocks of ``O(n^2)`` memory.
        """
        if self.metric != "precomputed":
            return None
        d = self.distances.dense()
        worst: tuple[int, int, int, float] | None = None
        for m in range(self.n):
            excess = d - (d[:, m][:, None] + d[m][None, :])
            i, j = np.unravel_index(int(np.argmax(excess)), excess.shape)
            if excess[i, j] > tol * max(1.0, float(d[i, j])) and (
                worst is None or excess[i, j] > worst[3]
            ):
                worst = (int(i), int(j), m, float(excess[i, j]))
        return worst

    def check_triangle(self) -> Self:
        """Raise ``ValueError`` naming a violating triple when ``d`` is not a metric; else self."""
        bad = self.triangle_violation()
        if bad is not None:
            i, j, m, excess = bad
            raise ValueError(
                f"the distances break the triangle inequality: d({i},{j}) exceeds "
                f"d({i},{m}) + d({m},{j}) by {excess:g}; the guarantees assume a metric"
            )
        return self

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: points, metric, the problem parameters (and setup costs)."""
        d: dict[str, Any] = {"points": self.points.tolist(), "metric": self.metric}
        for name in self.PARAMS:
            value = getattr(self, name)
            d[name] = value.tolist() if isinstance(value, np.ndarray) else value
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output, validated as the constructor validates."""
        optional = ("metric", "facility_costs") if "facility_costs" in cls.PARAMS else ("metric",)
        required = ("points", *[p for p in cls.PARAMS if p not in optional])
        d = instance_fields(d, cls.problem, required=required, optional=optional)
        kwargs = {p: d[p] for p in cls.PARAMS if p in d}
        return cls(d["points"], metric=d.get("metric", "euclidean"), **kwargs)


@register_problem("r-gather")
@dataclass(frozen=True, eq=False)
class RGatherInstance(ClusteringInstance):
    """r-gather (§2): clusters of at least ``r`` points, minimize the largest radius.

    Examples
    --------
    >>> inst = RGatherInstance([[0.0], [1.0], [10.0], [12.0]], r=2)
    >>> inst.n, inst.params
    (4, {'r': 2})
    """

    PARAMS: ClassVar[tuple[str, ...]] = ("r",)
    r: int = 2

    if TYPE_CHECKING:

        def __init__(self, points: Any, r: int = 2, *, metric: str = "euclidean") -> None: ...

    def _check_params(self) -> None:
        self._check_r()


@register_problem("r-eps-gather")
@dataclass(frozen=True, eq=False)
class REpsGatherInstance(ClusteringInstance):
    """(r, eps)-gather (§2.3): as r-gather, but up to ``floor(eps n)`` points stay unclustered.

    Feasible exactly when ``r <= n``: at most ``floor(eps n)`` points *may* stay out, and one
    cluster of all ``n`` points is always a solution. When ``r > n - floor(eps n)`` fewer points
    may be left out than ``eps`` allows, since the clustered points form clusters of ``r``
    (:attr:`max_unclustered`).

    Examples
    --------
    >>> inst = REpsGatherInstance([[0.0], [1.0], [2.0], [10.0]], r=4, epsilon=0.3)
    >>> inst.max_outliers, inst.max_unclustered
    (1, 0)
    """

    PARAMS: ClassVar[tuple[str, ...]] = ("r", "epsilon")
    r: int = 2
    epsilon: float = 0.1

    if TYPE_CHECKING:

        def __init__(
            self, points: Any, r: int = 2, epsilon: float = 0.1, *, metric: str = "euclidean"
        ) -> None: ...

    def _check_params(self) -> None:
        eps = check_number("epsilon", self.epsilon, low=0, high=1, closed="left")
        object.__setattr__(self, "epsilon", eps)
        self._check_r()

    @property
    def max_outliers(self) -> int:
        """``floor(epsilon n)``: how many points may stay unclustered (the ``1e-9`` absorbs
        float noise such as ``0.3 x 10 = 2.9999999999999996``; ``epsilon < 1`` keeps it below
        ``n``)."""
        return min(int(np.floor(self.epsilon * self.n + 1e-9)), self.n - 1)

    @property
    def max_unclustered(self) -> int:
        """The most points a feasible solution leaves out: ``min(floor(epsilon n), n - r)``
        (the clustered points form at least one cluster, so at least ``r`` of them)."""
        return min(self.max_outliers, self.n - self.r)


@register_problem("kr-center")
@dataclass(frozen=True, eq=False)
class KRCenterInstance(ClusteringInstance):
    """(k, r)-center (§2.4): at most ``k`` clusters of at least ``r`` points, minimize the
    largest radius. Feasible whenever ``r <= n`` (one cluster); with ``k r > n`` at most
    ``floor(n / r)`` clusters can be used."""

    PARAMS: ClassVar[tuple[str, ...]] = ("k", "r")
    k: int = 2
    r: int = 2

    if TYPE_CHECKING:

        def __init__(
            self, points: Any, k: int = 2, r: int = 2, *, metric: str = "euclidean"
        ) -> None: ...

    def _check_params(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, low=1))
        self._check_r()


@register_problem("cellular")
@dataclass(frozen=True, eq=False)
class CellularInstance(ClusteringInstance):
    """Cellular clustering (§3): minimize ``sum_c f(center_c) + |c| radius_c``, no size bound."""

    PARAMS: ClassVar[tuple[str, ...]] = ("facility_costs",)
    facility_costs: np.ndarray | None = None

    if TYPE_CHECKING:

        def __init__(
            self, points: Any, facility_costs: Any = None, *, metric: str = "euclidean"
        ) -> None: ...

    def _check_params(self) -> None:
        costs = check_facility_costs(self.facility_costs, self.n)
        object.__setattr__(self, "facility_costs", costs)
        costs.setflags(write=False)


@register_problem("r-cellular")
@dataclass(frozen=True, eq=False)
class RCellularInstance(ClusteringInstance):
    """r-cellular clustering (§3.1): cellular clustering with clusters of at least ``r`` points
    (setup costs optional, 0 by default as in the paper's Figure 1)."""

    PARAMS: ClassVar[tuple[str, ...]] = ("r", "facility_costs")
    r: int = 2
    facility_costs: np.ndarray | None = None

    if TYPE_CHECKING:

        def __init__(
            self,
            points: Any,
            r: int = 2,
            facility_costs: Any = None,
            *,
            metric: str = "euclidean",
        ) -> None: ...

    def _check_params(self) -> None:
        self._check_r()
        costs = check_facility_costs(self.facility_costs, self.n)
        object.__setattr__(self, "facility_costs", costs)
        costs.setflags(write=False)


#: problem name -> instance class
CLUSTERING_PROBLEMS: dict[str, type[ClusteringInstance]] = {
    cls.problem: cls
    for cls in (
        RGatherInstance,
        REpsGatherInstance,
        KRCenterInstance,
        CellularInstance,
        RCellularInstance,
    )
}
