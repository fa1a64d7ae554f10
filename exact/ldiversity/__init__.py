"""Exact l-diversity (star or tuple minimization): the pattern model of
:mod:`~anonratio.exact.ldiversity.patterns`, solved by CP-SAT or by HiGHS / CBC through PuLP;
its LP relaxation as a proven lower bound (:func:`lp_bound`) that :func:`certify` attaches to a
feasible partition.

``solve_ldiversity(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`.
"""

from __future__ import annotations

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

#: method name -> solver
METHODS = {"cpsat": solve_cpsat, "highs": solve_highs, "cbc": solve_cbc}


def solve_ldiversity(
    instance: LDiversityInstance, *, method: str = "cpsat", **kwargs: Any
) -> Solution:
    """Solve an l-diversity instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : LDiversityInstance
        Either objective (``instance.objective``: ``"stars"`` or ``"tuples"``).
    method : {"cpsat", "highs", "cbc"}
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint`` (a Solution or labels to start from),
        ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
