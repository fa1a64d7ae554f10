"""Exact pricing of k-anonymity groups over the generalization lattice, without pairwise tables.

The linear relaxation of set partitioning over groups (:mod:`anonratio.exact.kanonymity.columns`)
has a pricing problem: given row prices ``y`` (one per unique record, per copy), find the group
``G`` of at least ``k`` copies with the least reduced cost ``rc_G = |G| p(G) − y(G)``, where
``p(G) = sum_j a_j L_j(G)`` is its per-copy cost. A group's levels ``L(G)`` are a node of the
lattice of level vectors, and ``G`` lies in one *box* of that node: the records whose values
coincide on every attribute ``j`` at level ``L_j`` (one generalized record). Conversely any ``t``
copies in a box ``B`` of node ``L`` form a group of cost at most ``t p_L``. So

    min_G rc_G = min over nodes L, boxes B of L:  min_t  t p_L − (the t largest prices in B),

and inside a box the best ``t`` takes the copies in decreasing price: all copies priced above
``p_L``, clipped to ``[k, 2k − 1]``. Likewise ``min_G rc_G / |G|`` (the Lagrangian shift) is
``min_{L, B} p_L − (mean of the k largest prices in B)`` where negative.

:class:`BoxLattice` evaluates this over every node with a few sorts per node, exactly. Two
prunings keep it exact: a node with ``p_L >= max y`` holds no negative group; and a box's ``k``
best copies all have ``y > k p_L − (k − 1) max y`` when their mean exceeds ``p_L``, so each node
sorts only that prefix of the records (taken in decreasing price).

Cost: ``O(N_L u log u)`` per pricing for ``N_L`` lattice nodes and ``u`` unique records
(:attr:`BoxLattice.work`); tens of thousands of nodes times 10^5 records is beyond a sweep.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from time import perf_counter

import numpy as np
import pandas as pd

from anonratio.instances import KAnonymityInstance
from anonratio.instances.kanonymity.instance import member_levels

__all__ = ["BoxLattice", "Priced", "lattice_nodes", "MAX_LATTICE_NODES"]

#: largest lattice (level vectors) a BoxLattice holds: 10^6 nodes of up to a few dozen levels
MAX_LATTICE_NODES = 1_000_000

#: keys above this are compressed (the mixed radix of the attributes' value counts overflows)
_KEY_LIMIT = 1 << 62


@dataclass
class Priced:
    """The outcome of one pricing sweep.

    Attributes
    ----------
    members : ndarray of int64, shape (N, 2k − 1)
        The groups found, as ascending unique-record ids with repeats for copies, padded with -1.
    cost : ndarray, shape (N,)
        Their exact costs (the groups' own levels, which may lie below the box's).
    rc : ndarray, shape (N,)
        Their reduced costs at the prices priced.
    shift : float
        ``min(0, min_G rc_G / |G|)`` over every group of at least ``k`` copies: the prices
        ``y + shift`` are dual feasible.
    nodes : int
        Lattice nodes swept (the others were pruned).
    seconds : float
    hits : ndarray of int
        Indices (into :attr:`BoxLattice.nodes`) of the lattice nodes whose boxes held a group of
        negative reduced cost.
    """

    members: np.ndarray
    cost: np.ndarray
    rc: np.ndarray
    shift: float
    nodes: int
    seconds: float
    hits: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def lattice_nodes(instance: KAnonymityInstance) -> int:
    """Number of level vectors of the instance's hierarchies in force (``prod_j (l_j + 1)``)."""
    return math.prod(int(h) + 1 for h in instance.heights)


