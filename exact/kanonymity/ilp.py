"""Exact k-anonymity as an integer program in PuLP, solved by HiGHS or CBC.

The formulation, its bounds and the solve loop are described in
:mod:`anonratio.exact.kanonymity.columns`; this module writes each round's set-partitioning
program with PuLP and solves it with ``pulp.HiGHS`` (highspy, in process) or
``pulp.COIN_CMD`` (CBC). The status comes from the solver's own status and bound
(:func:`anonratio.exact.run.run_pulp`), never from PuLP's ``prob.status``.
"""

from __future__ import annotations

import math

import numpy as np
import pulp

from anonratio.exact.kanonymity.lp_bound import LPBound
from anonratio.exact.kanonymity.set_partitioning import solve_by_columns
from anonratio.exact.run import run_pulp
from anonratio.instances import KAnonymityInstance, Solution

__all__ = ["solve_highs", "solve_cbc"]


def _sp_pulp(task, solver):
    """One round's set-partitioning program as a PuLP problem, solved with ``solver``."""
    d, cols, a = task.data, task.columns, task.incidence
    prob = pulp.LpProblem("k_anonymity_set_partitioning", pulp.LpMinimize)

    # z[g]: how many times group g (a multiset of unique records) is used.
    z = [
        prob.add_variable(f"z_{g}", 0, int(ub), cat=pulp.LpBinary if ub == 1 else pulp.LpInteger)
        for g, ub in enumerate(task.zmax)
    ]
    # dele[i]: deleted copies of unique record i (row deletion only).
    dele = (
        [
            prob.add_variable(f"del_{i}", 0, int(c), cat=pulp.LpInteger)
            for i, c in enumerate(d.counts)
        ]
        if d.instance.row_deletion
        else None
    )

    # Every copy of every unique record is in exactly one group or deleted.
    for i in range(d.u):
        lo, hi = a.indptr[i], a.indptr[i + 1]
        terms = [(z[g], float(m)) for g, m in zip(a.indices[lo:hi], a.data[lo:hi], strict=True)]
        if dele is not None:
            terms.append((dele[i], 1.0))
        prob += pulp.LpAffineExpression(terms) == int(d.counts[i]), f"cover_{i}"

    # Objective: group costs plus deletions (integers in objective units when `integral`).
    terms = [(v, float(c)) for v, c in zip(z, cols.cost, strict=True)]
    if dele is not None:
        terms += [(v, float(d.del_coef)) for v in dele]
    objective = pulp.LpAffineExpression(terms)
    prob.setObjective(objective)
    # The incumbent's cost (or the given upper bound) caps the objective. The proven lower bound
    # is left out: an ``objective >= lb`` row flattens the LP relaxation's optimum onto that face
    # and slows the proof (HiGHS proved the last round of a 175-record Adult sample at k = 5,
    # 11,271 groups and no budget row, in 44 s without it and in 115 s with it).
    if task.ub is not None:
        ub = math.floor(task.ub + 1e-6) if d.integral else task.ub * (1 + 1e-9)
        prob += pulp.LpAffineExpression(terms) <= ub, "objective_upper_bound"

    # Valid rows of every partition within the bounds: the subset-row cuts, and the reduced-cost
    # budget.
    if task.cuts is not None:
        rows, rhs = task.cuts
        for r in range(rows.shape[0]):
            lo, hi = rows.indptr[r], rows.indptr[r + 1]
            coef = zip(rows.indices[lo:hi], rows.data[lo:hi], strict=True)
            terms = [(z[g], float(v)) for g, v in coef]
            prob += pulp.LpAffineExpression(terms) <= float(rhs[r]), f"subset_row_{r}"
    if task.budget is not None:
        rc, rc_del, room = task.budget
        terms = [(v, float(c)) for v, c in zip(z, rc, strict=True)]
        if dele is not None:
            terms += [(v, float(c)) for v, c in zip(dele, rc_del, strict=True)]
        slack = 1e-6 * max(1.0, abs(task.lb))
        prob += pulp.LpAffineExpression(terms) <= room + slack, "reduced_cost_budget"

    # MIP start from the incumbent, if any.
    start = task.hint_z is not None
    if start:
        for v, val in zip(z, task.hint_z, strict=True):
            v.setInitialValue(float(val))
        for v, val in zip(dele or [], task.hint_del, strict=False):
            v.setInitialValue(float(val))

    # HiGHS without presolve: on these programs its presolve does not look at the clock (84 s in
    # presolve on a 32 s limit, a round of 48,046 groups of a 125-record Adult sample at k = 5),
    # and without it HiGHS proved the last rounds of 175-record samples in 52 s and 63 s where
    # with it neither was proven in 120 s (CBC's preprocessing is fast here: it stays)
    run = run_pulp(
        prob,
        solver=solver,
        time_limit=task.time_limit,
        seed=task.seed,
        threads=task.threads,
        warm_start=start,
        integral=d.integral,
        highs_presolve=False,
    )
    value = run.value  # None without an incumbent
    if value is None:
        return run, None, None
    z_val = np.array([value(v) or 0.0 for v in z])
    del_val = None if dele is None else np.array([value(v) or 0.0 for v in dele])
    return run, z_val, del_val


