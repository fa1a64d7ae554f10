"""Ryan–Foster branching for kanon-bpc: "records ``i`` and ``j`` share a group" or "they do not".

In a fractional solution of the set-partitioning master (every record once, distinct columns),
some pair of records ``i, j`` is covered together a fractional number of times,
``0 < w_ij = sum_{G ∋ i, j} z_G < 1`` (Ryan and Foster 1981). One child then keeps only the
columns holding both or neither of ``i`` and ``j`` (*same*), the other only those not holding
both (*differ*); every partition lies in exactly one child, and a node whose master is integral
is a partition. This needs each of ``i`` and ``j`` to be a single record: a unique record with
several identical copies may lie in several groups. When no pair of single records is
fractional (duplicates, or a column equal as a set to another one), the rule branches on the
most fractional column itself, ``z_G <= floor`` / ``z_G >= ceil``; the pricer never adds a
column already in the master, so that bound holds for ``G`` in the whole subtree.

The decisions of a node are the ones on its path from the root. PySCIPOpt adds only linear
expressions to a node (``Model.addConsNode``), not constraints of a handler written in Python,
so the decisions are kept here by node number (:class:`Decisions`), read by
:class:`DecisionPropagator`, which fixes to 0 at each node every column violating them (columns
priced anywhere in the tree, at any time), and by the pricer, which prices only compatible
columns (:func:`compatible`). That is the pattern of SCIP's binpacking example
(``branch_ryanfoster.c``, ``cons_samediff.c``).

References
----------
D. M. Ryan, B. A. Foster, "An integer programming approach to scheduling", in Computer
Scheduling of Public Transport, 1981, pp. 269-280.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from pyscipopt import SCIP_RESULT, Branchrule, Prop

if TYPE_CHECKING:
    from anonratio.exact.kanonymity.bpc_master import MasterColumns

__all__ = ["Decision", "Decisions", "compatible", "classes", "RyanFoster", "DecisionPropagator"]

#: LP values closer than this to an integer count as integral
FRAC_TOL = 1e-6

#: a decision: records ``i < j`` and whether they share a group (True) or not (False)
Decision = tuple[int, int, bool]


class Decisions:
    """The Ryan–Foster decisions of every node, by SCIP node number.

    A node created by another branching (on a column's bound) has no entry of its own: it
    inherits its parent's.
    """

    def __init__(self) -> None:
        self._by_node: dict[int, tuple[Decision, ...]] = {}
        self.ryan_foster = 0  # branchings on a pair of records
        self.on_columns = 0  # branchings on a column's bound

    def set(self, node, decisions: tuple[Decision, ...]) -> None:
        """Record the decisions of ``node`` (a child just created)."""
        self._by_node[node.getNumber()] = decisions

    def at(self, node) -> tuple[Decision, ...]:
        """The decisions in force at ``node`` (none at the root)."""
        path = []
        while node is not None:
            number = node.getNumber()
            if number in self._by_node:
                found = self._by_node[number]
                break
            path.append(number)
            node = node.getParent()
        else:
            found = ()
        for number in path:  # cache the walk
            self._by_node[number] = found
        return found


def _has(members: np.ndarray, i: int) -> np.ndarray:
    return (members == i).any(axis=1)


def compatible(members: np.ndarray, decisions: Sequence[Decision]) -> np.ndarray:
    """Which groups (rows of unique-record ids, padded with -1) respect every decision."""
    ok = np.ones(len(members), dtype=bool)
    for i, j, same in decisions:
        has_i, has_j = _has(members, i), _has(members, j)
        ok &= (has_i == has_j) if same else ~(has_i & has_j)
    return ok


def classes(decisions: Sequence[Decision]) -> list[tuple[int, ...]]:
    """The records bound together by the *same* decisions: the classes of two or more."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, same in decisions:
        if same:
            parent[find(i)] = find(j)
    out: dict[int, list[int]] = {}
    for x in parent:
        out.setdefault(find(x), []).append(x)
    return sorted(tuple(sorted(c)) for c in out.values() if len(c) > 1)


def violates_class(members: Sequence[int], decisions: Sequence[Decision]) -> bool:
    """Whether a column covering exactly ``members`` (a set) breaks a decision."""
    s = set(members)
    return any(((i in s) != (j in s)) if same else (i in s and j in s) for i, j, same in decisions)


def _fractional_pair(
    master: MasterColumns, values: np.ndarray, decided: set[tuple[int, int]]
) -> tuple[int, int] | None:
    """The undecided pair of single records covered together most fractionally, or None."""
    members = master.group_members()
    keep = values > FRAC_TOL
    members, values = members[keep], values[keep]
    single = master.single
    rows, cols, vals = [], [], []
    width = members.shape[1]
    for a in range(width):
        for b in range(a + 1, width):
            i, j = members[:, a], members[:, b]
            ok = (i >= 0) & (j >= 0) & (i != j)
            ok &= single[np.maximum(i, 0)] & single[np.maximum(j, 0)]
            rows.append(i[ok])
            cols.append(j[ok])
            vals.append(values[ok])
    if not rows:
        return None
    r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    if not len(v):
        return None
    w = sp.coo_matrix((v, (r, c)), shape=(master.u, master.u)).tocsr()
    w.sum_duplicates()
    w = w.tocoo()
    score = np.minimum(w.data, 1.0 - w.data)
    order = np.lexsort((w.col, w.row, -score))
    for t in order:
        if score[t] <= FRAC_TOL:
            return None
        pair = (int(w.row[t]), int(w.col[t]))
        if pair not in decided:
            return pair
    return None


class RyanFoster(Branchrule):
    """Branch on the most fractional pair of single records, else on the most fractional
    column (see the module docstring)."""

    def __init__(self, master: MasterColumns, decisions: Decisions) -> None:
        self.master = master
        self.decisions = decisions

    def branchexeclp(self, allowaddcons):
        model = self.model
        node = model.getCurrentNode()
        here = self.decisions.at(node)
        values = np.array([v.getLPSol() for v in self.master.group_vars])
        pair = _fractional_pair(self.master, values, {(i, j) for i, j, _ in here})
        if pair is None:
            return self._on_column(values)
        i, j = pair
        estimate = model.getLocalEstimate()
        for same in (True, False):
            child = model.createChild(1.0 if same else 0.0, estimate)
            self.decisions.set(child, (*here, (i, j, same)))
        self.decisions.ryan_foster += 1
        return {"result": SCIP_RESULT.BRANCHED}

    def branchexecps(self, allowaddcons):
        return {"result": SCIP_RESULT.DIDNOTRUN}  # no LP solution: SCIP's own rules branch

    def branchexecext(self, allowaddcons):
        return {"result": SCIP_RESULT.DIDNOTRUN}

    def _on_column(self, values):
        """Branch on the most fractional group or deletion column (an artificial one when no
        other is fractional, which the master's rows rule out)."""
        frac = np.abs(values - np.rint(values))
        pool = self.master.group_vars
        if not len(frac) or frac.max() <= FRAC_TOL:
            pool = self.master.artificial_vars()
            values = np.array([v.getLPSol() for v in pool])
            frac = np.abs(values - np.rint(values)) if len(values) else values
        if not len(frac) or frac.max() <= FRAC_TOL:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        self.model.branchVar(pool[int(np.argmax(np.minimum(frac, 1 - frac)))])
        self.decisions.on_columns += 1
        return {"result": SCIP_RESULT.BRANCHED}


class DecisionPropagator(Prop):
    """At each node, fix to 0 every column that violates the node's decisions."""

    def __init__(self, master: MasterColumns, decisions: Decisions) -> None:
        self.master = master
        self.decisions = decisions
        self.fixed = 0

    def propexec(self, proptiming):
        model = self.model
        here = self.decisions.at(model.getCurrentNode())
        if not here:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        master = self.master
        a = master.incidence()  # (u, N) over the group and deletion columns
        bad = np.zeros(a.shape[1], dtype=bool)
        for i, j, same in here:
            has_i, has_j = np.zeros(a.shape[1], bool), np.zeros(a.shape[1], bool)
            has_i[a.indices[a.indptr[i] : a.indptr[i + 1]]] = True
            has_j[a.indices[a.indptr[j] : a.indptr[j + 1]]] = True
            bad |= (has_i != has_j) if same else (has_i & has_j)
        targets = [master.group_vars[g] for g in np.flatnonzero(bad)]
        targets += [v for s, v in master.artificials.items() if violates_class(s, here)]
        changed = False
        for var in targets:
            if var.getUbLocal() > 0.5:
                infeasible, tightened = model.tightenVarUb(var, 0.0)
                if infeasible:
                    return {"result": SCIP_RESULT.CUTOFF}
                changed |= tightened
                self.fixed += int(tightened)
        return {"result": SCIP_RESULT.REDUCEDDOM if changed else SCIP_RESULT.DIDNOTFIND}

    def propresprop(self, confvar, inferinfo, bdtype, relaxedbd):
        return {"result": SCIP_RESULT.DIDNOTFIND}
