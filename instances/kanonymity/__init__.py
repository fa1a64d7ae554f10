"""k-anonymity (Aggarwal et al. 2005): the instance, its verifier and lower bound, table generators,
hardness gadgets and the publisher of a k-anonymous table
(:func:`anonratio.instances.kanonymity.publish.publish`)."""

from typing import Any

from .generators import (
    binary_table,
    categorical_table,
    planted_table,
    random_hierarchy,
    random_table,
)
from .instance import (
    MODELS,
    KAnonymityInstance,
    group_levels,
    nearest_neighbors,
    pairwise_distances,
)

#: the hardness gadgets (networkx graphs), imported on first use: an instance and its verifier
#: do not need them
_GADGETS = (
    "Gadget",
    "triangle_gadget",
    "triangle_union_graph",
    "triangle_union_gadget",
    "graph_representation_pair",
)

__all__ = [
    "KAnonymityInstance",
    "MODELS",
    "pairwise_distances",
    "nearest_neighbors",
    "group_levels",
    "random_hierarchy",
    "random_table",
    "binary_table",
    "categorical_table",
    "planted_table",
    "Gadget",
    "triangle_gadget",
    "triangle_union_graph",
    "triangle_union_gadget",
    "graph_representation_pair",
]


def __getattr__(name: str) -> Any:
    if name in _GADGETS:
        from . import gadgets

        return getattr(gadgets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