class BoxLattice:
    """The generalization lattice of an instance's unique records, ready to price groups.

    Parameters
    ----------
    instance : KAnonymityInstance
    a : array_like of float, shape (m,), optional
        Cost of one level of attribute ``j`` for one copy (default ``w_j / l_j``; the exact
        solvers pass scaled costs).

    Raises
    ------
    ValueError
        If the lattice has more than :data:`MAX_LATTICE_NODES` nodes (:func:`lattice_nodes`).

    Notes
    -----
    The unique records and their copies are the instance's
    (:attr:`KAnonymityInstance.unique_records`).
    """

    def __init__(self, instance: KAnonymityInstance, a: np.ndarray | None = None) -> None:
        size = lattice_nodes(instance)
        if size > MAX_LATTICE_NODES:
            raise ValueError(
                f"the generalization lattice has {size} nodes, more than "
                f"MAX_LATTICE_NODES={MAX_LATTICE_NODES}"
            )
        self.instance = instance
        self.k = instance.k
        self.width = 2 * instance.k - 1
        unique, _, counts = instance.unique_records
        self.unique, self.counts = unique, np.asarray(counts, dtype=np.int64)
        self.a = np.asarray(
            instance.table.weights / instance.heights if a is None else a, dtype=float
        )
        hs = instance.hierarchies
        # groups[j][t]: the group of every unique record at level t of attribute j
        self.groups = [
            [h.groups[unique[:, j], t].astype(np.int64) for t in range(h.height + 1)]
            for j, h in enumerate(hs)
        ]
        sizes = [h.n_values for h in hs]
        self.radix = np.cumprod([1, *sizes[:-1]], dtype=object)
        self.overflow = int(np.prod(np.array(sizes, dtype=object))) >= _KEY_LIMIT
        self.nodes = np.array(list(itertools.product(*(range(h.height + 1) for h in hs))))
        self.node_cost = self.nodes @ self.a
        self._own_keys: list[list[np.ndarray]] | None = None  # node_boxes' keys, in record order

    @property
    def u(self) -> int:
        """Number of unique records."""
        return len(self.counts)

    @property
    def work(self) -> float:
        """Records times lattice nodes: the size of one unpruned sweep."""
        return float(self.u) * len(self.nodes)

    def _keys(self, perm: np.ndarray) -> list[list[np.ndarray]]:
        """Per attribute and level, the group ids in ``perm`` order, times the attribute's
        radix (or plain ids when the radix overflows)."""
        out = []
        for j, levels in enumerate(self.groups):
            r = 1 if self.overflow else int(self.radix[j])
            out.append([g[perm] * r for g in levels])
        return out

    def by_price(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float | None]:
        """The records in decreasing price: ``(perm, prices, copies, top_k)``, ``top_k`` the sum
        of the ``k`` largest prices over all copies (None with fewer than ``k`` copies)."""
        perm = np.argsort(-y, kind="stable")
        ys, cs = y[perm], self.counts[perm]
        cum = np.cumsum(cs)
        if not len(cs) or cum[-1] < self.k:
            return perm, ys, cs, None
        top = int(np.searchsorted(cum, self.k))
        rest = self.k - (cum[top - 1] if top else 0)
        return perm, ys, cs, float((cs[:top] * ys[:top]).sum() + rest * ys[top])

    def price(
        self,
        y: np.ndarray,
        *,
        max_columns: int,
        tol: float = 1e-9,
        deadline: float | None = None,
        only: np.ndarray | None = None,
    ) -> Priced | None:
        """Every box's best group at the prices ``y``; the ``max_columns`` of least reduced cost.

        Parameters
        ----------
        y : ndarray, shape (u,)
            Price of one copy of each unique record.
        max_columns : int
            Groups returned at most (those of least reduced cost).
        tol : float
            Groups need ``rc < -tol`` to be returned.
        deadline : float, optional
            A ``perf_counter`` reading; None is returned when it passes first.
        only : ndarray of int, optional
            Sweep these lattice nodes only (indices into :attr:`nodes`): a partial pricing,
            whose ``shift`` bounds the groups of those nodes only.

        Returns
        -------
        Priced or None
        """
        t0 = perf_counter()
        y = np.asarray(y, dtype=float)
        k, width = self.k, self.width
        perm, ys, cs, _ = self.by_price(y)
        ymax = float(ys[0]) if len(ys) else 0.0
        keys = self._keys(perm)
        shift, swept = 0.0, 0
        found: list[tuple[np.ndarray, np.ndarray]] = []
        n_found, hits = 0, []
        index = np.arange(len(self.nodes)) if only is None else np.asarray(only, np.int64)
        for at, node, p in zip(index, self.nodes[index], self.node_cost[index], strict=True):
            if p >= ymax:
                continue  # every copy is priced at most p: no box holds a negative group
            if deadline is not None and perf_counter() > deadline:
                return None
            n_sel = int(np.searchsorted(-ys, -(k * p - (k - 1) * ymax), side="left"))
            if int(cs[:n_sel].sum()) < k:
                continue
            swept += 1
            key = self._node_key(keys, node, n_sel)
            s, new = self._node(key, ys[:n_sel], cs[:n_sel], float(p), tol)
            shift = min(shift, s)
            if new is not None:
                rows, rc = new
                found.append((np.where(rows >= 0, perm[np.maximum(rows, 0)], -1), rc))
                n_found += len(rc)
                hits.append(at)
                if n_found > 4 * max_columns:
                    found = [_best(found, max_columns)]
                    n_found = len(found[0][1])
        members, rc = _best(found, max_columns) if found else (np.zeros((0, width), np.int64), [])
        members = _canonical_rows(members)
        members, first = np.unique(members, axis=0, return_index=True)
        cost = self.cost(members)
        rc = cost - np.where(members >= 0, y[np.maximum(members, 0)], 0.0).sum(axis=1)
        seconds = perf_counter() - t0
        return Priced(members, cost, rc, float(shift), swept, seconds, np.array(hits, np.int64))

    def slack(
        self, y: np.ndarray, free: np.ndarray | None = None, deadline: float | None = None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Per unique record, its boxes' least slack and the raise that slack allows.

        A box ``B`` of node ``L`` holding at least ``k`` copies has slack
        ``s_B = k p_L − (sum of the k largest prices in B)`` (``>= 0`` for dual-feasible prices).
        If only the ``free`` records rise, and ``r_B`` free copies lie in ``B``, raising each by
        at most ``s_B / min(k, r_B)`` raises the sum of any ``k`` prices in ``B`` by at most
        ``s_B``: the prices stay dual feasible.

        Parameters
        ----------
        y : ndarray, shape (u,)
            Dual-feasible prices.
        free : ndarray of bool, shape (u,), optional
            The records that may rise (default: all).
        deadline : float, optional
            A ``perf_counter`` reading; None is returned when it passes first.

        Returns
        -------
        slack : ndarray, shape (u,)
            ``min_{B ∋ i} s_B`` (``inf`` when no box of ``k`` copies holds ``i``).
        raise_ : ndarray, shape (u,)
            ``min_{B ∋ i} s_B / min(k, r_B)``: how far record ``i`` may rise.

        Notes
        -----
        Nodes are swept by increasing ``p_L``; the sweep stops once ``k p_L`` minus the ``k``
        largest prices overall is positive and exceeds ``k`` times every raise found (no later
        box can lower one).
        """
        y = np.asarray(y, dtype=float)
        k, u = self.k, self.u
        free = np.ones(u, dtype=bool) if free is None else np.asarray(free, dtype=bool)
        perm, ys, cs, top_k = self.by_price(y)
        if top_k is None:
            return np.full(u, np.inf), np.full(u, np.inf)
        fs = free[perm]
        keys = self._keys(perm)
        best, rise = np.full(u, np.inf), np.full(u, np.inf)
        for i in np.argsort(self.node_cost, kind="stable"):
            node, p = self.nodes[i], float(self.node_cost[i])
            floor = k * p - top_k  # every box of this node and the later ones has this slack
            if floor > 0 and floor >= k * float(rise[free].max(initial=0.0)):
                break
            if deadline is not None and perf_counter() > deadline:
                return None
            key = self._node_key(keys, node, u)
            order = _box_order(key)
            slack, n_free, size = self._box_slack(key[order], ys[order], cs[order], fs[order], p)
            full = np.isfinite(slack)  # boxes of fewer than k copies bound nothing
            if not full.any():
                continue
            idx = perm[order[np.repeat(full, size)]]
            slack, n_free, size = slack[full], n_free[full], size[full]
            best[idx] = np.minimum(best[idx], np.repeat(slack, size))
            share = slack / np.maximum(1, np.minimum(k, n_free))
            rise[idx] = np.minimum(rise[idx], np.repeat(share, size))
        return best, rise

    def repair(
        self, y: np.ndarray, *, cap: float | None = None, deadline: float | None = None
    ) -> np.ndarray | None:
        """Dual-feasible prices at most ``y``, for any ``y``.

        Every record drops by ``min(0, s_B / k)`` for the box ``B`` of least slack ``s_B`` that
        holds it (:meth:`slack`). Each copy in a violated box drops by at least ``|s_B| / k``,
        so the ``k`` dearest copies of ``B`` lose at least ``|s_B|`` together: every box ends
        with slack ``>= 0``. With ``cap`` (the cost of deleting a copy) prices are clipped to it.

        Returns
        -------
        ndarray, shape (u,), or None when ``deadline`` passes first.
        """
        found = self.slack(y, deadline=deadline)
        if found is None:
            return None
        least = np.where(np.isfinite(found[0]), found[0], 0.0)
        out = np.asarray(y, dtype=float) + np.minimum(0.0, least / self.k)
        return out if cap is None else np.minimum(out, cap)

    def boxes(
        self, y: np.ndarray, *, tol: float, width: int, deadline: float | None = None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The boxes of at least ``k`` copies whose slack at ``y`` is at most ``tol k p_L``
        (``tol < 0``: below it, so the violated ones only): the tight constraints of the dual.

        Returns
        -------
        cost : ndarray, shape (N,)
            Per-copy cost ``p_L`` of each box's node.
        members : ndarray of int64, shape (N, width)
            Each box's ``width`` dearest unique records (by ``y``), padded with -1.

        None when ``deadline`` passes first.
        """
        y = np.asarray(y, dtype=float)
        k, u = self.k, self.u
        perm, ys, cs, top_k = self.by_price(y)
        if top_k is None:
            return np.zeros(0), np.zeros((0, width), np.int64)
        keys = self._keys(perm)
        costs, rows, col = [], [], np.arange(width)
        for node, p in zip(self.nodes, self.node_cost, strict=True):
            limit = tol * k * p if np.isfinite(tol) else np.inf
            if k * p - top_k > limit:
                continue  # every box of this node has more slack
            if deadline is not None and perf_counter() > deadline:
                return None
            key = self._node_key(keys, node, u)
            order = _box_order(key)
            box = _Boxes(key[order], ys[order], cs[order])
            box.keep(box.total >= k)
            slack = k * p - box.top(np.minimum(k, box.total))
            tight = slack <= limit if tol >= 0 else slack < limit
            if not tight.any():
                continue
            start, size = box.start[tight], (box.end - box.start)[tight]
            pos = np.minimum(start[:, None] + col[None, :], len(order) - 1)
            rows.append(np.where(col[None, :] < size[:, None], perm[order[pos]], -1))
            costs.append(np.full(len(start), float(p)))
        if not rows:
            return np.zeros(0), np.zeros((0, width), np.int64)
        return np.concatenate(costs), np.concatenate(rows)

    def _node_key(self, keys, node, n_sel):
        """The box of each of the first ``n_sel`` records (decreasing price) at ``node``."""
        key = keys[0][node[0]][:n_sel].copy()
        for j in range(1, len(keys)):
            if self.overflow:  # compress the key so far, then mix the next attribute in
                key = np.unique(key, return_inverse=True)[1].astype(np.int64)
                key = key * int(self.groups[j][node[j]].max() + 1) + keys[j][node[j]][:n_sel]
            else:
                key += keys[j][node[j]][:n_sel]
        return key

    def node_boxes(self, node: np.ndarray) -> np.ndarray:
        """The box of every unique record at ``node``: ids from 0, in order of first
        appearance."""
        if self._own_keys is None:
            self._own_keys = self._keys(np.arange(self.u))
        return pd.factorize(self._node_key(self._own_keys, node, self.u), sort=False)[0]

    def _box_slack(self, ks, yv, cv, fv, p):
        """Slack, free copies and size (in records) of every box of a node, records sorted by
        box and decreasing price; boxes of fewer than ``k`` copies have infinite slack."""
        k = self.k
        box = _Boxes(ks, yv, cv)
        top_k = box.top(np.minimum(k, box.total))
        free = np.add.reduceat(cv * fv, box.start)
        return np.where(box.total >= k, k * p - top_k, np.inf), free, box.end - box.start

    def _node(self, key, ys, cs, p, tol):
        """One node: its least ``rc / |G|`` and its boxes' negative groups (rows into the
        decreasing-price order, padded with -1; reduced costs at the box's cost)."""
        k, width = self.k, self.width
        order = _box_order(key)  # by box, decreasing price inside
        box = _Boxes(key[order], ys[order], cs[order])
        box.keep(box.total >= k)
        if not len(box.start):
            return np.inf, None
        shift = float((p - box.top(k) / k).min())
        if shift >= -tol / k:
            return shift, None
        # copies priced above p, clipped to [k, 2k - 1] and to the box
        above = np.cumsum(box.cv * (box.yv > p))
        n_above = above[box.end - 1] - np.r_[0, above][box.start]
        t = np.clip(n_above, k, np.minimum(width, box.total))
        rc = t * p - box.top(t)
        neg = rc < -tol
        if not neg.any():
            return shift, None
        base, t, rc = box.base[neg], t[neg], rc[neg]
        copy = np.arange(1, width + 1)
        pos = np.searchsorted(box.cum, base[:, None] + copy[None, :])  # each copy's position
        rows = np.where(copy[None, :] <= t[:, None], order[np.minimum(pos, len(order) - 1)], -1)
        return shift, (rows, rc)

    def cost(self, members: np.ndarray) -> np.ndarray:
        """The exact cost of groups given as padded rows of unique-record ids (with repeats)."""
        members = np.asarray(members, dtype=np.int64)
        if len(members) == 0:
            return np.zeros(0)
        g, c = np.nonzero(members >= 0)
        levels = member_levels(self.instance, g, members[g, c], len(members), codes=self.unique)
        return (members >= 0).sum(axis=1) * (levels @ self.a)


class _Boxes:
    """The boxes of one node: records sorted by box, decreasing price inside each box.

    ``cum`` / ``ycum`` are running sums of copies and of their prices; ``base`` / ``ybase`` their
    values before each box; ``total`` the copies per box.
    """

    def __init__(self, ks, yv, cv):
        self.yv, self.cv = yv, cv
        self.start = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        self.end = np.r_[self.start[1:], len(ks)]
        self.cum = np.cumsum(cv)
        self.ycum = np.cumsum(cv * yv)
        self.base = self.cum[self.start] - cv[self.start]
        self.ybase = self.ycum[self.start] - cv[self.start] * yv[self.start]
        self.total = self.cum[self.end - 1] - self.base

    def keep(self, mask):
        """Keep the boxes of ``mask`` only."""
        for name in ("start", "end", "base", "ybase", "total"):
            setattr(self, name, getattr(self, name)[mask])

    def top(self, t):
        """Per box, the sum of the prices of its ``t`` dearest copies (``t <= total``)."""
        q = np.searchsorted(self.cum, self.base + t)
        return self.ycum[q] - self.ybase - (self.cum[q] - self.base - t) * self.yv[q]


def _box_order(key: np.ndarray) -> np.ndarray:
    """A stable order that makes each box (equal ``key``) contiguous.

    Boxes come in order of first appearance, records keep their order inside a box. The keys
    are numbered by a hash table (:func:`pandas.factorize`) and the numbers sorted by radix,
    16 bits per pass: a few times faster than sorting the 64-bit keys, which a sweep does once
    per lattice node.
    """
    ids = pd.factorize(key, sort=False)[0]
    if ids.size == 0 or ids.max() < 1 << 16:
        return np.argsort(ids.astype(np.uint16), kind="stable")
    order = np.argsort((ids & 0xFFFF).astype(np.uint16), kind="stable")
    high = (ids[order] >> 16).astype(np.uint16)
    return order[np.argsort(high, kind="stable")]


def _best(found, n):
    """The ``n`` groups of least reduced cost among ``found`` (lists of (rows, rc))."""
    rows = np.concatenate([f[0] for f in found])
    rc = np.concatenate([f[1] for f in found])
    if len(rc) > n:
        keep = np.argpartition(rc, n)[:n]
        rows, rc = rows[keep], rc[keep]
    return rows, rc


def _canonical_rows(members: np.ndarray) -> np.ndarray:
    """Rows sorted ascending with the -1 padding last."""
    big = np.iinfo(np.int64).max
    s = np.sort(np.where(members >= 0, members, big), axis=1)
    return np.where(s == big, -1, s)
