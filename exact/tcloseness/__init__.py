"""Exact t-closeness by suppression: the pattern model of
:mod:`~anonratio.exact.tcloseness.patterns`, solved by CP-SAT or by HiGHS through PuLP.

``solve_tcloseness(instance, method=...)`` takes the model's registry name (a key of
:data:`METHODS`) or the solver function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.tcloseness import TClosenessInstance
from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat
from .ilp import solve_highs

__all__ = ["solve_tcloseness", "METHODS", "solve_cpsat", "solve_highs"]

#: registry name -> solver
METHODS = {"tclose-cpsat": solve_cpsat, "tclose-highs": solve_highs}


def solve_tcloseness(
    instance: TClosenessInstance,
    *,
    method: str | Callable[..., Solution] = "tclose-cpsat",
    **kwargs: Any,
) -> Solution:
    """Solve a t-closeness instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : TClosenessInstance
    method : {"tclose-cpsat", "tclose-highs"} or callable
        The model's registry name, or a solver itself (``method=solve_cpsat``).
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint`` (a Solution or labels to start from),
        ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
