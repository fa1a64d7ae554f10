"""GPS rectangles: axis-aligned rectangles of weight >= k tiling the points' box (Du et al. 2009,
§3): the kd-tree split (approximation) and the best guillotine partition (heuristic).

``partition_gps_rectangles(instance, method=...)`` takes the algorithm's registry name (a key
of :data:`METHODS`) or the function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import GpsRectanglesInstance, Solution
from anonratio.instances.validation import dispatch

from . import guillotine, kdtree_split

__all__ = ["partition_gps_rectangles", "METHODS", "kdtree_split", "guillotine"]

#: registry name -> algorithm
METHODS = {"kdtree-split": kdtree_split.kdtree_split, "gps-guillotine": guillotine.guillotine}


def partition_gps_rectangles(
    instance: GpsRectanglesInstance,
    *,
    method: str | Callable[..., Solution] = "kdtree-split",
    **kwargs: Any,
) -> Solution:
    """GPS points: axis-aligned rectangles of weight >= k tiling the box (Du et al. 2009, §3).

    ``"kdtree-split"``: kd-tree cuts while both sides keep weight >= k; the heaviest rectangle is
    at most 4(k − 1) + max weight < 5·OPT (Theorem 4). ``"gps-guillotine"``: the best guillotine
    partition by dynamic programming (an upper bound on the optimum).
    """
    return dispatch(METHODS, method, instance, **kwargs)
