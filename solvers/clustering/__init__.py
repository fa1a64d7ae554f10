"""Approximation algorithms and baselines for anonymity via clustering (Aggarwal et al., PODS
2006), one module per algorithm.

``cluster(instance, method=...)`` takes the algorithm's registry name (a key of
:data:`METHODS`) or the function itself; each method solves one problem (an instance of
another is refused with a ``TypeError`` naming it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.validation import dispatch

from . import (
    greedy_gather,
    kr_center,
    min_size_kmeans,
    primal_dual,
    r_cellular,
    r_eps_gather,
    r_gather,
)

__all__ = ["cluster", "METHODS"]

#: registry name -> algorithm: r-gather (§2.2), (r, eps)-gather (§2.3), (k, r)-center (§2.4),
#: primal-dual cellular clustering (§3), r-cellular clustering (§3.1), and two r-gather baselines
METHODS = {
    "r-gather": r_gather.r_gather,
    "r-eps-gather": r_eps_gather.r_eps_gather,
    "kr-center": kr_center.kr_center,
    "primal-dual": primal_dual.primal_dual,
    "r-cellular": r_cellular.r_cellular,
    "greedy-gather": greedy_gather.greedy_gather,
    "min-size-kmeans": min_size_kmeans.min_size_kmeans,
}


def cluster(
    instance: Any, *, method: str | Callable[..., Solution] = "r-gather", **kwargs: Any
) -> Solution:
    """Cluster ``instance`` with the algorithm ``method`` (``seed=`` where it takes one).

    Parameters
    ----------
    instance : RGatherInstance, REpsGatherInstance, KRCenterInstance, CellularInstance or
        RCellularInstance, as ``method`` requires
    method : str or callable
        A registry name, ``"r-gather"``, ``"r-eps-gather"``, ``"kr-center"``,
        ``"primal-dual"``, ``"r-cellular"``, ``"greedy-gather"`` or ``"min-size-kmeans"``, or
        an algorithm itself (``method=r_gather.r_gather``).
    **kwargs
        Passed to the algorithm (``seed``, ...).

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, **kwargs)
