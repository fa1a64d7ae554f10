"""The best guillotine partition of GPS points, by dynamic programming (a heuristic for the
rectangle partition of Du, Eppstein, Goodrich and Lueker 2009, §3).

Kd-tree splitting makes guillotine partitions; this DP finds the best of them over the compressed
grid of :mod:`anonratio.instances.gps_rectangles.grid`. It is an upper bound on the optimum,
equal to it when ``W < 5k`` (every partition into at most four rectangles is guillotine: the
smallest non-guillotine one is the five-rectangle pinwheel).
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.gps_rectangles.grid import grid_weights, solution_from_cells
from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance, gps_lower_bound
from anonratio.instances.validation import check_instance, check_time_limit

__all__ = ["guillotine", "GUILLOTINE_MAX_CELLS"]

#: the guillotine DP refuses (status ``memory_limit``) above this many table entries
GUILLOTINE_MAX_CELLS = 40_000_000


# ---------------------------------------------------------------------------------------------
def _guillotine_table(grid, k, deadline):
    """``F[(lx, ly)][i0, j0]``: least heaviest rectangle of a guillotine partition of the
    ``lx x ly`` cells at ``(i0, j0)`` into pieces of weight ``>= k`` (``inf`` if none); or
    ``None`` when the deadline passes."""
    nx, ny = grid.shape
    P = np.zeros((nx + 1, ny + 1), dtype=np.int64)
    P[1:, 1:] = grid.cumsum(0).cumsum(1)
    inf = np.iinfo(np.int64).max
    F: dict[tuple[int, int], np.ndarray] = {}
    for lx in range(1, nx + 1):
        if perf_counter() > deadline:
            return None, P
        for ly in range(1, ny + 1):
            wt = P[lx:, ly:] - P[:-lx, ly:] - P[lx:, :-ly] + P[:-lx, :-ly]
            best = np.where(wt >= k, wt, inf)  # one piece
            rows, cols = nx - lx + 1, ny - ly + 1
            cut = wt >= 2 * k  # both sides of a cut need k
            if cut.any():
                for t in range(1, lx):  # vertical cut after t columns
                    both = np.maximum(F[t, ly][:rows], F[lx - t, ly][t : t + rows])
                    np.minimum(best, both, out=best)
                for t in range(1, ly):  # horizontal cut after t rows
                    both = np.maximum(F[lx, t][:, :cols], F[lx, ly - t][:, t : t + cols])
                    np.minimum(best, both, out=best)
            F[lx, ly] = best
    return F, P


def _guillotine_cells(F, P, k, nx, ny):
    """Rebuild an optimal guillotine partition (cell ranges) top-down from the table."""
    out, stack = [], [(0, 0, nx, ny)]
    while stack:
        i0, j0, lx, ly = stack.pop()
        v = F[lx, ly][i0, j0]
        w = P[i0 + lx, j0 + ly] - P[i0, j0 + ly] - P[i0 + lx, j0] + P[i0, j0]
        if w >= k and w == v:
            out.append((i0, j0, i0 + lx - 1, j0 + ly - 1))
            continue
        for t in range(1, lx):
            if max(F[t, ly][i0, j0], F[lx - t, ly][i0 + t, j0]) == v:
                stack += [(i0, j0, t, ly), (i0 + t, j0, lx - t, ly)]
                break
        else:
            for t in range(1, ly):
                if max(F[lx, t][i0, j0], F[lx, ly - t][i0, j0 + t]) == v:
                    stack += [(i0, j0, lx, t), (i0, j0 + t, lx, ly - t)]
                    break
    return out


def guillotine(instance: GpsRectanglesInstance, *, time_limit: float = 60.0) -> Solution:
    """The best guillotine partition, by dynamic programming over grid sub-rectangles.

    A guillotine partition is made by recursive straight cuts across the current rectangle (kd-tree
    splitting makes one). The DP returns one whose heaviest rectangle is least among all guillotine
    partitions with every piece of weight ``>= k``. That is an *upper bound* on the optimum of the
    rectangle-partition problem, which may need non-guillotine partitions (the pinwheel of
    :func:`~anonratio.instances.gps_rectangles.generators.pinwheel_gadget`). The run's ``status``
    speaks about the general problem: ``optimal`` when the result is proven optimal for it — it
    meets the lower bound ``max(k, max w, ceil(W / floor(W/k)))``, or ``W < 5k`` (at most four
    rectangles exist, and every partition into at most four rectangles is guillotine) — else
    ``feasible``, with ``info["guillotine_optimal"] = True`` in both cases.

    Parameters
    ----------
    instance : GpsRectanglesInstance
    time_limit : float
        Seconds, > 0; checked between DP rounds. On expiry: ``status="time_limit"``, no labels.

    Returns
    -------
    Solution
        ``algorithm="gps-guillotine"``; ``lower_bound`` is the proven bound on the general optimum;
        ``info``: ``rectangles``, ``cells``, ``guillotine_optimal``, ``grid``, ``table_cells``.
        Above :data:`GUILLOTINE_MAX_CELLS` table entries: ``status="memory_limit"``.

    Notes
    -----
    ``nx^2 ny^2 / 4`` table entries and ``O(nx ny (nx + ny))`` vectorized steps over arrays of up
    to ``nx ny`` entries: ``O(nx^2 ny^2 (nx + ny))`` time, ``O(nx^2 ny^2)`` memory.

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, WADS 2009, §3 (kd-tree cuts are guillotine
    cuts).

    Examples
    --------
    >>> from anonratio.instances.gps_rectangles.generators import pinwheel_gadget
    >>> sol = guillotine(pinwheel_gadget(3)[0])
    >>> sol.objective > 3, sol.status
    (True, 'feasible')
    """
    t0 = perf_counter()
    check_instance(instance, GpsRectanglesInstance)
    time_limit = check_time_limit(time_limit)
    grid = grid_weights(instance)
    nx, ny = grid.shape
    lb = gps_lower_bound(instance)[0]
    size = (nx * (nx + 1) // 2) * (ny * (ny + 1) // 2)
    params = {**instance.params, "time_limit": time_limit}
    info = {"grid": [nx, ny], "table_cells": int(size), "lower_bound_used": int(lb)}
    common: dict[str, Any] = {
        "algorithm": "gps-guillotine",
        "params": params,
        "seed": None,
        "t0": t0,
    }
    if size > GUILLOTINE_MAX_CELLS:
        info["reason"] = f"DP table of {size} entries exceeds {GUILLOTINE_MAX_CELLS}"
        return solution_from_cells(
            instance, None, status="memory_limit", objective=None, bound=lb, info=info, **common
        )
    F, P = _guillotine_table(grid, instance.k, t0 + time_limit)
    if F is None:
        info["reason"] = "time limit reached before the DP table was complete"
        return solution_from_cells(
            instance, None, status="time_limit", objective=None, bound=lb, info=info, **common
        )
    value = int(F[nx, ny][0, 0])  # finite: the whole box weighs W >= k
    cells = _guillotine_cells(F, P, instance.k, nx, ny)
    proven = value <= lb or instance.total_weight < 5 * instance.k
    info["guillotine_optimal"] = True
    return solution_from_cells(
        instance,
        cells,
        status="optimal" if proven else "feasible",
        objective=float(value),
        bound=value if proven else lb,
        info=info,
        **common,
    )
