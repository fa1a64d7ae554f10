"""Exact GPS rectangles on the compressed grid: CP-SAT (``NoOverlap2D``) and a set-partition ILP
over candidate rectangles (HiGHS / CBC through PuLP).

``solve_gps_rectangles(instance, method=...)`` takes the model's registry name (a key of
:data:`METHODS`) or the solver function itself.
The best guillotine partition (a heuristic) is
:func:`anonratio.solvers.gps_rectangles.guillotine`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance
from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs

__all__ = ["solve_gps_rectangles", "METHODS", "solve_cpsat", "solve_highs", "solve_cbc"]

#: registry name -> solver (the CBC model, registered under no name, is passed as
#: ``method=solve_cbc``)
METHODS = {"gps-cpsat": solve_cpsat, "gps-highs": solve_highs}


def solve_gps_rectangles(
    instance: GpsRectanglesInstance,
    *,
    method: str | Callable[..., Solution] = "gps-cpsat",
    **kwargs: Any,
) -> Solution:
    """Solve a GPS rectangle-partition instance exactly on the compressed grid."""
    return dispatch(METHODS, method, instance, **kwargs)
