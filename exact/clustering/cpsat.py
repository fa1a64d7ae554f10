"""Exact clustering for anonymity with CP-SAT (Aggarwal et al., PODS 2006, §2 and §3).

Centers are input points and need not belong to their cluster (the package's convention). The
data (candidate radii, pairs, clusters, bounds, hint) come from
:mod:`anonratio.exact.clustering.candidates`; the ILP of :mod:`anonratio.exact.clustering.ilp`
is the same model.

**r-gather, (r, eps)-gather, (k, r)-center** (min max radius, §2). One cluster per center is
enough: two clusters on one center merge into one of the same radius, at least ``r`` points and
fewer clusters. With ``cand`` the sorted distinct distances up to an upper bound:

* ``y[v]``: a cluster is centered at ``v``; ``x[i, v]``: point ``i`` joins it (only pairs with
  ``d(i, v)`` up to the upper bound); ``o[i]``: ``i`` stays unclustered ((r, eps)-gather);
* ``sum_v x[i, v] + o[i] = 1``, ``sum_i o[i] <= floor(eps n)``, ``x[i, v] => y[v]``,
  ``sum_i x[i, v] >= r y[v]``, ``sum_v y[v] <= k`` ((k, r)-center; ``floor(n / r)`` always);
* the objective is the **index** ``R`` of the largest radius in ``cand``:
  ``x[i, v] => R >= index(d(i, v))`` and ``y[v] => R >= index(r-th smallest d(v, .))``.
  Minimizing an index is exact with float distances (no scaling) and integral.

**cellular, r-cellular** (§3, the paper's IP): clusters ``c = (v, d)``, ``d`` a distance from
``v``; two clusters may share a center, each paying ``f(v)``:

* ``y[c]``: cluster ``c`` is open; ``x[i, c]``: ``i`` joins it (potential members only,
  ``d(i, v) <= d``); ``sum_c x[i, c] = 1``, ``x[i, c] => y[c]``, and for r-cellular
  ``sum_i x[i, c] >= r y[c]``;
* minimize ``sum_c f(v) y[c] + sum_{i, c} d x[i, c]``.

CP-SAT needs integer coefficients: when every ``f(v)`` and radius is a decimal with at most six
digits (``round(w 10^p) / 10^p == w``) the objective is scaled by ``10^p`` exactly (hamming
distances, integer grids under manhattan, integer matrices). Otherwise each coefficient ``w``
becomes ``floor(w 2^k)``, with ``2^k`` a power of two that keeps the sum of all coefficients
below ``2^52`` (:func:`floor_scaling`). The scaled objective of any clustering is
then at most ``2^k`` times its cost, so CP-SAT's integer bound ``B`` proves ``OPT >= B / 2^k``
(exact in floats: ``B < 2^53`` and a power-of-two division); and a clustering has at most
``2 n`` terms (``n`` members, at most ``n`` clusters in use), each rounded down by less than
one unit, so the model cannot tell apart costs closer than the *resolution* ``2 n / 2^k``. The
status is decided again from the verified cost and that bound
(:func:`~anonratio.exact.status.decide_status`): ``optimal`` when they are within the relative
tolerance ``1e-6`` or within the resolution (the cost is then optimal within the scaling's
resolution). ``info["objective_scaling"]`` says which scaling was used and
``info["objective_resolution"]`` gives the resolution (0 for an exact scaling). (CP-SAT's own
scaling of a float objective resolves about ``1e-6`` in absolute terms only: on five points
with an optimum of 0.027 it stopped ``feasible`` at a relative gap of ``3.7e-5``.) The cellular
model runs with CP-SAT's full LP relaxation (``linearization_level=2``).

**The run's deadline** (``time_limit`` from the call, or the enclosing
:func:`~anonratio.exact.options.run_deadline`'s when earlier) bounds the whole run: the data,
the model and the hint are built under it, and a model that cannot load in the time left is not
handed to CP-SAT (:mod:`anonratio.exact.clustering.deadline`). The run then stops with
``status="time_limit"``, the hint's clustering (if any) and the best bound it holds
(:func:`~anonratio.exact.clustering.limits.deadline_solution`).
"""

from __future__ import annotations

import math
from time import perf_counter
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

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
from anonratio.exact.run import run_cpsat
from anonratio.instances import Solution
from anonratio.instances.clustering.instance import ClusteringInstance

__all__ = ["solve_cpsat", "floor_scaling"]

