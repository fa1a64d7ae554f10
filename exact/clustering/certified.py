"""A cellular or r-cellular clustering certified by the strongest lower bound the time allows.

:func:`certify` takes a feasible clustering (the registry's ``cellular-certified`` and
``r-cellular-certified`` pass the paper's approximations' own) and spends its time on
:func:`~anonratio.exact.clustering.lp_bound.lp_bound`: column generation on the cluster LP of
Aggarwal et al. (PODS 2006, §3), seeded with the clustering's clusters and pruned by its cost,
each round's prices giving a Lagrangian bound valid whenever the time runs out. The clustering
stays the run's solution; the bound is its proven lower bound, so the run's ``gap`` says how far
from optimal the clustering can be.
"""

from __future__ import annotations

from time import perf_counter

import numpy as np

from anonratio.exact.certify import certified_solution, check_start
from anonratio.exact.clustering.candidates import CELLULAR
from anonratio.exact.clustering.lp_bound import MAX_POINTS, LPBound, cheap_bound, lp_bound
from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance

__all__ = ["certify"]


def certify(
    instance: ClusteringInstance,
    solution: Solution,
    *,
    time_limit: float = 60.0,
    seed: int | None = None,
    algorithm: str = "certified",
) -> Solution:
    """``solution`` with the best lower bound proven within ``time_limit`` seconds.

    Parameters
    ----------
    instance : CellularInstance or RCellularInstance
    solution : Solution
        A feasible clustering of ``instance`` (checked by the verifier, with its declared
        ``info["centers"]`` and ``info["radii"]`` when given).
    time_limit : float
        Seconds (>= 0) for the bound.
    seed : int, optional
        HiGHS's random seed.
    algorithm : str
        The returned solution's algorithm name.

    Returns
    -------
    Solution
        Status ``"feasible"``, the same labels and the verified cost; ``lower_bound`` the bound
        proven (the LP's, or ``solution``'s own proven bound when that is larger). ``info`` keeps
        ``solution``'s (its ``centers`` and ``radii`` replaced by the verified ones) and adds the
        winner (``lower_bound_source``), whether the LP relaxation was solved (``lp_solved``), the
        cheap and Lagrangian bounds (``bound_cheap``, ``bound_lp``), the restricted master's value
        (``lp_master_value``), the bound's seconds (``bound_s``), pricing rounds, columns and priced
        clusters, and the solution's own time and bound (``start_time_s``, ``start_lower_bound``).

    Raises
    ------
    ValueError
        If the instance is not cellular or r-cellular, or ``solution`` is not a feasible
        clustering of it.

    Notes
    -----
    Instances of more than :data:`~anonratio.exact.clustering.lp_bound.MAX_POINTS` points get
    the closed-form bound (or ``solution``'s own, when larger), with a source that says why.

    References
    ----------
    Aggarwal et al., "Achieving Anonymity via Clustering", PODS 2006, §3.
    """
    if not isinstance(instance, CELLULAR):
        raise ValueError(
            f"`instance` must be a cellular or r-cellular instance, got {type(instance).__name__}"
        )
    t0 = perf_counter()
    check, time_limit, seed = check_start(instance, solution, time_limit=time_limit, seed=seed)
    labels = np.asarray(solution.labels, dtype=np.int64)
    centers = np.asarray(check.centers, dtype=np.int64)
    if instance.n > MAX_POINTS:  # beyond the LP's n x n arrays: the closed-form bound stands
        cheap, cheap_source = cheap_bound(instance)
        bound = LPBound(
            cheap,
            f"{cheap_source} (no cluster LP: n > MAX_POINTS={MAX_POINTS})",
            None,
            cheap,
            cheap_source,
            None,
            False,
            0.0,
            0,
            0,
            0,
            instance.n,
            int(getattr(instance, "r", 1)),
        )
    else:
        bound = lp_bound(
            instance,
            time_limit=time_limit,
            seed=seed or 0,
            starts=[(labels, centers)],
            upper_bound=check.cost,
        )
    info = dict(
        centers=[int(c) for c in centers],
        radii=[float(x) for x in check.radii],
        lp_solved=bound.solved,
        bound_cheap=bound.cheap,
        bound_cheap_source=bound.cheap_source,
        bound_lp=bound.lagrangian,
        lp_master_value=bound.lp_value,
        bound_s=bound.seconds,
        pricing_rounds=bound.iterations,
        lp_columns=bound.n_columns,
        priced_clusters=bound.n_clusters,
    )
    return certified_solution(
        instance,
        solution,
        check,
        bound=bound.value,
        source=bound.source,
        info=info,
        algorithm=algorithm,
        t0=t0,
        labels=labels,
    )
