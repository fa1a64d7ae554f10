"""The primal heuristic of kanon-bpc: the master as an integer program over the root's cheapest
groups, solved by HiGHS.

Once the root's master is solved, its dual-feasible prices ``pi0`` rank every group by its
reduced cost ``rc0_G = cost_G − pi0(G)``, and a partition of cost ``U`` uses only groups with
``rc0_G <= U − pi0·c`` (:mod:`~anonratio.exact.kanonymity.columns`). The groups of least
``rc0`` (the reduced-cost pool's, :mod:`~anonratio.exact.kanonymity.bpc_pool`) together with the
start partition's form a small set-partitioning program; HiGHS searches it for a partition
cheaper than the start within a time cap, starting from the start partition. Its partition is
only a solution offered to SCIP: the search's bound never enters the proof.
"""

from __future__ import annotations

import highspy
import numpy as np
import scipy.sparse as sp

from anonratio.exact.kanonymity.columns import Columns, KAnonData
from anonratio.exact.kanonymity.incumbents import Incumbent
from anonratio.exact.options import seconds_left, work_limits

__all__ = ["restricted_partition", "HEURISTIC_COLUMNS", "HEURISTIC_SHARE"]

#: groups each of the heuristic's programs holds (those of least reduced cost at the root): the
#: small ones solve in a moment and often find the optimum, the larger ones reach further
HEURISTIC_COLUMNS = (1_000, 3_000, 10_000)

#: share of the time left each program may take
HEURISTIC_SHARE = 0.08


def restricted_partition(
    d: KAnonData,
    members: np.ndarray,
    cost: np.ndarray,
    start: Incumbent,
    *,
    deadline: float,
    seed: int = 0,
) -> Incumbent | None:
    """A partition over ``members`` (and the start's groups) cheaper than ``start``, or None.

    Parameters
    ----------
    d : KAnonData
    members, cost : ndarray
        Candidate groups (padded rows of unique-record ids) and their costs, objective units.
    start : Incumbent
        A partition given to HiGHS as its first solution; the result costs less.
    deadline : float
        A ``perf_counter`` reading: HiGHS stops there with its best partition, or after the
        branch-and-bound nodes of an enclosing :func:`~anonratio.exact.options.work_limit`.
    seed : int
        HiGHS's ``random_seed``.
    """
    own = np.asarray(start.columns.members, np.int64)
    candidates = Columns(np.asarray(members, np.int64), np.asarray(cost, float))
    groups = Columns.concat([start.columns, candidates], own.shape[1])
    members, cost = groups.members, groups.cost
    n, u = len(members), d.u
    a = groups.incidence(u)
    zmax = groups.zmax(a, d.counts)  # z_G <= c_i / mult_G(i) for each member i
    deletion = d.instance.row_deletion
    if deletion:  # one deletion column per record, at most c_i deletions of record i
        a = sp.hstack([a, sp.identity(u, format="csr")]).tocsr()
        cost = np.concatenate([cost, np.full(u, d.del_coef)])
        zmax = np.concatenate([zmax, d.counts])
    a = a.tocsc()
    counts = d.counts.astype(float)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(cost), u
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(len(cost))
    lp.col_upper_ = zmax.astype(float)
    lp.row_lower_ = counts
    lp.row_upper_ = counts
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr
    lp.a_matrix_.index_ = a.indices
    lp.a_matrix_.value_ = a.data
    lp.integrality_ = [highspy.HighsVarType.kInteger] * len(cost)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", int(seed))
    h.setOptionValue("time_limit", seconds_left(deadline))
    nodes = work_limits()[1]
    if nodes is not None:
        h.setOptionValue("mip_max_nodes", int(nodes))
    h.passModel(lp)
    sol = highspy.HighsSolution()
    where = {row.tobytes(): g for g, row in enumerate(members)}
    x = np.zeros(len(cost))
    for row, times in zip(own, start.z, strict=True):
        x[where[row.tobytes()]] += times
    if deletion:
        x[n:] = start.dele
    sol.col_value = x
    sol.value_valid = True
    h.setSolution(sol)
    h.run()
    if h.getInfo().primal_solution_status != 2:  # no feasible solution
        return None
    x = np.rint(np.asarray(h.getSolution().col_value))
    if np.abs(a @ x - counts).max() > 0.5:
        return None
    total = float(cost @ x)
    if total >= start.cost - 1e-9 * max(1.0, start.cost):
        return None
    used = np.flatnonzero(x[:n] > 0.5)
    dele = x[n:] if deletion else np.zeros(u)
    return Incumbent(Columns(members[used], cost[used]), x[used], dele, total)
