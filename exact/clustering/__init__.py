"""Exact clustering for anonymity (Aggarwal et al., PODS 2006): r-gather, (r, eps)-gather,
(k, r)-center (min max radius over (member, center) pairs) and cellular / r-cellular clustering
(the paper's IP over clusters ``(center, radius)``, §3), solved by CP-SAT or by HiGHS / CBC
through PuLP.

``solve_clustering(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance
from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs

__all__ = ["solve_clustering", "METHODS", "solve_cpsat", "solve_highs", "solve_cbc"]

#: method name -> solver
METHODS = {"cpsat": solve_cpsat, "highs": solve_highs, "cbc": solve_cbc}


def solve_clustering(
    instance: ClusteringInstance, *, method: str = "cpsat", **kwargs: Any
) -> Solution:
    """Solve an r-gather, (r, eps)-gather, (k, r)-center, cellular or r-cellular instance
    exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : ClusteringInstance
        One of the five registered clustering problems.
    method : {"cpsat", "highs", "cbc"}
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint``, ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
