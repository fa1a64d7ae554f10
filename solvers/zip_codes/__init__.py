"""Zip codes: connected parts of a node-weighted planar graph (Du et al. 2009, §2).

``partition_zip_codes(instance, method=...)`` takes the algorithm's registry name (a key
of :data:`METHODS`) or the function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anonratio.instances import Solution, ZipCodesInstance
from anonratio.instances.validation import dispatch

from . import low_degree_tree, spanning_tree_split

__all__ = ["partition_zip_codes", "METHODS", "spanning_tree_split", "low_degree_tree"]

#: registry name -> algorithm
METHODS = {"spanning-tree-split": spanning_tree_split.spanning_tree_split}


def partition_zip_codes(
    instance: ZipCodesInstance,
    *,
    method: str | Callable[..., Solution] = "spanning-tree-split",
    seed: int | np.random.Generator | None = None,
    **kwargs: Any,
) -> Solution:
    """Zip codes: connected parts of weight >= k of a planar graph (Du et al. 2009, §2).

    ``"spanning-tree-split"``: a low-degree spanning tree (degree d), then cuts of the lightest
    subtree of weight >= k whose complement also weighs >= k; the heaviest part is at most
    κ + d(k − 1) with κ = max(k, max weight): ratio 4 on 3-connected planar graphs (d = 3),
    3 on 4-connected ones (Theorem 3).
    """
    return dispatch(METHODS, method, instance, seed=seed, **kwargs)
