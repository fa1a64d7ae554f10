"""kd-tree splitting for rectangular generalization of GPS points (Du et al. 2009, §3, Thm 4).

Start from the bounding box; while some rectangle can be cut by an axis-parallel line into two
rectangles that both weigh at least ``k``, cut it (at the weighted median among the admissible
cuts, alternating the axis as in a kd-tree). The leaves are the published rectangles.

Why the result costs at most ``4 (k - 1) + w_max`` (the bound behind Theorem 4's ratio 5; the paper
states the result and its worst case ``5k - 4`` without a proof, so here is one). Take a leaf of
weight ``W`` and let ``x*`` be the smallest of its x-coordinates whose prefix (points with
``x <= x*``) weighs at least ``k``. The points with ``x < x*`` weigh at most ``k - 1`` by the
choice of ``x*``, those with ``x > x*`` at most ``k - 1`` because otherwise the cut just right of
``x*`` would be admissible. Define ``y*`` likewise. The column ``x = x*`` then holds at most
``k - 1`` weight below ``y*``, at most ``k - 1`` above it and the point ``(x*, y*)`` (if any), so
``W <= 2 (k - 1) + 2 (k - 1) + w(x*, y*) <= 4 (k - 1) + w_max``. Every rectangle weighs at least
``k`` (cuts keep both sides at ``k`` or more) and ``OPT >= max(k, w_max)``, hence
``cost / OPT <= (4 (k - 1) + w_max) / max(k, w_max) < 5``. The cross — a point of multiplicity ``k``
with points of multiplicity ``k - 1`` at N, S, E and W — admits no cut and costs ``5k - 4``.
"""

from __future__ import annotations

from time import perf_counter

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.gps_rectangles import (
    GpsRectanglesInstance,
    cells_to_rectangles,
    gps_lower_bound,
)
from anonratio.instances.validation import check_choice, check_instance

__all__ = ["kdtree_split", "kdtree_split_bound", "kdtree_split_guarantee", "AXIS_RULES"]

#: how the cutting axis is chosen
AXIS_RULES = ("alternate", "longest")


def _kdtree_iv(instance, axis):
    check_instance(instance, GpsRectanglesInstance)
    check_choice("axis", axis, AXIS_RULES)


def kdtree_split_bound(instance: GpsRectanglesInstance) -> int:
    """The proven cost bound ``min(W, 4 (k - 1) + max_p w_p)`` of :func:`kdtree_split`."""
    k = instance.k
    return min(instance.total_weight, 4 * (k - 1) + instance.max_weight)


def kdtree_split_guarantee(
    instance: GpsRectanglesInstance, solution: Solution | None = None
) -> float:
    """Proven ratio on ``instance``: :func:`kdtree_split_bound` / the lower bound (< 5).

    ``solution`` is not needed: the ratio is known before the run.
    """
    return kdtree_split_bound(instance) / gps_lower_bound(instance)[0]


def _best_cut(ranks, weights, k):
    """Admissible cut nearest the weighted median along one axis, or None.

    Returns ``(last_rank_left, left_mask)``: the cut runs between grid rank ``last_rank_left``
    and the next one; ``left_mask`` selects the points on its left.
    """
    values, inverse = np.unique(ranks, return_inverse=True)
    if values.size < 2:
        return None
    prefix = np.cumsum(np.bincount(inverse, weights=weights, minlength=values.size))[:-1]
    total = float(weights.sum())
    ok = (prefix >= k) & (total - prefix >= k)
    if not ok.any():
        return None
    # the prefix nearest W/2 is admissible whenever any prefix is (it lies in [k, W - k])
    t = int(np.argmin(np.where(ok, np.abs(prefix - total / 2), np.inf)))
    return int(values[t]), inverse <= t


