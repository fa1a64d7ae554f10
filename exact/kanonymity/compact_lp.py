"""The linear relaxation of k-anonymity solved in one piece, over every generalization box.

Column generation (:mod:`anonratio.exact.kanonymity.lp_bound`) reaches the set-partitioning
relaxation one group at a time. On a small table the relaxation fits whole in a *compact* model,
which assigns copies of the ``u`` unique records to generalization boxes (one generalized record
each, :mod:`anonratio.exact.kanonymity.box_pricing`)::

    min  sum_B p_B sum_i x_iB  [+ w sum_i del_i]
    s.t. sum_B x_iB [+ del_i] = c_i    for every unique record i        (dual: the price pi_i)
         x_iB <= c_i z_B               an open box holds the copies
         sum_i x_iB >= k z_B           an open box holds k copies at least
         z, x, del >= 0

with ``p_B`` the per-copy cost of the box's node and ``w = sum_j w_j`` (row deletion only).

**Why its value is the set-partitioning relaxation's.** For one box the constraints are the
homogenization of ``{x : 0 <= x <= c, sum_i x_i >= k}``, a polytope with integral vertices; so
every feasible ``(x_B, z_B)`` is a convex combination of ``0`` and groups of the box at its cost,
which is at least each group's own. Conversely a group sits in the box of its own levels, whose
records share no lower node's box: a *closed* box. So only closed boxes of at least ``k`` copies
enter. The model's row duals are prices; :meth:`BoxLattice.price` checks them over the whole
lattice and the Lagrangian shift makes them dual feasible, so the bound is proven whatever the
LP solver's tolerances.

Size: one ``x`` per (record, closed box) pair. Adult samples of 100 and 200 records with the ARX
hierarchies (6,480 lattice nodes) have about 32,000 and 131,000 pairs; the table's size is capped
by ``max_pairs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

import highspy
import numpy as np
import scipy.sparse as sp

from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.options import seconds_left

__all__ = ["ClosedBoxes", "closed_boxes", "compact_lp", "MAX_PAIRS"]

#: largest compact model (record-box pairs) :func:`compact_lp` builds
MAX_PAIRS = 250_000


@dataclass
class ClosedBoxes:
    """Every closed box of at least ``k`` copies, as (record, box) pairs.

    Attributes
    ----------
    cost : ndarray, shape (n_boxes,)
        Per-copy cost ``p_B`` of each box (its node's).
    node : ndarray of int, shape (n_boxes,)
        Each box's row in :attr:`BoxLattice.nodes`.
    record, box : ndarray of int, shape (n_pairs,)
        The pairs: unique record ``record[t]`` lies in box ``box[t]``.
    """

    cost: np.ndarray
    node: np.ndarray
    record: np.ndarray
    box: np.ndarray


def closed_boxes(
    lattice: BoxLattice, *, max_pairs: int = MAX_PAIRS, deadline: float | None = None
) -> ClosedBoxes | None:
    """The closed boxes of at least ``k`` copies of every lattice node.

    A box of node ``L`` is closed when, for every attribute ``j`` with ``L_j > 0``, its records
    hold more than one value at level ``L_j − 1``: no lower node has a box with the same records.

    Returns
    -------
    ClosedBoxes, or None when there are more than ``max_pairs`` pairs or ``deadline`` (a
    ``perf_counter`` reading) passes first.

    Notes
    -----
    ``O(N_L m u)`` for ``N_L`` nodes, ``m`` attributes and ``u`` unique records.
    """
    k, counts = lattice.k, lattice.counts
    costs, nodes, records, boxes = [], [], [], []
    n_pairs = n_boxes = 0
    for i, node in enumerate(lattice.nodes):
        if deadline is not None and perf_counter() > deadline:
            return None
        ids = lattice.node_boxes(node)
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        start = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
        keep = np.add.reduceat(counts[order], start) >= k
        for j, level in enumerate(node):
            if level > 0 and keep.any():
                below = lattice.groups[j][level - 1][order]
                keep &= np.minimum.reduceat(below, start) != np.maximum.reduceat(below, start)
        if not keep.any():
            continue
        kept = np.flatnonzero(keep)
        new_id = np.full(len(start), -1)
        new_id[kept] = n_boxes + np.arange(len(kept))
        box_of = new_id[sorted_ids]  # factorized ids: the j-th run of sorted_ids is box j
        inside = box_of >= 0
        records.append(order[inside])
        boxes.append(box_of[inside])
        costs.append(np.full(len(kept), lattice.node_cost[i]))
        nodes.append(np.full(len(kept), i))
        n_boxes += len(kept)
        n_pairs += int(inside.sum())
        if n_pairs > max_pairs:
            return None
    if not n_boxes:
        return ClosedBoxes(np.zeros(0), np.zeros(0, int), np.zeros(0, int), np.zeros(0, int))
    return ClosedBoxes(
        np.concatenate(costs), np.concatenate(nodes), np.concatenate(records), np.concatenate(boxes)
    )


def compact_lp(
    lattice: BoxLattice,
    found: ClosedBoxes,
    *,
    deadline: float,
    cap: float | None = None,
    seed: int = 0,
) -> tuple[float, np.ndarray] | None:
    """Solve the compact model's relaxation; its value and cover-row prices.

    Parameters
    ----------
    lattice : BoxLattice
    found : ClosedBoxes
        :func:`closed_boxes` of ``lattice``.
    deadline : float
        A ``perf_counter`` reading: HiGHS's time limit.
    cap : float, optional
        The cost of deleting one copy (row deletion); None without deletion.
    seed : int
        HiGHS's random seed.

    Returns
    -------
    (value, prices), or None when HiGHS stops without an optimal basis (time limit, error).
    The prices are the LP's, not yet checked: pass them through the lattice's pricing for a
    proven bound.
    """
    lp = _model(lattice, found, cap)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", int(seed))
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("time_limit", seconds_left(deadline))
    h.passModel(lp)
    h.run()
    # the bounds x_iB <= c_i may hold duals of their own; without them the same optimum has
    # prices that carry the whole bound: re-solve from the optimal basis (a few pivots)
    n_cols = lp.num_col_
    h.changeColsBounds(n_cols, np.arange(n_cols), lp.col_lower_, np.full(n_cols, np.inf))
    h.setOptionValue("time_limit", seconds_left(deadline))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    prices = np.asarray(h.getSolution().row_dual[: lattice.u], dtype=float)
    return float(h.getInfo().objective_function_value), prices


def _model(lattice: BoxLattice, found: ClosedBoxes, cap: float | None) -> highspy.HighsLp:
    """The compact model's relaxation: columns ``z`` (boxes), ``x`` (pairs), ``del`` (records,
    row deletion only); rows cover, link, size."""
    u, k = lattice.u, lattice.k
    c = lattice.counts.astype(float)
    nb, nx = len(found.cost), len(found.record)
    nd = u if cap is not None else 0
    # columns: z (one per box), x (one per pair), del (one per record, row deletion only)
    xs = nb + np.arange(nx)
    cover = sp.csc_matrix((np.ones(nx), (found.record, xs)), shape=(u, nb + nx + nd))
    if nd:
        cover = cover + sp.csc_matrix(
            (np.ones(u), (np.arange(u), nb + nx + np.arange(u))), shape=(u, nb + nx + nd)
        )
    # x_iB − c_i z_B <= 0: an open box holds the copies
    link = sp.csc_matrix(
        (
            np.r_[np.ones(nx), -c[found.record]],
            (np.r_[np.arange(nx), np.arange(nx)], np.r_[xs, found.box]),
        ),
        shape=(nx, nb + nx + nd),
    )
    # sum_i x_iB − k z_B >= 0: an open box holds k copies
    boxes = np.arange(nb)
    size = sp.csc_matrix(
        (np.r_[np.ones(nx), -k * np.ones(nb)], (np.r_[found.box, boxes], np.r_[xs, boxes])),
        shape=(nb, nb + nx + nd),
    )
    a = sp.vstack([cover, link, size], format="csc")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = a.shape[1], a.shape[0]
    lp.col_cost_ = np.r_[np.zeros(nb), found.cost[found.box], np.full(nd, cap or 0.0)]
    lp.col_lower_ = np.zeros(a.shape[1])
    # x_iB <= c_i is implied by the cover row; stating it speeds the simplex up (about 2x)
    lp.col_upper_ = np.r_[np.full(nb, np.inf), c[found.record], np.full(nd, np.inf)]
    lp.row_lower_ = np.r_[c, np.full(nx, -np.inf), np.zeros(nb)]
    lp.row_upper_ = np.r_[c, np.zeros(nx), np.full(nb, np.inf)]
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = a.indptr, a.indices, a.data
    return lp
