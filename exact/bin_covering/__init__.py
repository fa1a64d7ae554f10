"""Exact Min-Max Bin Covering: the aggregated model (bins <= floor(S/k), load in {0} u [k, T],
symmetry breaking) solved by CP-SAT or by HiGHS / CBC through PuLP.

``solve_bin_covering(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs

__all__ = ["solve_bin_covering", "METHODS", "solve_cpsat", "solve_highs", "solve_cbc"]

#: method name -> solver
METHODS = {"cpsat": solve_cpsat, "highs": solve_highs, "cbc": solve_cbc}


def solve_bin_covering(
    instance: BinCoveringInstance, *, method: str = "cpsat", **kwargs: Any
) -> Solution:
    """Solve a Min-Max Bin Covering instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : BinCoveringInstance
    method : {"cpsat", "highs", "cbc"}
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint``, ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
