"""The worst-case hunter's moves on zip-code instances: a region's population changed, an edge
removed or added (the instance refuses a graph that is no longer connected, and an added edge
has planarity checked again); ``k`` stays."""

from __future__ import annotations

import dataclasses

import numpy as np

from anonratio.instances.zip_codes.instance import ZipCodesInstance

__all__ = ["MOVES"]


def reweigh_region(instance: ZipCodesInstance, rng: np.random.Generator):
    """One region's population drawn uniformly from 1 .. k."""
    weights = np.array(instance.weights)
    weights[int(rng.integers(len(weights)))] = int(rng.integers(1, instance.k + 1))
    return dataclasses.replace(instance, graph=instance.graph.copy(), weights=weights)


def remove_edge(instance: ZipCodesInstance, rng: np.random.Generator):
    """One adjacency removed."""
    edges = list(instance.graph.edges)
    if not edges:
        raise ValueError("no edge to remove")
    graph = instance.graph.copy()
    graph.remove_edge(*edges[int(rng.integers(len(edges)))])
    return dataclasses.replace(instance, graph=graph, weights=np.array(instance.weights))


def add_edge(instance: ZipCodesInstance, rng: np.random.Generator):
    """One adjacency added between two regions that were not adjacent."""
    nodes = list(instance.graph.nodes)
    a, b = (nodes[int(i)] for i in rng.choice(len(nodes), size=2, replace=False))
    if instance.graph.has_edge(a, b):
        raise ValueError("already adjacent")
    graph = instance.graph.copy()
    graph.add_edge(a, b)
    # planarity checked again, whatever the original instance skipped
    return dataclasses.replace(
        instance, graph=graph, weights=np.array(instance.weights), check_planarity=True
    )


#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple((m.__name__, m) for m in (reweigh_region, remove_edge, add_edge))
