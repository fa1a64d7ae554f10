"""GPS rectangle-partition instances: random points and the gadgets of Du et al. (2009, §3).

* :func:`uniform_points`: points uniform in the unit square (or on an integer grid, which makes
  shared coordinates and merged duplicates), random integer weights.
* :func:`clustered_points`: Gaussian clusters around random centres (city-like GPS data).
* :func:`cross_gadget`: the worst case of Theorem 4 — a point of multiplicity ``k`` with points of
  multiplicity ``k - 1`` at N, S, E and W. No cut leaves ``k`` on both sides, so kd-tree
  splitting returns the whole box, weight ``5k - 4``, which is ``(5k - 4) / k`` times the lower
  bound ``k``. Its optimum is ``5k - 4`` too: a rectangle holding two of the arm points contains
  the centre, and an arm (``k - 1 < k``) cannot stand alone, so every arm shares the centre's
  rectangle. The worst case is tight for the *bound*, not against the optimum.
* :func:`pinwheel_gadget`: the cross plus four unit "helper" points in the corners of the box.
  The non-guillotine pinwheel (each arm with its corner helper in one of four rectangles winding
  round the centre) has all five rectangles of weight exactly ``k``, so the optimum is ``k``;
  kd-tree splitting (median cuts, alternating axes) ends with the centre and one arm in one
  rectangle, weight ``2k - 1``, which is also the best guillotine partition (so kd-tree splitting
  is optimal among guillotine partitions here, and guillotine partitions lose a factor
  ``(2k - 1) / k``).

Each generator returns a
:class:`~anonratio.instances.gps_rectangles.instance.GpsRectanglesInstance`; the gadgets return
``(instance, meta)`` with the known ``optimum``, the kd-tree cost, a description, and a witness
partition (``witness_labels``, ``witness_rectangles``) of cost ``optimum``.
"""

from typing import Any

import numpy as np

from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance
from anonratio.instances.validation import SeedLike, check_int, check_number, check_random_state

__all__ = ["uniform_points", "clustered_points", "cross_gadget", "pinwheel_gadget"]


def _weights(rng: np.random.Generator, n: int, weight_max: int) -> np.ndarray:
    return rng.integers(1, weight_max, size=n, endpoint=True)


def uniform_points(
    n: int, *, k: int, weight_max: int = 1, grid: int | None = None, seed: SeedLike = None
) -> GpsRectanglesInstance:
    """``n`` points uniform in ``[0, 1)^2`` (or in ``{0..grid-1}^2``), weights in
    ``[1, weight_max]``.

    With ``grid`` the coordinates are integers, so points share rows and columns and duplicates
    are merged (the instance may have fewer than ``n`` points). Raises
    :class:`~anonratio.instances.InfeasibleInstanceError` when the total weight is below ``k``.

    Examples
    --------
    >>> uniform_points(10, k=3, seed=0).n
    10
    """
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1)
    weight_max = check_int("weight_max", weight_max, low=1)
    rng = check_random_state(seed)
    pts: np.ndarray
    if grid is None:
        pts = rng.random((n, 2))
    else:
        pts = rng.integers(0, check_int("grid", grid, low=1), size=(n, 2))
    return GpsRectanglesInstance(pts, _weights(rng, n, weight_max), k)


def clustered_points(
    n: int,
    *,
    k: int,
    n_clusters: int = 3,
    spread: float = 0.05,
    weight_max: int = 1,
    seed: SeedLike = None,
) -> GpsRectanglesInstance:
    """``n`` points in ``n_clusters`` Gaussian clusters (standard deviation ``spread``) around
    centres uniform in the unit square; weights in ``[1, weight_max]``.

    Examples
    --------
    >>> clustered_points(30, k=3, n_clusters=2, seed=1).n
    30
    """
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1)
    n_clusters = check_int("n_clusters", n_clusters, low=1)
    spread = check_number("spread", spread, low=0, closed="neither")
    weight_max = check_int("weight_max", weight_max, low=1)
    rng = check_random_state(seed)
    centres = rng.random((n_clusters, 2))
    which = rng.integers(0, n_clusters, size=n)
    pts = centres[which] + rng.normal(0.0, spread, size=(n, 2))
    return GpsRectanglesInstance(pts, _weights(rng, n, weight_max), k)


