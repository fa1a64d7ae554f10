"""What Samarati, Incognito and Datafly share: the lattice of an instance, the best of a set of
nodes under a utility metric, and the :class:`~anonratio.instances.Solution` of a node."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.errors import InfeasibleInstanceError
from anonratio.instances.privacy import PrivacyModel
from anonratio.instances.validation import check_instance, check_seed
from anonratio.solvers.kanonymity.full_domain import (
    Lattice,
    max_suppressed,
    node_label,
    privacy_models,
)

__all__ = [
    "small_lattice",
    "lattice_of",
    "best_node",
    "full_domain_solution",
    "infeasible_solution",
]


def small_lattice(instance: KAnonymityInstance) -> str | None:
    """``None`` when the instance's generalization lattice has at most
    :data:`~anonratio.solvers.kanonymity.full_domain.MAX_NODES` nodes, else the reason a lattice
    search (Samarati, Incognito, Flash) refuses it."""
    from anonratio.solvers.kanonymity.full_domain import MAX_NODES  # its value when called

    size = float(np.prod(instance.heights + 1.0))
    if size > MAX_NODES:
        return f"the generalization lattice has {size:.3g} nodes, more than {MAX_NODES:,}"
    return None


def lattice_of(
    instance: Any,
    *,
    max_suppression: float,
    privacy: PrivacyModel | Sequence[PrivacyModel] | None,
    algorithm: str,
    prunes: bool = True,
) -> Lattice:
    """The lattice of a :class:`~anonratio.instances.KAnonymityInstance` under ``k``-anonymity
    and ``privacy``, with ``MaxSup`` from ``max_suppression``. When ``algorithm`` ``prunes``
    with the generalization property (Samarati, Incognito), a model that lacks it is refused
    (:meth:`Lattice.check_models`); Datafly, which does not prune, takes any."""
    check_instance(instance, KAnonymityInstance, "instance")
    table = instance.table
    max_sup = max_suppressed(max_suppression, table.n_records, instance.row_deletion)
    models = privacy_models(instance.k, privacy, table)
    lattice = Lattice(table, instance.hierarchies, models, max_sup)
    if prunes:
        lattice.check_models(algorithm)
    return lattice


def best_node(lattice: Lattice, nodes: np.ndarray, metric: str) -> tuple[np.ndarray, float, int]:
    """The node of ``nodes`` (all satisfying the models) that minimizes ``metric``.

    Nodes are visited by increasing :meth:`Lattice.separable_bounds` and the search stops once
    the bound exceeds the best value found, which is exact since the bound never exceeds the
    metric. Ties go to the lowest height, then the lexicographically smallest levels.

    Returns
    -------
    levels, value, evaluated : the best node, its metric and how many nodes were evaluated.
    """
    if len(nodes) == 0:
        raise InfeasibleInstanceError("no node satisfies the privacy models")
    bounds = lattice.separable_bounds(metric, nodes)
    order = np.lexsort((*nodes.T[::-1], nodes.sum(axis=1), bounds))
    best, best_value, evaluated = None, np.inf, 0
    for i in order:
        if bounds[i] > best_value + 1e-9 * max(1.0, abs(best_value)):
            break
        value = lattice.utility(metric, nodes[i])
        evaluated += 1
        if best is None or value < best_value - 1e-9 * max(1.0, abs(best_value)):
            best, best_value = i, value
        elif abs(value - best_value) <= 1e-9 * max(1.0, abs(best_value)):
            key = (int(nodes[i].sum()), tuple(nodes[i]))
            if key < (int(nodes[best].sum()), tuple(nodes[best])):
                best, best_value = i, value
    return nodes[best].copy(), float(best_value), evaluated


def full_domain_solution(
    instance: Any,
    lattice: Lattice,
    levels: np.ndarray,
    *,
    algorithm: str,
    metric: str | None,
    seed: Any,
    t0: float,
    info: dict[str, Any],
) -> Any:
    """The :class:`~anonratio.instances.Solution` of a full-domain node: the equivalence
    classes as labels (``-1`` for suppressed tuples), the recoding and the published cost."""
    rec = lattice.recoding(levels, algorithm)
    fs = lattice.node_set(levels)  # the same set each utility would build
    published = lattice.utility("generalization-cost", levels, fs)
    info = {
        "levels": node_label(lattice, levels),
        "scheme": "global",
        "recoding": rec,
        "published_cost": published,
        "suppressed": rec.n_suppressed,
        "max_suppressed": lattice.max_sup,
        "privacy": [str(p) for p in lattice.models],
        "nodes_checked": lattice.checks,
        **info,
    }
    if metric is not None:
        info["metric"] = metric
        info["metric_value"] = lattice.utility(metric, levels, fs)
    return Solution(
        labels=rec.classes,
        algorithm=algorithm,
        params=dict(instance.params),
        seed=check_seed(seed),
        status="feasible",
        objective=None,
        time_s=time.perf_counter() - t0,
        info=info,
    )


def infeasible_solution(instance: Any, lattice: Lattice, algorithm: str, seed: Any, t0: float):
    """No node satisfies the models within ``MaxSup`` (the top node fails)."""
    return Solution(
        labels=None,
        algorithm=algorithm,
        params=dict(instance.params),
        seed=check_seed(seed),
        status="infeasible",
        time_s=time.perf_counter() - t0,
        info={"privacy": [str(p) for p in lattice.models], "max_suppressed": lattice.max_sup},
    )
