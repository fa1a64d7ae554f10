"""The set-partitioning master of kanon-bpc in SCIP and its pricer.

:class:`MasterColumns` holds the master's rows (one per unique record ``i``,
``sum_G mult_G(i) z_G [+ del_i] + art = c_i``) and its columns: groups of ``k .. 2k − 1``
copies (``z_G`` integer), deletions (row deletion only) and *artificial* columns, which keep
every node's master feasible whatever the branching fixed. An artificial covers one unique
record (up to its ``c_i`` copies) or one class of records the branching bound together, and
costs ``big`` per copy, more than the start partition costs in all: a solution using one is never
the best, and the master needs no Farkas pricing.

:class:`GroupPricer` prices groups by the project's exact pricing at the master's row prices
``y`` (objective units): over the generalization lattice
(:meth:`~anonratio.exact.kanonymity.box_pricing.BoxLattice.price`, each box's best group) where
a sweep is small, else by enumeration from representatives
(:func:`~anonratio.exact.kanonymity.columns.enumerate_groups`). It adds the new groups of
negative reduced cost that respect the node's branching decisions
(:func:`~anonratio.exact.kanonymity.bpc_branching.compatible`). When every negative group it
found breaks a decision or is already in the master (held at a bound by the branching), it
enumerates every group of negative reduced cost and filters those; only an exhaustive search
that finds none proves the node's master solved (``SUCCESS``); a capped one reports
``DIDNOTRUN``, and SCIP then keeps the parent's bound for the node. Over the lattice, a round
first prices the lattice nodes that held negative groups in the last few sweeps (partial
pricing: cheap, and it proves nothing when it finds none, so the full sweep follows then).
The lattice pricing also gives the Lagrangian bound
``y·c + n min(0, least reduced cost per copy)`` (deletions and artificials included), valid for
the node's master whatever its decisions. At the root it first prices a Wentges-smoothed point
between the best such prices and SCIP's, and once the root is solved it builds the reduced-cost
pool (:mod:`~anonratio.exact.kanonymity.bpc_pool`), which then
prices a node alone whenever it provably can.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter

import numpy as np
from pyscipopt import SCIP_RESULT, Expr, Pricer

from anonratio.exact.kanonymity.box_pricing import BoxLattice, Priced
from anonratio.exact.kanonymity.bpc_branching import Decisions, classes, compatible
from anonratio.exact.kanonymity.bpc_pool import SHRINK, ReducedCostPool, build_pool
from anonratio.exact.kanonymity.columns import KAnonData, Timeout, enumerate_groups, incidence
from anonratio.exact.kanonymity.incumbents import group_cost

__all__ = ["MasterColumns", "GroupPricer", "RC_TOL"]

#: a column enters the master when its reduced cost is below ``-RC_TOL`` (objective units; SCIP's
#: dual feasibility tolerance)
RC_TOL = 1e-7

#: groups the exhaustive (filtered) pricing enumerates at most before giving up on a node
MAX_ENUMERATED = 500_000

#: the smoothing's weight of the center at each node's first pricing round (Wentges)
ALPHA = 0.5

#: a partial pricing sweeps the lattice nodes that held negative groups in this many last sweeps
RECENT = 4

#: ... at most this many of them
PARTIAL_NODES = 400

#: a node narrows its subtree's pool only to this share of its own at most
NARROW_KEEP = 0.8

#: pool indices kept for narrowed subtrees at most (all are forgotten beyond)
NARROW_STORED = 20_000_000


class MasterColumns:
    """The rows and columns of the master (see the module docstring).

    Parameters
    ----------
    model : pyscipopt.Model
        Before ``optimize``: the rows are added to it.
    d : KAnonData
    big : float
        Cost of one artificial copy (objective units).
    """

    def __init__(self, model, d: KAnonData, big: float) -> None:
        self.model, self.d, self.big = model, d, float(big)
        self.u, self.width = d.u, d.width
        self.single = d.counts == 1
        self.rows = [
            model.addCons(Expr() == float(c), name=f"cover_{i}", modifiable=True)
            for i, c in enumerate(d.counts)
        ]
        self.group_vars: list = []  # groups and deletions, in column order
        self._members: list[np.ndarray] = []
        self.cost: list[float] = []
        self.keys: set[bytes] = set()
        self.deletion: dict[int, int] = {}  # unique record -> its deletion column
        self.artificials: dict[tuple[int, ...], object] = {}
        self._cache: tuple[int, np.ndarray, object] | None = None
        for i in range(self.u):
            self.add_artificial((i,), priced=False)
        if d.instance.row_deletion:
            for i in range(self.u):
                row = np.full(self.width, -1, np.int64)
                row[0] = i
                self.deletion[i] = len(self.group_vars)
                self._add(row, d.del_coef, priced=False)

    def transform(self) -> None:
        """Swap the rows and the columns added before ``optimize`` for SCIP's transformed ones
        (pricing and branching read those)."""
        m = self.model
        self.rows = [m.getTransformedCons(c) for c in self.rows]
        self.group_vars = [m.getTransformedVar(v) for v in self.group_vars]
        self.artificials = {s: m.getTransformedVar(v) for s, v in self.artificials.items()}

    def add_groups(self, members: np.ndarray, cost: np.ndarray, *, priced: bool) -> int:
        """Add the groups (rows of unique-record ids, padded with -1) not in the master yet;
        the number added."""
        added = 0
        for row, c in zip(np.asarray(members, np.int64), cost, strict=True):
            if row.tobytes() in self.keys:
                continue
            self._add(row, float(c), priced=priced)
            added += 1
        return added

    def _add(self, row: np.ndarray, cost: float, *, priced: bool) -> None:
        # no upper bound: the rows imply z_G <= c_i / mult_G(i), and a bound would let a column
        # sit at it with a negative reduced cost, which the pricing could not tell from a new one
        var = self.model.addVar(vtype="I", lb=0.0, ub=None, obj=cost, pricedVar=priced)
        ids, mult = np.unique(row[row >= 0], return_counts=True)
        for i, times in zip(ids, mult, strict=True):
            self.model.addConsCoeff(self.rows[i], var, float(times))
        self.keys.add(row.tobytes())
        self.group_vars.append(var)
        self._members.append(row)
        self.cost.append(cost)

    def add_artificial(self, records: tuple[int, ...], *, priced: bool) -> bool:
        """The artificial column of ``records`` (one unique record, or a class of single
        records), unless the master has it; whether it was added."""
        if records in self.artificials:
            return False
        size = len(records)
        var = self.model.addVar(vtype="I", lb=0.0, ub=None, obj=self.big * size, pricedVar=priced)
        for i in records:
            self.model.addConsCoeff(self.rows[i], var, 1.0)
        self.artificials[records] = var
        return True

    def artificial_vars(self) -> list:
        return list(self.artificials.values())

    def group_members(self) -> np.ndarray:
        """The members of every group and deletion column, in column order, ``(N, width)``."""
        return self._cached()[1]

    def incidence(self):
        """``A[i, G]`` over the group and deletion columns (CSR, u × N)."""
        return self._cached()[2]

    def _cached(self):
        n = len(self._members)
        if self._cache is None or self._cache[0] != n:
            members = np.array(self._members, dtype=np.int64).reshape(n, self.width)
            self._cache = (n, members, incidence(members, self.u))
        return self._cache

    def prices(self) -> np.ndarray:
        """The rows' dual values at the current node's master LP."""
        return np.array([self.model.getDualsolLinear(c) for c in self.rows])

    def farkas(self) -> np.ndarray:
        return np.array([self.model.getDualfarkasLinear(c) for c in self.rows])


class GroupPricer(Pricer):
    """Reduced-cost pricing of groups at each node (see the module docstring).

    Parameters
    ----------
    master : MasterColumns
    decisions : Decisions
    lattice : BoxLattice or None
        Price over the lattice when given, else by enumeration from representatives.
    deadline : float
        A ``perf_counter`` reading: past it the pricer stops (``DIDNOTRUN``).
    max_new : int
        Groups added per pricing round at most (those of least reduced cost).
    """

    def __init__(
        self,
        master: MasterColumns,
        decisions: Decisions,
        lattice: BoxLattice | None,
        *,
        deadline: float,
        max_new: int,
    ) -> None:
        self.master, self.decisions, self.lattice = master, decisions, lattice
        self.deadline, self.max_new = deadline, max_new
        self.center = master.d.nn.astype(float)  # dual-feasible prices: the smoothing's center
        self.center_bound = float(self.center @ master.d.counts)
        self.alpha, self._node = ALPHA, -1
        self.pool: ReducedCostPool | None = None
        self.pool_tried = False
        #: called with the root's pool once it is built (the run's primal heuristic)
        self.on_pool: Callable[[ReducedCostPool], None] | None = None
        self.pool_rounds = 0  # rounds the pool alone priced
        self.rounds = 0
        self.exhaustive = 0  # rounds that fell back on the filtered enumeration
        self.gave_up = 0  # rounds that could not prove their node's master solved
        self.seconds = 0.0
        n_nodes = 0 if lattice is None else len(lattice.nodes)
        self._hit = np.zeros(n_nodes, np.int64)  # the last sweep that found groups at each node
        self._sweeps = 0
        self.partial_rounds = 0  # rounds priced over the recent lattice nodes first
        self.partial_misses = 0  # ... that found nothing there
        self._subsets: dict[int, np.ndarray] = {}  # node number -> its subtree's pool groups
        self._stored = 0
        self.narrowed = 0  # nodes that narrowed the pool for their subtree

    def pricerinit(self):
        self.master.transform()

    def pricerfarkas(self):
        """The master is infeasible only where the branching cut off every artificial column
        of a record: add the artificial columns of the node's classes. With them in the
        master, an infeasible master means a column's branching bounds conflict, which no new
        column repairs."""
        here = self.decisions.at(self.model.getCurrentNode())
        for records in classes(here):
            self.master.add_artificial(records, priced=True)
        return {"result": SCIP_RESULT.SUCCESS}

    def pricerredcost(self):
        t0 = perf_counter()
        try:
            return self._price()
        except Timeout:  # the enumeration met the deadline: nothing proven at this node
            return {"result": SCIP_RESULT.DIDNOTRUN}
        finally:
            self.seconds += perf_counter() - t0

    def _price(self):
        self.rounds += 1
        master, d = self.master, self.master.d
        here = self.decisions.at(self.model.getCurrentNode())
        for records in classes(here):
            master.add_artificial(records, priced=True)
        if perf_counter() > self.deadline:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        y = master.prices()
        out: dict = {"result": SCIP_RESULT.SUCCESS}
        if self.pool is not None:
            pool, node = self.pool, self.model.getCurrentNode()
            among = self._narrowed(node)
            if self._take(pool.members[pool.negative(y, RC_TOL, among)], y, here):
                self.pool_rounds += 1
                return out
            if pool.covers(y, self.model.getPrimalbound()):
                self.pool_rounds += 1
                self._narrow(node, y, among)
                return out
        if self.lattice is not None:
            if self._partial(y, here) or self._smoothed(y, here, out):
                return out
            priced = self._sweep(y)
            if priced is None:
                return {"result": SCIP_RESULT.DIDNOTRUN}
            members = priced.members
            out["lowerbound"] = max(
                out.get("lowerbound", -np.inf), self._lagrangian(y, d.scale * priced.shift)
            )
            exhaustive, shift = False, d.scale * priced.shift  # each box's best group only
        else:
            found, _, exhaustive = enumerate_groups(
                d, y, -RC_TOL, max_columns=self.max_new, deadline=self.deadline
            )
            members, shift = found.members, -RC_TOL / d.k
        if self._take(members, y, here):
            return out
        if not len(members) or exhaustive:  # no negative group anywhere: the master is solved
            if not here and not self.pool_tried:
                self._build_pool(y, shift)
            return out
        # every negative group found breaks a decision or is in the master already
        self.exhaustive += 1
        found, _, exhaustive = enumerate_groups(
            d, y, -RC_TOL, max_columns=MAX_ENUMERATED, deadline=self.deadline
        )
        if self._take(found.members, y, here):
            return out
        if exhaustive:  # no new negative group: the node's master is solved
            if not here and not self.pool_tried:
                self._build_pool(y, -RC_TOL / d.k)
            return out
        self.gave_up += 1
        return {"result": SCIP_RESULT.DIDNOTRUN}

    def _narrowed(self, node) -> np.ndarray | None:
        """The pool's groups that may still be in a partition cheaper than the incumbent below
        the nearest ancestor of ``node`` (itself included) that narrowed them; None: all."""
        while node is not None:
            found = self._subsets.get(node.getNumber())
            if found is not None:
                return found
            node = node.getParent()
        return None

    def _narrow(self, node, y: np.ndarray, among: np.ndarray | None) -> None:
        """Once the node's master is solved at ``y`` (its value ``y·c``: no column sits at a
        positive lower bound), keep for its subtree the pool's groups of reduced cost at most
        ``T − y·c``, ``T`` the most a partition still worth finding costs (the incumbent's cost,
        less one unit for integral costs): every other column of the subtree has a reduced cost
        of at least 0, so a partition using a group beyond that costs more than ``T``."""
        master, d, pool = self.master, self.master.d, self.pool
        assert pool is not None
        if any(v.getLbLocal() > 0.5 for v in master.group_vars):
            return
        target = self.model.getPrimalbound() - (1.0 if d.integral else 0.0)
        room = target - float(y @ d.counts)
        room += 1e-6 * float(d.counts.sum()) + 1e-9 * max(1.0, abs(target))
        index = np.arange(len(pool)) if among is None else among
        keep = index[pool.reduced_costs(y, index) <= room]
        if len(keep) > NARROW_KEEP * len(index):
            return
        if self._stored + len(keep) > NARROW_STORED:  # forget them all: the pool is still valid
            self._subsets.clear()
            self._stored = 0
        self._subsets[node.getNumber()] = keep.astype(np.int32)
        self._stored += len(keep)
        self.narrowed += 1

    def _build_pool(self, y: np.ndarray, shift: float) -> None:
        """The root's pool (:mod:`~anonratio.exact.kanonymity.bpc_pool`) at the root's prices
        made dual feasible (``y`` shifted by the least reduced cost per copy, ``shift``)."""
        self.pool_tried = True
        d = self.master.d
        s = min(0.0, shift)
        if d.instance.row_deletion:
            s = min(s, float(np.min(d.del_coef - y)))
        pi0 = y + s
        lb0 = float(pi0 @ d.counts)
        gap = self.model.getPrimalbound() - lb0
        if not (np.isfinite(gap) and gap > 0):
            return
        self.pool = build_pool(d, self.lattice, pi0, gap, deadline=self.deadline)
        if self.pool is None or self.on_pool is None:
            return
        self.on_pool(self.pool)  # may find a cheaper partition: then a pool may cover the gap
        gap = self.model.getPrimalbound() - lb0
        if self.pool.delta < gap < SHRINK * self.pool.delta:
            wider = build_pool(d, self.lattice, pi0, gap, deadline=self.deadline)
            if wider is not None and wider.delta > self.pool.delta:
                self.pool = wider

    def _smoothed(self, y: np.ndarray, here, out: dict) -> bool:
        """Price at ``alpha * center + (1 − alpha) * y`` (Wentges); whether it found groups of
        negative reduced cost at ``y`` (else ``alpha`` drops and ``y`` itself is priced). Its
        Lagrangian bound goes to ``out``, and its dual-feasible prices become the center when
        they prove more."""
        node = self.model.getCurrentNode().getNumber()
        if node != self._node:
            self._node, self.alpha = node, ALPHA
        if self.alpha <= 0 or here:  # at the root only: a node's prices start near its parent's
            return False
        d, lattice = self.master.d, self.lattice
        assert lattice is not None  # smoothing runs with the lattice pricing only
        point = self.alpha * self.center + (1 - self.alpha) * y
        priced = self._sweep(point)
        if priced is None:
            return False
        shift = min(0.0, d.scale * priced.shift)
        if d.instance.row_deletion:
            shift = min(shift, float(np.min(d.del_coef - point)))
        bound = float(point @ d.counts) + float(d.counts.sum()) * shift
        if bound > self.center_bound:
            self.center, self.center_bound = point + shift, bound
        out["lowerbound"] = self._lagrangian(point, d.scale * priced.shift)
        if self._take(priced.members, y, here):
            return True
        self.alpha = max(0.0, self.alpha - 0.25)
        return False

    def _sweep(self, y: np.ndarray, only: np.ndarray | None = None) -> Priced | None:
        """The lattice pricing at ``y`` (objective units), over every lattice node or ``only``
        those; the nodes where it found negative groups are remembered."""
        d, lattice = self.master.d, self.lattice
        assert lattice is not None
        priced = lattice.price(
            y / d.scale,
            max_columns=self.max_new,
            tol=RC_TOL / d.scale,
            deadline=self.deadline,
            only=only,
        )
        self._sweeps += 1
        if priced is not None:
            self._hit[priced.hits] = self._sweeps
        return priced

    def _partial(self, y: np.ndarray, here) -> bool:
        """Price the lattice nodes that held negative groups in the last :data:`RECENT`
        sweeps, most recent first (at most :data:`PARTIAL_NODES`); whether it added groups.
        Finding none proves nothing: the full sweep follows."""
        recent = np.flatnonzero(self._hit > self._sweeps - RECENT)
        if not len(recent):
            return False
        recent = recent[np.argsort(-self._hit[recent], kind="stable")][:PARTIAL_NODES]
        priced = self._sweep(y, np.sort(recent))
        if priced is None:
            return False
        self.partial_rounds += 1
        if self._take(priced.members, y, here):
            return True
        self.partial_misses += 1
        return False

    def _take(self, members: np.ndarray, y: np.ndarray, here) -> bool:
        """Add the new, compatible groups of negative reduced cost among ``members`` (the
        ``max_new`` most negative); whether any was added."""
        if not len(members):
            return False
        master, d = self.master, self.master.d
        members = np.asarray(members, dtype=np.int64)  # the master's keys are int64 rows
        cost = group_cost(d, members)
        rc = cost - np.where(members >= 0, y[np.maximum(members, 0)], 0.0).sum(axis=1)
        keep = (rc < -RC_TOL) & compatible(members, here)
        keep &= np.array([row.tobytes() not in master.keys for row in members])
        if not keep.any():
            return False
        idx = np.flatnonzero(keep)
        idx = idx[np.argsort(rc[idx], kind="stable")[: self.max_new]]
        return master.add_groups(members[idx], cost[idx], priced=True) > 0

    def _lagrangian(self, y: np.ndarray, shift: float) -> float:
        """``y·c + n min(0, s)``: ``s`` the least reduced cost per copy over the groups
        (``shift``), the deletions and the artificial columns; a bound on the node's master."""
        master, d = self.master, self.master.d
        s = min(0.0, shift)
        if d.instance.row_deletion:
            s = min(s, float(np.min(d.del_coef - y)))
        for records in master.artificials:
            s = min(s, master.big - float(y[list(records)].mean()))
        return float(y @ d.counts) + float(d.counts.sum()) * s
