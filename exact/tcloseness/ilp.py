"""Exact t-closeness by suppression as an ILP (PuLP with HiGHS): the pattern model of
:mod:`anonratio.exact.tcloseness.patterns`, as in :mod:`anonratio.exact.tcloseness.cpsat`.

Integer ``y[k, v]``, a binary ``z_p`` per pattern (used or not), a continuous ``e`` above both
signs of each closeness term, and the integral closeness row ``b sum e <= a D N_p``.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np
import pulp

from anonratio.exact.options import run_params
from anonratio.exact.run import run_pulp
from anonratio.exact.tcloseness.patterns import TCloseData, build_data, make_solution, solve_iv
from anonratio.instances import Solution
from anonratio.instances.tcloseness import TClosenessInstance

__all__ = ["solve_highs"]


def _ilp_model(data: TCloseData):
    """The pattern model as a PuLP problem: ``(prob, cells, y)``."""
    prob = pulp.LpProblem("t_closeness", pulp.LpMinimize)
    ks, vs = data.cells()
    n, a, b = data.n, data.fraction.numerator, data.fraction.denominator

    # y[c]: records of QI-group q_k with sensitive value v under pattern p_k, for cell c = (k, v).
    y = [
        prob.add_variable(f"y_{k}_{v}", 0, int(data.counts[data.pair_q[k], v]), cat="Integer")
        for k, v in zip(ks.tolist(), vs.tolist(), strict=True)
    ]
    cells_of_qv: dict[tuple[int, int], list[int]] = {}
    cells_of_p: dict[int, list[int]] = {}
    for c, (k, v) in enumerate(zip(ks.tolist(), vs.tolist(), strict=True)):
        cells_of_qv.setdefault((int(data.pair_q[k]), v), []).append(c)
        cells_of_p.setdefault(int(data.pair_p[k]), []).append(c)

    objective = pulp.LpAffineExpression(
        [(y[c], int(w)) for c, w in enumerate(data.cost[data.pair_p[ks]].tolist()) if w]
    )
    prob += objective
    # Every record gets exactly one pattern.
    for (q, v), cs in cells_of_qv.items():
        prob += pulp.lpSum(y[c] for c in cs) == int(data.counts[q, v]), f"assign_{q}_{v}"
    terms = data.closeness_terms()
    for p, cs in cells_of_p.items():
        room = int(sum(data.counts[data.pair_q[ks[c]], vs[c]] for c in cs))
        size = pulp.lpSum(y[c] for c in cs)
        used = prob.add_variable(f"z_{p}", cat="Binary")
        # A used pattern holds k records or more; an unused one none.
        prob += size >= data.k * used, f"least_{p}"
        prob += size <= room * used, f"used_{p}"
        # t-closeness: b * sum |n c(w) - Q N| <= a * D * N (patterns module docstring).
        gaps = []
        for i, (w, total) in enumerate(terms):
            expr = pulp.LpAffineExpression([(y[c], n * int(w[vs[c]])) for c in cs])
            gap = prob.add_variable(f"e_{p}_{i}", 0, n * room)
            prob += gap >= expr - total * size, f"above_{p}_{i}"
            prob += gap >= total * size - expr, f"below_{p}_{i}"
            gaps.append(gap)
        if gaps:
            prob += b * pulp.lpSum(gaps) <= a * data.scale * size, f"close_{p}"
    # The cheap lower bound and the start's cost (or the given upper bound).
    prob += objective >= data.lb, "lower_bound"
    if data.ub is not None:
        prob += objective <= data.ub, "upper_bound"
    return prob, (ks, vs), y


def solve_highs(
    instance: TClosenessInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal t-closeness by suppression as an ILP solved by HiGHS (through PuLP).

    Same contract as :func:`~anonratio.exact.tcloseness.cpsat.solve_cpsat`:
    ``status="optimal"`` only when HiGHS's own bound proves it (never from PuLP's status,
    :func:`~anonratio.exact.run.run_pulp`), else ``time_limit`` with the incumbent and the
    bound.

    Parameters
    ----------
    instance : TClosenessInstance
    time_limit : float
        Seconds, > 0.
    seed : int or None
        HiGHS's ``random_seed`` (None means 0); recorded as given.
    threads : int
        HiGHS threads, >= 1.
    hint : Solution or array of int, optional
        A feasible partition used as a MIP start; its cost bounds the objective.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm="tclose-highs"``; ``info`` as for ``solve_cpsat``, with HiGHS's statistics.

    Notes
    -----
    The CP-SAT model's size, plus one binary per pattern; the closeness rows hold integer
    coefficients up to about ``2 n^2`` times ``S n`` (small for the instances it is run on).

    HiGHS runs without its presolve. With it, HiGHS 1.14.0 reported "Optimal" with a wrong
    bound on about one in ten random tables with the ordered ground and ``k = 2`` (``n = 15``,
    ``random_instance(15, d=3, cardinality=3, m=3, t=0.25, k=2, correlation=0.4,
    ground="ordered", seed=570)``: 17, where CP-SAT, CBC and HiGHS without presolve prove 15,
    and HiGHS itself accepts the cost-15 partition as a MIP start). Without presolve it agreed
    with CP-SAT on every table compared (the tests keep comparing them).

    Examples
    --------
    >>> from anonratio.instances import Table
    >>> t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 0, 1, 1],
    ...           sensitive_values=["flu", "cold"])
    >>> sol = solve_highs(TClosenessInstance(t, 0.2, k=2), time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 4.0)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_labels, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    data = build_data(instance, hint_labels=hint_labels, upper_bound=upper_bound)
    params = run_params(instance, time_limit, threads, upper_bound, hint)
    common: dict[str, Any] = {"algorithm": "tclose-highs", "params": params, "seed": seed, "t0": t0}
    if data.too_large:
        return make_solution(instance, data, None, None, **common)
    prob, (ks, vs), y = _ilp_model(data)
    if data.hint_y is not None:  # MIP start: the hint's or the one-group partition's counts
        for var, k, v in zip(y, ks.tolist(), vs.tolist(), strict=True):
            var.setInitialValue(int(data.hint_y[k, v]))
    run = run_pulp(
        prob,
        solver="highs",
        time_limit=time_limit,
        seed=solver_seed,
        threads=threads,
        warm_start=data.hint_y is not None,
        integral=True,
        highs_presolve=False,  # HiGHS's presolve returns wrong optima on this model (Notes)
    )
    yv = None
    if run.value is not None:
        yv = np.zeros((data.n_pairs, data.totals.size), dtype=np.float64)
        yv[ks, vs] = [run.value(var) or 0.0 for var in y]
    return make_solution(instance, data, run, yv, **common)
