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
   levels first) in a few attribute orders puts similar rows side by side; the ``q``-th smallest
   canonical distance from ``a`` to the distinct rows in its windows is a distance to ``q`` real
   rows, hence ``tau_a >= d_q(a)``, ``a``'s ``q``-th nearest distance.
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
3. *Scan* (:func:`_scan`). Blocked distances to every row from joint float32 tables (a few
   lookups per pair, error below ``1e-6 sum_j w_j``), the rows within ``tau_a + 1e-5 (1 +
   sum_j w_j)`` re-evaluated canonically and selected as above: exact for the same reason.

The balls cost about ``u · V`` row visits for ``V`` level vectors within the bounds: few on real
tables (Adult: ~20), tens of thousands on uniform random ones, where the scan (O(u² g) for ``g``
joint tables) is cheaper. :func:`nearest_neighbors` counts ``V`` at the median bound and picks;
the balls also give way to the scan after ``_WORK_RATIO · u²`` row visits, and up to
``_BRUTE_MAX`` rows are compared directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from anonratio.instances.kanonymity.instance import KAnonymityInstance

__all__ = ["pairwise_distances", "nearest_neighbors"]

#: largest number of distinct values of an attribute whose V x V level table is precomputed
_TABLE_CAP = 4096
#: at most this many rows: blocked brute force instead of the trie search
_BRUTE_MAX = 1024
#: largest joint value count of the scan's tables of summed terms (8 MB of float64)
_JOINT_CAP = 1024
#: sorted orders whose windows bound each row's q-th nearest distance
_ORDERS = 8
#: the ball search runs when at most this many level vectors lie within the median bound
_VECTORS_MAX = 2000
#: ... and gives way to the scan after this many row visits per pair of rows
_WORK_RATIO = 0.5
#: pairs evaluated per block (brute force) or aimed at per query block (trie search)
_BLOCK = 1 << 21


