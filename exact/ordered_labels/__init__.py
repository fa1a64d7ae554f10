"""Exact ordered labels: binary search on the answer with a greedy feasibility test (Du et al.
2009, §4 remark), optimal in O(n log S).

``solve_ordered_labels(instance, method=...)`` takes the model's registry name (a key of
:data:`METHODS`) or the solver function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.ordered_labels.instance import OrderedLabelsInstance
from anonratio.instances.validation import dispatch

from . import ordered_greedy

__all__ = ["solve_ordered_labels", "METHODS", "ordered_greedy"]

#: registry name -> solver
METHODS = {"ordered-greedy": ordered_greedy.ordered_greedy}


def solve_ordered_labels(
    instance: OrderedLabelsInstance,
    *,
    method: str | Callable[..., Solution] = "ordered-greedy",
    **kwargs: Any,
) -> Solution:
    """Ordered labels: consecutive intervals of weight >= k minimizing the heaviest; optimal."""
    return dispatch(METHODS, method, instance, **kwargs)
