"""The restricted master LP of k-anonymity's set-partitioning relaxation and its stabilized
column generation, the ``lp-lagrangian`` stage of
:func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`.

A restricted master LP over groups (:class:`Master`, HiGHS, warm-started as columns arrive) gives
prices ``pi``; :class:`~anonratio.exact.kanonymity.box_pricing.BoxLattice` prices every group
exactly at a Wentges-smoothed point ``y = alpha * center + (1 − alpha) * pi``, and
:func:`lagrangian` turns any point into a valid bound and dual-feasible prices (the module
docstring of :mod:`~anonratio.exact.kanonymity.lp_bound` gives the argument).
"""

from __future__ import annotations

from time import perf_counter

import highspy
import numpy as np

from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.columns import cover_master
from anonratio.instances import KAnonymityInstance

__all__ = ["RTOL", "Master", "groups_of", "lagrangian", "generate"]

#: relative tolerance of "the bound meets the master's value"
RTOL = 1e-6


class Master:
    """The restricted master LP over groups, in HiGHS, grown column by column.

    Rows are the unique records (``= c_i``). Every row has a slack column: deletion at its cost
    under row deletion, else an artificial at ``2k`` times it, so the master is always feasible
    (the bound never depends on the master's value, only on the pricing). HiGHS solves it by
    its interior-point method without crossover: central prices stabilize the generation.
    """

    def __init__(self, instance: KAnonymityInstance, counts: np.ndarray, seed: int = 0) -> None:
        self.instance = instance
        self.u, self.k = len(counts), instance.k
        self.members: list[np.ndarray] = []  # the groups (padded rows) in column order
        self.cost: list[float] = []
        self._seen: set[bytes] = set()
        h = self.highs = cover_master(instance, counts, seed)
        h.setOptionValue("solver", "ipm")  # interior prices: central, hence stable, duals
        h.setOptionValue("run_crossover", "off")

    @property
    def n_columns(self) -> int:
        """Group columns (slacks excluded)."""
        return len(self.cost)

    def add(self, members: list[np.ndarray] | np.ndarray, cost: np.ndarray) -> int:
        """Add the groups (padded rows, or arrays of any length) not already present; the
        number added."""
        rows, costs = [], []
        for row, c in zip(members, cost, strict=True):
            row = np.asarray(row, dtype=np.int64)
            row = row[row >= 0]
            key = row.tobytes()
            if key not in self._seen:
                self._seen.add(key)
                rows.append(row)
                costs.append(float(c))
        if not rows:
            return 0
        starts: list[int] = []
        index: list[int] = []
        value: list[int] = []
        for row in rows:
            ids, mult = np.unique(row, return_counts=True)
            starts.append(len(index))
            index.extend(ids.tolist())
            value.extend(mult.tolist())
        n = len(rows)
        self.highs.addCols(
            n,
            np.array(costs),
            np.zeros(n),
            np.full(n, highspy.kHighsInf),
            len(index),
            np.array(starts, np.int32),
            np.array(index, np.int32),
            np.array(value, float),
        )
        self.members.extend(rows)
        self.cost.extend(costs)
        return n

    def add_labellings(self, lattice: BoxLattice, labellings: list[np.ndarray]) -> None:
        """Add the groups of each labelling (e.g. FOREST's), costed by ``lattice``."""
        for labels in labellings:
            groups = groups_of(self.instance, labels)
            rows = _padded(groups, max([lattice.width, *map(len, groups)]))
            self.add(groups, lattice.cost(rows))

    def solve(self, time_limit: float) -> tuple[float, np.ndarray] | None:
        """``(value, row prices)`` of the master, or None when HiGHS did not solve it."""
        self.highs.setOptionValue("time_limit", max(0.01, float(time_limit)))
        self.highs.run()
        info = self.highs.getInfo()
        if info.primal_solution_status != 2:  # kSolutionStatusFeasible
            return None
        value = float(self.highs.getInfo().objective_function_value)
        return value, np.asarray(self.highs.getSolution().row_dual, dtype=float)


def groups_of(instance: KAnonymityInstance, labels: np.ndarray) -> list[np.ndarray]:
    """The groups of a labelling as arrays of unique-record ids (repeats for copies)."""
    inverse = instance.unique_records[1]
    labels = np.asarray(labels)
    keep = np.flatnonzero(labels >= 0)
    order = keep[np.argsort(labels[keep], kind="stable")]
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return [np.sort(inverse[g]) for g in np.split(order, cuts)] if len(keep) else []


def _padded(groups: list[np.ndarray], width: int) -> np.ndarray:
    rows = np.full((len(groups), width), -1, dtype=np.int64)
    for r, g in enumerate(groups):
        rows[r, : len(g)] = g
    return rows


def lagrangian(lattice, point, deadline, max_columns=1):
    """The Lagrangian bound at ``point``, its dual-feasible prices and the pricing's groups
    (:class:`Priced`); None when ``deadline`` passes first."""
    counts = lattice.counts.astype(float)
    priced = lattice.price(point, max_columns=max_columns, deadline=deadline)
    if priced is None:
        return None
    shift = min(0.0, priced.shift)
    if lattice.instance.row_deletion:
        shift = min(shift, float(np.min(lattice.instance.deletion_cost - point)))
    return float(point @ counts) + float(counts.sum()) * shift, point + shift, priced


def generate(out, lattice, master, center, deadline, max_new, t0):
    """Stabilized column generation from ``center``; the best Lagrangian bound and its prices.

    Under row deletion a copy may be deleted at ``sum_j w_j``: the bound's least reduced cost
    per copy covers deletions too.
    """
    best = float(center @ lattice.counts.astype(float))
    max_new = max_new or max(200, lattice.u // 2)
    alpha = 0.5
    while perf_counter() < deadline:
        solved = master.solve(deadline - perf_counter())
        if solved is None:
            break
        value, pi = solved
        out.cg_iterations += 1
        out.lp_value = value
        out.history.append((perf_counter() - t0, max(best, out.value), value))
        if value <= best + RTOL * max(1.0, abs(value)):
            out.solved = True
            break
        for point in (alpha * center + (1 - alpha) * pi, pi):
            proven = lagrangian(lattice, point, deadline, max_new)
            if proven is None:
                return best, center
            bound, feasible, priced = proven
            if bound > best:
                best, center = bound, feasible
            if len(priced.rc) and priced.rc.min() < 0:
                master.add(priced.members, priced.cost)
                break
            alpha = max(0.0, alpha - 0.25)  # a mispricing: trust the master's prices more
        else:  # no negative group at the master's prices: the LP relaxation is solved
            out.solved = True
            break
    return best, center
