"""Exact t-closeness by suppression with CP-SAT: the pattern model of
:mod:`anonratio.exact.tcloseness.patterns` (shared with the ILP of
:mod:`anonratio.exact.tcloseness.ilp`)."""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from anonratio.exact.options import run_params
from anonratio.exact.run import run_cpsat
from anonratio.exact.tcloseness.patterns import TCloseData, build_data, make_solution, solve_iv
from anonratio.instances import Solution
from anonratio.instances.tcloseness import TClosenessInstance

__all__ = ["solve_cpsat"]


def _cpsat_model(data: TCloseData):
    """The pattern model as a CP-SAT model: ``(model, cells, y)``."""
    model = cp_model.CpModel()
    LE = cp_model.LinearExpr
    ks, vs = data.cells()
    n, a, b = data.n, data.fraction.numerator, data.fraction.denominator

    # y[c]: records of QI-group q_k with sensitive value v under pattern p_k, for cell c = (k, v).
    y = [
        model.new_int_var(0, int(data.counts[data.pair_q[k], v]), f"y_{k}_{v}")
        for k, v in zip(ks.tolist(), vs.tolist(), strict=True)
    ]
    cells_of_qv: dict[tuple[int, int], list[int]] = {}
    cells_of_p: dict[int, list[int]] = {}
    for c, (k, v) in enumerate(zip(ks.tolist(), vs.tolist(), strict=True)):
        cells_of_qv.setdefault((int(data.pair_q[k]), v), []).append(c)
        cells_of_p.setdefault(int(data.pair_p[k]), []).append(c)

    # Every record gets exactly one pattern.
    for (q, v), cs in cells_of_qv.items():
        model.add(LE.sum([y[c] for c in cs]) == int(data.counts[q, v]))
    terms = data.closeness_terms()
    for p, cs in cells_of_p.items():
        room = int(sum(data.counts[data.pair_q[ks[c]], vs[c]] for c in cs))
        size = LE.sum([y[c] for c in cs])
        used = model.new_bool_var(f"z_{p}")
        # A used pattern holds k records or more; an unused one none.
        model.add(size >= data.k * used)
        model.add(size <= room * used)
        # t-closeness: b * sum |n c(w) - Q N| <= a * D * N (patterns module docstring).
        gaps: list[cp_model.IntVar] = []
        for w, total in terms:
            expr = LE.weighted_sum([y[c] for c in cs], [n * int(w[vs[c]]) for c in cs])
            gap = model.new_int_var(0, n * room, f"e_{p}_{len(gaps)}")
            model.add(gap >= expr - total * size)
            model.add(gap >= total * size - expr)
            gaps.append(gap)
        if gaps:
            model.add(b * LE.sum(gaps) <= a * data.scale * size)

    # Objective: each record costs its pattern's stars; the cheap lower bound and the start's
    # cost (or the given upper bound) bound it.
    objective = LE.weighted_sum(y, data.cost[data.pair_p[ks]].tolist())
    model.add(objective >= data.lb)
    if data.ub is not None:
        model.add(objective <= data.ub)
    model.minimize(objective)
    return model, (ks, vs), y


def solve_cpsat(
    instance: TClosenessInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal t-closeness by suppression (fewest stars) with CP-SAT.

    Finds a partition into groups of ``>= k`` t-close records with the fewest stars and proves
    it optimal (``status="optimal"``, ``lower_bound == objective``) unless the time limit stops
    the search first (``status="time_limit"``, the best partition found, if any, and CP-SAT's
    proven bound). The status is decided from CP-SAT's own status and bound
    (:func:`~anonratio.exact.run.run_cpsat`).

    Parameters
    ----------
    instance : TClosenessInstance
    time_limit : float
        Seconds for CP-SAT (``max_time_in_seconds``), > 0.
    seed : int or None
        CP-SAT's ``random_seed`` (None means 0); recorded as given.
    threads : int
        CP-SAT workers (``num_workers``), >= 1.
    hint : Solution or array of int, optional
        A feasible partition to start from (e.g. Mondrian's); its cost bounds the objective.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm="tclose-cpsat"``; ``info``: ``n_qi_groups``, ``n_values``, ``n_patterns``,
        ``n_pairs``, ``lower_bound_used``, ``upper_bound_used``, ``start_cost``,
        ``model_objective``, ``stars``, ``n_groups``, ``largest_emd`` and CP-SAT statistics.
        ``status="memory_limit"`` (the start and the lower bound) when the QI-groups have more
        than ``MAX_PAIRS`` patterns.

    Raises
    ------
    ValueError
        ``time_limit <= 0``, ``threads < 1``, a bad ``seed`` or ``upper_bound``, an infeasible
        ``hint``.

    Notes
    -----
    About ``g 2^d S`` count variables and ``g 2^d S`` closeness terms (``g`` QI-groups, ``d``
    columns not constant on the table, ``S`` sensitive values), whatever ``n``; exponential
    time in the worst case.

    References
    ----------
    N. Li, T. Li, S. Venkatasubramanian, "t-Closeness: Privacy Beyond k-Anonymity and
    l-Diversity", ICDE 2007, Def. 2, §4.1 (the EMD), §4.2 (convexity: patterns merge groups).

    Examples
    --------
    >>> from anonratio.instances import Table
    >>> t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 0, 1, 1],
    ...           sensitive_values=["flu", "cold"])
    >>> sol = solve_cpsat(TClosenessInstance(t, 0.2, k=2), time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 4.0)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_labels, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    data = build_data(instance, hint_labels=hint_labels, upper_bound=upper_bound)
    params = run_params(instance, time_limit, threads, upper_bound, hint)
    common: dict[str, Any] = {"algorithm": "tclose-cpsat", "params": params, "seed": seed, "t0": t0}
    if data.too_large:
        return make_solution(instance, data, None, None, **common)
    model, (ks, vs), y = _cpsat_model(data)
    if data.hint_y is not None:  # start from the hint or the one-group partition
        for var, k, v in zip(y, ks.tolist(), vs.tolist(), strict=True):
            model.add_hint(var, int(data.hint_y[k, v]))
    run = run_cpsat(model, time_limit=time_limit, seed=solver_seed, threads=threads)
    yv = None
    if run.value is not None:
        yv = np.zeros((data.n_pairs, data.totals.size), dtype=np.int64)
        yv[ks, vs] = [run.value(var) for var in y]
    return make_solution(instance, data, run, yv, **common)
