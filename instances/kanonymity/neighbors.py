"""Exact distances and (k−1)-nearest neighbours for the hierarchical distance of k-anonymity.

The graph representation of Aggarwal et al. (2005, §4) weighs records ``a, b`` by

    w(a, b) = sum_j w_j * L_j(a, b) / l_j,

with ``L_j(a, b)`` the lowest level of attribute ``j``'s hierarchy (of height ``l_j``, in force
under the instance's model) at which ``a`` and ``b`` share a group. Levels refine each other, so
``L_j`` is the number of levels at which the two values differ, and ``L_j`` is an ultrametric.

Canonical value
---------------
Every distance of this module is computed the same way, so that two computations of one distance
agree bit for bit and ties are ties: the attribute terms ``t_j(L) = (w_j * L) / l_j`` (float64,
the values of ``KAnonymityInstance.scaled_levels``) are added left to right in attribute order,
starting from ``0.0``. :func:`pairwise_distances` (the brute force) and :func:`nearest_neighbors`
(the search) both return this value; float addition is monotone, so ``L ≤ L'`` attribute-wise
implies ``w(L) ≤ w(L')`` for canonical values too.

The search
----------
``L(a, b) = (L_j(a, b))_j`` is a *level vector*. For any level vector ``lam``, the rows that share
``a``'s group at level ``lam_j`` on every attribute are exactly the ``b`` with ``L(a, b) <= lam``
attribute-wise; their distances are at most ``cost(lam) = sum_j t_j(lam_j)`` (monotonicity).

1. *Bounds* (:func:`_window_bounds`). Sorting the rows lexicographically by their groups (top
   levels first) in ``_ORDERS`` attribute orders puts similar rows side by side; the ``q``-th
   smallest canonical distance from ``a`` to the distinct rows in its windows is a distance to
   ``q`` real rows, hence ``tau_a >= d_q(a)``, ``a``'s ``q``-th nearest distance.
2. *Balls* (:class:`_Balls`). A depth-first enumeration fixes ``lam`` attribute by attribute
   (order ``perm``); a node keeps only the blocks of rows sharing their groups so far that hold two
   rows or more and a query ``a`` whose budget ``tau_a`` covers the partial cost (terms are
   non-negative, so a pruned ``a`` has no ``b`` within ``tau_a`` in that block). At a leaf, ``a``
   and ``b`` of one block are emitted when ``lam_j = L_j(a, b)`` on ``perm[:-1]`` and the last
   level is the highest the budget of ``a`` allows. Every pair with ``w(a, b) <= tau_a`` is
   emitted exactly once (at ``lam = L(a, b)`` on ``perm[:-1]``; its partial costs are at most
   ``w(a, b)``), and no other (``w(a, b) <= cost(lam) <= tau_a``). Since ``tau_a >= d_q(a)``,
   the emitted pairs hold all rows within ``d_q(a)``, ties included; sorted by ``(canonical
   distance, index)``, their first ``q`` are the answer. ``eps = 1e-9 (1 + sum_j w_j)`` is added
   to every ``tau_a`` against the rounding of partial sums taken in another order.
3. *Boxes* (:mod:`~anonratio.instances.kanonymity.neighbor_boxes`). The pigeonhole principle
   over two halves of the attributes: every pair within ``2θ`` shares a cell of a maximal level
   vector of one half within ``θ``; cell mates are compared in contiguous slices, the bounds
   shrink as neighbours are found, and the rows whose ``q``-th nearest lies beyond ``2θ`` are
   finished on one half with budget ``tau_a − θ``, or by the scan.
4. *Scan* (:func:`~anonratio.instances.kanonymity.distance_terms.scan`). Blocked distances to
   every row from joint float32 tables (a few lookups per pair, error below ``1e-6 sum_j
   w_j``), the rows within ``tau_a + 1e-5 (1 + sum_j w_j)`` re-evaluated canonically and
   selected as above: exact for the same reason.

:func:`nearest_neighbors` compares up to ``_BRUTE_MAX`` rows directly. Beyond, the boxes run
when their cost model (the pairs their cells hold if the attributes were independent, and the
rows a seeded sample says they leave to the scan) beats the scan: on uniform random tables they
evaluate a few thousand pairs per row where the scan evaluates ``u``, and on Adult they take
about half the time of the balls. Otherwise the balls run when few level vectors lie within the
median bound (they cost about ``u · V`` row visits for ``V`` such vectors, ~20 on Adult), giving
way to the scan after ``_WORK_RATIO · u²`` row visits; otherwise the scan (O(u² g) for ``g``
joint tables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.kanonymity.distance_terms import (
    Attribute,
    attributes,
    brute_force,
    canonical,
    scale,
    scan,
    select,
)
from anonratio.instances.kanonymity.neighbor_boxes import box_search, plan_boxes

if TYPE_CHECKING:
    from anonratio.instances.kanonymity.instance import KAnonymityInstance

__all__ = ["pairwise_distances", "nearest_neighbors"]

#: at most this many rows: blocked brute force instead of the trie search
_BRUTE_MAX = 1024
#: sorted orders whose windows bound each row's q-th nearest distance
_ORDERS = 2
#: the ball search runs when at most this many level vectors lie within the median bound
_VECTORS_MAX = 2000
#: ... and gives way to the scan after this many row visits per pair of rows
_WORK_RATIO = 0.5
#: pairs evaluated per block
_BLOCK = 1 << 21
#: force one search: "balls", "boxes" or "scan" (tests); None: the cheapest
_FORCE: str | None = None


def pairwise_distances(
    instance: KAnonymityInstance, rows_a: ArrayLike, rows_b: ArrayLike | None = None
) -> np.ndarray:
    """``w(a, b)`` for all pairs of code rows ``rows_a × rows_b`` (dense, float64, canonical).

    ``rows_a`` and ``rows_b`` are arrays of QI codes (shape ``(p, m)``, ``(q, m)``), typically
    unique records. Memory is ``p * q`` floats plus level tables over the values present
    (``V_j²`` bytes for ``V_j <= _TABLE_CAP`` values): block the rows for large inputs, as
    :func:`nearest_neighbors` does. O(p q m) time.
    """
    a = np.asarray(rows_a)
    b = a if rows_b is None else np.asarray(rows_b)
    both = np.concatenate([a, b]).reshape(-1, len(instance.hierarchies))
    attrs = attributes(instance, both)
    ia = np.arange(a.shape[0])[:, None]
    ib = a.shape[0] + np.arange(b.shape[0])[None, :]
    return canonical(attrs, ia, ib)


# ---------------------------------------------------------------------------------------------
# nearest neighbours
# ---------------------------------------------------------------------------------------------
def nearest_neighbors(
    instance: KAnonymityInstance, n_neighbors: int, unique: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_neighbors`` nearest other rows of each row of ``unique``, ties by index.

    Exact: the distances are the canonical ones of :func:`pairwise_distances`, and among equal
    distances the lower row index comes first. Nearest first, ``q = min(n_neighbors, u − 1)``
    columns. Up to ``_BRUTE_MAX`` rows by blocked brute force, beyond by the window bounds and
    then the ball search or the scan of the module docstring.

    Returns
    -------
    index : ndarray of int64, shape (u, q)
    dist : ndarray of float64, shape (u, q)

    Notes
    -----
    O(R u (q m + log u)) for the bounds (``R = _ORDERS`` sorted orders); then O(P + B u log u)
    for the boxes (``P`` pairs sharing a cell of one of ``B`` boxes: about 7,000 per row on a
    uniform random table of 100k rows, 8 attributes, q = 9), O(u V log u) for the balls (``V``
    level vectors within the bounds) or O(u² g) for the scan (``g`` joint tables). Memory O(u
    (m + q)) plus, for the balls, the emitted pairs (about the records within each bound).
    """
    if unique is None:
        unique = instance.unique_records[0]
    unique = np.asarray(unique)
    u = unique.shape[0]
    q = max(0, min(int(n_neighbors), u - 1))
    if q == 0:
        return np.empty((u, 0), dtype=np.int64), np.empty((u, 0))
    attrs = attributes(instance, unique)
    if u <= _BRUTE_MAX:
        return brute_force(attrs, u, q)
    return _search(attrs, u, q)


