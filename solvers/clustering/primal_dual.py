"""The primal-dual 4-approximation for CELLULAR CLUSTERING (Aggarwal et al., PODS 2006, §3).

Procedure 1 grows the duals of the cluster LP (:mod:`.dual_events`: the event simulation of
:mod:`.dual_growth` over neighbour rows grown on demand); each opened cluster keeps
the points it received (``V_U`` and ``V_IU``) around its center. Lemma 3.1: every member is
within ``3 alpha`` of the center, ``alpha`` the common dual of the cluster's members; Lemma 3.2:
the setup costs paid sum to at most ``sum alpha``. Hence (Theorem 3.3) the cost is at most
``4 sum alpha <= 4 LP <= 4 OPT``, and ``sum alpha`` is the run's own lower bound.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.clustering.instance import CellularInstance, ClusteringInstance
from anonratio.instances.clustering.verify import clustering_cost, clustering_info
from anonratio.instances.validation import check_instance, check_seed
from anonratio.solvers.clustering.dual_events import EventGrowth, grow_duals_by_events
from anonratio.solvers.clustering.dual_growth import DualGrowth

__all__ = ["primal_dual", "growth_clustering", "cellular_cost"]


def growth_clustering(
    growth: DualGrowth | EventGrowth,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(labels, centers, kept)`` of the opened clusters that received points, renumbered
    ``0 .. m-1`` in opening order (``kept`` = their indices among all opened clusters).

    A cluster opened on idle support alone may receive nothing; dropping it only saves its
    setup cost.
    """
    sizes = np.bincount(growth.labels, minlength=growth.centers.size)
    kept = np.flatnonzero(sizes > 0)
    new_id = np.full(growth.centers.size, -1, dtype=np.int64)
    new_id[kept] = np.arange(kept.size)
    return new_id[growth.labels], growth.centers[kept], kept


def cellular_cost(
    instance: ClusteringInstance, labels: np.ndarray, centers: np.ndarray
) -> tuple[float, dict[str, Any]]:
    """``(cost, clustering_info)``: ``sum f(center) + size x radius`` with the true radii."""
    info = clustering_info(instance, labels, centers)
    sizes = np.bincount(labels, minlength=centers.size)
    cost, _, _ = clustering_cost(instance, sizes, centers, np.asarray(info["radii"]))
    return cost, info


def primal_dual(instance: CellularInstance, *, seed: Any = None) -> Solution:
    """Procedure 1 (Aggarwal et al., PODS 2006, §3): a 4-approximation for CELLULAR CLUSTERING.

    Every unassigned point raises its dual ``alpha`` at unit rate; a cluster ``(v, d)`` (center
    ``v``, radius ``d`` one of the distances from ``v``) opens once its tight edges pay its setup
    cost ``f(v)``; it takes its unassigned potential members and those of the clusters it shuts
    down. Deterministic (``seed`` is only recorded).

    Parameters
    ----------
    instance : CellularInstance
        Points, metric and setup costs. The guarantee assumes the triangle inequality.
    seed : None or int
        Recorded in the solution; the algorithm uses no randomness.

    Returns
    -------
    Solution
        ``lower_bound`` = ``sum alpha`` (a feasible dual of the cluster LP); ``info``: the
        ``centers`` and true ``radii``, ``dual``, ``ratio_to_dual`` (cost / dual, ``None`` when
        the dual is 0), ``max_alpha``, ``n_opened`` (clusters with members), ``events``
        (clusters opened, empty ones included), ``stale_pops``, ``extensions`` (neighbour rows
        lengthened), ``cap`` (largest radius listed in a row).

    Notes
    -----
    Cost ``<= 4 sum alpha <= 4 OPT`` (Theorem 3.3). Runs
    :func:`~anonratio.solvers.clustering.dual_events.grow_duals_by_events` (``lam = 0``): the
    clusters and duals of :func:`~anonratio.solvers.clustering.dual_growth.grow_duals`, with each
    point's neighbours listed only as far as its own events need (coordinates: KD-tree queries,
    no pairwise matrix); per heap event a Python pass over the center's row up to its best time.

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu,
    "Achieving Anonymity via Clustering", PODS 2006, §3 (Procedure 1, Lemmas 3.1-3.2,
    Theorem 3.3).

    Examples
    --------
    >>> inst = CellularInstance([[0.0], [1.0], [10.0], [11.0]], facility_costs=[1, 1, 1, 1])
    >>> sol = primal_dual(inst)
    >>> sol.labels.tolist(), sol.objective, sol.lower_bound
    ([0, 0, 1, 1], 6.0, 4.0)
    """
    t0 = perf_counter()
    check_instance(instance, CellularInstance)
    seed_rec = check_seed(seed)
    growth = grow_duals_by_events(instance.distances, instance.facility)
    labels, centers, _ = growth_clustering(growth)
    cost, info = cellular_cost(instance, labels, centers)
    dual = growth.dual
    info.update(
        dual=dual,
        ratio_to_dual=cost / dual if dual > 0 else None,
        max_alpha=float(growth.alpha.max()),
        n_opened=int(centers.size),
        events=growth.events,
        stale_pops=growth.stale_pops,
        extensions=growth.extensions,
        cap=growth.rows.cap,
    )
    return Solution(
        labels=labels,
        algorithm="primal-dual",
        params=instance.params,
        seed=seed_rec,
        status="feasible",
        objective=cost,
        lower_bound=max(dual, float(instance.facility.min())),
        time_s=perf_counter() - t0,
        info=info,
    )
