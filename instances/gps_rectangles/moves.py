"""The worst-case hunter's moves on GPS-rectangle instances: a point moved, a weight changed,
a point duplicated (the instance merges equal points, adding their weights) or deleted; ``k``
stays."""

from __future__ import annotations

import dataclasses

import numpy as np

from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance

__all__ = ["MOVES"]


def move_point(instance: GpsRectanglesInstance, rng: np.random.Generator):
    """One point moved to a uniform point of the bounding box."""
    points = np.array(instance.points, dtype=float)
    low, high = points.min(axis=0), points.max(axis=0)
    points[int(rng.integers(len(points)))] = low + rng.random(2) * np.maximum(high - low, 1.0)
    return dataclasses.replace(instance, points=points, weights=np.array(instance.weights))


def reweigh_point(instance: GpsRectanglesInstance, rng: np.random.Generator):
    """One point's weight drawn uniformly from 1 .. k."""
    weights = np.array(instance.weights)
    weights[int(rng.integers(len(weights)))] = int(rng.integers(1, instance.k + 1))
    return dataclasses.replace(instance, points=np.array(instance.points), weights=weights)


def delete_point(instance: GpsRectanglesInstance, rng: np.random.Generator):
    """One point removed (the instance refuses a total weight below k)."""
    n = instance.n
    if n <= 2:
        raise ValueError("an instance keeps at least two points")
    keep = np.delete(np.arange(n), int(rng.integers(n)))
    points, weights = np.asarray(instance.points)[keep], np.asarray(instance.weights)[keep]
    return dataclasses.replace(instance, points=points, weights=weights)


#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple((m.__name__, m) for m in (move_point, reweigh_point, delete_point))
