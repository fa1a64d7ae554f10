"""GPS rectangles: axis-aligned rectangles of weight >= k tiling the points' box (Du et al. 2009,
§3): the kd-tree split (approximation) and the best guillotine partition (heuristic).

``partition_gps_rectangles(instance, method=...)`` dispatches on ``method`` through
:data:`METHODS`.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances import GpsRectanglesInstance, Solution
from anonratio.instances.validation import dispatch

from . import guillotine, kdtree_split

__all__ = ["partition_gps_rectangles", "METHODS", "kdtree_split", "guillotine"]

#: method name -> algorithm
METHODS = {"kdtree-split": kdtree_split.kdtree_split, "guillotine": guillotine.guillotine}


def partition_gps_rectangles(
    instance: GpsRectanglesInstance, *, method: str = "kdtree-split", **kwargs: Any
) -> Solution:
    """GPS points: axis-aligned rectangles of weight >= k tiling the box (Du et al. 2009, §3).

    ``"kdtree-split"``: kd-tree cuts while both sides keep weight >= k; the heaviest rectangle is
    at most 4(k − 1) + max weight < 5·OPT (Theorem 4). ``"guillotine"``: the best guillotine
    partition by dynamic programming (an upper bound on the optimum).
    """
    return dispatch(METHODS, method, instance, **kwargs)