def _solve(instance, solver, time_limit, seed, threads, hint, upper_bound, bound):
    return solve_by_columns(
        instance,
        lambda task: _sp_pulp(task, solver),
        algorithm=f"kanon-{solver}",
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        hint=hint,
        upper_bound=upper_bound,
        max_columns=100_000,
        bound=bound,
    )


_DOC = """Minimum-cost k-anonymous partition with {name} via PuLP (suppression or generalization).

    Finds a partition of the records into groups of at least ``k`` (records labelled ``-1`` are
    deleted when ``instance.row_deletion``) minimizing
    ``sum_g |g| * sum_j w_j L_{{g,j}} / l_j + (sum_j w_j) * #deleted``. ``status="optimal"`` (with
    ``lower_bound == objective``) only when {name}'s own bound proves it; when the time limit comes
    first, ``status="time_limit"`` with the best partition found (or none) and the proven lower
    bound. Same model as :func:`~anonratio.exact.kanonymity.cpsat.solve_cpsat`: set partitioning
    over groups of ``k .. 2k − 1`` records filtered by reduced cost; any positive weights.

    Parameters
    ----------
    instance : KAnonymityInstance
    time_limit : float
        Seconds for the whole run (bounding, enumeration and the solver's time limit).
    seed : int or None
        {seed} (None means 0); recorded in the Solution as given.
    threads : int
        {name} threads, >= 1.
    hint : Solution or array of int, optional
        A feasible partition to start from (a MIP start) if cheaper than the greedy partition
        that is always computed; the incumbent's cost bounds the objective.
    upper_bound : float, optional
        A known upper bound on the optimum; a value below the optimum makes the run
        ``infeasible``.
    bound : LPBound, optional
        :func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`'s result on ``instance``, to spare
        the bound phase: its prices are proven again by one pricing
        (:func:`~anonratio.exact.kanonymity.lp_bound.recheck`). Used from 100 unique records
        (the lattice path); smaller instances compute their own bound.

    Returns
    -------
    Solution
        ``algorithm="kanon-{algo}"``; ``info`` holds ``n_variables``, ``n_constraints`` (last
        round), ``n_columns``, ``lp_bound``, ``nn_bound``, ``start_cost``, ``rounds``, ``nodes`` and
        the solver's status text; ``status="memory_limit"`` when the instance has too many unique
        records for the pairwise tables.

    Raises
    ------
    ValueError
        ``time_limit <= 0``, ``threads < 1``, a bad ``seed`` or ``upper_bound``, an infeasible
        ``hint``, a ``bound`` for another number of unique records.

    Notes
    -----
    Exponential in the worst case (NP-hard for k >= 3, Aggarwal et al. 2005, §3). Models are
    built through PuLP, which costs a few seconds per 10^5 groups; rounds are capped at 10^5
    groups (a capped run may end ``feasible``, with a proven bound).

    References
    ----------
    G. Aggarwal, T. Feder, K. Kenthapadi, R. Motwani, R. Panigrahy, D. Thomas, A. Zhu,
    "Approximation Algorithms for k-Anonymity", 2005: §2 (cost model), §4.1 (the nearest-neighbour
    bound, here the starting dual prices).

    Examples
    --------
    >>> import numpy as np
    >>> from anonratio.instances import KAnonymityInstance, Table, verify
    >>> codes = np.random.default_rng(0).integers(0, 2, size=(8, 4))
    >>> instance = KAnonymityInstance(Table(codes, ("a", "b", "c", "d"), (("0", "1"),) * 4), 2)
    >>> sol = {func}(instance, time_limit=10)
    >>> sol.status, sol.objective == verify(instance, sol).cost
    ('optimal', True)
    """


def solve_highs(
    instance: KAnonymityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
    bound: LPBound | None = None,
) -> Solution:
    return _solve(instance, "highs", time_limit, seed, threads, hint, upper_bound, bound)


def solve_cbc(
    instance: KAnonymityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
    bound: LPBound | None = None,
) -> Solution:
    return _solve(instance, "cbc", time_limit, seed, threads, hint, upper_bound, bound)


solve_highs.__doc__ = _DOC.format(
    name="HiGHS", algo="highs", func="solve_highs", seed="HiGHS ``random_seed``"
)
solve_cbc.__doc__ = _DOC.format(
    name="CBC", algo="cbc", func="solve_cbc", seed="CBC ``randomCbcSeed`` (``seed + 1``)"
)
