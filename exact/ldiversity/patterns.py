"""The exact l-diversity model shared by CP-SAT and the ILP: records assigned to *patterns*.

A group ``S`` is published under its *pattern*: for each QI attribute, the common value when
``S`` is constant on it, else ``*``. Its stars are ``|S| x (stars of the pattern)``, and all its
records are *compatible* with the pattern (they agree with it wherever it has a value). Groups
with the same pattern can be merged without changing any cost: the union of l-eligible sets is
l-eligible (Xiao et al. 2010, Lemma 1) and keeps the pattern. So an optimal partition is found
by choosing, for every record, a compatible pattern, such that the records given each pattern
form an l-eligible set, minimizing

* ``stars``: ``sum`` over records of the stars of their pattern;
* ``tuples``: the number of records given a pattern with at least one star. Starred groups all
  cost 1 per record, so they merge into one group under the table's own pattern (a star on
  every attribute the table is not constant on); the patterns are then each QI-group's own
  values and that one (the residue formulation of §5.1: remove records from the QI-groups so
  that each QI-group and the removed set are l-eligible).

Conversely a choice of patterns is a partition (one group per pattern used) whose true cost is
at most the model's (a group may turn out constant where its pattern has a star), so both have
the same optimum. Records with equal QI values and equal sensitive values are interchangeable,
so the variables count them: ``y[k, v]`` records of QI-group ``q_k`` with sensitive value ``v``
get pattern ``p_k`` (pairs ``k = (q, p)`` with ``q`` compatible with ``p``):

* every record gets a pattern: ``sum_{k: q_k = q} y[k, v] = c_q(v)``;
* l-eligibility of each pattern's set:
  ``l sum_{k: p_k = p} y[k, v] <= sum_{k: p_k = p, u} y[k, u]``;
* objective ``sum_k cost(p_k) sum_v y[k, v]``, bounded below by
  :func:`~anonratio.instances.ldiversity.ldiversity_lower_bound` and above by the start's cost
  (the cheaper of a hint and :func:`start_labels`, TP's phase 1) or a given ``upper_bound``.

Star patterns are the ``2^d`` generalizations of each QI-group, less the dominated ones: a
pattern with a star on an attribute where every compatible QI-group has the same value costs
more than the pattern with that value and admits the same records. No big-M, no group indices,
no symmetry to break. The model grows like ``g 2^d m`` (``g`` QI-groups, ``d`` attributes that
are not constant on the table), and not with ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonratio.exact.patterns import (
    decode_counts,
    pattern_counts,
    pattern_pairs,
    pattern_solve_iv,
    verified_cost,
)
from anonratio.exact.run import RunResult
from anonratio.instances import Solution, verify
from anonratio.instances.ldiversity import (
    LDiversityInstance,
    LDiversityVerification,
    ldiversity_lower_bound,
)

__all__ = [
    "LDivData",
    "build_data",
    "start_labels",
    "solve_iv",
    "make_solution",
    "MAX_PAIRS",
]

#: most (QI-group, pattern) pairs enumerated before pruning; beyond it the run reports
#: ``memory_limit``
MAX_PAIRS = 1_000_000


@dataclass
class LDivData:
    """What both exact models need: the pairs, bounds and a hint's counts."""

    l: int
    counts: np.ndarray  # (g, m): records of QI-group q with sensitive value v
    qi_group: np.ndarray  # QI-group of each record
    value: np.ndarray  # sensitive value index (0..m-1) of each record
    patterns: np.ndarray = field(default_factory=lambda: np.empty((0, 0), np.int64))  # -1 = *
    pair_q: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # per pair k
    pair_p: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # per pair k
    cost: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # per pattern
    lb: int = 0
    ub: int | None = None
    hint_y: np.ndarray | None = None  # (n_pairs, m): the start's counts (hint or phase 1)
    too_large: bool = False
    start: np.ndarray | None = None  # labels of the start (the hint or the phase-1 partition)
    info: dict = field(default_factory=dict)

    @property
    def n_pairs(self) -> int:
        return int(self.pair_q.size)

    @property
    def n_patterns(self) -> int:
        return int(self.cost.size)

    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """``(k, v)`` of the variables: pair ``k`` and a value ``v`` its QI-group holds."""
        k, v = np.nonzero(self.counts[self.pair_q] > 0)
        return k, v

    def decode(self, y: np.ndarray) -> np.ndarray:
        """Labels (pattern per record, renumbered 0..) from the counts ``y[k, v]``."""
        return decode_counts(self.pair_q, self.pair_p, self.qi_group, self.value, y)


