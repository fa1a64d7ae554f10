"""Exact clustering for anonymity as an ILP (PuLP with HiGHS or CBC; Aggarwal et al., PODS 2006).

The models of :mod:`anonratio.exact.clustering.cpsat`, linear:

* **r-gather, (r, eps)-gather, (k, r)-center**: the radius index is written with monotone
  binary levels ``z[t]`` ("the largest radius is at least ``cand[t]``", ``z[t] <= z[t-1]``)
  from the proven lower bound ``t0`` on (``z[t0] = 1``); ``R = t0 - 1 + sum_t z[t]`` is
  minimized (an integer, so the solvers stop once ``objective - bound < 1`` and the bound is
  rounded up: exact with float distances). ``x[i, v] <= z[index(d(i, v))]``,
  ``y[v] <= z[index(r-th distance of v)]``, ``x[i, v] <= y[v]``, ``sum_i x[i, v] >= r y[v]``,
  ``sum_v x[i, v] + o[i] = 1``, ``sum o <= floor(eps n)``, ``sum y <= k``.
* **cellular, r-cellular**: the paper's IP over clusters ``c = (v, d)`` (§3), ``x[i, c] <= y[c]``
  (the disaggregated form of the LP), ``sum_i x[i, c] >= r y[c]``. The objective keeps its float
  coefficients (HiGHS and CBC are floating-point solvers), or is scaled to integers by
  ``10^p`` when that is exact (then ``integral=True``).

The status comes from the solver's own proof (:func:`~anonratio.exact.run.run_pulp`), never from
PuLP's ``prob.status``, and is decided again from the verified cost.

The run's deadline bounds the whole run, as for CP-SAT (module docstring of
:mod:`~anonratio.exact.clustering.cpsat`): PuLP's copy of a model into HiGHS, or its MPS file
for CBC, cannot be interrupted, so a model too large to load in the time left is not handed over
(:mod:`anonratio.exact.clustering.deadline`).
"""

from __future__ import annotations

import math
from time import perf_counter
from typing import Any

import numpy as np
import pulp

from anonratio.exact.clustering.candidates import (
    GATHER,
    CellularData,
    GatherData,
    cellular_data,
    gather_data,
    groups,
    make_solution,
    solve_iv,
)
from anonratio.exact.clustering.deadline import BuildTimeout, check_size, timed
from anonratio.exact.clustering.limits import after_limit, deadline_solution
from anonratio.exact.options import run_params, seconds_left, within_run
from anonratio.exact.run import run_pulp
from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance

__all__ = ["solve_highs", "solve_cbc", "solve_ilp"]


# ---------------------------------------------------------------------------------------------
# r-gather, (r, eps)-gather, (k, r)-center
# ---------------------------------------------------------------------------------------------
def _binaries(prob, names, deadline: float) -> list:
    """One binary variable per name (an iterable), the deadline checked as they are built."""
    names = list(names)
    out: list[Any] = []
    for part in timed(len(names), deadline, "building the variables"):
        out.extend(prob.add_variable(names[p], 0, 1, cat="Binary") for p in part)
    return out


def _gather_model(instance: ClusteringInstance, data: GatherData, deadline: float = math.inf):
    """The level ILP of the module docstring: ``(prob, x, y, o, z)``."""
    n, T, t0 = instance.n, int(data.cand.size), int(data.t_lb)
    prob = pulp.LpProblem("min_max_radius_clustering", pulp.LpMinimize)

    # z[t - t0] for t0 <= t < T: the largest radius is at least cand[t] (z[0] = 1: the lower
    # bound; kept as a variable so that the objective is never a bare constant, which PuLP's
    # CBC path reads as 0).
    # (Integer, not Binary: PuLP resets a Binary's bounds to [0, 1].)
    z = [prob.add_variable(f"z_{t}", int(t == t0), 1, cat="Integer") for t in range(t0, T)]
    # y[j]: a cluster is centered at centers[j]; x[p]: point pi[p] joins the one at pv[p].
    y = _binaries(prob, (f"y_{v}" for v in data.centers), deadline)
    pairs_ = zip(data.pi.tolist(), data.pv.tolist(), strict=True)
    x = _binaries(prob, (f"x_{i}_{v}" for i, v in pairs_), deadline)
    # o[i]: point i stays unclustered ((r, eps)-gather only).
    o = _binaries(prob, (f"o_{i}" for i in range(n)), deadline)
    o = o if data.max_outliers else []

    def level(t):  # the variable "radius >= cand[t]" (None: implied by the lower bound)
        return z[t - t0] if t > t0 else None

    # Objective: the index of the largest radius.
    prob += t0 - 1 + pulp.lpSum(z)
    # The levels are monotone.
    for a in range(len(z) - 1):
        prob += z[a + 1] <= z[a], f"level_{a}"
    # Every point is in exactly one cluster (or unclustered).
    rows = groups(data.pi, n)
    for part in timed(n, deadline, "building the constraints"):
        for i in part:
            assign = pulp.lpSum([x[p] for p in rows[i]] + ([o[i]] if o else []))
            prob += assign == 1, f"assign_{i}"
    if o:
        prob += pulp.lpSum(o) <= data.max_outliers, "outliers"
    # A point joins an open cluster only, and raises the radius to its distance.
    slot = np.searchsorted(data.centers, data.pv)
    for part in timed(len(x), deadline, "building the constraints"):
        for p in part:
            prob += x[p] <= y[slot[p]], f"open_{p}"
            if level(data.pt[p]) is not None:
                prob += x[p] <= level(data.pt[p]), f"radius_{p}"
    # An open cluster has at least r members, hence a radius of at least its r-th distance.
    for j, pairs in enumerate(groups(slot, data.centers.size)):
        if data.r > 1:
            prob += pulp.lpSum(x[p] for p in pairs) >= data.r * y[j], f"size_{j}"
        if level(data.center_t[j]) is not None:
            prob += y[j] <= level(data.center_t[j]), f"least_radius_{j}"
    # At most k clusters ((k, r)-center), never more than floor(n / r).
    prob += pulp.lpSum(y) <= data.max_clusters, "clusters"
    return prob, x, y, o, z


