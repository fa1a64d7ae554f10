"""Exact l-diversity as an ILP (PuLP with HiGHS or CBC), both objectives.

The pattern model of :mod:`anonratio.exact.ldiversity.patterns`, as in
:mod:`anonratio.exact.ldiversity.cpsat`: integer ``y[k, v]`` (records of QI-group ``q_k`` with
sensitive value ``v`` under pattern ``p_k``), assignment equalities, one l-eligibility row per
pattern and value, and the per-record pattern costs as the objective. It is linear as it stands:
no big-M, no indicator variables.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np
import pulp

from anonratio.exact.ldiversity.patterns import (
    LDivData,
    build_data,
    make_solution,
    solve_iv,
)
from anonratio.exact.options import run_params
from anonratio.exact.run import run_pulp
from anonratio.instances import Solution
from anonratio.instances.ldiversity import LDiversityInstance

__all__ = ["solve_highs", "solve_cbc", "solve_ilp"]


def _ilp_model(data: LDivData):
    """The pattern model as a PuLP problem: ``(prob, cells, y)``."""
    prob = pulp.LpProblem("l_diversity", pulp.LpMinimize)
    ks, vs = data.cells()

    # y[c]: records of QI-group q_k with sensitive value v under pattern p_k, for cell c = (k, v).
    y = [
        prob.add_variable(f"y_{k}_{v}", 0, int(data.counts[data.pair_q[k], v]), cat="Integer")
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

    # Objective: each record costs its pattern's stars (or 1 if starred, for tuples).
    weights = data.cost[data.pair_p[ks]].tolist()
    objective = pulp.LpAffineExpression(
        [(y[c], int(w)) for c, w in enumerate(weights) if w], constant=0
    )
    prob += objective
    # Every record gets exactly one pattern.
    for (q, v), cs in cells_of_qv.items():
        prob += pulp.lpSum(y[c] for c in cs) == int(data.counts[q, v]), f"assign_{q}_{v}"
    # The records under each pattern form an l-eligible set: l * (value v) <= all.
    for (p, v), cs in cells_of_pv.items():
        share = set(cs)
        others = [y[c] for c in cells_of_p[p] if c not in share]
        # l * y_v <= y_v + others  <=>  (l - 1) * y_v <= others
        expr = pulp.LpAffineExpression([(y[c], data.l - 1) for c in cs])
        prob += expr <= pulp.lpSum(others), f"eligible_{p}_{v}"
    # Valid bounds: the phase-1 lower bound, and the hint's cost or the given upper bound.
    prob += objective >= data.lb, "lower_bound"
    if data.ub is not None:
        prob += objective <= data.ub, "upper_bound"
    return prob, (ks, vs), y


def solve_ilp(
    instance: LDiversityInstance,
    *,
    solver: str = "highs",
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal l-diversity as an ILP solved by HiGHS or CBC (through PuLP).

    Same contract as :func:`~anonratio.exact.ldiversity.cpsat.solve_cpsat`: a partition into
    l-eligible groups minimizing the instance's objective (stars or suppressed tuples),
    ``status="optimal"`` only when the solver's bound proves it (never from PuLP's status), else
    ``time_limit`` with the incumbent and the bound.

    Parameters
    ----------
    instance : LDiversityInstance
    solver : {"highs", "cbc"}
    time_limit : float
        Seconds, > 0.
    seed : int or None
        Solver seed (None means 0); recorded as given.
    threads : int
        Solver threads, >= 1.
    hint : Solution or array of int, optional
        A feasible partition used as a MIP start (e.g. TP+'s); its cost bounds the objective.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm="ldiv-highs"`` or ``"ldiv-cbc"``; ``info`` as for ``solve_cpsat``, with the
        solver's statistics.

    Notes
    -----
    About ``g 2^d m`` integer variables for stars and ``2 g m`` for tuples, whatever ``n``.

    References
    ----------
    X. Xiao, K. Yi, Y. Tao, EDBT 2010: §3, §5.1.

    Examples
    --------
    >>> from anonratio.instances import Table
    >>> t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 0, 1, 1],
    ...           sensitive_values=["flu", "cold"])
    >>> sol = solve_ilp(LDiversityInstance(t, 2, "tuples"), time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 4.0)
    """
    t0 = perf_counter()
    if solver not in ("highs", "cbc"):
        raise ValueError(f"`solver` must be one of ('highs', 'cbc'), got {solver!r}")
    time_limit, solver_seed, threads, hint_labels, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    data = build_data(instance, hint_labels=hint_labels, upper_bound=upper_bound)
    params = run_params(instance, time_limit, threads, upper_bound, hint)
    common: dict[str, Any] = {
        "algorithm": f"ldiv-{solver}",
        "params": params,
        "seed": seed,
        "t0": t0,
    }
    if data.too_large:
        return make_solution(instance, data, None, None, **common)
    prob, (ks, vs), y = _ilp_model(data)
    # MIP start: the counts of the hint or of the phase-1 partition.
    if data.hint_y is not None:
        for var, k, v in zip(y, ks.tolist(), vs.tolist(), strict=True):
            var.setInitialValue(int(data.hint_y[k, v]))
    run = run_pulp(
        prob,
        solver=solver,
        time_limit=time_limit,
        seed=solver_seed,
        threads=threads,
        warm_start=data.hint_y is not None,
        integral=True,
    )
    yv = None
    value = run.value  # None without an incumbent
    if value is not None:
        yv = np.zeros((data.n_pairs, data.counts.shape[1]), dtype=np.float64)
        yv[ks, vs] = [value(var) or 0.0 for var in y]
    return make_solution(instance, data, run, yv, **common)


def solve_highs(
    instance: LDiversityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """:func:`solve_ilp` with HiGHS (``algorithm="ldiv-highs"``)."""
    return solve_ilp(
        instance,
        solver="highs",
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        hint=hint,
        upper_bound=upper_bound,
    )


def solve_cbc(
    instance: LDiversityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """:func:`solve_ilp` with CBC (``algorithm="ldiv-cbc"``)."""
    return solve_ilp(
        instance,
        solver="cbc",
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        hint=hint,
        upper_bound=upper_bound,
    )
