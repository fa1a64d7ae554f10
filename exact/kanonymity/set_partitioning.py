"""The exact k-anonymity solve loop, shared by the CP-SAT and ILP solvers.

The formulation (set partitioning over groups of ``k .. 2k − 1`` records) and the reduced-cost
argument are in :mod:`anonratio.exact.kanonymity.columns`. The loop:

0. *Start*: the incumbent is the cheaper of the hint (if any) and a greedy partition.
1. *Bound*: the LP relaxation's dual-feasible prices ``pi`` and the lower bound ``LB = pi·c``
   (at most half of the time limit), by :func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`
   (the compact box model when it is small, else column generation from the nearest-neighbour
   prices; then subset-row cuts, whose prices join ``pi`` in every reduced cost) or, below
   ``LATTICE_MIN_UNIQUE`` unique records, by column generation over groups enumerated from
   representatives.
2. *Rounds*: enumerate every group with reduced cost ``rc_G <= Delta`` (box by box over the
   lattice, :mod:`~anonratio.exact.kanonymity.box_enumeration`, when step 1 priced over it; else
   from representatives), plus the incumbent's groups; solve that set-partitioning program with
   ``objective <= U`` (``U``: the incumbent's cost or ``upper_bound``; the proven ``LB`` is no
   row of the program, as it slows the solvers' proofs). Any partition using a
   group outside the set costs more than ``LB + Delta``; so the round's optimum ``z`` is optimal
   overall when ``z <= LB + Delta`` (rounded up to the next integer for integral costs). Otherwise
   the next round takes ``Delta = min(z − LB − 1, 2 Delta + 1)``. A round without any solution
   doubles ``Delta`` (or, when the rounds already cover every partition of cost ``<= upper_bound``,
   proves there is none). Rounds start at ``Delta = 1`` (one cost unit): small rounds are cheap,
   and the LP bound is usually close. Too many groups (``max_columns``) move ``Delta`` half way
   back to the last solved round's; a widening that would reach a ``Delta`` known to give too
   many goes half way to it instead. The loop gives up (``feasible``) only when such a step
   would prove less than one more cost unit. With the lattice's prices each round's program
   also holds the subset-row cuts over its groups and the reduced-cost budget
   ``rc·z <= U − D`` (``D`` the prices' dual objective): both hold for every partition of cost
   at most ``U`` (:func:`_valid_rows`).
3. When the time runs out, the best partition found (a hint counts) is returned with the best
   proven bound: ``min(round bound, LB + Delta)`` and never below ``LB``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from time import perf_counter

import numpy as np
import scipy.sparse as sp

from anonratio.exact.kanonymity.box_enumeration import Timeout as BoxTimeout
from anonratio.exact.kanonymity.box_enumeration import box_groups
from anonratio.exact.kanonymity.box_pricing import BoxLattice, lattice_nodes
from anonratio.exact.kanonymity.columns import (
    Columns,
    KAnonData,
    Timeout,
    TooLarge,
    column_generation,
    enumerate_groups,
    initial_pool,
    prepare,
)
from anonratio.exact.kanonymity.incumbents import (
    Incumbent,
    decode,
    greedy_incumbent,
    group_cost,
    hint_incumbent,
    nn_groups,
)
from anonratio.exact.kanonymity.lp_bound import LPBound, check_bound, lp_bound, recheck
from anonratio.exact.kanonymity.subset_row import SubsetRowCuts
from anonratio.exact.options import check_hint_labels, check_upper_bound, seconds_left
from anonratio.exact.run import RunResult, check_run_options
from anonratio.instances import KAnonymityInstance, Solution, lower_bound, verify
from anonratio.instances.validation import check_instance

#: largest lattice sweep (unique records times lattice nodes) priced over the lattice
MAX_LATTICE_WORK = 5e7
#: fewer unique records than this are priced by enumeration (each lattice node costs a few
#: vector operations however few the records: small instances enumerate faster)
LATTICE_MIN_UNIQUE = 100

__all__ = [
    "SPTask",
    "solve_by_columns",
]


@dataclass
class SPTask:
    """One set-partitioning solve over ``columns``, handed to a model builder.

    The builder minimizes ``cost @ z + del_coef * sum(dele)`` subject to
    ``incidence @ z + dele == counts`` (``dele`` only with row deletion), ``0 <= z <= zmax``,
    and ``objective <= ub`` (when given), starting from ``hint_z`` /
    ``hint_del`` (when given), with the solver's limit ``time_limit`` read after the model is
    built, and returns ``(RunResult, z, dele)``. Two families of rows hold
    for every partition of cost ``<= ub`` and tighten the model: ``cuts = (rows, rhs)``,
    subset-row cuts ``rows @ z <= rhs``, and ``budget = (rc, rc_del, room)``, the reduced-cost
    budget ``rc @ z [+ rc_del @ dele] <= room`` (see :func:`_valid_rows`). ``lb``, the proven
    lower bound, is not a row: the builders use it for tolerances only.
    """

    data: KAnonData
    columns: Columns
    incidence: sp.csr_matrix
    zmax: np.ndarray
    lb: float
    ub: float | None
    hint_z: np.ndarray | None
    hint_del: np.ndarray | None
    deadline: float
    seed: int
    threads: int
    cuts: tuple[sp.csr_matrix, np.ndarray] | None = None
    budget: tuple[np.ndarray, np.ndarray | None, float] | None = None

    @property
    def time_limit(self) -> float:
        """Seconds left until ``deadline``, read when the solver starts: the time spent
        building the model counts (at least a millisecond, as solvers need a positive limit)."""
        return seconds_left(self.deadline)


def _solve_iv(instance, time_limit, seed, threads, hint, upper_bound, bound=None):
    """Validate the options of the exact k-anonymity solvers (shared by every method)."""
    check_instance(instance, KAnonymityInstance)
    if bound is not None:
        check_bound(bound, len(instance.unique_records[2]))
    time_limit, solver_seed, threads = check_run_options(time_limit, seed, threads)
    upper_bound = check_upper_bound(upper_bound)
    labels = check_hint_labels(instance, hint)
    return time_limit, solver_seed, threads, labels, upper_bound


def _hint_on(cols, inc):
    """``inc``'s group counts re-indexed on ``cols`` (which contains all of its groups)."""
    where = {row.tobytes(): g for g, row in enumerate(cols.members)}
    z = np.zeros(len(cols))
    for row, times in zip(inc.columns.members, inc.z, strict=True):
        z[where[row.tobytes()]] += times
    return z


