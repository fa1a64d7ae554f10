"""Exact k-anonymity by branch and price on SCIP (``kanon-bpc``).

The set-partitioning master over groups of ``k .. 2k − 1`` copies
(:mod:`~anonratio.exact.kanonymity.columns`) is solved by SCIP through PySCIPOpt:

- *Master*: one row per unique record, columns for the start partition's groups and each
  record's nearest group of ``k`` copies, deletions under row deletion, and artificial columns
  that keep every node feasible (:mod:`~anonratio.exact.kanonymity.bpc_master`).
- *Pricing*: the project's exact pricing at every node's row prices, over the generalization
  lattice or from representatives, filtered by the node's branching decisions
  (:class:`~anonratio.exact.kanonymity.bpc_master.GroupPricer`). A round first sweeps only the
  lattice nodes that held negative groups in the last sweeps; the full sweep follows when they
  hold none (only a full sweep proves a node's master solved). At the root that full sweep
  first prices a Wentges-smoothed point between the best Lagrangian prices and SCIP's; below
  the root SCIP's prices are used as they are. Once the root is solved, the groups within reach
  of its bound form a pool (:mod:`~anonratio.exact.kanonymity.bpc_pool`) that prices a node by
  one product whenever it provably holds every group that could enter; the sweep runs otherwise.
- *Primal heuristic*: once the pool is built, HiGHS solves the master as an integer program over
  its groups of least reduced cost (:mod:`~anonratio.exact.kanonymity.bpc_heuristic`); a
  cheaper partition becomes SCIP's incumbent, prunes its tree, and often lets the pool cover
  the whole gap between the root's bound and the incumbent.
- *Branching*: Ryan–Foster on "records ``i`` and ``j`` share a group", falling back on a
  column's bound where duplicates leave no fractional pair
  (:mod:`~anonratio.exact.kanonymity.bpc_branching`).
- *Start*: the cheaper of the hint (the registry passes the best-known partition) and a greedy
  partition, given to SCIP as its first solution.

SCIP's presolving, restarts, cutting planes, symmetry handling and conflict analysis are off:
each reasons over the columns present and may not hold for the columns priced later. The run
is ``optimal`` only when SCIP proves it; otherwise its best partition and SCIP's proven dual
bound (never below the nearest-neighbour bound).
"""

from __future__ import annotations

import math
from time import perf_counter

import numpy as np

from anonratio.exact.kanonymity.box_pricing import BoxLattice, lattice_nodes
from anonratio.exact.kanonymity.columns import Columns, Timeout, TooLarge, initial_pool, prepare
from anonratio.exact.kanonymity.incumbents import (
    Incumbent,
    decode,
    greedy_incumbent,
    hint_incumbent,
    nn_groups,
)
from anonratio.exact.kanonymity.set_partitioning import (
    LATTICE_MIN_UNIQUE,
    MAX_LATTICE_WORK,
    _solve_iv,
    _unprepared,
)
from anonratio.exact.options import run_params, seconds_left, within_run, work_limits
from anonratio.instances import KAnonymityInstance, Solution

__all__ = ["solve_bpc"]

ALGORITHM = "kanon-bpc"

#: SCIP statuses that mean a limit stopped the search
_LIMITS = ("timelimit", "userinterrupt", "nodelimit", "totalnodelimit", "memlimit", "gaplimit")


