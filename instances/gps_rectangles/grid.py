"""The compressed grid of a GPS-rectangles instance and conversions between its cell ranges,
rectangles and labels (shared by the kd-tree split, the guillotine DP and the exact models).

Cells are ``[x_edges[i], x_edges[i+1]] x [y_edges[j], y_edges[j+1]]``; a rectangle on the grid
is an inclusive cell range ``(i0, j0, i1, j1)`` (module notes of
:mod:`anonratio.instances.gps_rectangles.instance`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.solution import Solution

if TYPE_CHECKING:  # the instance module imports this one
    from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance

__all__ = [
    "cells_to_rectangles",
    "rectangles_to_cells",
    "labels_from_cells",
    "rectangle_weights",
    "grid_weights",
    "solution_from_cells",
]

#: point-rectangle pairs compared per vectorized block in :func:`labels_from_cells`
_PAIR_BLOCK = 2_000_000


# ---------------------------------------------------------------------------------------------
def cells_to_rectangles(instance: GpsRectanglesInstance, cells: ArrayLike) -> np.ndarray:
    """Rectangles ``(x0, y0, x1, y1)`` (float array, shape (R, 4)) of inclusive cell ranges
    ``(i0, j0, i1, j1)`` on the compressed grid."""
    c = np.asarray(cells, dtype=np.int64).reshape(-1, 4)
    xe, ye = instance.x_edges, instance.y_edges
    return np.column_stack([xe[c[:, 0]], ye[c[:, 1]], xe[c[:, 2] + 1], ye[c[:, 3] + 1]])


def rectangles_to_cells(instance: GpsRectanglesInstance, rectangles: ArrayLike) -> np.ndarray:
    """Inclusive cell ranges ``(i0, j0, i1, j1)`` of rectangles: the grid columns and rows
    whose coordinates they contain (exact for a verified tiling)."""
    r = np.asarray(rectangles, dtype=np.float64).reshape(-1, 4)
    xs, ys = instance.xs, instance.ys
    return np.column_stack(
        [
            np.searchsorted(xs, r[:, 0], side="left"),
            np.searchsorted(ys, r[:, 1], side="left"),
            np.searchsorted(xs, r[:, 2], side="right") - 1,
            np.searchsorted(ys, r[:, 3], side="right") - 1,
        ]
    ).astype(np.int64)


def labels_from_cells(instance: GpsRectanglesInstance, cells: ArrayLike) -> np.ndarray:
    """Label per point: the index of the cell range holding its grid cell (-1 if none).

    O(n R) in blocks; meant for the small outputs of the exact solvers.
    """
    c = np.asarray(cells, dtype=np.int64).reshape(-1, 4)
    ix, iy = instance.ix, instance.iy
    labels = np.full(instance.n, -1, dtype=np.int64)
    step = max(1, _PAIR_BLOCK // max(1, len(c)))
    for s in range(0, instance.n, step):
        x, y = ix[s : s + step, None], iy[s : s + step, None]
        inside = (c[:, 0] <= x) & (x <= c[:, 2]) & (c[:, 1] <= y) & (y <= c[:, 3])
        hit = inside.any(axis=1)
        labels[s : s + step] = np.where(hit, inside.argmax(axis=1), -1)
    return labels


def rectangle_weights(
    instance: GpsRectanglesInstance, labels: ArrayLike, n_rectangles: int | None = None
) -> np.ndarray:
    """Weight of every rectangle id ``0 .. R-1`` under ``labels`` (non-negative ids)."""
    lab = np.asarray(labels, dtype=np.int64)
    size = int(lab.max()) + 1 if n_rectangles is None else int(n_rectangles)
    return np.bincount(lab, weights=instance.weights, minlength=size).round().astype(np.int64)


def grid_weights(instance: GpsRectanglesInstance) -> np.ndarray:
    """Total point weight per grid cell, an ``(nx, ny)`` int64 array."""
    nx, ny = instance.grid_shape
    g = np.zeros((nx, ny), dtype=np.int64)
    g[instance.ix, instance.iy] = instance.weights
    return g


def solution_from_cells(
    instance: GpsRectanglesInstance,
    cells: ArrayLike | None,
    *,
    algorithm: str,
    status: str,
    objective: float | None,
    bound: float | None,
    params: Mapping[str, Any],
    seed: int | None,
    t0: float,
    info: Mapping[str, Any],
) -> Solution:
    """A :class:`Solution` from grid cell ranges (labels and rectangles derived from them)."""
    labels = None
    if cells is not None:
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 4)
        c = c[np.lexsort((c[:, 1], c[:, 0]))]
        labels = labels_from_cells(instance, c)
        rects = [tuple(r) for r in cells_to_rectangles(instance, c).tolist()]
        info = {**info, "rectangles": rects, "cells": [tuple(x) for x in c.tolist()]}
    return Solution.with_bound(
        labels,
        algorithm,
        params=params,
        seed=seed,
        status=status,
        objective=objective,
        bound=bound,
        t0=t0,
        info=info,
    )
