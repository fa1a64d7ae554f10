"""What a clustering run holds when a limit stops it before its solver gives an answer.

The run's deadline can come while the model is built (or the model cannot load in the time
left: :mod:`anonratio.exact.clustering.deadline`), or stop the solver before it has read the
hint (CP-SAT's presolve) or proven a bound. The run then keeps what it has without a solver: the
hint's clustering and the best bound it holds (:func:`deadline_solution`, :func:`after_limit`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonratio.exact.clustering.candidates import CELLULAR, make_solution
from anonratio.exact.run import RunResult
from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance
from anonratio.instances.clustering.verify import clustering_lower_bound

__all__ = ["deadline_solution", "after_limit"]


def deadline_solution(
    instance: ClusteringInstance,
    hint: tuple[np.ndarray, np.ndarray] | None,
    hint_bound: float | None,
    reason: str,
    data_info: dict[str, Any],
    *,
    solver: str,
    **common: Any,
) -> Solution:
    """The :class:`Solution` of a run whose deadline came before its solver could start.

    The clustering is ``hint`` (``(labels, centers)`` of
    :func:`~anonratio.exact.clustering.candidates.hint_clusters`), if any. The bound is the
    best one the run holds without a solver, the larger of ``hint_bound`` (the hint's own proven
    ``lower_bound``, e.g. the primal-dual's dual objective) and: the model data's
    ``lower_bound_used`` when it was built (min max radius, the verifier's bound included), else
    the verifier's :func:`~anonratio.instances.clustering.verify.clustering_lower_bound`, or
    for a precomputed matrix (whose triangle check is ``O(n^3)``) the least setup cost of a
    cellular problem and none of a min-max-radius one. The status is decided as for a solver
    run stopped by its limit (:func:`~anonratio.exact.clustering.candidates.make_solution`,
    whose keywords ``common`` holds): ``time_limit``, or ``optimal`` when the bound meets the
    hint's cost. ``info["reason"]`` says why the solver did not run.
    """
    info: dict[str, Any] = {"solver": solver, "solver_status": "not run", "reason": reason}
    info.update(n_variables=0, n_constraints=0)
    run = RunResult("time_limit", None, None, None, 0.0, None, info)
    bound = _held_bound(instance, data_info, hint_bound)
    return make_solution(instance, run, hint, bound, data_info, **common)


def _held_bound(
    instance: ClusteringInstance, data_info: dict[str, Any], hint_bound: float | None
) -> float | None:
    """The bound of :func:`deadline_solution`."""
    own = data_info.get("lower_bound_used")
    if own is None and instance.metric != "precomputed":
        own = clustering_lower_bound(instance)[0]
    elif own is None and isinstance(instance, CELLULAR):
        own = float(np.min(instance.facility))
    bounds = [b for b in (own, hint_bound) if b is not None]
    return max(bounds) if bounds else None


def after_limit(
    instance: ClusteringInstance,
    run: RunResult,
    decoded: tuple[np.ndarray, np.ndarray] | None,
    bound: float | None,
    hint: tuple[np.ndarray, np.ndarray] | None,
    hint_bound: float | None,
    data_info: dict[str, Any],
) -> tuple[tuple[np.ndarray, np.ndarray] | None, float | None]:
    """``(decoded, bound)`` of a solver run, completed when its limit stopped it before it had a
    clustering (CP-SAT can stop in its presolve, before it reads a complete hint) or a bound:
    the hint's clustering and the bound of :func:`deadline_solution`."""
    if run.status != "time_limit":
        return decoded, bound
    if decoded is None:
        decoded = hint
    if bound is None:
        bound = _held_bound(instance, data_info, hint_bound)
    return decoded, bound