# ---------------------------------------------------------------------------------------------
# per-attribute levels and terms
# ---------------------------------------------------------------------------------------------
class _Attribute:
    """Level lookups of one attribute over the values present in some rows.

    ``codes`` are the rows' positions among the present values; :meth:`level` gives
    ``L_j`` for pairs of positions, from a ``V x V`` table when ``V <= _TABLE_CAP`` and from the
    group columns otherwise. ``terms[L] = (w_j * L) / l_j``.
    """

    def __init__(self, groups: np.ndarray, weight: float, column: np.ndarray) -> None:
        present, codes = np.unique(column, return_inverse=True)
        self.codes = codes.reshape(-1).astype(np.int64)
        height = groups.shape[1] - 1
        self.height = height
        self.groups = groups[present, :height]
        self.terms = weight * np.arange(height + 1) / height
        v = len(present)
        self.table: np.ndarray | None = None
        if v <= _TABLE_CAP:
            g = self.groups
            levels = np.zeros((v, v), dtype=np.int8 if height < 128 else np.int32)
            for t in range(height):
                levels += g[:, None, t] != g[None, :, t]
            self.table = levels.ravel()
        self.v = v

    def level(self, ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
        """``L_j`` of the value pairs ``(ca[i], cb[i])`` (broadcasting)."""
        if self.table is not None:
            return self.table[ca * self.v + cb]
        out = np.zeros(np.broadcast(ca, cb).shape, dtype=np.int32)
        for t in range(self.height):
            out += self.groups[ca, t] != self.groups[cb, t]
        return out


def _attributes(instance: KAnonymityInstance, rows: np.ndarray) -> list[_Attribute]:
    weights = instance.table.weights
    return [
        _Attribute(h.groups, weights[j], rows[:, j]) for j, h in enumerate(instance.hierarchies)
    ]


def _canonical(attrs: list[_Attribute], ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Canonical ``w`` of the row pairs ``(ia, ib)`` (broadcasting): terms added in order."""
    out = np.zeros(np.broadcast(ia, ib).shape)
    for at in attrs:
        out += at.terms[at.level(at.codes[ia], at.codes[ib])]
    return out


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
    attrs = _attributes(instance, both)
    ia = np.arange(a.shape[0])[:, None]
    ib = a.shape[0] + np.arange(b.shape[0])[None, :]
    return _canonical(attrs, ia, ib)


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
    O(R u (q m + log u)) for the bounds (``R = _ORDERS`` sorted orders); then O(u V log u) for
    the balls (``V`` level vectors within the bounds, see the module docstring) or O(u² g) for
    the scan (``g`` joint tables). Memory O(u (m + R q)) plus the emitted pairs (about the
    records within each bound) or one block of ``_BLOCK`` distances.
    """
    if unique is None:
        unique = instance.unique_records[0]
    unique = np.asarray(unique)
    u = unique.shape[0]
    q = max(0, min(int(n_neighbors), u - 1))
    if q == 0:
        return np.empty((u, 0), dtype=np.int64), np.empty((u, 0))
    attrs = _attributes(instance, unique)
    if u <= _BRUTE_MAX:
        return _brute_force(attrs, u, q)
    return _search(attrs, u, q)


def _brute_force(attrs: list[_Attribute], u: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Blocked exact scan: canonical distances to every row, stable sort (ties by index)."""
    index = np.empty((u, q), dtype=np.int64)
    dist = np.empty((u, q))
    step = max(1, _BLOCK // u)
    cols = np.arange(u)[None, :]
    for lo in range(0, u, step):
        rows = np.arange(lo, min(u, lo + step))[:, None]
        d = _canonical(attrs, rows, cols)
        d[np.arange(len(rows)), rows[:, 0]] = np.inf
        o = np.argsort(d, axis=1, kind="stable")[:, :q]
        index[rows[:, 0]] = o
        dist[rows[:, 0]] = np.take_along_axis(d, o, axis=1)
    return index, dist


# ---------------------------------------------------------------------------------------------
# the ball search
# ---------------------------------------------------------------------------------------------
def _sort_order(attrs: list[_Attribute], steps: list[tuple[int, int]], u: int) -> np.ndarray:
    """Rows sorted lexicographically by their groups along ``steps`` (coarse first)."""
    rank = np.zeros(u, dtype=np.int64)
    for j, t in steps:  # mixed-radix rank, re-ranked before it overflows
        key = attrs[j].groups[attrs[j].codes, t]
        radix = int(key.max()) + 1
        if int(rank.max()) >= (1 << 62) // radix:
            rank = np.unique(rank, return_inverse=True)[1].reshape(-1).astype(np.int64)
        rank = rank * radix + key
    return np.argsort(rank, kind="stable")


def _window_bounds(attrs: list[_Attribute], u: int, q: int) -> np.ndarray:
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
    cands = []
    for js in perms[:_ORDERS]:
        steps = [(j, attrs[j].height - r) for r in range(1, top + 1) for j in js]
        order = _sort_order(attrs, [(j, t) for j, t in steps if t >= 0], u)
        where = np.empty(u, dtype=np.int64)
        where[order] = np.arange(u)
        cands.append(order[np.clip(where[:, None] + offsets[None, :], 0, u - 1)])
    cand = np.sort(np.concatenate(cands, axis=1), axis=1)
    tau = np.empty(u)
    step = max(1, _BLOCK // cand.shape[1])
    for lo in range(0, u, step):
        rows = np.arange(lo, min(u, lo + step))[:, None]
        c = cand[lo : lo + step]
        d = _canonical(attrs, rows, c)
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

    def __init__(self, attrs: list[_Attribute], tau: np.ndarray, cap: float = np.inf) -> None:
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


def _search(attrs: list[_Attribute], u: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact q nearest: window bounds, then the ball search, or the scan past its work cap."""
    eps = 1e-9 * (1.0 + sum(float(at.terms[-1]) for at in attrs))
    tau = _window_bounds(attrs, u, q) + eps
    if _count_vectors(attrs, float(np.median(tau))) > _VECTORS_MAX:
        return _scan(attrs, u, q, tau)
    try:
        a, b = _Balls(attrs, tau, _WORK_RATIO * float(u) * u).run(u)
    except _TooCostly:
        return _scan(attrs, u, q, tau)
    d = np.empty(len(a))
    for lo in range(0, len(a), _BLOCK):
        d[lo : lo + _BLOCK] = _canonical(attrs, a[lo : lo + _BLOCK], b[lo : lo + _BLOCK])
    return _select(a, b, d, u, q)


def _count_vectors(attrs: list[_Attribute], budget: float) -> int:
    """Level vectors ``lam`` with ``sum_j t_j(lam_j) <= budget``, counted up to
    ``_VECTORS_MAX + 1``: the ball search enumerates about this many per record."""
    costs = np.zeros(1)
    for at in attrs:
        costs = (costs[:, None] + at.terms[None, :]).ravel()
        costs = costs[costs <= budget]
        if len(costs) > _VECTORS_MAX:
            break
    return len(costs)


def _select(
    a: np.ndarray, b: np.ndarray, d: np.ndarray, u: int, q: int, lo: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``q`` pairs of every query ``lo .. lo + u - 1`` by ``(d, b)``."""
    o = np.lexsort((b, d, a))
    a, b, d = a[o], b[o], d[o]
    head = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    if len(head) != u or np.any(np.diff(np.r_[head, len(a)]) < q):
        raise RuntimeError("the neighbour search lost a neighbour; please report this")
    take = (head[:, None] + np.arange(q)[None, :]).ravel()
    return b[take].reshape(u, q), d[take].reshape(u, q)


def _joint_tables(attrs: list[_Attribute]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Attributes grouped into joint ``P x P`` tables of the summed terms (``P <= _JOINT_CAP``)
    and every row's joint code: an approximate ``w`` (another summation order) in few lookups."""
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for at in attrs:
        v = np.arange(at.v)
        s = at.terms[at.level(v[:, None], v[None, :])] if at.v <= _TABLE_CAP else None
        if s is None:
            continue
        if out and out[-1][0].shape[0] * at.v <= _JOINT_CAP:
            tab, code = out[-1]
            p = tab.shape[0]
            tab = (tab[:, None, :, None] + s[None, :, None, :]).reshape(p * at.v, p * at.v)
            out[-1] = (tab, code * at.v + at.codes)
        else:
            out.append((s, at.codes.copy()))
    return [(tab.astype(np.float32), code) for tab, code in out]


def _scan(
    attrs: list[_Attribute], u: int, q: int, tau: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Blocked scan: approximate distances to every row, the rows within ``tau`` (plus the
    rounding margin) re-evaluated canonically and selected. O(u² g) for ``g`` tables."""
    joint = _joint_tables(attrs)
    wide = [at for at in attrs if at.v > _TABLE_CAP]
    eps = 1e-5 * (1.0 + sum(float(at.terms[-1]) for at in attrs))  # float32 sums: < 1e-6
    index = np.empty((u, q), dtype=np.int64)
    dist = np.empty((u, q))
    step = max(1, _BLOCK // u)
    cols = np.arange(u)
    for lo in range(0, u, step):
        rows = np.arange(lo, min(u, lo + step))
        approx = np.zeros((len(rows), u), dtype=np.float32)
        tmp = np.empty_like(approx)
        for tab, code in joint:
            approx += np.take(tab[code[rows]], code, axis=1, out=tmp)
        for at in wide:
            approx += at.terms[at.level(at.codes[rows][:, None], at.codes[None, :])].astype(
                np.float32
            )
        approx[np.arange(len(rows)), rows] = np.inf
        r, c = np.nonzero(approx <= tau[rows][:, None] + eps)
        a = rows[r]
        d = _canonical(attrs, a, cols[c])
        index[rows], dist[rows] = _select(a - lo, c, d, len(rows), q)
    return index, dist
