"""The exact t-closeness model shared by CP-SAT and the ILP: records assigned to *patterns*.

A group ``G`` is published under its *pattern*: per QI column the common value when ``G`` is
constant on it, else ``*``; it costs ``|G| x (stars of the pattern)``. Groups with one pattern
can be merged at no cost: the union has ``>= k`` records and is t-close (its distribution is a
convex combination of theirs and the EMD to a fixed distribution is convex, Li et al. 2007,
§4.2). So an optimal partition is found by giving every record a compatible pattern (one that
agrees with it wherever it has a value) such that the records of each pattern form a feasible
group or none, minimizing the stars of the records' patterns. Conversely each pattern's records
form a group whose true stars are at most the pattern's (it may be constant where the pattern
has a star), so both problems have one optimum. As in
:mod:`anonratio.exact.ldiversity.patterns`, variables count interchangeable records: ``y[k, v]``
records of QI-group ``q_k`` with sensitive value ``v`` get pattern ``p_k``, and patterns with a
star over a value all their compatible QI-groups share are left out (dominated).

Per pattern ``p`` with ``N_p`` records and ``c_p(v)`` of value ``v``, the table having ``n``
records and ``n_v`` of value ``v``:

* ``N_p >= k z_p`` and ``N_p <= (compatible records) z_p`` with ``z_p`` binary (used or not);
* equal ground: ``EMD = L / (2 n N_p)`` with ``L = sum_v |n c_p(v) - n_v N_p|``;
* ordered ground: ``EMD = L / ((S - 1) n N_p)`` with ``L = sum_{i < S-1} |n C_p(i) - Q(i) N_p|``,
  ``C_p``, ``Q`` the cumulative counts;
* the test ``EMD <= t + 1e-12`` of the verifier is, for integers ``L`` and ``N``, the same as
  ``b L <= a D N`` (``D`` the factor of ``N`` in the denominator), where ``a / b`` is the
  largest fraction ``L / (D N) <= t + 1e-12`` over ``N <= n`` (:func:`closeness_fraction`), so
  the model stays integral; ``|.|`` is an auxiliary variable above both signs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
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
from anonratio.instances.privacy import EMD_ATOL
from anonratio.instances.tcloseness import (
    TClosenessInstance,
    TClosenessVerification,
    tcloseness_lower_bound,
)

__all__ = [
    "TCloseData",
    "build_data",
    "closeness_fraction",
    "solve_iv",
    "make_solution",
    "MAX_PAIRS",
]

#: most (QI-group, pattern) pairs enumerated; beyond it the run reports ``memory_limit``
MAX_PAIRS = 200_000


def closeness_fraction(t: float, n: int, scale: int) -> Fraction:
    """The largest ``L / (scale N) <= t + EMD_ATOL`` over integers ``L >= 0``, ``1 <= N <= n``.

    For every ``N <= n`` and integer ``L``: ``L / (scale N) <= t + EMD_ATOL`` iff
    ``L / (scale N) <= `` the result (module docstring). Exact rational arithmetic.
    """
    limit = Fraction(t) + Fraction(EMD_ATOL)
    return max(Fraction(math.floor(limit * scale * m), scale * m) for m in range(1, n + 1))


@dataclass
class TCloseData:
    """What both exact models need: the pairs, the closeness test, bounds and the start."""

    k: int
    ground: str
    counts: np.ndarray  # (g, S): records of QI-group q with sensitive value v
    totals: np.ndarray  # (S,): records of value v in the table
    qi_group: np.ndarray  # QI-group of each record
    value: np.ndarray  # sensitive code of each record
    fraction: Fraction  # a / b of the closeness test
    scale: int  # D: the test is b L <= a D N
    patterns: np.ndarray = field(default_factory=lambda: np.empty((0, 0), np.int64))  # -1 = *
    pair_q: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    pair_p: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    cost: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # stars per pattern
    lb: int = 0
    ub: int | None = None
    start: np.ndarray | None = None
    hint_y: np.ndarray | None = None  # (n_pairs, S): the start's counts
    too_large: bool = False
    info: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.totals.sum())

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

    def closeness_terms(self) -> list[tuple[np.ndarray, int]]:
        """The terms of ``L``: ``(weight per value, Q)`` for ``|sum_v w_v n c(v) - Q N|``.

        Equal ground: one term per value present (``w`` its indicator, ``Q = n_v``); ordered:
        one per prefix ``i < S - 1`` (``w`` the values ``<= i``, ``Q`` their table count).
        """
        s = self.totals.size
        if self.ground == "equal":
            return [(np.eye(s, dtype=np.int64)[v], int(self.totals[v])) for v in range(s)]
        prefix = np.tril(np.ones((s, s), dtype=np.int64))
        cum = np.cumsum(self.totals)
        return [(prefix[i], int(cum[i])) for i in range(s - 1)]

    def decode(self, y: np.ndarray) -> np.ndarray:
        """Labels (pattern per record, renumbered 0..) from the counts ``y[k, v]``."""
        return decode_counts(self.pair_q, self.pair_p, self.qi_group, self.value, y)


def _start_counts(data: TCloseData, codes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The counts ``y[k, v]`` of a feasible partition: each record under its group's pattern."""
    return pattern_counts(
        data.patterns,
        data.pair_q,
        data.pair_p,
        data.qi_group,
        data.value,
        data.totals.size,
        codes,
        labels,
    )


