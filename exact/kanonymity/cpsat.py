"""Exact k-anonymity with CP-SAT: set partitioning over groups.

The formulation, its bounds and the solve loop are described in
:mod:`anonratio.exact.kanonymity.columns`; this module writes each round's set-partitioning
program as a CP-SAT model.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from anonratio.exact.kanonymity.lp_bound import LPBound
from anonratio.exact.kanonymity.set_partitioning import solve_by_columns
from anonratio.exact.run import run_cpsat
from anonratio.instances import KAnonymityInstance, Solution

__all__ = ["solve_cpsat"]

#: the reduced-cost budget's integer coefficients count this many parts of an objective unit
BUDGET_SCALE = 1000


#: CP-SAT's symmetry detection is off (``symmetry_level`` 0). On the rounds' programs of Adult
#: samples at k = 10 its presolve found an orbitope and then never returned, far past
#: ``max_time_in_seconds`` (a program of 24,399 groups from 100 records: stopped after 200 s
#: with a 20 s limit; without symmetry it is solved to optimality in 1.3 s). Without it the
#: proofs at k = 5 took the same time (100-record samples, seeds 0-2).
SYMMETRY_LEVEL = 0

#: programs with more terms than this (incidence, cut rows and budget) run without CP-SAT's
#: presolve. On a round of 67,224 groups from 100 Adult records at k = 10 (3.2 million terms,
#: most in the subset-row cuts) its at-most-one merging alone took 30 s, past the 14 s limit it
#: was given, and with 60 s presolve still returned no solution; without presolve CP-SAT keeps
#: the hint and stops on time. Programs of 100,000 terms presolve in milliseconds.
PRESOLVE_MAX_TERMS = 1_000_000


def _cpsat_parameters(threads, terms=0):
    """Search workers for set partitioning: LP-heavy ones prove the bound; no symmetry search,
    and no presolve for programs of more than ``PRESOLVE_MAX_TERMS`` terms.

    With one or two workers CP-SAT's default portfolio leaves out the workers that use the full
    linear relaxation, which is what closes set-partitioning gaps. See ``SYMMETRY_LEVEL``.
    """
    workers: dict[str, Any]
    if threads == 1:
        workers = {"linearization_level": 2}
    elif threads <= 4:
        portfolio = ["max_lp", "pseudo_costs", "default_lp", "quick_restarts"]
        workers = {"subsolvers": portfolio[:threads]}
    else:
        workers = {}
    if terms > PRESOLVE_MAX_TERMS:
        workers["cp_model_presolve"] = False
    return {**workers, "symmetry_level": SYMMETRY_LEVEL}


def _sp_cpsat(task):
    """One round's set-partitioning program as a CP-SAT model."""
    d, cols, a = task.data, task.columns, task.incidence
    model = cp_model.CpModel()
    lin = cp_model.LinearExpr

    # z[g]: how many times group g (a multiset of unique records) is used.
    z = [
        model.new_bool_var(f"z_{g}") if ub == 1 else model.new_int_var(0, int(ub), f"z_{g}")
        for g, ub in enumerate(task.zmax)
    ]
    # dele[i]: deleted copies of unique record i (row deletion only).
    dele = [
        model.new_int_var(0, int(c), f"del_{i}") if d.instance.row_deletion else 0
        for i, c in enumerate(d.counts)
    ]

    # Every copy of every unique record is in exactly one group or deleted.
    for i in range(d.u):
        lo, hi = a.indptr[i], a.indptr[i + 1]
        used = lin.weighted_sum(
            [z[g] for g in a.indices[lo:hi]], a.data[lo:hi].astype(int).tolist()
        )
        model.add(used + dele[i] == int(d.counts[i]))

    # Objective: group costs plus deletions, in integer objective units.
    objective = lin.weighted_sum(z, np.rint(cols.cost).astype(int).tolist())
    if d.instance.row_deletion:
        objective += int(round(d.del_coef)) * lin.sum(dele)
    # The incumbent's cost (or the given upper bound) caps the objective. The proven lower bound
    # is left out: an ``objective >= lb`` row flattens the LP relaxation's optimum onto that face
    # and slows the proof. On the last round of a 175-record Adult sample at k = 5 (13,698
    # groups, one worker) CP-SAT proved the round's optimum in 33–38 s without it and not within
    # 120 s with it (two seeds each).
    if task.ub is not None:
        model.add(objective <= math.floor(task.ub + 1e-6))
    model.minimize(objective)

    # Valid rows of every partition within the bounds: the subset-row cuts, and the reduced-cost
    # budget with coefficients rounded down (in 1/BUDGET_SCALE objective units).
    n_terms = 2 * len(z) + a.nnz  # objective, budget and incidence
    if task.cuts is not None:
        rows, rhs = task.cuts
        n_terms += rows.nnz
        for r in range(rows.shape[0]):
            lo, hi = rows.indptr[r], rows.indptr[r + 1]
            terms = [z[g] for g in rows.indices[lo:hi]]
            model.add(lin.weighted_sum(terms, rows.data[lo:hi].astype(int).tolist()) <= int(rhs[r]))
    if task.budget is not None:
        rc, rc_del, room = task.budget
        spent = lin.weighted_sum(z, np.floor(rc * BUDGET_SCALE).astype(int).tolist())
        if rc_del is not None:
            spent += lin.weighted_sum(dele, np.floor(rc_del * BUDGET_SCALE).astype(int).tolist())
        model.add(spent <= math.floor(room * BUDGET_SCALE + 1e-6 * max(1.0, abs(task.lb))))

    # Start from the incumbent, if any.
    if task.hint_z is not None:
        for g, v in enumerate(task.hint_z):
            model.add_hint(z[g], int(v))
        if d.instance.row_deletion:
            for i in range(d.u):
                var = dele[i]
                assert isinstance(var, cp_model.IntVar)  # a variable with row deletion
                model.add_hint(var, int(task.hint_del[i]))

    run = run_cpsat(
        model,
        time_limit=task.time_limit,
        seed=task.seed,
        threads=task.threads,
        parameters=_cpsat_parameters(task.threads, n_terms),
    )
    value = run.value  # None without an incumbent
    if value is None:
        return run, None, None
    z_val = np.array([value(v) for v in z], dtype=float)
    del_val = np.array([value(v) for v in dele], dtype=float) if d.instance.row_deletion else None
    return run, z_val, del_val


