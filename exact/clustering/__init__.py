"""Exact clustering for anonymity (Aggarwal et al., PODS 2006): r-gather, (r, eps)-gather,
(k, r)-center (min max radius over (member, center) pairs) and cellular / r-cellular clustering
(the paper's IP over clusters ``(center, radius)``, §3), solved by CP-SAT or by HiGHS / CBC
through PuLP.

``solve_clustering(instance, method=...)`` takes the model's registry name for the instance's
problem (``"kr-center-highs"``, a key of :data:`METHODS`) or the solver function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import CLUSTERING_PROBLEMS, ClusteringInstance
from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat
from .ilp import solve_cbc, solve_highs

__all__ = ["solve_clustering", "METHODS", "solve_cpsat", "solve_highs", "solve_cbc"]

#: registry name (``"<problem>-<solver>"``) -> solver; the model is one for the five problems
METHODS = {
    f"{problem}-{name}": solver
    for problem in CLUSTERING_PROBLEMS
    for name, solver in (("cpsat", solve_cpsat), ("highs", solve_highs), ("cbc", solve_cbc))
}


def solve_clustering(
    instance: ClusteringInstance,
    *,
    method: str | Callable[..., Solution] | None = None,
    **kwargs: Any,
) -> Solution:
    """Solve an r-gather, (r, eps)-gather, (k, r)-center, cellular or r-cellular instance
    exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : ClusteringInstance
        One of the five registered clustering problems.
    method : str, callable or None
        ``"<problem>-cpsat"``, ``"<problem>-highs"`` or ``"<problem>-cbc"`` for the instance's
        problem (``"r-gather-cpsat"``), or a solver itself (``method=solve_highs``); None for
        the instance's CP-SAT model.
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint``, ``upper_bound``.

    Returns
    -------
    Solution

    Raises
    ------
    ValueError
        ``method`` names an unknown model or the model of another problem.
    """
    if method is None:
        method = f"{instance.problem}-cpsat"
    elif isinstance(method, str) and method in METHODS:
        if method.rsplit("-", 1)[0] != instance.problem:
            raise ValueError(
                f"`method` must be a model of the instance's problem {instance.problem!r}, "
                f"got {method!r}"
            )
    return dispatch(METHODS, method, instance, **kwargs)
