"""Exact Min-Max Bin Covering with CP-SAT (Du et al. 2009, §4).

The model (shared with the ILP in :mod:`anonratio.exact.bin_covering.ilp`) aggregates equal
sizes: with distinct sizes ``v_t`` occurring ``c_t`` times and bins ``j = 0 .. B-1``,
``B = min(floor(S/k), n)`` (no more bins can each reach ``k``):

* ``y[t, j]`` (integer in ``[0, c_t]``): how many items of size ``v_t`` bin ``j`` holds;
* ``load[j] = sum_t v_t y[t, j]`` with domain ``{0} ∪ [k, T]`` (0 = the bin is unused), where
  ``T`` is an upper bound on the optimum: Theorem 7's ``max(k - 1 + max x, 3k - 3)`` (Fold
  reaches it), ``S``, a hint's cost or a given ``upper_bound``, whichever is least;
* every item is in one bin: ``sum_j y[t, j] = c_t``; and ``sum_j load[j] = S`` (redundant);
* symmetry breaking: ``load[0] >= load[1] >= ...``, so used bins come first and ``load[0]`` is
  the largest load — the objective; ``load[0] >= max(k, max x, ceil(S / floor(S/k)))``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from anonratio.exact.options import check_hint_labels, check_upper_bound, run_params
from anonratio.exact.run import RunResult, check_run_options, run_cpsat
from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import BinCoveringInstance, bin_covering_lower_bound
from anonratio.instances.validation import check_instance

__all__ = ["solve_cpsat", "build_data", "make_solution"]


@dataclass
class BinCoveringData:
    """What both exact models need: aggregated sizes, bin count, bounds and the hint."""

    values: np.ndarray  # distinct sizes, decreasing
    counts: np.ndarray  # their multiplicities
    inverse: np.ndarray  # distinct-size index of each item
    n_bins: int
    lb: int
    ub: int
    hint_y: np.ndarray | None = None  # (n_values, n_bins) counts of a hint, bins by load desc
    info: dict = field(default_factory=dict)

    def cap(self, t: int) -> int:
        """Most items of size ``values[t]`` one bin can hold without exceeding ``ub``."""
        return int(min(self.counts[t], self.ub // self.values[t]))

    def decode(self, y: np.ndarray) -> np.ndarray:
        """Labels (bin per item) from the counts ``y[t, j]``."""
        labels = np.empty(self.inverse.size, dtype=np.int64)
        by_value = np.argsort(self.inverse, kind="stable")  # items grouped by distinct size
        labels[by_value] = np.repeat(np.tile(np.arange(self.n_bins), self.values.size), y.ravel())
        return labels


def solve_iv(
    instance: Any, time_limit: Any, seed: Any, threads: Any, hint: Any, upper_bound: Any
) -> tuple[float, int, int, np.ndarray | None, int | None]:
    """Validate the common arguments of the exact solvers."""
    check_instance(instance, BinCoveringInstance)
    time_limit, solver_seed, threads = check_run_options(time_limit, seed, threads)
    upper_bound = check_upper_bound(upper_bound)
    if upper_bound is not None:  # sizes are integers: so is any load
        upper_bound = int(np.floor(upper_bound + 1e-9))
    labels = check_hint_labels(instance, hint, relaxed=False)
    return time_limit, solver_seed, threads, labels, upper_bound


def build_data(
    instance: BinCoveringInstance,
    *,
    hint_labels: np.ndarray | None = None,
    upper_bound: int | None = None,
) -> BinCoveringData:
    """Aggregate sizes, fix the bin count and the bounds, and turn a hint into counts."""
    values, counts, inverse = instance.distinct
    k, s = instance.k, instance.total
    lb = bin_covering_lower_bound(instance)[0]
    ub = min(s, max(k - 1 + instance.max_size, 3 * k - 3))  # Theorem 7: Fold reaches it
    info = {"n_values": int(values.size), "n_bins_max": int(instance.max_bins)}
    hint_y = None
    if hint_labels is not None:
        _, lab = np.unique(hint_labels, return_inverse=True)
        lab = lab.reshape(-1)
        loads = np.bincount(lab, weights=instance.sizes).round().astype(np.int64)
        rank = np.empty(loads.size, dtype=np.int64)
        rank[np.argsort(-loads, kind="stable")] = np.arange(loads.size)
        hint_y = np.zeros((values.size, instance.max_bins), dtype=np.int64)
        np.add.at(hint_y, (inverse, rank[lab]), 1)
        ub = min(ub, int(loads.max()))
        info["hint_cost"] = int(loads.max())
    if upper_bound is not None:
        ub = min(ub, upper_bound)
    info.update(lower_bound_used=int(lb), upper_bound_used=int(ub))
    return BinCoveringData(values, counts, inverse, instance.max_bins, lb, ub, hint_y, info)


def make_solution(
    instance: BinCoveringInstance,
    data: BinCoveringData,
    run: RunResult,
    y: np.ndarray | None,
    *,
    algorithm: str,
    params: dict[str, Any],
    seed: Any,
    t0: float,
) -> Solution:
    """The :class:`Solution` of a run: labels decoded, bound at least the cheap lower bound."""
    has = run.has_solution
    labels = data.decode(np.rint(y).astype(np.int64)) if has and y is not None else None
    objective = run.objective if has else None
    info = {**data.info, **run.info}
    bound: float | None = max(run.bound if run.bound is not None else -np.inf, data.lb)
    if run.status == "optimal":
        bound = objective
    elif run.status == "infeasible":
        bound = None
        info["reason"] = f"no cover costs at most upper_bound={data.ub}"
    elif run.status == "error":
        bound = None
    return Solution.with_bound(
        labels,
        algorithm,
        params=params,
        seed=seed,
        status=run.status,
        objective=objective,
        bound=bound,
        t0=t0,
        info=info,
    )


def _cpsat_model(instance, data):
    """The aggregated CP-SAT model of the module docstring: ``(model, y, load)``."""
    k, B, d = instance.k, data.n_bins, data.values.size
    model = cp_model.CpModel()
    LE = cp_model.LinearExpr

    # y[t][j]: items of size values[t] in bin j.
    y = [[model.new_int_var(0, data.cap(t), f"y_{t}_{j}") for j in range(B)] for t in range(d)]
    # load[j]: the bin's load, 0 (unused) or in [k, T].
    dom = cp_model.Domain.from_intervals([[0, 0]] + ([[k, data.ub]] if data.ub >= k else []))
    load = [model.new_int_var_from_domain(dom, f"load_{j}") for j in range(B)]
    vals = [int(v) for v in data.values]
    for j in range(B):
        model.add(load[j] == LE.weighted_sum([y[t][j] for t in range(d)], vals))
    # Every item is in exactly one bin.
    for t in range(d):
        model.add(LE.sum(y[t]) == int(data.counts[t]))
    # Redundant: the loads add up to S.
    model.add(LE.sum(load) == instance.total)
    # Symmetry breaking: loads non-increasing, so bin 0 is the heaviest.
    for j in range(B - 1):
        model.add(load[j] >= load[j + 1])
    model.add(load[0] >= data.lb)
    model.minimize(load[0])
    return model, y, load


def _cpsat_hint(model, data, y, load):
    """A complete hint: the hint's counts and the loads they imply."""
    hint_load = data.values @ data.hint_y
    for j in range(data.n_bins):
        model.add_hint(load[j], int(hint_load[j]))
        for t in range(data.values.size):
            model.add_hint(y[t][j], int(data.hint_y[t, j]))


