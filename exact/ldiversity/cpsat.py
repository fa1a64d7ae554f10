"""Exact l-diversity with CP-SAT (Xiao, Yi and Tao, EDBT 2010, §3: both objectives).

The model is the pattern model of :mod:`anonratio.exact.ldiversity.patterns` (shared with the ILP
in :mod:`anonratio.exact.ldiversity.ilp`): integer ``y[k, v]`` records of QI-group ``q_k`` with
sensitive value ``v`` published under pattern ``p_k``; every record gets one pattern, the records
of each pattern form an l-eligible set, and the objective is the stars (or the suppressed
tuples) the patterns cost per record.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from anonratio.exact.ldiversity.patterns import (
    LDivData,
    build_data,
    make_solution,
    solve_iv,
)
from anonratio.exact.options import run_params
from anonratio.exact.run import run_cpsat
from anonratio.instances import Solution
from anonratio.instances.ldiversity import LDiversityInstance

__all__ = ["solve_cpsat"]


def _cpsat_parameters(threads: int) -> dict:
    """Workers that use the full linear relaxation, which is what closes the gaps here.

    With one or two workers CP-SAT's default portfolio leaves them out; measured on random
    tables (d = 6, 3 values per attribute, n = 100, stars): 6 s to optimal with
    ``linearization_level=2`` against no proof in 60 s without.
    """
    if threads == 1:
        return {"linearization_level": 2}
    if threads <= 4:
        return {"subsolvers": ["max_lp", "default_lp", "pseudo_costs", "quick_restarts"][:threads]}
    return {}


def _cpsat_model(data: LDivData):
    """The pattern model as a CP-SAT model: ``(model, cells, y)``."""
    model = cp_model.CpModel()
    LE = cp_model.LinearExpr
    ks, vs = data.cells()

    # y[c]: records of QI-group q_k with sensitive value v under pattern p_k, for cell c = (k, v).
    y = [
        model.new_int_var(0, int(data.counts[data.pair_q[k], v]), f"y_{k}_{v}")
        for k, v in zip(ks.tolist(), vs.tolist(), strict=True)
    ]
    cells_of_qv: dict[tuple[int, int], list[int]] = {}
    cells_of_pv: dict[tuple[int, int], list[int]] = {}
    cells_of_p: dict[int, list[int]] = {}
    for c, (k, v) in enumerate(zip(ks.tolist(), vs.tolist(), strict=True)):
        q, p = int(data.pair_q[k]), int(data.pair_p[k])
        cells_of_qv.setdefault((q, v), []).append(c)
        cells_of_pv.setdefault((p, v), []).append(c)
        cells_of_p.setdefault(p, []).append(c)

    # Every record gets exactly one pattern.
    for (q, v), cs in cells_of_qv.items():
        model.add(LE.sum([y[c] for c in cs]) == int(data.counts[q, v]))
    # The records under each pattern form an l-eligible set: l * (value v) <= all.
    for (p, _v), cs in cells_of_pv.items():
        size = LE.sum([y[c] for c in cells_of_p[p]])
        if len(cs) == len(cells_of_p[p]):  # only value v: the pattern must stay empty
            model.add(size == 0)
        else:
            model.add(data.l * LE.sum([y[c] for c in cs]) <= size)

    # Objective: each record costs its pattern's stars (or 1 if starred, for tuples).
    weights = data.cost[data.pair_p[ks]].tolist()
    objective = LE.weighted_sum(y, weights)
    # Valid bounds: the phase-1 lower bound, and the hint's cost or the given upper bound.
    model.add(objective >= data.lb)
    if data.ub is not None:
        model.add(objective <= data.ub)
    model.minimize(objective)
    return model, (ks, vs), y


def solve_cpsat(
    instance: LDiversityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal l-diversity (stars or suppressed tuples) with CP-SAT.

    Finds a partition of the records into l-eligible groups minimizing the instance's objective
    (star minimization or tuple minimization) and proves it optimal (``status="optimal"``,
    ``lower_bound == objective``) unless the time limit stops the search first
    (``status="time_limit"``, the best partition found, if any, and the proven bound). The model
    is the pattern model of :mod:`anonratio.exact.ldiversity.patterns`.

    Parameters
    ----------
    instance : LDiversityInstance
    time_limit : float
        Seconds for CP-SAT (``max_time_in_seconds``), > 0.
    seed : int or None
        CP-SAT's ``random_seed`` (None means 0); recorded as given.
    threads : int
        CP-SAT workers (``num_workers``), >= 1.
    hint : Solution or array of int, optional
        A feasible partition to start from (e.g. TP+'s); its cost bounds the objective.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm="ldiv-cpsat"``; ``info``: ``n_qi_groups``, ``n_values``, ``n_patterns``,
        ``n_pairs``, ``lower_bound_used``, ``upper_bound_used``, ``hint_cost``,
        ``model_objective``, ``stars``, ``suppressed_tuples``, ``n_groups`` and CP-SAT
        statistics. ``status="memory_limit"`` (the hint, if any, and the lower bound) when the
        QI-groups have more than ``MAX_PAIRS`` patterns to enumerate.

    Raises
    ------
    ValueError
        ``time_limit <= 0``, ``threads < 1``, a bad ``seed`` or ``upper_bound``, an infeasible
        ``hint``.

    Notes
    -----
    About ``g 2^d m`` count variables for stars and ``2 g m`` for tuples (``g`` QI-groups, ``d``
    attributes not constant on the table, ``m`` sensitive values), whatever ``n``; exponential
    time in the worst case (star minimization is NP-hard for ``m >= 3``, Theorem 4.7).

    References
    ----------
    X. Xiao, K. Yi, Y. Tao, EDBT 2010: §3 (Problems 1 and 2, Lemma 1), §5.1 (tuple minimization
    as removing records from the QI-groups).

    Examples
    --------
    >>> from anonratio.instances import Table
    >>> t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 0, 1, 1],
    ...           sensitive_values=["flu", "cold"])
    >>> sol = solve_cpsat(LDiversityInstance(t, 2), time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 4.0)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_labels, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    data = build_data(instance, hint_labels=hint_labels, upper_bound=upper_bound)
    params = run_params(instance, time_limit, threads, upper_bound, hint)
    common: dict[str, Any] = {"algorithm": "ldiv-cpsat", "params": params, "seed": seed, "t0": t0}
    if data.too_large:
        return make_solution(instance, data, None, None, **common)
    model, (ks, vs), y = _cpsat_model(data)
    # Start from the hint or the phase-1 partition: every count variable gets its value.
    if data.hint_y is not None:
        for var, k, v in zip(y, ks.tolist(), vs.tolist(), strict=True):
            model.add_hint(var, int(data.hint_y[k, v]))
    run = run_cpsat(
        model,
        time_limit=time_limit,
        seed=solver_seed,
        threads=threads,
        parameters=_cpsat_parameters(threads),
    )
    yv = None
    value = run.value  # None without an incumbent
    if value is not None:
        yv = np.zeros((data.n_pairs, data.counts.shape[1]), dtype=np.int64)
        yv[ks, vs] = [value(var) for var in y]
    return make_solution(instance, data, run, yv, **common)
