"""Exact l-diversity (star or tuple minimization): the pattern model of
:mod:`~anonratio.exact.ldiversity.patterns`, solved by CP-SAT or by HiGHS / CBC through PuLP;
its LP relaxation as a proven lower bound (:func:`lp_bound`) that :func:`certify` attaches to a
feasible partition.

``solve_ldiversity(instance, method=...)`` takes the model's registry name (a key of
:data:`METHODS`) or the solver function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.ldiversity import LDiversityInstance
from anonratio.instances.validation import dispatch

from .certified import certify
from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs
from .lp_bound import LPBound, lp_bound

__all__ = [
    "solve_ldiversity",
    "METHODS",
    "solve_cpsat",
    "solve_highs",
    "solve_cbc",
    "lp_bound",
    "LPBound",
    "certify",
]

#: registry name -> solver
METHODS = {"ldiv-cpsat": solve_cpsat, "ldiv-highs": solve_highs, "ldiv-cbc": solve_cbc}


def solve_ldiversity(
    instance: LDiversityInstance,
    *,
    method: str | Callable[..., Solution] = "ldiv-cpsat",
    **kwargs: Any,
) -> Solution:
    """Solve an l-diversity instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : LDiversityInstance
        Either objective (``instance.objective``: ``"stars"`` or ``"tuples"``).
    method : {"ldiv-cpsat", "ldiv-highs", "ldiv-cbc"} or callable
        The model's registry name, or a solver itself (``method=solve_highs``).
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint`` (a Solution or labels to start from),
        ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