#: a rounded-down scaling keeps the sum of all objective coefficients below this (every partial
#: sum of the integer coefficients, and CP-SAT's bound, are then exact in floats)
_FLOOR_TOTAL = 2.0**52

#: CP-SAT parameters of both models: the presolve step that turns clauses into exactly-one
#: constraints runs to a deterministic budget, not the wall clock (3.1 s of a 0.3 s limit on a
#: (k, r)-center model of 400 points and 55,000 pairs; 0.7 s without it), and gains nothing here
#: (the assignment rows already are exactly-one constraints)
_PARAMETERS = {"find_clauses_that_are_exactly_one": False}


# ---------------------------------------------------------------------------------------------
# r-gather, (r, eps)-gather, (k, r)-center
# ---------------------------------------------------------------------------------------------
def _bool_vars(model, names, deadline: float) -> list:
    """One Boolean variable per name (an iterable of ``len``), the deadline checked as built."""
    names = list(names)
    out: list[Any] = []
    for part in timed(len(names), deadline, "building the variables"):
        out.extend(model.new_bool_var(names[p]) for p in part)
    return out


def _gather_model(instance: ClusteringInstance, data: GatherData, deadline: float = math.inf):
    """The min-max-radius model of the module docstring: ``(model, x, y, o, R)``."""
    n, T = instance.n, data.cand.size
    LE = cp_model.LinearExpr
    model = cp_model.CpModel()

    # R: index in cand of the largest radius (the objective), at least the proven lower bound.
    R = model.new_int_var(data.t_lb, T - 1, "R")
    # y[j]: a cluster is centered at point centers[j].
    y = _bool_vars(model, (f"y_{v}" for v in data.centers), deadline)
    # x[p]: point pi[p] joins the cluster centered at pv[p].
    pairs_ = zip(data.pi.tolist(), data.pv.tolist(), strict=True)
    x = _bool_vars(model, (f"x_{i}_{v}" for i, v in pairs_), deadline)
    # o[i]: point i stays unclustered ((r, eps)-gather only).
    o = _bool_vars(model, (f"o_{i}" for i in range(n)), deadline) if data.max_outliers else []

    # Every point is in exactly one cluster (or unclustered).
    rows = groups(data.pi, n)
    for part in timed(n, deadline, "building the constraints"):
        for i in part:
            model.add_exactly_one([x[p] for p in rows[i]] + ([o[i]] if o else []))
    if o:
        model.add(LE.sum(o) <= data.max_outliers)
    # A point joins an open cluster only, and raises the radius to its distance.
    slot = np.searchsorted(data.centers, data.pv)
    for part in timed(len(x), deadline, "building the constraints"):
        for p in part:
            model.add_implication(x[p], y[slot[p]])
            if data.pt[p] > data.t_lb:
                model.add(R >= int(data.pt[p])).only_enforce_if(x[p])
    # An open cluster has at least r members, hence a radius of at least its r-th distance.
    for j, pairs in enumerate(groups(slot, data.centers.size)):
        if data.r > 1:
            model.add(LE.sum([x[p] for p in pairs]) >= data.r * y[j])
        if data.center_t[j] > data.t_lb:
            model.add(R >= int(data.center_t[j])).only_enforce_if(y[j])
    # At most k clusters ((k, r)-center), never more than floor(n / r).
    model.add(LE.sum(y) <= data.max_clusters)

    # Objective: the index of the largest radius.
    model.minimize(R)
    return model, x, y, o, R


def _gather_hint(model, data: GatherData, x, y, o, R, deadline: float = math.inf) -> None:
    """A complete hint: the hint's pairs, centers, outliers and radius index."""
    hint_pair, hint_t = data.hint_pair, data.hint_t
    assert hint_pair is not None and hint_t is not None  # called with a hint only
    chosen = hint_pair[hint_pair >= 0]
    on = np.zeros(len(x), dtype=bool)
    on[chosen] = True
    for part in timed(len(x), deadline, "setting the hint"):
        for p in part:
            model.add_hint(x[p], bool(on[p]))
    opened = np.isin(data.centers, data.pv[chosen])
    for j, var in enumerate(y):
        model.add_hint(var, bool(opened[j]))
    for i, var in enumerate(o):
        model.add_hint(var, bool(hint_pair[i] < 0))
    model.add_hint(R, max(int(hint_t), data.t_lb))


