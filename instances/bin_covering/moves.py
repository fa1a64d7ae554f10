"""The worst-case hunter's moves on bin-covering instances: an item resized, duplicated or
deleted; ``k`` stays (a move leaving the items short of ``k`` is refused by the instance)."""

from __future__ import annotations

import dataclasses

import numpy as np

from anonratio.instances.bin_covering.instance import BinCoveringInstance

__all__ = ["MOVES"]


def _items(instance: BinCoveringInstance, keep: np.ndarray, sizes: np.ndarray | None = None):
    names = None if instance.names is None else tuple(f"i{i}" for i in range(len(keep)))
    sizes = np.asarray(instance.sizes)[keep] if sizes is None else sizes
    return dataclasses.replace(instance, sizes=sizes, names=names)


def resize_item(instance: BinCoveringInstance, rng: np.random.Generator) -> BinCoveringInstance:
    """One item gets a size drawn uniformly from 1 .. 2 k."""
    sizes = np.array(instance.sizes)
    sizes[int(rng.integers(len(sizes)))] = int(rng.integers(1, 2 * instance.k + 1))
    return _items(instance, np.arange(len(sizes)), sizes)


def duplicate_item(instance: BinCoveringInstance, rng: np.random.Generator):
    """One item repeated."""
    n = len(instance.sizes)
    return _items(instance, np.r_[np.arange(n), int(rng.integers(n))])


def delete_item(instance: BinCoveringInstance, rng: np.random.Generator):
    """One item removed (at least two stay)."""
    n = len(instance.sizes)
    if n <= 2:
        raise ValueError("an instance keeps at least two items")
    return _items(instance, np.delete(np.arange(n), int(rng.integers(n))))


#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple((m.__name__, m) for m in (resize_item, duplicate_item, delete_item))
