"""Exact Min-Max Bin Covering: the aggregated model (bins <= floor(S/k), load in {0} u [k, T],
symmetry breaking) solved by CP-SAT or by HiGHS / CBC through PuLP.

``solve_bin_covering(instance, method=...)`` takes the model's registry name (a key of
:data:`METHODS`) or the solver function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs

__all__ = ["solve_bin_covering", "METHODS", "solve_cpsat", "solve_highs", "solve_cbc"]

#: registry name -> solver
METHODS = {"bc-cpsat": solve_cpsat, "bc-highs": solve_highs, "bc-cbc": solve_cbc}


def solve_bin_covering(
    instance: BinCoveringInstance,
    *,
    method: str | Callable[..., Solution] = "bc-cpsat",
    **kwargs: Any,
) -> Solution:
    """Solve a Min-Max Bin Covering instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : BinCoveringInstance
    method : {"bc-cpsat", "bc-highs", "bc-cbc"} or callable
        The model's registry name, or a solver itself (``method=solve_highs``).
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint``, ``upper_bound``.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
