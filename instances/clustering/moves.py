"""The worst-case hunter's moves on clustering instances (the five problems): a point moved,
duplicated or deleted; the problem parameters stay, and facility costs follow their points."""

from __future__ import annotations

import dataclasses

import numpy as np

from anonratio.instances.clustering.instance import ClusteringInstance

__all__ = ["MOVES"]


def _points(instance: ClusteringInstance, points: np.ndarray, keep: np.ndarray):
    if instance.metric == "precomputed":
        raise ValueError("a precomputed distance matrix has no points to move")
    changes: dict = {"points": points}
    costs = getattr(instance, "facility_costs", None)
    if costs is not None:
        changes["facility_costs"] = np.asarray(costs)[keep]
    return dataclasses.replace(instance, **changes)


def move_point(instance: ClusteringInstance, rng: np.random.Generator) -> ClusteringInstance:
    """One point moved: to a uniform point of the bounding box, or, with the Hamming metric,
    one coordinate set to another value present in its column."""
    points = np.array(instance.points)
    i = int(rng.integers(len(points)))
    if instance.metric == "hamming":
        j = int(rng.integers(points.shape[1]))
        points[i, j] = rng.choice(np.unique(points[:, j]))
    else:
        low, high = points.min(axis=0), points.max(axis=0)
        points[i] = low + rng.random(points.shape[1]) * np.maximum(high - low, 1.0)
    return _points(instance, points, np.arange(len(points)))


def duplicate_point(instance: ClusteringInstance, rng: np.random.Generator):
    """One point repeated."""
    n = instance.n
    keep = np.r_[np.arange(n), int(rng.integers(n))]
    return _points(instance, np.asarray(instance.points)[keep], keep)


def delete_point(instance: ClusteringInstance, rng: np.random.Generator):
    """One point removed (the instance's own checks refuse too few points)."""
    n = instance.n
    if n <= 2:
        raise ValueError("an instance keeps at least two points")
    keep = np.delete(np.arange(n), int(rng.integers(n)))
    return _points(instance, np.asarray(instance.points)[keep], keep)


#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple((m.__name__, m) for m in (move_point, duplicate_point, delete_point))
