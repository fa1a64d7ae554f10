"""Exact k-anonymity: set partitioning over groups of k..2k-1 records, solved by CP-SAT or by
HiGHS / CBC through PuLP (column generation, reduced-cost fixing, hints), or by branch and price
on SCIP.

``solve_k_anonymity(instance, method=...)`` takes the model's registry name (a key of
:data:`METHODS`) or the solver function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.validation import dispatch

from .bpc import solve_bpc
from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs

__all__ = ["solve_k_anonymity", "METHODS", "solve_cpsat", "solve_highs", "solve_cbc", "solve_bpc"]


#: registry name -> solver
METHODS = {
    "kanon-cpsat": solve_cpsat,
    "kanon-highs": solve_highs,
    "kanon-cbc": solve_cbc,
    "kanon-bpc": solve_bpc,
}


def solve_k_anonymity(
    instance: KAnonymityInstance,
    *,
    method: str | Callable[..., Solution] = "kanon-cpsat",
    **kwargs: Any,
) -> Solution:
    """Solve a k-anonymity instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : KAnonymityInstance
    method : {"kanon-cpsat", "kanon-highs", "kanon-cbc", "kanon-bpc"} or callable
        The model's registry name, or a solver itself (``method=solve_highs``).
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint`` (a Solution or labels to start from),
        ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
