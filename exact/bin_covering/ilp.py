"""Exact Min-Max Bin Covering as an ILP (PuLP with HiGHS or CBC).

The aggregated model of :mod:`anonratio.exact.bin_covering.cpsat`, with the semi-continuous load
domain ``{0} ∪ [k, T]`` written with a binary ``u[j]`` (bin ``j`` is used):
``k u[j] <= load[j] <= T u[j]``, ``u[j] >= u[j+1]``, ``load[j] >= load[j+1]``; the objective is
``load[0]``, the largest load.
"""

from __future__ import annotations

from time import perf_counter

import numpy as np
import pulp

from anonratio.exact.bin_covering.cpsat import build_data, make_solution, solve_iv
from anonratio.exact.options import run_params
from anonratio.exact.run import run_pulp
from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import BinCoveringInstance

__all__ = ["solve_highs", "solve_cbc", "solve_ilp"]


def _ilp_model(instance, data):
    """The aggregated ILP of the module docstring: ``(prob, y, u)``."""
    k, B, d = instance.k, data.n_bins, data.values.size
    ub = data.ub
    prob = pulp.LpProblem("min_max_bin_covering", pulp.LpMinimize)

    # y[t][j]: items of size values[t] in bin j; u[j]: bin j is used.
    y = [
        [prob.add_variable(f"y_{t}_{j}", 0, data.cap(t), cat="Integer") for j in range(B)]
        for t in range(d)
    ]
    u = [prob.add_variable(f"u_{j}", 0, 1, cat="Binary") for j in range(B)]
    # load[j]: the bin's load (an expression, not a variable).
    load = [pulp.lpSum(int(data.values[t]) * y[t][j] for t in range(d)) for j in range(B)]
    # Objective: bin 0 is the heaviest (symmetry breaking below).
    prob += load[0]
    # Every item is in exactly one bin.
    for t in range(d):
        prob += pulp.lpSum(y[t]) == int(data.counts[t]), f"assign_{t}"
    # A used bin holds k .. T, an unused one nothing.
    for j in range(B):
        prob += load[j] >= k * u[j], f"cover_{j}"
        prob += load[j] <= ub * u[j], f"cap_{j}"
    # Symmetry breaking: used bins first, loads non-increasing.
    for j in range(B - 1):
        prob += u[j] >= u[j + 1], f"used_order_{j}"
        prob += load[j] >= load[j + 1], f"load_order_{j}"
    # Valid bounds on the largest load.
    prob += load[0] >= data.lb, "lower_bound"
    prob += pulp.lpSum(load) == instance.total, "total"
    return prob, y, u


def _ilp_hint(data, y, u):
    """A MIP start: the hint's counts, and which bins they use."""
    for t in range(data.values.size):
        for j in range(data.n_bins):
            y[t][j].setInitialValue(int(data.hint_y[t, j]))
    used = data.hint_y.sum(axis=0) > 0
    for j in range(data.n_bins):
        u[j].setInitialValue(int(used[j]))


def solve_ilp(
    instance: BinCoveringInstance,
    *,
    solver: str = "highs",
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal Min-Max Bin Covering as an ILP solved by HiGHS or CBC (through PuLP).

    Same contract as :func:`~anonratio.exact.bin_covering.cpsat.solve_cpsat`: the least possible
    largest load of a partition into bins of load at least ``k``, ``status="optimal"`` only when
    the solver's bound proves it (never from PuLP's status), else ``time_limit`` with the
    incumbent and the bound.

    Parameters
    ----------
    instance : BinCoveringInstance
    solver : {"highs", "cbc"}
    time_limit : float
        Seconds, > 0.
    seed : int or None
        Solver seed (None means 0); recorded as given.
    threads : int
        Solver threads, >= 1.
    hint : Solution or array of int, optional
        A feasible cover used as a MIP start (e.g. Spread's); its cost bounds the objective.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm`` = ``solver``; ``info``: ``n_values``, ``n_bins_max``, ``lower_bound_used``,
        ``upper_bound_used``, ``hint_cost``, solver statistics.

    Notes
    -----
    ``B (d + 1)`` integer variables for ``B = min(floor(S/k), n)`` bins and ``d`` distinct sizes.

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, WADS 2009, §4.

    Examples
    --------
    >>> from anonratio.instances.bin_covering.instance import BinCoveringInstance
    >>> sol = solve_ilp(BinCoveringInstance([5, 4, 3, 3, 2, 1], k=6), time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 6.0)
    """
    t0 = perf_counter()
    if solver not in ("highs", "cbc"):
        raise ValueError(f"`solver` must be one of ('highs', 'cbc'), got {solver!r}")
    time_limit, solver_seed, threads, hint_labels, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    data = build_data(instance, hint_labels=hint_labels, upper_bound=upper_bound)
    prob, y, u = _ilp_model(instance, data)
    if data.hint_y is not None:
        _ilp_hint(data, y, u)
    run = run_pulp(
        prob,
        solver=solver,
        time_limit=time_limit,
        seed=solver_seed,
        threads=threads,
        warm_start=data.hint_y is not None,
        integral=True,
    )
    value = run.value  # None without an incumbent
    yv = None if value is None else np.array([[value(v) or 0.0 for v in row] for row in y])
    return make_solution(
        instance,
        data,
        run,
        yv,
        algorithm=f"bc-{solver}",
        params=run_params(instance, time_limit, threads, upper_bound, hint),
        seed=seed,
        t0=t0,
    )


def solve_highs(
    instance: BinCoveringInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """:func:`solve_ilp` with HiGHS (``algorithm="bc-highs"``)."""
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
    instance: BinCoveringInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """:func:`solve_ilp` with CBC (``algorithm="bc-cbc"``)."""
    return solve_ilp(
        instance,
        solver="cbc",
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        hint=hint,
        upper_bound=upper_bound,
    )