def solve_cpsat(
    instance: BinCoveringInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal Min-Max Bin Covering with CP-SAT: the least possible largest bin load.

    Partitions the items into bins of load at least ``k`` minimizing the largest load, and proves
    it optimal (``status="optimal"``, ``lower_bound == objective``) unless the time limit stops
    the search first (``status="time_limit"``, best cover found and the proven bound). The model
    is the aggregated one of the module docstring.

    Parameters
    ----------
    instance : BinCoveringInstance
    time_limit : float
        Seconds for CP-SAT (``max_time_in_seconds``), > 0.
    seed : int or None
        CP-SAT's ``random_seed`` (None means 0); recorded as given.
    threads : int
        CP-SAT workers (``num_workers``), >= 1.
    hint : Solution or array of int, optional
        A feasible cover to start from (e.g. Spread's); its cost bounds the objective.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm="bc-cpsat"``; ``info``: ``n_values``, ``n_bins_max``, ``lower_bound_used``,
        ``upper_bound_used``, ``hint_cost``, CP-SAT statistics.

    Notes
    -----
    ``B * d`` count variables for ``B = min(floor(S/k), n)`` bins and ``d`` distinct sizes;
    exponential time in the worst case (the problem is strongly NP-hard, Du et al. 2009,
    Theorem 5).

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, WADS 2009, §4 (problem, Theorem 5,
    Theorem 7's bound used as the load cap).

    Examples
    --------
    >>> from anonratio.instances.bin_covering.instance import BinCoveringInstance
    >>> sol = solve_cpsat(BinCoveringInstance([5, 4, 3, 3, 2, 1], k=6), time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 6.0)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_labels, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    data = build_data(instance, hint_labels=hint_labels, upper_bound=upper_bound)
    model, y, load = _cpsat_model(instance, data)
    if data.hint_y is not None:
        _cpsat_hint(model, data, y, load)
    run = run_cpsat(model, time_limit=time_limit, seed=solver_seed, threads=threads)
    value = run.value  # None without an incumbent
    yv = None if value is None else np.array([[value(v) for v in row] for row in y])
    return make_solution(
        instance,
        data,
        run,
        yv,
        algorithm="bc-cpsat",
        params=run_params(instance, time_limit, threads, upper_bound, hint),
        seed=seed,
        t0=t0,
    )
