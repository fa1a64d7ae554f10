"""The hierarchical distance of k-anonymity, term by term: the pieces every neighbour search uses.

Records ``a, b`` are at distance ``w(a, b) = sum_j t_j(L_j(a, b))`` with ``t_j(L) = (w_j * L) /
l_j`` and ``L_j`` the number of levels of attribute ``j``'s hierarchy at which their values
differ (:mod:`anonratio.instances.kanonymity.neighbors` explains the search). This module holds:

- :class:`Attribute`: the level and term lookups of one attribute over the values present;
- :func:`canonical`: the canonical ``w`` (terms added left to right, float64), the value every
  search returns, so that ties are ties;
- :func:`joint_tables`: float32 tables of summed terms over groups of attributes, for fast
  approximate distances (error below ``1e-6 sum_j w_j``) that a search then re-checks
  canonically;
- :func:`select`: the first ``q`` pairs of every query by ``(canonical distance, index)``;
- :func:`brute_force` and :func:`scan`: blocked exact scans against every row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from anonratio.instances.kanonymity.instance import KAnonymityInstance

__all__ = ["Attribute", "attributes", "canonical", "joint_tables", "select", "brute_force", "scan"]

#: largest number of distinct values of an attribute whose V x V level table is precomputed
_TABLE_CAP = 4096
#: largest joint value count of the tables of summed terms (4 MB of float32)
_JOINT_CAP = 1024
#: pairs evaluated per block
_BLOCK = 1 << 21


class Attribute:
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

    def group_key(self, level: int) -> np.ndarray:
        """Every row's group at ``level`` (0 at the top, where all values share one group)."""
        if level >= self.height:
            return np.zeros(len(self.codes), dtype=np.int64)
        return self.groups[self.codes, level]

    def collision(self, level: int) -> float:
        """Share of ordered row pairs that share their group at ``level``."""
        c = np.bincount(self.group_key(level)).astype(float) / len(self.codes)
        return float(c @ c)


def attributes(instance: KAnonymityInstance, rows: np.ndarray) -> list[Attribute]:
    """The :class:`Attribute` of every QI over the code rows ``rows``."""
    weights = instance.table.weights
    return [Attribute(h.groups, weights[j], rows[:, j]) for j, h in enumerate(instance.hierarchies)]


def canonical(attrs: list[Attribute], ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Canonical ``w`` of the row pairs ``(ia, ib)`` (broadcasting): terms added in order."""
    out = np.zeros(np.broadcast(ia, ib).shape)
    for at in attrs:
        out += at.terms[at.level(at.codes[ia], at.codes[ib])]
    return out


def scale(attrs: list[Attribute]) -> float:
    """``1 + sum_j w_j``: the scale of the rounding margins."""
    return 1.0 + sum(float(at.terms[-1]) for at in attrs)


def select(
    a: np.ndarray, b: np.ndarray, d: np.ndarray, u: int, q: int
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``q`` pairs of every query ``0 .. u - 1`` (``a``) by ``(d, b)``."""
    o = np.lexsort((b, d, a))
    a, b, d = a[o], b[o], d[o]
    head = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    if len(head) != u or np.any(np.diff(np.r_[head, len(a)]) < q):
        raise RuntimeError("the neighbour search lost a neighbour; please report this")
    take = (head[:, None] + np.arange(q)[None, :]).ravel()
    return b[take].reshape(u, q), d[take].reshape(u, q)


def joint_tables(attrs: list[Attribute]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Attributes grouped into joint ``P x P`` tables of the summed terms (``P <= _JOINT_CAP``)
    and every row's joint code: an approximate ``w`` (another summation order) in few lookups.
    Larger attributes first, each into the fullest group it fits; attributes of more than
    ``_TABLE_CAP`` values are left out (see :func:`wide_terms`)."""
    groups: list[list[Attribute]] = []
    for at in sorted((at for at in attrs if at.table is not None), key=lambda at: -at.v):
        sizes = [int(np.prod([g.v for g in grp])) for grp in groups]
        fits = [i for i, p in enumerate(sizes) if p * at.v <= _JOINT_CAP]
        if fits:
            groups[max(fits, key=lambda i: sizes[i])].append(at)
        else:
            groups.append([at])
    out = []
    for grp in groups:
        tab, code = np.zeros((1, 1)), np.zeros(len(grp[0].codes), dtype=np.int64)
        for at in grp:
            v = np.arange(at.v)
            s = at.terms[at.level(v[:, None], v[None, :])]
            p = tab.shape[0]
            tab = (tab[:, None, :, None] + s[None, :, None, :]).reshape(p * at.v, p * at.v)
            code = code * at.v + at.codes
        out.append((tab.astype(np.float32), code))
    return out


def wide_terms(attrs: list[Attribute], ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """float32 sum of the terms of the attributes :func:`joint_tables` leaves out."""
    out = np.zeros(np.broadcast(ia, ib).shape, dtype=np.float32)
    for at in attrs:
        if at.table is None:
            out += at.terms[at.level(at.codes[ia], at.codes[ib])].astype(np.float32)
    return out


def brute_force(attrs: list[Attribute], u: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Blocked exact scan: canonical distances to every row, stable sort (ties by index)."""
    index = np.empty((u, q), dtype=np.int64)
    dist = np.empty((u, q))
    step = max(1, _BLOCK // u)
    cols = np.arange(u)[None, :]
    for lo in range(0, u, step):
        rows = np.arange(lo, min(u, lo + step))[:, None]
        d = canonical(attrs, rows, cols)
        d[np.arange(len(rows)), rows[:, 0]] = np.inf
        o = np.argsort(d, axis=1, kind="stable")[:, :q]
        index[rows[:, 0]] = o
        dist[rows[:, 0]] = np.take_along_axis(d, o, axis=1)
    return index, dist


def scan(
    attrs: list[Attribute], u: int, q: int, tau: np.ndarray, queries: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Blocked scan of ``queries`` (default: every row) against every row: approximate
    distances from :func:`joint_tables`, the rows within ``tau`` (plus the float32 rounding
    margin) re-evaluated canonically and selected. Exact when ``tau[a]`` is at least ``a``'s
    ``q``-th nearest distance. O(|queries| u g) for ``g`` tables; one block of ``_BLOCK``
    distances in memory."""
    queries = np.arange(u) if queries is None else np.asarray(queries, dtype=np.int64)
    joint = joint_tables(attrs)
    margin = 1e-5 * scale(attrs)  # float32 sums: error below 1e-6
    index = np.empty((len(queries), q), dtype=np.int64)
    dist = np.empty((len(queries), q))
    step = max(1, _BLOCK // u)
    cols = np.arange(u)
    for lo in range(0, len(queries), step):
        rows = queries[lo : lo + step]
        approx = wide_terms(attrs, rows[:, None], cols[None, :])
        tmp = np.empty_like(approx)
        for tab, code in joint:
            approx += np.take(tab[code[rows]], code, axis=1, out=tmp)
        approx[np.arange(len(rows)), rows] = np.inf
        r, c = np.nonzero(approx <= tau[rows][:, None] + margin)
        d = canonical(attrs, rows[r], cols[c])
        index[lo : lo + step], dist[lo : lo + step] = select(r, c, d, len(rows), q)
    return index, dist
