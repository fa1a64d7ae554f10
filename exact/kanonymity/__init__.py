"""Exact k-anonymity: set partitioning over groups of k..2k-1 records, solved by CP-SAT or by
HiGHS / CBC through PuLP (column generation, reduced-cost fixing, hints).

``solve_k_anonymity(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs

__all__ = ["solve_k_anonymity", "METHODS", "solve_cpsat", "solve_highs", "solve_cbc"]

#: method name -> solver
METHODS = {"cpsat": solve_cpsat, "highs": solve_highs, "cbc": solve_cbc}


def solve_k_anonymity(
    instance: KAnonymityInstance, *, method: str = "cpsat", **kwargs: Any
) -> Solution:
    """Solve a k-anonymity instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : KAnonymityInstance
    method : {"cpsat", "highs", "cbc"}
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint`` (a Solution or labels to start from),
        ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