# ---------------------------------------------------------------------------------------------
# the ball search
# ---------------------------------------------------------------------------------------------
def _sort_order(attrs: list[Attribute], steps: list[tuple[int, int]], u: int) -> np.ndarray:
    """Rows sorted lexicographically by their groups along ``steps`` (coarse first)."""
    rank = np.zeros(u, dtype=np.int64)
    for j, t in steps:  # mixed-radix rank, re-ranked before it overflows
        key = attrs[j].groups[attrs[j].codes, t]
        radix = int(key.max()) + 1
        if int(rank.max()) >= (1 << 62) // radix:
            rank = np.unique(rank, return_inverse=True)[1].reshape(-1).astype(np.int64)
        rank = rank * radix + key
    return np.argsort(rank, kind="stable")


def _window_bounds(attrs: list[Attribute], u: int, q: int) -> np.ndarray:
    """``tau[a]``: an upper bound on ``a``'s q-th nearest distance, O(R u q (m + log u)).

    The rows are sorted lexicographically by their groups, top levels first, in ``_ORDERS``
    attribute orders (forward, backward, then seeded permutations); the ``q + 1`` rows on either
    side of ``a`` in every order are real records, so the q-th smallest canonical distance to
    these distinct candidates is at least ``a``'s q-th nearest distance.
    """
    rng = np.random.default_rng(0)
    m = len(attrs)
    perms = [np.arange(m), np.arange(m)[::-1]] + [rng.permutation(m) for _ in range(_ORDERS - 2)]
    top = max(at.height for at in attrs)
    offsets = np.r_[np.arange(-q - 1, 0), np.arange(1, q + 2)]
    places = []
    for js in perms[:_ORDERS]:
        steps = [(j, attrs[j].height - r) for r in range(1, top + 1) for j in js]
        order = _sort_order(attrs, [(j, t) for j, t in steps if t >= 0], u)
        where = np.empty(u, dtype=np.int64)
        where[order] = np.arange(u)
        places.append((order, where))
    tau = np.empty(u)
    step = max(1, _BLOCK // (len(places) * len(offsets)))
    for lo in range(0, u, step):  # blocks of rows: memory O(_BLOCK)
        rows = np.arange(lo, min(u, lo + step))[:, None]
        c = np.sort(
            np.concatenate(
                [
                    order[np.clip(where[rows] + offsets[None, :], 0, u - 1)]
                    for order, where in places
                ],
                axis=1,
            ),
            axis=1,
        )
        d = canonical(attrs, rows, c)
        d[(c == rows) | np.c_[np.zeros(len(c), dtype=bool), c[:, 1:] == c[:, :-1]]] = np.inf
        tau[lo : lo + step] = np.partition(d, q - 1, axis=1)[:, q - 1]
    return tau


class _TooCostly(Exception):
    """The ball search went past its work cap: the scan is cheaper."""


class _Balls:
    """Depth-first enumeration of level vectors: the pairs within each record's ``tau``.

    Attributes are taken in the order ``perm``; a node of depth ``i`` fixes the levels
    ``lam`` of ``perm[:i]`` and holds the blocks of rows sharing their groups at those levels,
    restricted to blocks of two rows or more that contain a query ``a`` whose budget covers the
    partial cost (``cost <= tau[a]``). A pair is emitted at the leaf whose levels are its own
    ``L_j(a, b)`` on ``perm[:-1]`` and, on the last attribute, the highest level the budget of
    ``a`` allows: every pair with ``w(a, b) <= tau[a]`` exactly once, and no other.
    """

    def __init__(self, attrs: list[Attribute], tau: np.ndarray, cap: float = np.inf) -> None:
        self.attrs, self.tau = attrs, tau
        self.work, self.cap = 0, cap
        # most selective attributes first: blocks split early
        share = [np.bincount(at.codes).astype(float) for at in attrs]
        self.perm = np.argsort([float((c / c.sum()) @ (c / c.sum())) for c in share], kind="stable")
        self.radix = [np.asarray(at.groups.max(axis=0)) + 1 for at in attrs]
        self.pairs: list[tuple[np.ndarray, np.ndarray]] = []

    def run(self, u: int) -> tuple[np.ndarray, np.ndarray]:
        self._descend(0, np.arange(u), np.zeros(u, dtype=np.int64), 0.0, [])
        if not self.pairs:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        a, b = zip(*self.pairs, strict=True)
        return np.concatenate(a), np.concatenate(b)

    def _descend(
        self, depth: int, rows: np.ndarray, block: np.ndarray, cost: float, lams: list[int]
    ) -> None:
        j = int(self.perm[depth])
        at = self.attrs[j]
        self.work += len(rows) * (at.height + 1)
        if self.work > self.cap:
            raise _TooCostly
        budget = self.tau[rows]
        codes = at.codes[rows]
        for lam in range(at.height + 1):
            c = cost + at.terms[lam]
            query = budget >= c
            if not query.any():
                break  # coarser levels cost more
            if lam < at.height:
                key = block * int(self.radix[j][lam]) + at.groups[codes, lam]
                o = np.argsort(key, kind="stable")
            else:
                key, o = block, np.arange(len(block))
            ks = key[o]
            head = np.r_[True, ks[1:] != ks[:-1]]
            ids = np.cumsum(head) - 1
            size = np.bincount(ids)
            has_query = np.bincount(ids, weights=query[o]) > 0
            keep = (size[ids] >= 2) & has_query[ids]
            if not keep.any():
                continue
            r2 = rows[o[keep]]
            b2 = np.cumsum(np.r_[True, ids[keep][1:] != ids[keep][:-1]]) - 1
            if depth + 1 < len(self.perm):
                self._descend(depth + 1, r2, b2, c, [*lams, lam])
            else:
                top = lam == at.height or self.tau[r2] < cost + at.terms[min(lam + 1, at.height)]
                self._emit(r2, b2, query[o[keep]] & top, lams)

    def _emit(
        self, rows: np.ndarray, block: np.ndarray, query: np.ndarray, lams: list[int]
    ) -> None:
        """Pairs (query, other member) of every block whose levels on ``perm[:-1]`` are ``lams``."""
        starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        ends = np.r_[starts[1:], len(block)]
        qpos = np.flatnonzero(query)
        n_members = (ends - starts)[block[qpos]]
        rep = np.repeat(qpos, n_members)
        first = np.cumsum(n_members) - n_members
        member = starts[block[rep]] + (np.arange(len(rep)) - np.repeat(first, n_members))
        a, b = rows[rep], rows[member]
        exact = a != b
        for i, lam in enumerate(lams):
            at = self.attrs[int(self.perm[i])]
            exact &= at.level(at.codes[a], at.codes[b]) == lam
        self.pairs.append((a[exact], b[exact]))


def _search(attrs: list[Attribute], u: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact q nearest: window bounds, then the box search when its cost model says it is
    cheaper than the scan, else the ball search when few level vectors lie within the median
    bound, else (or past the ball search's work cap) the scan."""
    tau = _window_bounds(attrs, u, q) + 1e-9 * scale(attrs)
    plan = plan_boxes(attrs, u, q, tau) if _FORCE in (None, "boxes") else None
    if plan is not None and (_FORCE == "boxes" or plan.cost < plan.dense_cost):
        return box_search(attrs, u, q, tau, plan)
    few = _count_vectors(attrs, float(np.median(tau))) <= _VECTORS_MAX
    if _FORCE == "balls" or (_FORCE is None and few):
        try:
            return _balls(attrs, u, q, tau)
        except _TooCostly:
            pass
    return scan(attrs, u, q, tau)


def _balls(
    attrs: list[Attribute], u: int, q: int, tau: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs the ball search emits, evaluated canonically and selected."""
    a, b = _Balls(attrs, tau, _WORK_RATIO * float(u) * u).run(u)
    d = np.empty(len(a))
    for lo in range(0, len(a), _BLOCK):
        d[lo : lo + _BLOCK] = canonical(attrs, a[lo : lo + _BLOCK], b[lo : lo + _BLOCK])
    return select(a, b, d, u, q)


def _count_vectors(attrs: list[Attribute], budget: float) -> int:
    """Level vectors ``lam`` with ``sum_j t_j(lam_j) <= budget``, counted up to
    ``_VECTORS_MAX + 1``: the ball search enumerates about this many per record."""
    costs = np.zeros(1)
    for at in attrs:
        costs = (costs[:, None] + at.terms[None, :]).ravel()
        costs = costs[costs <= budget]
        if len(costs) > _VECTORS_MAX:
            break
    return len(costs)