def kdtree_split(instance: GpsRectanglesInstance, *, axis: str = "alternate") -> Solution:
    """kd-tree splitting (Du et al. 2009, Theorem 4): cost ``<= 4 (k - 1) + max w < 5 OPT``.

    Recursively cuts the bounding box with axis-parallel lines while both sides keep weight at
    least ``k``; the uncuttable rectangles are the answer. The bound holds for every admissible
    cut order (see the module docstring for the proof); the worst case ``5k - 4`` is attained by
    the cross of :func:`~anonratio.instances.gps_rectangles.generators.cross_gadget`. Cuts run on
    the compressed grid (midpoints between consecutive distinct coordinates), so no edge passes
    through a point.

    Parameters
    ----------
    instance : GpsRectanglesInstance
    axis : {"alternate", "longest"}
        The axis tried first at each node: x and y by turns with the depth (a kd-tree), or the
        longer side of the current rectangle (ties: x). The other axis is tried when the first
        admits no cut. The cut position is the admissible one nearest the weighted median.

    Returns
    -------
    Solution
        ``labels`` = rectangle id per (distinct) point; ``info["rectangles"]`` the rectangles
        ``(x0, y0, x1, y1)`` by id, ``info["cells"]`` their grid cell ranges
        ``(i0, j0, i1, j1)``, ``n_rectangles``, ``depth``, ``bound`` (``4(k-1) + max w``),
        ``axis``. Deterministic: ``seed`` is None.

    Notes
    -----
    Each node sorts its points along one or two axes: O(n log n) per tree level, O(n log^2 n)
    for a balanced tree and O(n^2 log n) in the worst case (a chain of unbalanced cuts).

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, "On the Approximability of Geometric and
    Geographic Generalization and the Min-Max Bin Covering Problem", WADS 2009, §3, Theorem 4.

    Examples
    --------
    >>> from anonratio.instances.gps_rectangles.generators import uniform_points
    >>> sol = kdtree_split(uniform_points(40, k=4, seed=0))
    >>> sol.objective <= 4 * 3 + 1
    True
    """
    t0 = perf_counter()
    _kdtree_iv(instance, axis)
    labels, cells, max_depth = _kd_partition(instance, axis)
    w = instance.weights
    rects = cells_to_rectangles(instance, cells)
    weight = np.bincount(labels, weights=w, minlength=len(cells)).round().astype(np.int64)
    return Solution(
        labels=labels,
        algorithm="kdtree-split",
        params={**instance.params, "axis": axis},
        seed=None,
        status="feasible",
        objective=float(weight.max()),
        time_s=perf_counter() - t0,
        info={
            "rectangles": [tuple(r) for r in rects.tolist()],
            "cells": [tuple(c) for c in cells.tolist()],
            "n_rectangles": int(len(cells)),
            "depth": int(max_depth),
            "bound": int(kdtree_split_bound(instance)),
            "axis": axis,
        },
    )


def _kd_partition(instance, axis):
    """The kd-tree's leaves: rectangle id per point, leaf cell ranges ``(i0, j0, i1, j1)`` by
    id, and the depth of the tree."""
    k, w = instance.k, instance.weights
    coords, edges = (instance.ix, instance.iy), (instance.x_edges, instance.y_edges)
    nx, ny = instance.grid_shape
    labels = np.empty(instance.n, dtype=np.int64)
    cells: list[tuple[int, int, int, int]] = []
    max_depth = 0
    # stack of (point indices, cell range (i0, j0, i1, j1), depth)
    stack = [(np.arange(instance.n), (0, 0, nx - 1, ny - 1), 0)]
    while stack:
        idx, rect, depth = stack.pop()
        max_depth = max(max_depth, depth)
        cut = _node_cut(coords, edges, w, k, idx, rect, depth, axis)
        if cut is None:
            labels[idx] = len(cells)
            cells.append(rect)
            continue
        a, last, left = cut
        lo, hi = _halves(rect, a, last)
        stack.append((idx[~left], hi, depth + 1))
        stack.append((idx[left], lo, depth + 1))
    return labels, np.asarray(cells, dtype=np.int64).reshape(-1, 4), max_depth


def _node_cut(coords, edges, w, k, idx, rect, depth, axis):
    """``(axis, last rank on the left, left mask)`` of the node's cut, or None for a leaf.

    The axis chosen by the ``axis`` rule is tried first, then the other one.
    """
    i0, j0, i1, j1 = rect
    if axis == "alternate":
        first = depth % 2
    else:
        xe, ye = edges
        first = 0 if xe[i1 + 1] - xe[i0] >= ye[j1 + 1] - ye[j0] else 1
    for a in (first, 1 - first) if w[idx].sum() >= 2 * k else ():
        found = _best_cut(coords[a][idx], w[idx], k)
        if found is not None:
            return (a, *found)
    return None


def _halves(rect, a, last):
    """The two cell ranges of ``rect`` cut along axis ``a`` after grid rank ``last``."""
    i0, j0, i1, j1 = rect
    if a == 0:
        return (i0, j0, last, j1), (last + 1, j0, i1, j1)
    return (i0, j0, i1, last), (i0, last + 1, i1, j1)