def build_data(
    instance: TClosenessInstance,
    *,
    hint_labels: np.ndarray | None = None,
    upper_bound: int | None = None,
) -> TCloseData:
    """Aggregate the records, enumerate the patterns, set the test, the bounds and the start.

    The start is the cheaper of the hint and the whole table as one group (always feasible).
    ``too_large`` (and no pairs) when there would be more than :data:`MAX_PAIRS` pairs.
    """
    q, s, n = instance.qi_group, instance.n_values, instance.n
    value = np.asarray(instance.sensitive, dtype=np.int64)
    g = int(q.max()) + 1
    counts = np.bincount(q * s + value, minlength=g * s).reshape(g, s)
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    qcodes = np.zeros((g, codes.shape[1]), dtype=np.int64)
    qcodes[q] = codes
    scale = 2 * n if instance.ground == "equal" else max(s - 1, 1) * n
    data = TCloseData(
        instance.k,
        instance.ground,
        counts,
        instance.counts,
        q,
        value,
        closeness_fraction(instance.t, n, scale),
        scale,
    )
    data.lb = int(np.ceil(tcloseness_lower_bound(instance)[0] - 1e-9))
    info: dict[str, Any] = {"n_qi_groups": g, "n_values": s, "lower_bound_used": data.lb}
    data.info = info
    start = np.zeros(n, dtype=np.int64)
    start_cost = int(round(verified_cost(instance, start)))
    info["one_group_cost"] = start_cost
    if hint_labels is not None:
        hint_cost = int(round(verified_cost(instance, hint_labels)))
        info["hint_cost"] = hint_cost
        if hint_cost <= start_cost:
            start, start_cost = hint_labels, hint_cost
    data.start, data.ub = start, start_cost if upper_bound is None else min(upper_bound, start_cost)
    info["start_cost"] = start_cost
    varying = int(np.count_nonzero(qcodes.min(axis=0) != qcodes.max(axis=0)))
    if g * 2**varying > MAX_PAIRS:
        data.too_large = True
        info["reason"] = f"{g} QI-groups x {2**varying} patterns exceed {MAX_PAIRS} pairs"
        return data
    data.patterns, data.pair_q, data.pair_p, data.cost = pattern_pairs(qcodes)
    info.update(n_patterns=data.n_patterns, n_pairs=data.n_pairs, upper_bound_used=data.ub)
    data.hint_y = _start_counts(data, codes, start)
    return data


def solve_iv(
    instance: Any, time_limit: Any, seed: Any, threads: Any, hint: Any, upper_bound: Any
) -> tuple[float, int, int, np.ndarray | None, int | None]:
    """Validate the common arguments of the exact solvers."""
    return pattern_solve_iv(
        TClosenessInstance, instance, time_limit, seed, threads, hint, upper_bound
    )


def make_solution(
    instance: TClosenessInstance,
    data: TCloseData,
    run: RunResult | None,
    y: np.ndarray | None,
    *,
    algorithm: str,
    params: dict[str, Any],
    seed: Any,
    t0: float,
) -> Solution:
    """The :class:`Solution` of a run: labels decoded and verified, the bound at least the cheap
    lower bound. ``run=None``: the model was too large (``memory_limit``, the start returned)."""
    info = dict(data.info)
    if run is None:
        return Solution.with_bound(
            data.start,
            algorithm,
            params=params,
            seed=seed,
            status="memory_limit",
            objective=float(verified_cost(instance, data.start)),
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
        check = verify(instance, labels)  # strict: its cost is at most the model's
        assert isinstance(check, TClosenessVerification) and check.cost is not None
        objective = float(check.cost)
        info.update(stars=check.stars, n_groups=check.n_groups, largest_emd=check.largest_emd)
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
