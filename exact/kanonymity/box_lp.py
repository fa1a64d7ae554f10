"""The k-anonymity LP bound at the scale of real tables: cutting planes over generalization boxes.

The dual of the set-partitioning relaxation (:mod:`anonratio.exact.kanonymity.lp_bound`) has one
constraint per group; grouped by box (:mod:`anonratio.exact.kanonymity.box_pricing`), a box ``B``
of node ``L`` holding copies priced ``y`` allows every group inside it exactly when its ``k``
dearest copies cost at most ``k p_L`` together. That sum is convex in ``y`` and has the linear
form (the ``k`` largest of a multiset, as a minimum over a threshold ``t``)::

    top_k(y, B) = min_t  k t + sum_{i in B} c_i max(0, y_i − t),

so the whole dual is one LP: maximize ``sum_i c_i y_i`` subject to, for every box ``B``,
``k t_B + sum_{i in B} c_i s_{B,i} <= k p_L``, ``s_{B,i} >= y_i − t_B``, ``s >= 0``. Column
generation over single groups (:func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`'s last
stage) adds one group per column and stalls on tens of thousands of records; one box here adds
every group inside it at once.

:func:`box_lp` runs cutting planes on that LP: it starts from the boxes that are (nearly) tight at
dual-feasible prices (the dual ascent's), keeps only each box's ``width`` dearest records, and lets
every price rise by at most ``growth`` of itself per round (a trust region: the boxes not yet in the
LP would otherwise let prices run off). Each round's LP prices are then made dual feasible by
:meth:`~anonratio.exact.kanonymity.box_pricing.BoxLattice.repair` and raised again by :func:`ascend`
(the dual ascent, also stage 2 of the bound); the boxes they violate or make tight join the next
round. So the bound is proven by feasible prices after every round, whatever the LP solver's
tolerances, and stops wherever the time limit falls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING

import highspy
import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from anonratio.exact.kanonymity.box_pricing import BoxLattice

__all__ = ["BoxLP", "ascend", "box_lp", "dual_lp"]

#: a round gains when it lifts the bound by more than this share (less is rounding noise)
_GAIN = 1e-9
#: a box is cut when its slack is below ``-_CUT k p_L`` at the LP's prices
_CUT = 1e-6
#: the interior point's optimality tolerance in each round (HiGHS's default is 1e-8). A round's
#: LP prices are only a direction, repaired and raised afterwards, so stopping early loses
#: nothing and leaves more central prices, which the repair keeps more of: on full Adult (k = 5,
#: 450 s) the bound ends at 20,025.8 after 4 rounds instead of 19,960.9 after 3, and on a
#: generated 10k table at 36,758 after 3 instead of 36,454 after 2.
IPM_TOL = 1e-2


@dataclass
class BoxLP:
    """The outcome of :func:`box_lp`.

    Attributes
    ----------
    prices : ndarray, shape (u,)
        The best dual-feasible prices found (the start's when no round improved them).
    value : float
        ``prices @ counts``: the bound they prove.
    rounds : int
        LP solves.
    boxes : int
        Boxes in the last LP.
    history : list of (seconds, restricted LP value, proven bound)
    """

    prices: np.ndarray
    value: float
    rounds: int = 0
    boxes: int = 0
    history: list = field(default_factory=list)


def ascend(
    lattice: BoxLattice,
    prices: np.ndarray,
    *,
    deadline: float,
    max_iter: int = 200,
    rtol: float = 1e-4,
    cap: float | None = None,
    progress: Callable[[float, np.ndarray], None] | None = None,
) -> tuple[np.ndarray, int]:
    """Dual ascent from dual-feasible ``prices``, which stay dual feasible throughout.

    Each round, the records whose boxes all have slack (the *free* ones) rise by the raise
    :meth:`BoxLattice.slack` allows; a record whose box is tight waits until a later round finds
    slack around it again. Rounds stop when one gains less than ``rtol`` of the bound or the
    deadline passes. Prices stay at most ``cap`` (the cost of deleting a row, where deletion is
    allowed); ``progress(bound, prices)``, when given, hears each round's. Returns
    ``(prices, rounds)``.
    """
    counts = lattice.counts.astype(float)
    y = np.asarray(prices, dtype=float).copy()
    free = np.ones(len(y), dtype=bool)
    for it in range(max_iter):
        if perf_counter() > deadline:
            return y, it
        found = lattice.slack(y, free, deadline)
        if found is None:
            return y, it
        slack, rise = found
        step = np.where(free & np.isfinite(rise), np.maximum(rise, 0.0), 0.0)
        if cap is not None:
            step = np.minimum(step, np.maximum(cap - y, 0.0))
        gain = float(step @ counts)
        y += step
        if progress is not None and gain > 0:
            progress(float(y @ counts), y.copy())
        free = np.isfinite(slack) & (slack > 1e-12 * max(1.0, float(np.abs(y).max())))
        if gain <= rtol * max(1.0, float(y @ counts)):
            return y, it + 1
    return y, max_iter


def dual_lp(
    lattice: BoxLattice,
    cost: np.ndarray,
    members: np.ndarray,
    upper: np.ndarray,
    *,
    time_limit: float,
    seed: int = 0,
    tolerance: float | None = None,
) -> tuple[float, np.ndarray] | None:
    """The dual LP over the given boxes, prices at most ``upper``: ``(value, prices)``.

    Parameters
    ----------
    lattice : BoxLattice
    cost : ndarray, shape (N,)
        Per-copy cost of each box's node.
    members : ndarray of int64, shape (N, w)
        Each box's records (padded with -1): the constraint keeps only these.
    upper : ndarray, shape (u,)
        Upper bounds on the prices (the trust region).
    time_limit : float
        Seconds for HiGHS.
    seed : int
        HiGHS's random seed.
    tolerance : float, optional
        The interior point's optimality tolerance (HiGHS's default, 1e-8, when None).

    Returns
    -------
    (float, ndarray) or None
        The LP value and its prices, or None when HiGHS stops without a primal solution.
        Neither is a bound: the LP omits every other box.
    """
    k, u = lattice.k, lattice.u
    c = lattice.counts.astype(float)
    n_box = len(cost)
    box, slot = np.nonzero(members >= 0)
    rec = members[box, slot]
    n_pair = len(rec)
    # columns: the prices y (u), each box's threshold t_B (n_box), each pair's excess s_{B,i}
    t_col = u + np.arange(n_box)
    s_col = u + n_box + np.arange(n_pair)
    n_col = u + n_box + n_pair
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", int(seed))
    h.setOptionValue("time_limit", max(0.01, float(time_limit)))
    h.setOptionValue("solver", "ipm")  # an interior point: no crossover needed for prices
    h.setOptionValue("run_crossover", "off")
    if tolerance is not None:
        h.setOptionValue("ipm_optimality_tolerance", float(tolerance))
    inf = highspy.kHighsInf
    lower = np.r_[np.full(u + n_box, -inf), np.zeros(n_pair)]  # prices may fall below 0
    upper_col = np.r_[np.asarray(upper, dtype=float), np.full(n_box + n_pair, inf)]
    h.addVars(n_col, lower, upper_col)
    h.changeColsCost(u, np.arange(u, dtype=np.int32), c)  # maximize sum_i c_i y_i
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    # box rows: k t_B + sum_i c_i s_{B,i} <= k p_L
    # pair rows: s_{B,i} − y_i + t_B >= 0
    pair_row = n_box + np.arange(n_pair)
    rows = np.r_[np.arange(n_box), box, pair_row, pair_row, pair_row]
    cols = np.r_[t_col, s_col, s_col, rec, t_col[box]]
    vals = np.r_[
        np.full(n_box, float(k)), c[rec], np.ones(n_pair), -np.ones(n_pair), np.ones(n_pair)
    ]
    a = sp.csr_matrix((vals, (rows, cols)), shape=(n_box + n_pair, n_col))
    row_lo = np.r_[np.full(n_box, -inf), np.zeros(n_pair)]
    row_hi = np.r_[k * np.asarray(cost, dtype=float), np.full(n_pair, inf)]
    h.addRows(
        n_box + n_pair,
        row_lo,
        row_hi,
        a.nnz,
        a.indptr[:-1].astype(np.int32),
        a.indices.astype(np.int32),
        a.data,
    )
    h.run()
    if h.getInfo().primal_solution_status != 2:  # kSolutionStatusFeasible
        return None
    y = np.asarray(h.getSolution().col_value, dtype=float)[:u]
    return float(y @ c), y


def box_lp(
    lattice: BoxLattice,
    prices: np.ndarray,
    *,
    deadline: float,
    cap: float | None = None,
    tol: float = 0.05,
    growth: float = 0.1,
    width: int | None = None,
    seed: int = 0,
    max_rounds: int | None = None,
    rtol: float = 1e-3,
    max_boxes: int = 12_000,
    progress: Callable[[float, np.ndarray], None] | None = None,
) -> BoxLP:
    """Cutting planes over generalization boxes from dual-feasible ``prices``.

    Parameters
    ----------
    lattice : BoxLattice
    prices : ndarray, shape (u,)
        Dual-feasible prices to start from (the dual ascent's).
    deadline : float
        A ``perf_counter`` reading: the rounds stop there (the best prices so far stand).
    cap : float, optional
        The cost of deleting a copy, where row deletion is allowed: prices stay at most that.
    tol : float
        Boxes with slack at most ``tol k p_L`` at the best prices enter the LP.
    growth : float
        Trust region: a price rises by at most ``growth`` times its size per round.
    width : int, optional
        Records kept per box, the dearest first (default ``2k``).
    seed : int
        HiGHS's random seed.
    max_rounds : int, optional
        LP solves at most (default: until the deadline, or until a round's LP prices are
        feasible and no better).
    rtol : float
        The ascent after each round stops when one of its rounds gains less than this share.
    max_boxes : int
        The tight boxes of least relative slack kept in the LP at most (an LP over many more
        does not solve within a sweep's time).
    progress : callable, optional
        Called as ``progress(bound, prices)`` with each round's better prices.

    Returns
    -------
    BoxLP
        Dual-feasible prices never worse than ``prices``.

    Notes
    -----
    Each LP holds the boxes tight at the best prices so far and the boxes violated by the LP
    prices since those last improved (kept, so that the LPs cannot cycle; dropped once the best
    prices move, so that the LP stays small). A round costs one HiGHS solve over ``N (width + 1)``
    rows for ``N`` boxes, and up to three lattice sweeps
    (:meth:`~anonratio.exact.kanonymity.box_pricing.BoxLattice.repair`, the boxes violated and the
    boxes tight) plus the ascent's, each ``O(N_L u log u)``.
    """
    t0 = perf_counter()
    counts = lattice.counts.astype(float)
    width = width or 2 * lattice.k
    best = np.asarray(prices, dtype=float).copy()
    out = BoxLP(best, float(best @ counts))
    tight = lattice.boxes(best, tol=tol, width=width, deadline=deadline)
    if tight is None:
        return out
    tight = _tightest(lattice, best, *tight, max_boxes)
    cuts = (np.zeros(0), np.zeros((0, width), np.int64))  # violated since the last gain
    while perf_counter() < deadline and out.rounds < (max_rounds or np.inf):
        cost, members = _merge(tight, cuts)
        if not len(cost):
            break
        upper = best + growth * np.abs(best) + 1e-9
        if cap is not None:
            upper = np.minimum(upper, cap)
        solved = dual_lp(
            lattice,
            cost,
            members,
            upper,
            time_limit=deadline - perf_counter(),
            seed=seed,
            tolerance=IPM_TOL,
        )
        if solved is None:
            break
        lp_value, y = solved
        out.rounds, out.boxes = out.rounds + 1, len(cost)
        repaired = lattice.repair(y, cap=cap, deadline=deadline)
        if repaired is None:
            break
        raised, _ = ascend(lattice, repaired, deadline=deadline, cap=cap, rtol=rtol)
        value = float(raised @ counts)
        gained = value > out.value + _GAIN * max(1.0, abs(out.value))
        if gained:
            out.prices, out.value, best = raised, value, raised
            if progress is not None:
                progress(value, raised.copy())
        out.history.append((perf_counter() - t0, lp_value, out.value))
        # (the LP's own rows hold only to HiGHS's tolerance: a cut must be violated clearly)
        violated = lattice.boxes(y, tol=-_CUT, width=width, deadline=deadline)
        if violated is None:
            break
        if gained:  # a new center: the boxes tight there, and the cuts of its prices only
            tight = lattice.boxes(best, tol=tol, width=width, deadline=deadline)
            if tight is None:
                break
            tight = _tightest(lattice, best, *tight, max_boxes)
            cuts = violated
        else:  # the same center: keep every cut so far, so the LPs cannot cycle
            before = len(cuts[0])
            cuts = _merge(cuts, violated)
            if len(cuts[0]) == before:
                break  # no better and no new cut: the next LP would be this one again
    return out


def _tightest(lattice, y, cost, members, limit):
    """The ``limit`` boxes of least slack relative to ``k p_L`` at ``y`` (all when fewer)."""
    if len(cost) <= limit:
        return cost, members
    k = lattice.k
    copies = np.where(members >= 0, lattice.counts[np.maximum(members, 0)], 0)
    before = np.cumsum(copies, axis=1) - copies
    take = np.clip(k - before, 0, copies)  # copies of each record among the box's k dearest
    top_k = (take * np.where(members >= 0, y[np.maximum(members, 0)], 0.0)).sum(axis=1)
    rel = (k * cost - top_k) / np.maximum(k * cost, 1e-12)
    keep = np.argpartition(rel, limit)[:limit]
    return cost[keep], members[keep]


def _merge(*found):
    """The union of box lists ``(cost, members)`` (a box is its node cost and its member row)."""
    cost = np.concatenate([f[0] for f in found])
    members = np.concatenate([f[1] for f in found])
    _, first = np.unique(np.c_[cost, members], axis=0, return_index=True)
    return cost[first], members[first]
