"""Exact rectangle partition of GPS points (Du et al. 2009, §3).

The exact models (and the guillotine heuristic) work on the compressed grid of
:class:`~anonratio.instances.gps_rectangles.instance.GpsRectanglesInstance`: ``nx x ny`` cells,
column ``i`` / row ``j`` holding the ``i``-th distinct x / ``j``-th distinct y, edges at the
midpoints between them. Every tiling of the box can be moved onto that grid without changing which
points each rectangle holds (module notes of :mod:`anonratio.instances.gps_rectangles.instance`), so
optimizing over grid-aligned rectangles is exact.

* :func:`solve_cpsat` — CP-SAT with ``NoOverlap2D``: ``B = min(floor(W/k), #points of positive
  weight)`` optional rectangle slots; slot ``r`` has a presence literal, x/y start and size
  (optional interval variables on the grid), its area ``size_x * size_y`` when present; the
  intervals do not overlap and the areas sum to ``nx * ny`` (so the present slots tile the grid);
  ``m[p, r]`` puts point ``p`` in slot ``r`` (only inside it, exactly one slot per point);
  a present slot weighs ``>= k``; the objective ``T`` bounds every slot's weight. Symmetry:
  present slots first, ordered by their lower-left cell.
* :func:`~anonratio.exact.gps_rectangles.ilp.solve_highs` / ``solve_cbc`` (module
  :mod:`anonratio.exact.gps_rectangles.ilp`) — an ILP over candidate rectangles (every grid
  rectangle of weight in ``[k, U]``, ``U`` an upper bound): choose candidates covering every cell
  exactly once, ``T >= weight_r x_r``, minimize ``T``. ``O(nx^2 ny^2)`` candidates.
* :func:`anonratio.solvers.gps_rectangles.guillotine.guillotine` (a heuristic, in ``solvers``) —
  the best *guillotine* partition (recursive straight cuts, as kd-tree splitting makes) by
  dynamic programming over all grid sub-rectangles. It is an upper bound on the optimum, equal
  to it when ``W < 5k`` (at most four rectangles, and every partition into at
  most four rectangles is guillotine: the smallest non-guillotine one is the five-rectangle
  pinwheel).

The objective upper bound ``U = min(W, 4 (k - 1) + max w)`` comes from the kd-tree bound (see
:mod:`anonratio.solvers.gps_rectangles.kdtree_split`), or a hint's cost when smaller.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from anonratio.exact.run import check_run_options, run_cpsat
from anonratio.instances import Solution, verify
from anonratio.instances.gps_rectangles.grid import (
    labels_from_cells,
    rectangles_to_cells,
    solution_from_cells,
)
from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance, gps_lower_bound
from anonratio.instances.validation import check_instance

__all__ = ["solve_cpsat"]


# ---------------------------------------------------------------------------------------------
# shared helpers (also used by the ILP of anonratio.exact.gps_rectangles.ilp)
# ---------------------------------------------------------------------------------------------
def _solve_iv(instance, time_limit, seed, threads, hint):
    """Validate the common arguments; return ``(time_limit, seed, threads, hint_cells, cost)``."""
    check_instance(instance, GpsRectanglesInstance)
    time_limit, solver_seed, threads = check_run_options(time_limit, seed, threads)
    if hint is None:
        return time_limit, solver_seed, threads, None, None
    if not isinstance(hint, Solution):
        raise ValueError(f"`hint` must be a Solution with info['rectangles'], got {hint!r}")
    check = verify(instance, hint, strict=False)
    if not check.feasible:
        raise ValueError(f"`hint` must be a feasible solution: {'; '.join(check.violations[:3])}")
    assert check.cost is not None  # a feasible solution has its cost
    cells = rectangles_to_cells(instance, hint.info["rectangles"])
    return time_limit, solver_seed, threads, cells, int(check.cost)


def _bounds(instance, hint_cost):
    lb = gps_lower_bound(instance)[0]
    k = instance.k
    ub = min(instance.total_weight, 4 * (k - 1) + instance.max_weight)
    if hint_cost is not None:
        ub = min(ub, hint_cost)
    return lb, ub


def _finish_run(instance, run, cells, lb, ub, *, algorithm, params, seed, t0, info):
    info = {**info, **run.info, "lower_bound_used": int(lb), "upper_bound_used": int(ub)}
    bound = run.bound
    if run.status in ("optimal", "time_limit", "feasible"):
        bound = max(bound if bound is not None else -np.inf, lb)
        if run.status == "optimal":
            bound = run.objective
    else:
        bound = None
    return solution_from_cells(
        instance,
        cells if run.has_solution else None,
        algorithm=algorithm,
        status=run.status,
        objective=run.objective if run.has_solution else None,
        bound=bound,
        params=params,
        seed=seed,
        t0=t0,
        info=info,
    )


# ---------------------------------------------------------------------------------------------
# CP-SAT
# ---------------------------------------------------------------------------------------------
@dataclass
class _Slots:
    """The CP-SAT model of the module docstring and its variables, per slot ``r < B``.

    ``pts`` are the points of positive weight (the only ones a slot must hold).
    """

    model: cp_model.CpModel
    B: int
    pts: np.ndarray
    present: list  # present[r]: slot r is one of the rectangles
    x0: list  # x0[r], y0[r]: the slot's lower-left cell
    y0: list
    sx: list  # sx[r], sy[r]: its size in cells
    sy: list
    xe: list  # xe[r], ye[r]: one past its upper-right cell
    ye: list
    m: list  # m[p][r]: point pts[p] lies in slot r
    T: Any  # the heaviest slot (objective)


def _add_tiling(model, B, nx, ny):
    """Slots as optional rectangles on the ``nx x ny`` grid whose present ones tile it."""
    LE = cp_model.LinearExpr
    present = [model.new_bool_var(f"present_{r}") for r in range(B)]
    # Slot r covers the cells [x0, x0 + sx) x [y0, y0 + sy) when present.
    x0 = [model.new_int_var(0, nx - 1, f"x0_{r}") for r in range(B)]
    sx = [model.new_int_var(1, nx, f"sx_{r}") for r in range(B)]
    xe = [model.new_int_var(1, nx, f"xe_{r}") for r in range(B)]
    y0 = [model.new_int_var(0, ny - 1, f"y0_{r}") for r in range(B)]
    sy = [model.new_int_var(1, ny, f"sy_{r}") for r in range(B)]
    ye = [model.new_int_var(1, ny, f"ye_{r}") for r in range(B)]
    # xi[r], yi[r]: the slot's x and y extents, interval variables that exist when present.
    xi = [
        model.new_optional_interval_var(x0[r], sx[r], xe[r], present[r], f"xi_{r}")
        for r in range(B)
    ]
    yi = [
        model.new_optional_interval_var(y0[r], sy[r], ye[r], present[r], f"yi_{r}")
        for r in range(B)
    ]
    # Present slots do not overlap ...
    model.add_no_overlap_2d(xi, yi)
    # ... and their areas fill the grid, so they tile it.
    # area[r]: the slot's cell count when present, else 0.
    area = [model.new_int_var(0, nx * ny, f"area_{r}") for r in range(B)]
    for r in range(B):
        full = model.new_int_var(1, nx * ny, f"full_{r}")
        model.add_multiplication_equality(full, [sx[r], sy[r]])
        model.add(area[r] == full).only_enforce_if(present[r])
        model.add(area[r] == 0).only_enforce_if(~present[r])
        # An absent slot is pinned (no symmetric copies).
        for v, val in ((x0[r], 0), (sx[r], 1), (y0[r], 0), (sy[r], 1)):
            model.add(v == val).only_enforce_if(~present[r])
    model.add(LE.sum(area) == nx * ny)
    return present, x0, y0, sx, sy, xe, ye


def _build_model(instance, lb, ub):
    """The CP-SAT model of the module docstring: tiling slots, point membership, weights."""
    nx, ny = instance.grid_shape
    k, total = instance.k, instance.total_weight
    pts = np.flatnonzero(instance.weights > 0)
    px, py = instance.ix[pts].tolist(), instance.iy[pts].tolist()
    pw = instance.weights[pts].tolist()
    B = min(total // k, pts.size)
    model = cp_model.CpModel()
    LE = cp_model.LinearExpr
    present, x0, y0, sx, sy, xe, ye = _add_tiling(model, B, nx, ny)

    # m[p][r]: point p (positive weight) lies in slot r; only inside a present slot, one slot each.
    m = [[model.new_bool_var(f"m_{p}_{r}") for r in range(B)] for p in range(len(pts))]
    for p in range(len(pts)):
        for r in range(B):
            lit = m[p][r]
            model.add_implication(lit, present[r])
            model.add(x0[r] <= px[p]).only_enforce_if(lit)
            model.add(xe[r] >= px[p] + 1).only_enforce_if(lit)
            model.add(y0[r] <= py[p]).only_enforce_if(lit)
            model.add(ye[r] >= py[p] + 1).only_enforce_if(lit)
        model.add_exactly_one(m[p])
    # weight[r]: at least k when present, at most the objective T.
    T = model.new_int_var(lb, max(lb, ub), "T")
    weight = [model.new_int_var(0, total, f"w_{r}") for r in range(B)]
    for r in range(B):
        model.add(weight[r] == LE.weighted_sum([m[p][r] for p in range(len(pts))], pw))
        model.add(weight[r] >= k).only_enforce_if(present[r])
        model.add(weight[r] <= T)
    model.add(LE.sum(weight) == total)  # redundant
    # Symmetry breaking: present slots first, ordered by their lower-left cell.
    for r in range(B - 1):
        model.add_implication(present[r + 1], present[r])
        model.add(x0[r] * ny + y0[r] < x0[r + 1] * ny + y0[r + 1]).only_enforce_if(present[r + 1])
    model.minimize(T)
    return _Slots(model, B, pts, present, x0, y0, sx, sy, xe, ye, m, T)


def _add_hint(s, instance, hint_cells, hint_cost):
    """A complete hint: the hint's rectangles in slot order (by lower-left cell), their points."""
    model = s.model
    order = np.lexsort((hint_cells[:, 1], hint_cells[:, 0]))
    hc = hint_cells[order]
    hl = labels_from_cells(instance, hc)[s.pts]
    for r in range(s.B):
        on = r < len(hc)
        i0, j0, i1, j1 = (int(v) for v in hc[r]) if on else (0, 0, 0, 0)
        for var, val in ((s.present[r], on), (s.x0[r], i0), (s.sx[r], i1 - i0 + 1)):
            model.add_hint(var, int(val))
        for var, val in ((s.y0[r], j0), (s.sy[r], j1 - j0 + 1)):
            model.add_hint(var, int(val))
        for p in range(len(s.pts)):
            model.add_hint(s.m[p][r], int(on and hl[p] == r))
    model.add_hint(s.T, int(hint_cost))


