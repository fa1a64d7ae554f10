"""Exact ordered labels: binary search on the answer with a greedy feasibility test (Du et al.
2009, §4 remark), optimal in O(n log S).

``solve_ordered_labels(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances import Solution
from anonratio.instances.ordered_labels.instance import OrderedLabelsInstance
from anonratio.instances.validation import dispatch

from . import ordered_greedy

__all__ = ["solve_ordered_labels", "METHODS", "ordered_greedy"]

#: method name -> solver
METHODS = {"ordered-greedy": ordered_greedy.ordered_greedy}


def solve_ordered_labels(
    instance: OrderedLabelsInstance, *, method: str = "ordered-greedy", **kwargs: Any
) -> Solution:
    """Ordered labels: consecutive intervals of weight >= k minimizing the heaviest; optimal."""
    return dispatch(METHODS, method, instance, **kwargs)