def _solve_gather(instance, data, deadline, seed, threads):
    check_size(data.nonzeros(), "cpsat", deadline, build=True)
    model, x, y, o, R = _gather_model(instance, data, deadline)
    if data.hint_pair is not None:
        _gather_hint(model, data, x, y, o, R, deadline)
    check_size(data.nonzeros(), "cpsat", deadline, build=False)
    run = run_cpsat(
        model, time_limit=seconds_left(deadline), seed=seed, threads=threads, parameters=_PARAMETERS
    )
    decoded = None
    value = run.value  # None without an incumbent
    if value is not None:
        chosen = np.flatnonzero([value(v) for v in x])
        decoded = data.decode(chosen, instance.n)
    bound = float(data.cand[int(run.bound)]) if run.bound is not None else None
    return run, decoded, bound, 0.0  # an index objective: no scaling, no resolution


# ---------------------------------------------------------------------------------------------
# cellular, r-cellular
# ---------------------------------------------------------------------------------------------
def floor_scaling(coef_y: np.ndarray, coef_x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Integer coefficients for float costs: ``(floor(coef_y 2^k), floor(coef_x 2^k), 2^k)``.

    ``2^k`` is the largest power of two (``k <= 1000``) that takes the float sum of the
    coefficients below ``2^51``, so the true sum stays below ``2^52``. The products are exact (a
    power of two), so each coefficient loses less than one unit to the floor and none is
    rounded up.

    Examples
    --------
    >>> cy, cx, scale = floor_scaling(np.array([0.1]), np.array([0.2, 0.3]))
    >>> scale == 2.0**51, bool(cx[0] / scale <= 0.2 < (cx[0] + 1) / scale)
    (True, True)
    """
    total = float(np.sum(coef_y) + np.sum(coef_x))
    # total < 2^e (frexp's mantissa is below 1): the sum scaled by 2^(51 - e) stays below 2^51,
    # and below 2^52 whatever rounding error the float sum holds
    k = 51 - math.frexp(total)[1] if total > 0 else 0
    scale = math.ldexp(1.0, min(k, 1000))
    return np.floor(coef_y * scale), np.floor(coef_x * scale), scale


def _cellular_model(
    instance: ClusteringInstance, data: CellularData, cy: list, cx: list, deadline: float = math.inf
):
    """The cluster IP of §3 (module docstring) with objective coefficients ``cy`` (opening a
    cluster) and ``cx`` (a pair): ``(model, x, y)``."""
    n, m = instance.n, data.cv.size
    LE = cp_model.LinearExpr
    model = cp_model.CpModel()

    # y[c]: cluster c = (cv[c], crad[c]) is open.
    y = _bool_vars(model, (f"y_{v}_{c}" for c, v in enumerate(data.cv.tolist())), deadline)
    # x[p]: point pi[p] joins cluster pc[p] (a potential member: within its radius).
    pairs_ = zip(data.pi.tolist(), data.pc.tolist(), strict=True)
    x = _bool_vars(model, (f"x_{i}_{c}" for i, c in pairs_), deadline)

    # Every point is in exactly one cluster.
    rows = groups(data.pi, n)
    for part in timed(n, deadline, "building the constraints"):
        for i in part:
            model.add_exactly_one([x[p] for p in rows[i]])
    # A point joins an open cluster only.
    pc = data.pc.tolist()
    for part in timed(len(x), deadline, "building the constraints"):
        for p in part:
            model.add_implication(x[p], y[pc[p]])
    # r-cellular: an open cluster has at least r members.
    if data.r > 1:
        for part in timed(m, deadline, "building the constraints"):
            for c in part:
                members = x[data.start[c] : data.start[c + 1]]
                model.add(LE.sum(members) >= data.r * y[c])

    # Objective: setup costs of the open clusters plus radius x members, integers.
    model.minimize(LE.weighted_sum(y + x, cy + cx))
    return model, x, y


def _cellular_hint(model, data: CellularData, x, y, deadline: float = math.inf) -> None:
    """A complete hint: the hint's pairs and the clusters they open."""
    on = np.zeros(len(x), dtype=bool)
    on[data.hint_pair] = True
    opened = np.zeros(len(y), dtype=bool)
    opened[data.pc[data.hint_pair]] = True
    for part in timed(len(x), deadline, "setting the hint"):
        for p in part:
            model.add_hint(x[p], bool(on[p]))
    for c, var in enumerate(y):
        model.add_hint(var, bool(opened[c]))


def _solve_cellular(instance, data, deadline, seed, threads):
    check_size(data.nonzeros(), "cpsat", deadline, build=True)
    if data.scale is not None:  # exact: decimals scaled by 10^p
        cy, cx, scale, resolution = data.coef_y, data.coef_x, data.scale, 0.0
    else:
        cy, cx, scale = floor_scaling(data.coef_y, data.coef_x)
        resolution = 2 * instance.n / scale
        data.info["objective_scaling"] = f"integer x 2^{round(math.log2(scale))} (rounded down)"
    data.info["objective_resolution"] = resolution
    ints = (cy.astype(np.int64).tolist(), cx.astype(np.int64).tolist())
    model, x, y = _cellular_model(instance, data, *ints, deadline)
    if data.hint_pair is not None:
        _cellular_hint(model, data, x, y, deadline)
    check_size(data.nonzeros(), "cpsat", deadline, build=False)
    # the full LP relaxation (linearization_level 2) closes the gap of this facility-location
    # model far faster (r-cellular, 20 uniform points: 1.8 s instead of 47 s)
    params: dict = {**_PARAMETERS, "linearization_level": 2}
    run = run_cpsat(
        model, time_limit=seconds_left(deadline), seed=seed, threads=threads, parameters=params
    )
    decoded = None
    value = run.value  # None without an incumbent
    if value is not None:
        chosen = np.flatnonzero([value(v) for v in x])
        decoded = data.decode(chosen, instance.n)
    # an integer bound (< 2^53) over a power of ten or of two: OPT >= bound / scale
    bound = None if run.bound is None else run.bound / scale
    return run, decoded, bound, resolution


# ---------------------------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------------------------
def solve_cpsat(
    instance: ClusteringInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Optimal r-gather, (r, eps)-gather, (k, r)-center, cellular or r-cellular clustering with
    CP-SAT.

    Proves the clustering optimal (``status="optimal"``, ``lower_bound == objective``) unless
    the time limit stops the search first (``status="time_limit"`` with the best clustering
    found, if any, and the proven bound). Models: module docstring.

    Parameters
    ----------
    instance : ClusteringInstance
        An r-gather, r-eps-gather, kr-center, cellular or r-cellular instance.
    time_limit : float
        Seconds for the whole run from the call, > 0: building the model counts, CP-SAT gets
        what is left (``max_time_in_seconds``). Module docstring: "The run's deadline".
    seed : int or None
        CP-SAT's ``random_seed`` (None means 0); recorded as given.
    threads : int
        CP-SAT workers (``num_workers``), >= 1.
    hint : Solution or array of int, optional
        A feasible clustering to start from (its ``info["centers"]`` are used when given; with
        plain labels each cluster gets its best center); its cost bounds the objective. When
        the deadline stops the run before CP-SAT, it is the run's clustering, and a Solution's
        ``lower_bound`` (trusted as proven) may be the run's bound.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``algorithm="<problem>-cpsat"`` (``"r-gather-cpsat"``); ``objective`` the verified
        cost, ``info``: ``centers``, ``radii``, the model size (``n_candidate_radii``,
        ``n_pairs``, ``n_centers`` or ``n_clusters``), ``upper_bound_used``,
        ``objective_scaling`` (cellular), CP-SAT statistics.

    Notes
    -----
    ``O(n^2)`` pair literals for the gather problems, ``O(n^3)`` for the cellular ones;
    exponential time in the worst case (every problem is NP-hard: §2.1, §3).

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu,
    "Achieving Anonymity via Clustering", PODS 2006, §2 (r-gather, §2.3, §2.4) and §3 (the IP).

    Examples
    --------
    >>> from anonratio.instances.clustering import RGatherInstance
    >>> sol = solve_cpsat(RGatherInstance([[0.0], [1.0], [10.0], [12.0]], r=2), time_limit=10)
    >>> sol.status, sol.objective  # {0, 1} and {10, 12}, the latter of radius 2
    ('optimal', 2.0)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_lc, upper_bound = solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    deadline = within_run(t0 + time_limit)
    gather = isinstance(instance, GATHER)
    build = gather_data if gather else cellular_data
    common: dict[str, Any] = {
        "algorithm": f"{instance.problem}-cpsat",
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
        solve = _solve_gather if gather else _solve_cellular
        run, decoded, bound, resolution = solve(instance, data, deadline, solver_seed, threads)
    except BuildTimeout as stop:
        info["hint_used"] = False
        return deadline_solution(
            instance, hint_lc, hint_bound, str(stop), info, solver="cp-sat", **common
        )
    data.info["hint_used"] = data.hint_pair is not None
    decoded, bound = after_limit(instance, run, decoded, bound, hint_lc, hint_bound, info)
    return make_solution(instance, run, decoded, bound, data.info, resolution=resolution, **common)