def solve_cpsat(
    instance: KAnonymityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
    bound: LPBound | None = None,
) -> Solution:
    """Minimum-cost k-anonymous partition with CP-SAT (suppression or generalization).

    Finds a partition of the records into groups of at least ``k`` (records labelled ``-1`` are
    deleted when ``instance.row_deletion``) minimizing
    ``sum_g |g| * sum_j w_j L_{g,j} / l_j + (sum_j w_j) * #deleted``. ``status="optimal"`` (with
    ``lower_bound == objective``) only when the bound proves it; when the time limit comes first,
    ``status="time_limit"`` with the best partition found (or none) and the proven lower bound.
    The model is set partitioning over groups of ``k .. 2k − 1`` records, filtered by reduced cost
    (:mod:`anonratio.exact.kanonymity.columns`); the weights ``w_j / l_j`` must be fractions with
    denominators up to 10^6, as CP-SAT needs integer objective coefficients.

    Parameters
    ----------
    instance : KAnonymityInstance
    time_limit : float
        Seconds for the whole run (bounding, enumeration and CP-SAT's ``max_time_in_seconds``).
    seed : int or None
        CP-SAT's ``random_seed`` (None means 0); recorded in the Solution as given.
    threads : int
        CP-SAT workers (``num_workers``), >= 1.
    hint : Solution or array of int, optional
        A feasible partition (e.g. FOREST's) to start from. The cheaper of it and a greedy
        partition (always computed) is the incumbent: its cost bounds the objective, and it is
        returned if the time runs out before anything better is found.
    upper_bound : float, optional
        A known upper bound on the optimum (e.g. a heuristic's cost). A value below the optimum
        makes the run ``infeasible``.
    bound : LPBound, optional
        :func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`'s result on ``instance``, to spare
        the bound phase: its prices are proven again by one pricing
        (:func:`~anonratio.exact.kanonymity.lp_bound.recheck`). Used from 100 unique records
        (the lattice path); smaller instances compute their own bound.

    Returns
    -------
    Solution
        ``algorithm="kanon-cpsat"``; ``info`` holds ``n_variables``, ``n_constraints`` (last round),
        ``n_unique``, ``n_columns``, ``nn_bound``, ``lp_bound`` (the bound phase's: the LP
        relaxation's, or above it with ``subset_row_cuts`` cuts), ``lower_bound_source``,
        ``start_cost``, ``rounds``, ``time_bound`` and CP-SAT statistics. ``status`` is
        ``memory_limit`` when the instance has too many unique records for the pairwise tables
        (then the hint, if any, comes back with the nearest-neighbour bound).

    Raises
    ------
    ValueError
        ``time_limit <= 0``, ``threads < 1``, a bad ``seed`` or ``upper_bound``, an infeasible
        ``hint``, a ``bound`` for another number of unique records.
    UnsupportedInstanceError
        Weights that do not scale to integers.

    Notes
    -----
    Bounding enumerates groups grown from each representative with a reduced-cost bound, and
    solves LPs over the groups found; each round solves one set-partitioning program. All of it is
    exponential in the worst case (the problem is NP-hard for k >= 3, Aggarwal et al. 2005, §3).
    Measured (2 workers, 60 s, random binary suppression tables): with 8 attributes every size up
    to 500 records for k = 2 and 3 (at most 256 distinct records; n = 40 takes 0.3 s) and up to
    70 records for k = 5; with 12 attributes up to 400 (k = 2), 180 (k = 3) and 90 (k = 5).

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
    >>> sol = solve_cpsat(instance, time_limit=10)
    >>> sol.status, sol.objective == verify(instance, sol).cost
    ('optimal', True)
    """
    return solve_by_columns(
        instance,
        _sp_cpsat,
        algorithm="kanon-cpsat",
        time_limit=time_limit,
        seed=seed,
        threads=threads,
        hint=hint,
        upper_bound=upper_bound,
        need_integral=True,
        bound=bound,
    )
