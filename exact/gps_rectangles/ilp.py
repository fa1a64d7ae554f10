"""Exact rectangle partition of GPS points as an ILP over candidate rectangles (PuLP).

The set-partitioning model described in :mod:`anonratio.exact.gps_rectangles.cpsat`: one binary per
grid rectangle of weight in ``[k, U]``, every cell of the compressed grid covered exactly once, the
objective ``T`` above every chosen rectangle's weight. Solved with HiGHS or CBC through
:func:`~anonratio.exact.run.run_pulp`.
"""

from __future__ import annotations

from time import perf_counter

import numpy as np
import pulp

from anonratio.exact.gps_rectangles.cpsat import _bounds, _finish_run, _solve_iv
from anonratio.exact.run import run_pulp
from anonratio.instances import Solution
from anonratio.instances.gps_rectangles.grid import grid_weights
from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance

__all__ = ["solve_ilp", "solve_highs", "solve_cbc"]


def _candidates(grid, k, ub):
    """All grid rectangles ``(i0, j0, i1, j1)`` with weight in ``[k, ub]`` and their weights."""
    nx, ny = grid.shape
    P = np.zeros((nx + 1, ny + 1), dtype=np.int64)
    P[1:, 1:] = grid.cumsum(0).cumsum(1)
    a0, a1 = np.triu_indices(nx)  # x-ranges [a0, a1]
    b0, b1 = np.triu_indices(ny)
    wt = (
        P[a1 + 1][:, b1 + 1] - P[a0][:, b1 + 1] - P[a1 + 1][:, b0] + P[a0][:, b0]
    )  # (x-ranges, y-ranges)
    ia, ib = np.nonzero((wt >= k) & (wt <= ub))
    cells = np.column_stack([a0[ia], b0[ib], a1[ia], b1[ib]])
    return cells, wt[ia, ib]


def _ilp_model(cells, wt, lb, ub, nx, ny):
    """The set-partitioning ILP over the candidates ``cells`` (weights ``wt``): ``(prob, x, T)``."""
    prob = pulp.LpProblem("gps_rectangles", pulp.LpMinimize)
    # x[r]: candidate r is one of the rectangles.
    x = [prob.add_variable(f"x_{r}", 0, 1, cat="Binary") for r in range(len(cells))]
    # T: the heaviest chosen rectangle (objective), between the bounds.
    T = prob.add_variable("T", lb, max(lb, ub), cat="Integer")
    prob += T
    # Every cell lies in exactly one chosen rectangle.
    cover: list[list[list[pulp.LpVariable]]] = [[[] for _ in range(ny)] for _ in range(nx)]
    for r, (i0, j0, i1, j1) in enumerate(cells.tolist()):
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                cover[i][j].append(x[r])
    for i in range(nx):
        for j in range(ny):
            prob += pulp.lpSum(cover[i][j]) == 1, f"cell_{i}_{j}"
    # The objective bounds every chosen rectangle's weight.
    for r in range(len(cells)):
        if wt[r] > lb:
            prob += T >= int(wt[r]) * x[r], f"T_{r}"
    return prob, x, T


def _ilp_hint(cells, hint_cells, hint_cost, x, T):
    """A MIP start: the hint's rectangles among the candidates, and its cost."""
    chosen = {tuple(c) for c in hint_cells.tolist()}
    for r, c in enumerate(cells.tolist()):
        x[r].setInitialValue(int(tuple(c) in chosen))
    T.setInitialValue(hint_cost)


def solve_ilp(
    instance: GpsRectanglesInstance,
    *,
    solver: str = "highs",
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | None = None,
) -> Solution:
    """Optimal rectangle partition as a set-partitioning ILP over candidate rectangles.

    Same contract as :func:`~anonratio.exact.gps_rectangles.cpsat.solve_cpsat`; ``status="optimal"``
    only when the solver's bound proves it. Binary ``x_r`` per candidate grid rectangle of weight in
    ``[k, U]``; every cell is covered by exactly one chosen candidate; ``T >= weight_r x_r``;
    minimize ``T``.

    Parameters
    ----------
    instance : GpsRectanglesInstance
    solver : {"highs", "cbc"}
    time_limit, seed, threads, hint
        As in :func:`~anonratio.exact.gps_rectangles.cpsat.solve_cpsat` (the hint is a MIP start).

    Returns
    -------
    Solution
        ``algorithm`` = ``solver``; ``info``: ``rectangles``, ``cells``, ``n_candidates``,
        ``grid``, bounds used, solver statistics.

    Notes
    -----
    ``O(nx^2 ny^2)`` candidates and ``O(nx^3 ny^3)`` nonzeros in the worst case (fewer with the
    weight window ``[k, U]``): the model, not the search, limits it to small grids.

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, WADS 2009, §3.

    Examples
    --------
    >>> from anonratio.instances.gps_rectangles.generators import pinwheel_gadget
    >>> sol = solve_ilp(pinwheel_gadget(3)[0], time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 3.0)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_cells, hint_cost = _solve_iv(
        instance, time_limit, seed, threads, hint
    )
    lb, ub = _bounds(instance, hint_cost)
    grid = grid_weights(instance)
    nx, ny = grid.shape
    cells, wt = _candidates(grid, instance.k, ub)
    prob, x, T = _ilp_model(cells, wt, lb, ub, nx, ny)
    if hint_cells is not None:
        _ilp_hint(cells, hint_cells, hint_cost, x, T)
    run = run_pulp(
        prob,
        solver=solver,
        time_limit=time_limit,
        seed=solver_seed,
        threads=threads,
        warm_start=hint is not None,
        integral=True,
    )
    chosen_cells = None
    value = run.value  # None without an incumbent
    if value is not None:
        chosen_cells = [tuple(c) for r, c in enumerate(cells.tolist()) if (value(x[r]) or 0) > 0.5]
    params = {**instance.params, "time_limit": time_limit, "threads": threads}
    params["hint"] = hint is not None
    info = {"n_candidates": int(len(cells)), "grid": [nx, ny]}
    return _finish_run(
        instance,
        run,
        chosen_cells,
        lb,
        ub,
        algorithm=f"gps-{solver}",
        params=params,
        seed=seed,
        t0=t0,
        info=info,
    )


def solve_highs(
    instance: GpsRectanglesInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | None = None,
) -> Solution:
    """:func:`solve_ilp` with HiGHS (``algorithm="gps-highs"``)."""
    return solve_ilp(
        instance, solver="highs", time_limit=time_limit, seed=seed, threads=threads, hint=hint
    )


def solve_cbc(
    instance: GpsRectanglesInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | None = None,
) -> Solution:
    """:func:`solve_ilp` with CBC (``algorithm="gps-cbc"``)."""
    return solve_ilp(
        instance, solver="cbc", time_limit=time_limit, seed=seed, threads=threads, hint=hint
    )