def _gather_start(data: GatherData, x, y, o, z, deadline: float = math.inf) -> None:
    """A MIP start: the hint's pairs, centers, outliers and radius levels."""
    hint_pair, hint_t = data.hint_pair, data.hint_t
    assert hint_pair is not None and hint_t is not None  # called with a hint only
    chosen = hint_pair[hint_pair >= 0]
    on = np.zeros(len(x), dtype=bool)
    on[chosen] = True
    for part in timed(len(x), deadline, "setting the MIP start"):
        for p in part:
            x[p].setInitialValue(int(on[p]))
    opened = np.isin(data.centers, data.pv[chosen])
    for j, var in enumerate(y):
        var.setInitialValue(int(opened[j]))
    for i, var in enumerate(o):
        var.setInitialValue(int(hint_pair[i] < 0))
    for a, var in enumerate(z):
        var.setInitialValue(int(data.t_lb + a <= max(hint_t, data.t_lb)))


# ---------------------------------------------------------------------------------------------
# cellular, r-cellular
# ---------------------------------------------------------------------------------------------
def _cellular_model(instance: ClusteringInstance, data: CellularData, deadline: float = math.inf):
    """The cluster IP of §3: ``(prob, x, y)``."""
    n, m = instance.n, data.cv.size
    prob = pulp.LpProblem("cellular_clustering", pulp.LpMinimize)

    # y[c]: cluster c = (cv[c], crad[c]) is open.
    y = _binaries(prob, (f"y_{v}_{c}" for c, v in enumerate(data.cv.tolist())), deadline)
    # x[p]: point pi[p] joins cluster pc[p] (a potential member: within its radius).
    pairs_ = zip(data.pi.tolist(), data.pc.tolist(), strict=True)
    x = _binaries(prob, (f"x_{i}_{c}" for i, c in pairs_), deadline)

    # Objective: setup costs of the open clusters plus radius x members (scaled when exact).
    cy, cx = data.coef_y.tolist(), data.coef_x.tolist()
    if data.scale is not None:
        cy, cx = [int(v) for v in cy], [int(v) for v in cx]
    prob += pulp.LpAffineExpression(list(zip(y + x, cy + cx, strict=True)))
    # Every point is in exactly one cluster.
    rows = groups(data.pi, n)
    for part in timed(n, deadline, "building the constraints"):
        for i in part:
            prob += pulp.lpSum(x[p] for p in rows[i]) == 1, f"assign_{i}"
    # A point joins an open cluster only.
    pc = data.pc.tolist()
    for part in timed(len(x), deadline, "building the constraints"):
        for p in part:
            prob += x[p] <= y[pc[p]], f"open_{p}"
    # r-cellular: an open cluster has at least r members.
    if data.r > 1:
        for part in timed(m, deadline, "building the constraints"):
            for c in part:
                members = x[data.start[c] : data.start[c + 1]]
                prob += pulp.lpSum(members) >= data.r * y[c], f"size_{c}"
    return prob, x, y


def _cellular_start(data: CellularData, x, y, deadline: float = math.inf) -> None:
    """A MIP start: the hint's pairs and the clusters they open."""
    on = np.zeros(len(x), dtype=bool)
    on[data.hint_pair] = True
    opened = np.zeros(len(y), dtype=bool)
    opened[data.pc[data.hint_pair]] = True
    for part in timed(len(x), deadline, "setting the MIP start"):
        for p in part:
            x[p].setInitialValue(int(on[p]))
    for c, var in enumerate(y):
        var.setInitialValue(int(opened[c]))


