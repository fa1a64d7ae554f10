"""The stages FACTOR-2 and FACTOR-3 share around their factor (Aggarwal et al. 2005, §5–§6).

Both algorithms validate the same arguments, hand HiGHS one seed drawn from the run's generator,
solve a minimum-weight factor on what is left of the time limit, and report the same fields about
it; they differ only in the factor (``[1,2]`` or ``2``) and in how its components become clusters.
This module holds the shared stages; the factor itself is solved by
:mod:`anonratio.solvers.kanonymity.min_weight_factor`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution, UnsupportedInstanceError
from anonratio.instances.validation import (
    check_instance,
    check_random_state,
    check_seed,
    check_time_limit,
)
from anonratio.solvers.kanonymity.group_objective import groups_cost
from anonratio.solvers.kanonymity.min_weight_factor import Factor, bound_from_factor

__all__ = [
    "factor_run_iv",
    "highs_seed",
    "remaining_time",
    "factor_fields",
    "clusters_solution",
    "label_groups",
    "size_histogram",
]


def factor_run_iv(
    instance: Any, *, k: int, algorithm: str, seed: Any, time_limit: Any
) -> tuple[int | None, float | None]:
    """Validate a factor algorithm's arguments; return ``(seed to record, time limit or None)``.

    Raises ``TypeError`` for an instance that is not a KAnonymityInstance,
    ``UnsupportedInstanceError`` when its ``k`` is not the algorithm's, ``ValueError`` for a bad
    ``seed`` or ``time_limit``.
    """
    check_instance(instance, KAnonymityInstance)
    if instance.k != k:
        raise UnsupportedInstanceError(f"`k` must be {k} for {algorithm}, got {instance.k}")
    return check_seed(seed), check_time_limit(time_limit, allow_none=True)


def highs_seed(seed: int | np.random.Generator | None) -> int:
    """The seed handed to HiGHS: one draw from the run's generator."""
    return int(check_random_state(seed).integers(2**31 - 1))


def remaining_time(time_limit: float | None, start: float) -> float | None:
    """What is left of ``time_limit`` seconds since ``start`` (``perf_counter``); None: no limit."""
    return None if time_limit is None else max(time_limit - (time.perf_counter() - start), 1e-3)


def factor_fields(
    instance: KAnonymityInstance,
    factor: Factor,
    algorithm: str,
    seed: int | None,
    guarantee: float | None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The Solution fields known once the factor is solved: all but labels, objective and time.

    ``status`` is ``"feasible"`` for a proven minimum factor, else ``"time_limit"``;
    ``lower_bound`` is the factor bound where a lemma proves it (:func:`bound_from_factor`).
    ``info`` holds the factor's weight, status, bound and time, then ``extra``, ``guarantee``,
    ``lower_bound_source`` and ``n_unique``.
    """
    bound = bound_from_factor(instance, factor)
    info = {
        "factor_weight": factor.weight,
        "factor_status": factor.status,
        "factor_bound": factor.bound,
        "factor_time_s": factor.time_s,
        **(extra or {}),
        "guarantee": guarantee,
        "lower_bound_source": None if bound is None else bound[1],
        "n_unique": int(len(np.unique(instance.table.codes, axis=0))),
    }
    return dict(
        algorithm=algorithm,
        params=dict(instance.params),
        seed=seed,
        status="feasible" if factor.optimal else "time_limit",
        lower_bound=None if bound is None else bound[0],
        info=info,
    )


def clusters_solution(
    instance: KAnonymityInstance,
    groups: Sequence[np.ndarray],
    fields: dict[str, Any],
    start: float,
    sizes_key: str,
) -> Solution:
    """The Solution of the clusters ``groups`` (record-index arrays; cluster ``g`` gets label
    ``g``), with ``fields`` from :func:`factor_fields` and the histogram of cluster sizes added
    to its ``info`` under ``sizes_key``. The objective is the clusters' cost, from the clusters
    themselves (:func:`~anonratio.solvers.kanonymity.group_objective.groups_cost`)."""
    labels = label_groups(instance.n, groups)
    fields["info"][sizes_key] = size_histogram(labels)
    objective = groups_cost(instance, groups)
    return Solution(labels, objective=objective, time_s=time.perf_counter() - start, **fields)


def label_groups(n: int, groups: Sequence[np.ndarray]) -> np.ndarray:
    """Labels of ``n`` records partitioned into ``groups`` (record-index arrays; group ``g``
    gets label ``g``)."""
    labels = np.empty(n, dtype=np.int64)
    for g, verts in enumerate(groups):
        labels[verts] = g
    return labels


def size_histogram(labels: np.ndarray) -> dict[int, int]:
    """``{group size: number of groups}`` of a labelling."""
    return {int(z): int(c) for z, c in enumerate(np.bincount(np.bincount(labels))) if c}