@dataclass
class _Loop:
    """State of the solve loop, in objective units."""

    inc: Incumbent | None = None
    bound: float = 0.0  # best proven lower bound
    status: str | None = None
    info: dict = field(default_factory=dict)
    limit: float | None = None  # no cost above it matters: the incumbent's or upper_bound
    delta: float = 0.0  # the next round enumerates the groups with rc <= delta
    too_big: float = np.inf  # the smallest delta known to give too many groups
    solved: float = 0.0  # the largest delta whose round enumerated every group and was solved
    run: RunResult | None = None  # the last round's solver run
    lattice: BoxLattice | None = None  # the rounds enumerate box by box when set
    cuts: SubsetRowCuts | None = None  # priced subset-row cuts: part of every reduced cost
    dual: float | None = None  # the prices' dual objective (the bound before its shift)


def _granularity(d):
    """Cost granularity: 1 for integral costs (a bound rounds up to the next integer), else 0."""
    return 1.0 if d.integral else 0.0


def _tol(d):
    """Tolerance of cost comparisons, in objective units."""
    return 1e-6 * max(1.0, d.lb_nn)


def _proof(d, base, delta):
    """Any partition using a group with ``rc > delta`` costs at least this."""
    return math.floor(base + delta + 1e-9) + 1 if d.integral else base + delta