def _patterns(
    qcodes: np.ndarray, objective: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(patterns, pair_q, pair_p, cost)`` of the QI-groups' codes ``qcodes`` (one row each):
    :func:`~anonratio.exact.patterns.pattern_pairs`, each pattern costing its stars or, for
    tuple minimization, 1 when it has one."""
    tuples = objective == "tuples"
    patterns, pair_q, pair_p, stars = pattern_pairs(qcodes, tuples=tuples)
    return patterns, pair_q, pair_p, (stars > 0).astype(np.int64) if tuples else stars


def _hint_counts(data: LDivData, instance: LDiversityInstance, labels: np.ndarray) -> np.ndarray:
    """The counts ``y[k, v]`` of a feasible partition: each record under its group's pattern."""
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    tuples = instance.objective == "tuples"
    return pattern_counts(
        data.patterns,
        data.pair_q,
        data.pair_p,
        data.qi_group,
        data.value,
        data.counts.shape[1],
        codes,
        labels,
        tuples=tuples,
    )


def start_labels(instance: LDiversityInstance, counts: np.ndarray, value: np.ndarray) -> np.ndarray:
    """A cheap feasible partition to start from (so that every run has an incumbent).

    Phase 1 of TP (Xiao et al. 2010, §5.2): each QI-group drops records of its pillar until it
    is l-eligible; the dropped records form one group ``R``. While ``R`` is not l-eligible, the
    kept part of the QI-group that brings ``R`` closest to l-eligibility joins it (the whole table
    is l-eligible, so this ends).
    """
    l = instance.l
    g, m = counts.shape
    removed = np.zeros_like(counts)
    for q in np.flatnonzero(l * counts.max(axis=1) > counts.sum(axis=1)):
        c = counts[q].copy()
        while c.sum() and l * c.max() > c.sum():
            v = int(np.argmax(c))
            c[v] -= 1
            removed[q, v] += 1
    kept = counts - removed
    joined = np.zeros(g, dtype=bool)
    r = removed.sum(axis=0)
    while l * r.max() > r.sum():
        trial = r[None, :] + kept
        excess = (l * trial.max(axis=1) - trial.sum(axis=1)).astype(float)
        excess[joined | (kept.sum(axis=1) == 0)] = np.inf
        best = int(np.argmin(excess))
        joined[best] = True
        r = trial[best]
        removed[best], kept[best] = counts[best], 0
    # records sorted by (q, v): the first removed[q, v] of each block go to R (label g)
    group = instance.qi_group
    order = np.lexsort((value, group))
    block = group[order] * m + value[order]
    rank = np.arange(block.size) - np.searchsorted(block, block, side="left")
    labels = group.copy()
    labels[order[rank < removed.reshape(-1)[block]]] = g
    return labels


def build_data(
    instance: LDiversityInstance,
    *,
    hint_labels: np.ndarray | None = None,
    upper_bound: int | None = None,
) -> LDivData:
    """Aggregate the records, enumerate the patterns, turn a hint into counts, set the bounds.

    ``too_large`` (and no pairs) when there would be more than :data:`MAX_PAIRS` pairs.
    """
    q = instance.qi_group
    _, value = np.unique(instance.sensitive, return_inverse=True)
    value = value.reshape(-1).astype(np.int64)
    g, m = int(q.max()) + 1, int(value.max()) + 1
    counts = np.bincount(q * m + value, minlength=g * m).reshape(g, m)
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    qcodes = np.zeros((g, codes.shape[1]), dtype=np.int64)
    qcodes[q] = codes
    varying = int(np.count_nonzero(qcodes.min(axis=0) != qcodes.max(axis=0)))
    n_masks = 2 if instance.objective == "tuples" else 2**varying
    lb = int(np.ceil(ldiversity_lower_bound(instance)[0] - 1e-9))
    data = LDivData(instance.l, counts, q, value, lb=lb, ub=upper_bound)
    info: dict[str, Any] = {"n_qi_groups": g, "n_values": m, "lower_bound_used": lb}
    data.info = info
    # Start from the cheaper of the hint and the phase-1 partition.
    start = start_labels(instance, counts, value)
    start_cost = int(round(verified_cost(instance, start)))
    info["phase1_cost"] = start_cost
    if hint_labels is not None:
        hint_cost = int(round(verified_cost(instance, hint_labels)))
        info["hint_cost"] = hint_cost
        if hint_cost <= start_cost:
            start, start_cost = hint_labels, hint_cost
    data.start, data.ub = start, start_cost if data.ub is None else min(data.ub, start_cost)
    info["start_cost"] = start_cost
    if g * n_masks > MAX_PAIRS:
        data.too_large = True
        info["reason"] = f"{g} QI-groups x {n_masks} patterns exceed {MAX_PAIRS} pairs"
        return data
    data.patterns, data.pair_q, data.pair_p, data.cost = _patterns(qcodes, instance.objective)
    info.update(n_patterns=data.n_patterns, n_pairs=data.n_pairs)
    data.hint_y = _hint_counts(data, instance, start)
    info["upper_bound_used"] = data.ub
    return data


def solve_iv(
    instance: Any, time_limit: Any, seed: Any, threads: Any, hint: Any, upper_bound: Any
) -> tuple[float, int, int, np.ndarray | None, int | None]:
    """Validate the common arguments of the exact solvers."""
    return pattern_solve_iv(
        LDiversityInstance, instance, time_limit, seed, threads, hint, upper_bound
    )


def make_solution(
    instance: LDiversityInstance,
    data: LDivData,
    run: RunResult | None,
    y: np.ndarray | None,
    *,
    algorithm: str,
    params: dict[str, Any],
    seed: Any,
    t0: float,
) -> Solution:
    """The :class:`Solution` of a run: labels decoded, the objective verified, the bound at
    least the cheap lower bound. ``run=None``: the model was too large (``memory_limit``; the
    start partition, the cheaper of the hint and phase 1's, comes back)."""
    info = dict(data.info)
    if run is None:
        start = data.start
        return Solution.with_bound(
            start,
            algorithm,
            params=params,
            seed=seed,
            status="memory_limit",
            objective=float(verified_cost(instance, start)),
            bound=data.lb,
            t0=t0,
            info=info,
        )
    info.update(run.info)
    status, bound = run.status, run.bound
    labels: np.ndarray | None = None
    objective: float | None = None
    if run.has_solution and y is not None:
        labels = data.decode(np.rint(y).astype(np.int64))
        info["model_objective"] = run.objective
    elif status == "time_limit" and data.start is not None and data.ub == info["start_cost"]:
        labels = data.start  # the limit came before the solver's first solution: the start
        info["returned"] = "start"
    if labels is not None:
        check = verify(instance, labels)  # its cost is at most the model's
        assert isinstance(check, LDiversityVerification) and check.cost is not None  # strict
        objective = float(check.cost)
        info.update(stars=check.stars, suppressed_tuples=check.suppressed_tuples)
        info["n_groups"] = check.n_groups
    if status in ("infeasible", "error"):
        bound = None
        if status == "infeasible":
            info["reason"] = f"no partition costs at most upper_bound={data.ub}"
    else:
        bound = max(bound if bound is not None else -np.inf, data.lb)
        if objective is not None:
            bound = min(bound, objective)
    return Solution.with_bound(
        labels,
        algorithm,
        params=params,
        seed=seed,
        status=status,
        objective=objective,
        bound=bound,
        t0=t0,
        info=info,
    )