def solve_bpc(
    instance: KAnonymityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
) -> Solution:
    """Minimum-cost k-anonymous partition by branch and price on SCIP.

    Same model and cost as :func:`~anonratio.exact.kanonymity.cpsat.solve_cpsat` (set
    partitioning over groups of ``k .. 2k − 1`` records; any positive weights; row deletion
    where the instance allows it), solved by the branch and price of the module docstring.

    Parameters
    ----------
    instance : KAnonymityInstance
    time_limit : float
        Seconds for the whole run (preparation, start and SCIP's search); within
        :func:`~anonratio.exact.options.work_limit`, SCIP also stops after ``mip_nodes`` nodes.
    seed : int or None
        SCIP's ``randomization/randomseedshift`` (None means 0); recorded as given.
    threads : int
        >= 1; SCIP searches with one.
    hint : Solution or array of int, optional
        A feasible partition to start from, if cheaper than the greedy one.
    upper_bound : float, optional
        A known upper bound on the optimum; a value below it makes the run ``infeasible``.

    Returns
    -------
    Solution
        ``status="optimal"`` (``lower_bound == objective``) only when SCIP proves it;
        ``"time_limit"`` with the best partition and SCIP's proven dual bound;
        ``"infeasible"`` when no partition costs at most ``upper_bound``; ``"memory_limit"``
        when the pairwise tables would not fit. ``info`` holds the nodes, columns, pricing
        rounds and seconds, branchings (``ryan_foster``, ``column_branchings``), the columns
        fixed by the decisions and the root's bound.

    Raises
    ------
    ValueError
        ``time_limit <= 0``, ``threads < 1``, a bad ``seed`` or ``upper_bound``, an infeasible
        ``hint``.

    Examples
    --------
    >>> import numpy as np
    >>> from anonratio.instances import KAnonymityInstance, Table, verify
    >>> codes = np.random.default_rng(0).integers(0, 2, size=(8, 4))
    >>> instance = KAnonymityInstance(Table(codes, ("a", "b", "c", "d"), (("0", "1"),) * 4), 2)
    >>> sol = solve_bpc(instance, time_limit=10)
    >>> sol.status, sol.objective == verify(instance, sol).cost
    ('optimal', True)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, labels, upper_bound = _solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound
    )
    params = run_params(instance, time_limit, threads, upper_bound, hint)
    deadline = within_run(t0 + time_limit)
    try:
        d = prepare(instance, deadline=deadline)
    except (TooLarge, Timeout) as exc:
        return _unprepared(
            instance, labels, exc, algorithm=ALGORITHM, seed=seed, t0=t0, params=params
        )
    inc = hint_incumbent(d, labels) if labels is not None else None
    greedy = greedy_incumbent(d)
    if greedy is not None and (inc is None or greedy.cost < inc.cost):
        inc = greedy
    assert inc is not None  # the greedy partition has no deadline
    limit = inc.cost
    if upper_bound is not None:
        ub = upper_bound * d.scale
        limit = min(limit, math.floor(ub + 1e-6) if d.integral else ub)
    run = _Run(d, inc, limit, deadline, solver_seed)
    run.model.setParam("limits/time", seconds_left(deadline))  # the model's build counts too
    nodes = work_limits()[1]
    if nodes is not None:  # a budget in work: SCIP's nodes count like HiGHS's and CBC's
        run.model.setParam("limits/nodes", nodes)
    run.model.optimize()
    return run.finish(seed=seed, t0=t0, params=params)


class _Run:
    """The SCIP model of one run, its plugins, and the reading of its outcome."""

    def __init__(self, d, inc: Incumbent, limit: float, deadline: float, seed: int) -> None:
        # SCIP and the plugins (which subclass its classes) load with the first run: importing
        # this package for the CP-SAT or PuLP models does not import SCIP
        from pyscipopt import SCIP_PARAMSETTING, SCIP_PROPTIMING, Model

        from anonratio.exact.kanonymity.bpc_branching import (
            DecisionPropagator,
            Decisions,
            RyanFoster,
        )
        from anonratio.exact.kanonymity.bpc_master import GroupPricer, MasterColumns

        self.d, self.inc, self.limit = d, inc, limit
        m = self.model = Model("kanon-bpc")
        m.hideOutput()
        m.setPresolve(SCIP_PARAMSETTING.OFF)
        m.setSeparating(SCIP_PARAMSETTING.OFF)
        m.setParam("presolving/maxrestarts", 0)
        m.setParam("misc/usesymmetry", 0)
        m.setParam("conflict/enable", False)
        m.setParam("randomization/randomseedshift", int(seed))
        # any partition costs at most `limit`; an artificial copy alone costs more
        self.master = MasterColumns(m, d, big=limit + 1.0)
        self.master.add_groups(inc.columns.members, inc.columns.cost, priced=False)
        for start in (
            nn_groups(d, deadline=deadline),
            initial_pool(d, deadline=deadline, max_columns=10 * d.u),
        ):
            self.master.add_groups(start.members, start.cost, priced=False)
        use_lattice = LATTICE_MIN_UNIQUE <= d.u and lattice_nodes(d.instance) * d.u <= (
            MAX_LATTICE_WORK
        )
        self.decisions = Decisions()
        self.pricer = GroupPricer(
            self.master,
            self.decisions,
            BoxLattice(d.instance) if use_lattice else None,
            deadline=deadline,
            max_new=max(50, d.u // 2),
        )
        self.pricer.on_pool = self._improve
        self.deadline, self.seed, self.improved, self.heuristic_s = deadline, int(seed), 0, 0.0
        m.includePricer(self.pricer, "kanon-groups", "groups of negative reduced cost")
        self.brancher = RyanFoster(self.master, self.decisions)
        m.includeBranchrule(
            self.brancher, "ryan-foster", "records together or apart", 100000, -1, 1.0
        )
        self.prop = DecisionPropagator(self.master, self.decisions)
        m.includeProp(
            self.prop,
            "branching-decisions",
            "fix columns breaking them",
            0,
            0,
            SCIP_PROPTIMING.BEFORELP,
            priority=1000000,
            freq=1,
            delay=False,
        )
        if d.integral:
            m.setObjIntegral()
        if inc.cost <= limit + 1e-9 * max(1.0, limit):
            self._start(inc)
        else:
            m.setObjlimit(limit)

    def _start(self, inc: Incumbent) -> None:
        """Give SCIP the start partition as its first solution."""
        if not self.model.addSol(self._sol(inc)):
            raise RuntimeError("SCIP refused the start partition")

    def _improve(self, pool) -> None:
        """The primal heuristic (:mod:`~anonratio.exact.kanonymity.bpc_heuristic`) over the
        root pool's groups of least reduced cost, within a share of the time left; a cheaper
        partition joins the master and SCIP's solutions."""
        from anonratio.exact.kanonymity.bpc_heuristic import (
            HEURISTIC_COLUMNS,
            HEURISTIC_SHARE,
            restricted_partition,
        )

        t0 = perf_counter()
        best = start = self._best() or self.inc
        order = np.argsort(pool.reduced_costs(pool.pi0), kind="stable")
        for size in HEURISTIC_COLUMNS:
            take = order[:size]
            cap = perf_counter() + HEURISTIC_SHARE * seconds_left(self.deadline)
            found = restricted_partition(
                self.d,
                pool.members[take],
                pool.cost[take],
                best,
                deadline=min(cap, self.deadline),
                seed=self.seed,
            )
            best = best if found is None else found
            if size >= len(order):
                break
        self.heuristic_s += perf_counter() - t0
        if best is start:
            return
        self.master.add_groups(best.columns.members, best.columns.cost, priced=True)
        self.improved += int(self.model.trySol(self._sol(best)))

    def _sol(self, inc: Incumbent):
        """A SCIP solution of the partition ``inc`` (its groups are in the master)."""
        m, master = self.model, self.master
        sol = m.createSol()
        where = {row.tobytes(): g for g, row in enumerate(master.group_members())}
        for row, times in zip(inc.columns.members, inc.z, strict=True):
            var = master.group_vars[where[row.tobytes()]]
            m.setSolVal(sol, var, m.getSolVal(sol, var) + float(times))
        for i, g in master.deletion.items():
            m.setSolVal(sol, master.group_vars[g], float(inc.dele[i]))
        return sol

    def _best(self) -> Incumbent | None:
        """SCIP's best solution as an incumbent (None without one or when it uses an
        artificial column, which no partition does)."""
        m, master, d = self.model, self.master, self.d
        if m.getNSols() == 0:
            return None
        sol = m.getBestSol()
        if any(m.getSolVal(sol, v) > 0.5 for v in master.artificial_vars()):
            return None
        z = np.rint([m.getSolVal(sol, v) for v in master.group_vars])
        dele = np.zeros(d.u)
        for i, g in master.deletion.items():
            dele[i], z[g] = z[g], 0.0
        used = z > 0
        members = master.group_members()[used]
        cost = np.asarray(master.cost)[used]
        total = float(cost @ z[used] + d.del_coef * dele.sum())
        return Incumbent(Columns(members, cost), z[used], dele, total)

    def finish(self, *, seed, t0, params) -> Solution:
        m, d = self.model, self.d
        status = m.getStatus()
        best = self._best()
        info = self._info(status)
        objective = None if best is None else best.cost / d.scale
        labels = None if best is None else decode(d, best)
        if status == "infeasible" and self.limit < self.inc.cost:
            # no partition at most the limit (SCIP may keep dearer ones it found)
            info["reason"] = f"no partition costs at most upper_bound={params['upper_bound']}"
            out, labels, objective, bound = "infeasible", None, None, None
        elif status == "optimal" and best is not None:
            out, bound = "optimal", objective
        elif status in _LIMITS:
            dual = m.getDualbound()
            bound = max(d.lb_nn, dual if np.isfinite(dual) and abs(dual) < 1e19 else -np.inf)
            if d.integral:
                bound = math.ceil(bound - 1e-6)
            bound = bound / d.scale if objective is None else min(bound / d.scale, objective)
            out = "time_limit"
        else:  # a solution with an artificial column, or a status no run of this model has
            info["reason"] = f"SCIP stopped with status {status!r} and no partition to show"
            out, bound = "error", None
        return Solution.with_bound(
            labels,
            ALGORITHM,
            params=params,
            seed=seed,
            status=out,
            objective=objective,
            bound=bound,
            t0=t0,
            info=info,
        )

    def _info(self, status: str) -> dict:
        m, d, p = self.model, self.d, self.pricer
        root = m.getDualboundRoot()
        return {
            "scip_status": status,
            "n_unique": d.u,
            "objective_scale": d.scale,
            "start_cost": self.inc.cost / d.scale,
            "nodes": m.getNNodes(),
            "n_columns": len(self.master.group_vars),
            "n_variables": len(self.master.group_vars) + len(self.master.artificials),
            "n_constraints": d.u,
            "pricing_rounds": p.rounds,
            "pricing_s": p.seconds,
            "pricing_enumerations": p.exhaustive,
            "pricing_unproven": p.gave_up,
            "pricing_by_pool": p.pool_rounds,
            "pool_narrowed": p.narrowed,
            "pricing_partial": p.partial_rounds,
            "pricing_partial_misses": p.partial_misses,
            "pool_columns": None if p.pool is None else len(p.pool),
            "pool_delta": None if p.pool is None else p.pool.delta / d.scale,
            "heuristic_solutions": self.improved,
            "heuristic_s": self.heuristic_s,
            "ryan_foster": self.decisions.ryan_foster,
            "column_branchings": self.decisions.on_columns,
            "columns_fixed": self.prop.fixed,
            "root_bound": root / d.scale if np.isfinite(root) and abs(root) < 1e19 else None,
            "lp_iterations": m.getNLPIterations(),
            "pricer": "lattice" if self.pricer.lattice is not None else "enumeration",
        }