def solve_by_columns(
    instance: KAnonymityInstance,
    sp_solve: Callable[[SPTask], tuple[RunResult, np.ndarray | None, np.ndarray | None]],
    *,
    algorithm: str,
    time_limit: float,
    seed: int | None,
    threads: int,
    hint: Solution | np.ndarray | None,
    upper_bound: float | None,
    need_integral: bool = False,
    max_columns: int = 300_000,
    bound: LPBound | None = None,
) -> Solution:
    """Run the exact pipeline (bound, then reduced-cost enumeration rounds) with ``sp_solve``.

    Returns the :class:`Solution`; ``status="optimal"`` only when the last set-partitioning round
    proved it (see the module docstring), ``"time_limit"`` with the best partition and bound when
    the time ran out, ``"infeasible"`` when no partition costs at most ``upper_bound``.

    ``bound``, an :class:`~anonratio.exact.kanonymity.lp_bound.LPBound` of ``instance``, replaces
    the bound phase's :func:`~anonratio.exact.kanonymity.lp_bound.lp_bound` on the lattice path
    once its prices are proven again (:func:`~anonratio.exact.kanonymity.lp_bound.recheck`); the
    representative path (fewer than ``LATTICE_MIN_UNIQUE`` unique records) computes its own.
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, labels, upper_bound = _solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound, bound
    )
    params = {
        **instance.params,
        "time_limit": time_limit,
        "threads": threads,
        "upper_bound": upper_bound,
        "hint": hint is not None,
    }
    try:
        d = prepare(instance, need_integral=need_integral, deadline=t0 + time_limit)
    except (TooLarge, Timeout) as exc:
        return _unprepared(
            instance, labels, exc, algorithm=algorithm, seed=seed, t0=t0, params=params
        )
    st = _start(d, labels, upper_bound, t0=t0, time_limit=time_limit)
    center, base = _bound_phase(d, st, t0=t0, time_limit=time_limit, bound=bound)
    _before_rounds(d, st, base)
    _rounds(
        d,
        st,
        sp_solve,
        center,
        base,
        deadline=t0 + time_limit,
        seed=solver_seed,
        threads=threads,
        max_columns=max_columns,
    )
    return _finish(d, st, st.run, algorithm=algorithm, seed=seed, t0=t0, params=params)


def _start(d, labels, upper_bound, *, t0, time_limit):
    """Step 0: the incumbent is the hint or a greedy partition, whichever is cheaper."""
    st = _Loop(inc=hint_incumbent(d, labels) if labels is not None else None)
    greedy = greedy_incumbent(d, deadline=t0 + 0.1 * time_limit)
    if greedy is not None and (st.inc is None or greedy.cost < st.inc.cost):
        st.inc = greedy
    st.info["start_cost"] = None if st.inc is None else st.inc.cost / d.scale
    ub = None if upper_bound is None else upper_bound * d.scale
    st.limit = ub if st.inc is None else min(st.inc.cost, ub if ub is not None else np.inf)
    return st


def _bound_phase(d, st, *, t0, time_limit, bound=None):
    """Step 1: a dual-feasible price vector with a high bound (at most half of the time).

    Column generation prices over the generalization lattice
    (:func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`) when a sweep of it is small
    (``MAX_LATTICE_WORK``) and the instance not too small (``LATTICE_MIN_UNIQUE``), else by
    enumerating groups from their representatives. Sets the
    loop's bound; returns the prices ``center`` and their bound ``base = pi·c``.
    """
    roundup = (lambda x: math.ceil(x - 1e-6)) if d.integral else (lambda x: x)
    nodes = lattice_nodes(d.instance)
    if LATTICE_MIN_UNIQUE <= d.u and nodes * d.u <= MAX_LATTICE_WORK:
        lattice = st.lattice = BoxLattice(d.instance)
        deadline = t0 + 0.5 * time_limit
        found = None if bound is None else recheck(bound, lattice, deadline=deadline)
        if found is None:
            found = lp_bound(
                d.instance,
                time_limit=max(0.0, deadline - perf_counter()),
                starts=[decode(d, st.inc)] if st.inc is not None else [],
                lattice=lattice,
                max_master=d.u,
            )
        st.info["bound_given"] = bound is not None
        center, base = d.scale * found.prices, d.scale * found.value
        if found.source == "subset-row":  # the cuts' prices are part of every reduced cost
            assert found.subset_row is not None  # set with that source
            st.cuts = found.subset_row.cuts
            center = d.scale * found.subset_row.prices
            st.info["subset_row_cuts"] = len(st.cuts)
        st.dual = float(center @ d.counts) - d.scale * (0 if st.cuts is None else st.cuts.dual)
        st.bound = roundup(max(base, d.lb_nn))
        st.info.update(
            lp_bound=found.value,
            nn_bound=d.lb_nn / d.scale,
            rounds=0,
            lower_bound_source=found.source,
            cg_iterations=found.cg_iterations,
            ascent_rounds=found.iterations,
            cg_lp=found.lp_value,
            time_bound=perf_counter() - t0,
        )
        return center, base
    deadline = t0 + 0.25 * time_limit
    starts = [initial_pool(d, deadline=deadline), nn_groups(d, deadline=deadline)]
    pool = Columns.concat(starts + ([st.inc.columns] if st.inc else []), d.width)
    center, base, pool, cg_info = column_generation(d, pool, deadline=t0 + 0.5 * time_limit)
    st.bound = roundup(max(base, d.lb_nn))
    st.info.update(cg_info, lp_bound=base / d.scale, nn_bound=d.lb_nn / d.scale, rounds=0)
    st.info["time_bound"] = perf_counter() - t0
    return center, base


def _before_rounds(d, st, base):
    """Settle the run when the bound alone does; else the first round's ``delta``."""
    g, tol, limit = _granularity(d), _tol(d), st.limit
    if limit is not None and limit < st.bound - tol:
        st.status = "infeasible"  # no partition costs at most upper_bound
    elif st.inc is not None and st.inc.cost <= st.bound + tol:
        st.status = "optimal"  # the hint meets the lower bound
    # small rounds first: each round is cheap, and a proof often needs only groups with rc < 1
    delta = max(g, float(d.a.min()))
    if limit is not None:
        delta = min(delta, limit - base - (g if st.inc is not None and limit == st.inc.cost else 0))
    st.delta = delta


def _rounds(d, st, sp_solve, center, base, *, deadline, seed, threads, max_columns):
    """Step 2: reduced-cost enumeration rounds until a proof, the deadline or the group cap."""
    min_delta = 1e-6 * max(1.0, base)
    # a round past the last solved one must widen by this much to prove more
    step = max(_granularity(d), min_delta)
    while st.status is None:
        st.info["rounds"] += 1
        try:
            cols, complete = _enumerate(d, st, center, max_columns, deadline)
        except (Timeout, BoxTimeout):
            st.status = "time_limit"
            break
        if not complete and st.delta > min_delta:  # too many groups: a smaller delta proves less
            st.too_big = min(st.too_big, st.delta)
            st.delta = (st.solved + st.delta) / 2  # half way back to the last solved round
            if st.solved > 0 and st.delta - st.solved < step:
                _capped(st, max_columns)
            continue
        if st.inc is not None:
            cols = Columns.concat([cols, st.inc.columns], d.width)
        a = cols.incidence(d.u)
        task = SPTask(
            d,
            cols,
            a,
            cols.zmax(a, d.counts),
            st.bound,
            st.limit,
            None if st.inc is None else _hint_on(cols, st.inc),
            None if st.inc is None else st.inc.dele,
            deadline,
            seed,
            threads,
            *_valid_rows(d, st, cols, a, center, st.limit),
        )
        st.run, z, dele = sp_solve(task)
        st.info.update(n_columns=len(cols), delta=st.delta / d.scale)
        _take_solution(d, st, cols, z, dele)
        # every partition using a group outside `cols` costs at least `outside`
        done = st.delta
        _after_round(d, st, _proof(d, base, st.delta) if complete else st.bound, base)
        st.solved = done if complete else st.solved
        if st.status is None and st.delta >= st.too_big:
            # the widened round would have too many groups: the time left goes to rounds
            # between the last solved one and the cap, while they still prove more
            st.delta = (st.solved + st.too_big) / 2
            if st.delta - st.solved < step:
                _capped(st, max_columns)


def _capped(st, max_columns):
    """End the loop: no round both fits ``max_columns`` and proves more than the last one."""
    st.status = "feasible" if st.inc is not None else "error"
    st.info["reason"] = f"group enumeration capped at max_columns={max_columns}"


def _valid_rows(d, st, cols, a, center, ub):
    """The subset-row cuts over the round's groups, and the reduced-cost budget.

    For any prices ``y`` (``center``, in objective units) and cut prices ``sigma >= 0``, a
    partition's cost is ``D + rc @ z + rc_del @ dele + sigma @ (rhs − rows @ z)``, with ``D`` the
    dual objective ``st.dual`` and ``rc`` the groups' reduced costs (cut penalties included); the
    cuts hold for every partition, so ``rc @ z + rc_del @ dele <= ub − D``. Only with the
    lattice's prices (``st.dual``) and an upper limit ``ub``.
    """
    if st.dual is None or ub is None:
        return None, None
    rc = cols.cost - a.T @ center
    cuts = None
    if st.cuts is not None:
        rc = rc + d.scale * st.cuts.penalty(cols.members)
        rows = st.cuts.coefficients(cols.members).T.tocsr()
        used = np.diff(rows.indptr) > 0
        cuts = (rows[used], st.cuts.rhs[used])
    rc_del = d.del_coef - center if d.instance.row_deletion else None
    return cuts, (rc, rc_del, ub - st.dual)


def _enumerate(d, st, center, max_columns, deadline):
    """The groups of ``rc <= st.delta`` at ``center`` and whether they are all of them: box by
    box over the lattice when the bound phase priced over it, else from representatives."""
    if st.lattice is None:
        cols, _, complete = enumerate_groups(
            d, center, st.delta, max_columns=max_columns, deadline=deadline
        )
        return cols, complete
    members, _, complete = box_groups(
        st.lattice,
        center / d.scale,
        st.delta / d.scale,
        max_columns=max_columns,
        deadline=deadline,
        penalty=None if st.cuts is None else st.cuts.penalty,
    )
    return Columns(members, group_cost(d, members)), complete


def _take_solution(d, st, cols, z, dele):
    """A round's partition becomes the incumbent when cheaper; the limit follows it."""
    if not st.run.has_solution:
        return
    tol = _tol(d)
    z = np.rint(z)
    dele = np.zeros(d.u) if dele is None else np.rint(dele)
    cost = float(cols.cost @ z + d.del_coef * dele.sum())
    if st.inc is None or cost < st.inc.cost - tol:
        st.inc = Incumbent(cols, z, dele, cost)
    st.limit = st.inc.cost if st.limit is None else min(st.limit, st.inc.cost)


def _after_round(d, st, outside, base):
    """What a round proved, given ``outside`` (the cost of any partition using another group):
    optimality, infeasibility, or a higher bound and the next ``delta``; or the run ends."""
    g, tol, run, limit = _granularity(d), _tol(d), st.run, st.limit
    if run.status == "optimal":
        if st.inc.cost <= outside + tol:
            st.status = "optimal"
        else:  # widen, at most doubling: a poor incumbent would ask for too many groups
            st.bound = max(st.bound, outside)
            st.delta = min(st.inc.cost - base - g, 2 * st.delta + g)
    elif run.status == "infeasible":
        # no partition of cost in [bound, limit] uses only these groups
        if limit is not None and outside > limit + tol:
            covered = st.inc is not None and st.inc.cost <= limit + tol
            st.status = "optimal" if covered else "infeasible"
        else:
            st.bound = max(st.bound, outside)
            st.delta = 2 * st.delta + g
    else:  # the round ran out of time (or failed): keep what it proved
        sp_bound = run.bound if run.bound is not None else st.bound
        st.bound = max(st.bound, min(outside, sp_bound))
        st.status = run.status if run.status in ("error", "feasible") else "time_limit"
        if run.status == "error":
            st.info["reason"] = run.info.get("reason", "solver error")


def _finish(d, st, run, *, algorithm, seed, t0, params):
    info = dict(st.info)
    info.update(n_unique=d.u, objective_scale=d.scale)
    if run is not None:
        info.update({k: v for k, v in run.info.items() if k != "reason" or "reason" not in info})
    info.setdefault("n_variables", 0)
    info.setdefault("n_constraints", 0)
    status = st.status
    if status == "infeasible":
        info.setdefault("reason", f"no partition costs at most upper_bound={params['upper_bound']}")
        labels = objective = bound = None
    else:
        labels = decode(d, st.inc) if st.inc is not None else None
        objective = st.inc.cost / d.scale if st.inc is not None else None
        bound = objective if status == "optimal" else st.bound / d.scale
        if status == "error":
            bound = None
    return Solution.with_bound(
        labels,
        algorithm,
        params=params,
        seed=seed,
        status=status,
        objective=objective,
        bound=bound,
        t0=t0,
        info=info,
    )


def _unprepared(instance, labels, exc, *, algorithm, seed, t0, params):
    """No pairwise tables: ``memory_limit`` (too many unique records) or ``time_limit`` (the
    deadline came while building them), with the hint (if any) as the solution and the
    nearest-neighbour bound."""
    bound = lower_bound(instance)[0]
    objective = None if labels is None else verify(instance, labels).cost
    timeout = isinstance(exc, Timeout)
    return Solution.with_bound(
        labels,
        algorithm,
        params=params,
        seed=seed,
        status="time_limit" if timeout else "memory_limit",
        objective=objective,
        bound=bound,
        t0=t0,
        info={
            "reason": "the time limit came while building the pairwise tables"
            if timeout
            else str(exc),
            "n_variables": 0,
            "n_constraints": 0,
        },
    )