def cross_gadget(k: int) -> tuple[GpsRectanglesInstance, dict[str, Any]]:
    """Theorem 4's worst case: multiplicity ``k`` at the origin, ``k - 1`` at N, S, E, W.

    kd-tree splitting cannot cut it and returns one rectangle of weight ``5k - 4`` — its proven
    bound ``4 (k - 1) + max w`` with ``max w = k`` — while the lower bound ``max(k, max w)`` is
    ``k``. The optimum is also ``5k - 4`` (module docstring), so on the cross the ratio against
    the optimum is 1; ``k >= 2``.

    Returns
    -------
    (GpsRectanglesInstance, dict)
        ``meta``: ``optimum`` (``5k - 4``), ``kdtree_cost`` (``5k - 4``), ``lower_bound`` (``k``),
        ``description``, ``witness_labels``, ``witness_rectangles``.

    Examples
    --------
    >>> inst, meta = cross_gadget(3)
    >>> inst.weights.tolist(), meta["optimum"]
    ([3, 2, 2, 2, 2], 11)
    """
    k = check_int("k", k, low=2)
    pts = [(0, 0), (0, 1), (0, -1), (1, 0), (-1, 0)]
    inst = GpsRectanglesInstance(pts, [k] + [k - 1] * 4, k)
    meta = {
        "optimum": 5 * k - 4,
        "kdtree_cost": 5 * k - 4,
        "lower_bound": k,
        "description": (
            "Du et al. 2009, §3: point of multiplicity k with four points of multiplicity k-1 at "
            "N, S, E, W; no admissible cut, kd-tree cost 5k-4; optimum 5k-4 (every arm must "
            "share the centre's rectangle)"
        ),
        "witness_labels": [0] * 5,
        "witness_rectangles": [list(inst.box)],
    }
    return inst, meta


def pinwheel_gadget(k: int) -> tuple[GpsRectanglesInstance, dict[str, Any]]:
    """The cross with four corner helpers: optimum ``k`` (a pinwheel), kd-tree ``2k - 1``.

    Points: the cross of :func:`cross_gadget` at ``(0, 0)``, ``(0, ±1)``, ``(±1, 0)`` and unit
    helpers at ``(±1.5, ±1.5)``. The pinwheel ``[-1.5, 0.5] x [0.5, 1.5]`` (N arm + NW helper),
    ``[0.5, 1.5] x [-0.5, 1.5]`` (E + NE), ``[-0.5, 1.5] x [-1.5, -0.5]`` (S + SE),
    ``[-1.5, -0.5] x [-1.5, 0.5]`` (W + SW) and the centre square ``[-0.5, 0.5]^2`` weighs ``k``
    everywhere. It is not guillotine (no line crosses the box without cutting a rectangle), and no
    guillotine partition reaches ``k``.
    :func:`~anonratio.solvers.gps_rectangles.kdtree_split.kdtree_split` (default rule) cuts off
    W + its helpers (``k + 1``), then S + SE helper (``k``), then E + NE helper (``k``), and keeps
    N + centre: ``2k - 1``. ``k >= 2``.

    Returns
    -------
    (GpsRectanglesInstance, dict)
        ``meta``: ``optimum`` (``k``), ``kdtree_cost`` (``2k - 1``), ``description``,
        ``witness_labels``, ``witness_rectangles``.

    Examples
    --------
    >>> inst, meta = pinwheel_gadget(4)
    >>> inst.n, inst.total_weight, meta["optimum"]
    (9, 20, 4)
    """
    k = check_int("k", k, low=2)
    pts: list[tuple[float, float]] = [(0, 0), (0, 1), (1, 0), (0, -1), (-1, 0)]
    pts += [(-1.5, 1.5), (1.5, 1.5), (1.5, -1.5), (-1.5, -1.5)]
    weights = [k] + [k - 1] * 4 + [1] * 4
    inst = GpsRectanglesInstance(pts, weights, k)
    rects = [
        [-0.5, -0.5, 0.5, 0.5],  # centre
        [-1.5, 0.5, 0.5, 1.5],  # N arm + NW helper
        [0.5, -0.5, 1.5, 1.5],  # E arm + NE helper
        [-0.5, -1.5, 1.5, -0.5],  # S arm + SE helper
        [-1.5, -1.5, -0.5, 0.5],  # W arm + SW helper
    ]
    meta = {
        "optimum": k,
        "kdtree_cost": 2 * k - 1,
        "lower_bound": k,
        "description": (
            "cross of Du et al. 2009, §3 plus unit helpers in the four corners: a pinwheel "
            "(non-guillotine) partition has all rectangles of weight k; kd-tree splitting "
            "and the best guillotine partition reach 2k-1"
        ),
        "witness_labels": [0, 1, 2, 3, 4, 1, 2, 3, 4],
        "witness_rectangles": rects,
    }
    return inst, meta