def _decode_cells(run, s):
    """The present slots as grid cells ``(i0, j0, i1, j1)``, or None without a solution."""
    if not run.has_solution:
        return None
    return [
        (run.value(s.x0[r]), run.value(s.y0[r]), run.value(s.xe[r]) - 1, run.value(s.ye[r]) - 1)
        for r in range(s.B)
        if run.value(s.present[r])
    ]


def solve_cpsat(
    instance: GpsRectanglesInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | None = None,
) -> Solution:
    """Optimal rectangle partition with CP-SAT (``NoOverlap2D`` on the compressed grid).

    Finds the partition of the bounding box into axis-parallel rectangles of weight ``>= k`` whose
    heaviest rectangle is lightest, and proves it (``status="optimal"``) unless the time limit
    comes first (``status="time_limit"`` with the best partition and bound). Model: module
    docstring.

    Parameters
    ----------
    instance : GpsRectanglesInstance
    time_limit : float
        Seconds (``max_time_in_seconds``), > 0.
    seed : int or None
        CP-SAT ``random_seed`` (None means 0); recorded as given.
    threads : int
        CP-SAT workers, >= 1.
    hint : Solution, optional
        A feasible partition (e.g. kd-tree splitting's) used as a solution hint; its cost caps
        the objective.

    Returns
    -------
    Solution
        ``algorithm="gps-cpsat"``; ``info``: ``rectangles``, ``cells``, ``n_slots``, ``grid``,
        ``lower_bound_used``, ``upper_bound_used``, CP-SAT statistics.

    Notes
    -----
    ``B`` slots and ``B * n`` membership literals; exponential time in the worst case (the problem
    is NP-hard, Du et al. 2009, §3). Practical for a few dozen points.

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, WADS 2009, §3.

    Examples
    --------
    >>> from anonratio.instances.gps_rectangles.generators import cross_gadget
    >>> inst, meta = cross_gadget(3)
    >>> sol = solve_cpsat(inst, time_limit=10)
    >>> sol.status, sol.objective == meta["optimum"]
    ('optimal', True)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_cells, hint_cost = _solve_iv(
        instance, time_limit, seed, threads, hint
    )
    lb, ub = _bounds(instance, hint_cost)
    slots = _build_model(instance, lb, ub)
    if hint_cells is not None:
        _add_hint(slots, instance, hint_cells, hint_cost)
    run = run_cpsat(slots.model, time_limit=time_limit, seed=solver_seed, threads=threads)
    params = {**instance.params, "time_limit": time_limit, "threads": threads}
    params["hint"] = hint is not None
    info = {"n_slots": int(slots.B), "grid": list(instance.grid_shape)}
    return _finish_run(
        instance,
        run,
        _decode_cells(run, slots),
        lb,
        ub,
        algorithm="gps-cpsat",
        params=params,
        seed=seed,
        t0=t0,
        info=info,
    )