# ---------------------------------------------------------------------------------------------
# the solvers
# ---------------------------------------------------------------------------------------------
def _build(instance, data, solver, deadline):
    """``(prob, x, integral)``: the model and its MIP start (from the hint, if any), built
    under the deadline, and refused when it could not load into ``solver`` in the time left."""
    check_size(data.nonzeros(), solver, deadline, build=True)
    start = data.hint_pair is not None
    if isinstance(data, GatherData):
        prob, x, y, o, z = _gather_model(instance, data, deadline)
        if start:
            _gather_start(data, x, y, o, z, deadline)
        integral = True
    else:
        prob, x, y = _cellular_model(instance, data, deadline)
        if start:
            _cellular_start(data, x, y, deadline)
        integral = data.scale is not None
    check_size(data.nonzeros(), solver, deadline, build=False)
    return prob, x, integral


def _chosen(run, x) -> np.ndarray:
    return np.flatnonzero([(run.value(v) or 0.0) > 0.5 for v in x])


def solve_ilp(
    instance: ClusteringInstance,
    *,
    solver: str = "highs",
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal clustering (any of the five problems) as an ILP solved by HiGHS or CBC.

    Same contract as :func:`~anonratio.exact.clustering.cpsat.solve_cpsat`: ``status="optimal"``
    only when the solver's bound proves the verified cost optimal, else ``time_limit`` with the
    incumbent and the bound. The hint is passed as a MIP start (HiGHS ``setSolution``, CBC
    ``warmStart``).

    Parameters
    ----------
    instance : ClusteringInstance
        One of the five registered clustering problems.
    solver : {"highs", "cbc"}
    time_limit : float
        Seconds for the whole run from the call, > 0: building the model and PuLP's copy of it
        into the solver count (module docstring).
    seed : int or None
        Solver seed (None means 0); recorded as given.
    threads : int
        Solver threads, >= 1.
    hint : Solution or array of int, optional
        A feasible clustering used as a MIP start; its cost bounds the objective. When the
        deadline stops the run before the solver, it is the run's clustering, and a Solution's
        ``lower_bound`` (trusted as proven) may be the run's bound.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm="<problem>-<solver>"``; ``info`` as for the CP-SAT solver.

    References
    ----------
    Aggarwal et al., PODS 2006, §2 and §3 (the IP over clusters ``(v, d)``).

    Examples
    --------
    >>> from anonratio.instances.clustering import CellularInstance
    >>> inst = CellularInstance([[0.0], [1.0], [10.0]], facility_costs=[1, 1, 1])
    >>> sol = solve_ilp(inst, time_limit=10)
    >>> sol.status, sol.objective  # three singletons, each paying its setup cost
    ('optimal', 3.0)
    """
    t0 = perf_counter()
    if solver not in ("highs", "cbc"):
        raise ValueError(f"`solver` must be one of ('highs', 'cbc'), got {solver!r}")
    time_limit, solver_seed, threads, hint_lc, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    deadline = within_run(t0 + time_limit)
    gather = isinstance(instance, GATHER)
    build = gather_data if gather else cellular_data
    common: dict[str, Any] = {
        "algorithm": f"{instance.problem}-{solver}",
        "params": run_params(instance, time_limit, threads, upper_bound, hint),
        "seed": seed,
        "t0": t0,
    }
    info: dict = {}
    hint_bound = hint.lower_bound if isinstance(hint, Solution) else None
    try:
        data = build(instance, hint=hint_lc, upper_bound=upper_bound, deadline=deadline)
        info = data.info
        if data.infeasible:
            return make_solution(
                instance, None, None, None, info, infeasible=data.infeasible, **common
            )
        start = data.hint_pair is not None
        prob, x, integral = _build(instance, data, solver, deadline)
    except BuildTimeout as stop:
        info["hint_used"] = False
        return deadline_solution(
            instance, hint_lc, hint_bound, str(stop), info, solver=solver, **common
        )
    run = run_pulp(
        prob,
        solver=solver,
        time_limit=seconds_left(deadline),
        seed=solver_seed,
        threads=threads,
        warm_start=start,
        integral=integral,
    )
    decoded = data.decode(_chosen(run, x), instance.n) if run.has_solution else None
    if isinstance(data, GatherData):
        bound = float(data.cand[int(run.bound)]) if run.bound is not None else None
    else:
        bound = data.unscale(run.bound)
    data.info["hint_used"] = start
    decoded, bound = after_limit(instance, run, decoded, bound, hint_lc, hint_bound, info)
    return make_solution(instance, run, decoded, bound, data.info, **common)


def solve_highs(
    instance: ClusteringInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """:func:`solve_ilp` with HiGHS (``algorithm="<problem>-highs"``)."""
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
    instance: ClusteringInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """:func:`solve_ilp` with CBC (``algorithm="<problem>-cbc"``)."""
    return solve_ilp(
        instance,
        solver="cbc",
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        hint=hint,
        upper_bound=upper_bound,
    )
