"""Mondrian's partitioning (:mod:`anonratio.solvers.kanonymity.mondrian`) in rank space, round by
round: every active partition chooses its widest attribute with an allowable cut and is cut, all
partitions of a round at once, until none can be cut.

The cuts, strict or relaxed, are those :mod:`~anonratio.solvers.kanonymity.mondrian` describes.
Ranges come from ``np.minimum.reduceat``, medians from positions in one ``argsort`` per attribute
tried, and the parts stay contiguous for the next round.
"""

from __future__ import annotations

import numpy as np

from anonratio.instances.kanonymity.recoding import hierarchy_domain, numeric_values
from anonratio.instances.table import Hierarchy, Table

__all__ = ["Attr", "partition"]

#: largest ``partitions x n_values`` table of flags used to count distinct values without sorting
_DENSE_CAP = 1 << 25
#: largest packed sort key ``(partition * n_values + value) * n + record`` (else a lexsort)
_PACK_CAP = 1 << 62


# ---------------------------------------------------------------------------------------------
# attributes
# ---------------------------------------------------------------------------------------------
class Attr:
    """One attribute in rank space: ranks ``0..V-1`` in numeric or depth-first order."""

    def __init__(self, table: Table, j: int, h: Hierarchy, numeric: bool) -> None:
        labels = table.values[j]
        self.h, self.n_values, self.numeric = h, len(labels), numeric
        codes = np.arange(self.n_values)
        if numeric:
            values = numeric_values(labels)
            assert values is not None  # numeric only where all labels parse (_numeric_iv)
            self.values = values
            self.perm = np.lexsort((codes, self.values))  # numeric order, ties by code
            self.order = np.empty(self.n_values, dtype=np.int64)
            self.order[self.perm] = codes
            self.by_rank = self.values[self.perm]
        else:
            self.domain, self.offsets = hierarchy_domain(h)
            self.order = self.domain.order
            self.perm = np.argsort(self.order)
            self.groups = h.groups[self.perm].astype(np.int64)  # groups indexed by rank

    def lca_level(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Lowest common level of the values of rank ``lo .. hi`` (categorical): in depth-first
        order a node's values are contiguous, so the LCA of a set is that of its extremes."""
        return (self.groups[lo, : self.h.height] != self.groups[hi, : self.h.height]).sum(axis=1)


# ---------------------------------------------------------------------------------------------
# the rounds
# ---------------------------------------------------------------------------------------------
def _segments(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Positions ``starts[p] .. starts[p] + sizes[p] - 1`` of every segment, concatenated."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.size == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.asarray(starts, dtype=np.int64) - np.r_[0, np.cumsum(sizes)[:-1]]
    return np.repeat(shift, sizes) + np.arange(int(sizes.sum()))


def _widths(attrs, XT, lo, hi, sizes, global_width) -> np.ndarray:
    """Normalized range of every active partition on every attribute, shape (P, m)."""
    P = len(sizes)
    out = np.zeros(lo.shape)
    pid = None
    for j, a in enumerate(attrs):
        if a.numeric:
            if global_width[j] > 0:
                out[:, j] = (a.by_rank[hi[:, j]] - a.by_rank[lo[:, j]]) / global_width[j]
            continue
        if a.n_values <= 1:
            continue
        if pid is None:
            pid = np.repeat(np.arange(P, dtype=np.int64), sizes)
        key = pid * a.n_values + XT[j]
        if P * a.n_values <= _DENSE_CAP:  # flag the (partition, value) pairs present
            seen = np.zeros(P * a.n_values, dtype=bool)
            seen[key] = True
            distinct = seen.reshape(P, a.n_values).sum(axis=1)
        else:
            key.sort()
            first = key[np.r_[True, key[1:] != key[:-1]]]
            distinct = np.bincount(first // a.n_values, minlength=P)
        out[:, j] = (distinct - 1) / (a.n_values - 1)
    return out


def _cut(a, j, k, relaxed, XT, rec, starts, sizes, lo, hi, batch):
    """Cut the partitions ``batch`` on attribute ``j`` (all at once).

    Returns ``ok`` (per batch partition), the positions of the records of the cut ones in their
    new order (grouped by part) and the part sizes.
    """
    nb = sizes[batch]
    idx = _segments(starts[batch], nb)
    b = np.repeat(np.arange(len(batch), dtype=np.int64), nb)
    key = b * a.n_values + XT[j, idx]
    if relaxed:  # ties by record index
        n = int(rec[idx].max()) + 1
        if len(batch) * a.n_values * n <= _PACK_CAP:
            o = np.argsort(key * n + rec[idx])
        else:
            o = np.lexsort((rec[idx], key))
    else:  # the parts depend on the values only
        o = np.argsort(key)
    sk = key[o]
    first = np.r_[0, np.cumsum(nb)[:-1]]
    if relaxed:
        cnt = nb // 2
        ok = np.ones(len(batch), dtype=bool)
        parts = np.column_stack((cnt, nb - cnt)).ravel()
    elif a.numeric:
        median = sk[first + (nb - 1) // 2]
        c_le = np.searchsorted(sk, median, side="right") - first
        c_lt = np.searchsorted(sk, median, side="left") - first
        ok_le = (c_le >= k) & (nb - c_le >= k)
        ok = ok_le | (c_lt >= k)  # c_lt < n / 2, so its right side has > n / 2 >= k records
        cnt = np.where(ok_le, c_le, c_lt)[ok]
        parts = np.column_stack((cnt, nb[ok] - cnt)).ravel()
    else:  # the runs of one child of the LCA (contiguous in depth-first order)
        level = a.lca_level(lo[batch, j], hi[batch, j])
        child = a.groups[sk - b * a.n_values, level[b] - 1]
        brk = np.r_[True, (child[1:] != child[:-1]) | (b[1:] != b[:-1])]
        run_start = np.flatnonzero(brk)
        run_size = np.diff(np.r_[run_start, len(sk)])
        run_b = b[run_start]
        ok = np.minimum.reduceat(run_size, np.searchsorted(run_b, np.arange(len(batch)))) >= k
        parts = run_size[ok[run_b]]
    return ok, idx[o][ok[b]], parts


def _choose_and_cut(attrs, k, relaxed, XT, rec, starts, sizes, lo, hi, width):
    """One round: each partition cuts on its widest allowable attribute, or is final.

    Returns the final partitions (indices), and the positions and sizes of the new parts.
    """
    P, m = lo.shape
    cand = lo != hi
    ranked = np.argsort(-np.where(cand, width, -1.0), axis=1, kind="stable")
    pending = np.arange(P)
    final, moved, parts = [], [], []
    for r in range(m):
        if pending.size == 0:
            break
        dim = ranked[pending, r]
        valid = cand[pending, dim]
        final.append(pending[~valid])  # no attribute left to try (candidates come first)
        pending, dim = pending[valid], dim[valid]
        failed = []
        for j in np.unique(dim):
            batch = pending[dim == j]
            ok, pos, part_sizes = _cut(
                attrs[j], j, k, relaxed, XT, rec, starts, sizes, lo, hi, batch
            )
            failed.append(batch[~ok])
            moved.append(pos)
            parts.append(part_sizes)
        pending = np.concatenate(failed) if failed else pending[:0]
    final.append(pending)
    cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64)  # noqa: E731
    return cat(final), cat(moved), cat(parts)


def partition(k: int, relaxed: bool, attrs: list[Attr], RT: np.ndarray) -> tuple[np.ndarray, int]:
    """The final partitions of the records whose ranks are ``RT`` (shape (m, n)): labels
    ``0 .. P-1`` in the order of each partition's first record, and the number of rounds."""
    n = RT.shape[1]
    gmin, gmax = RT.min(axis=1), RT.max(axis=1)
    global_width = [
        a.by_rank[gmax[j]] - a.by_rank[gmin[j]] if a.numeric else 0.0 for j, a in enumerate(attrs)
    ]
    labels = np.empty(n, dtype=np.int64)
    n_labels, rounds = 0, 0
    # the active records, grouped by partition, their ranks and the partition sizes
    rec, XT, sizes = np.arange(n, dtype=np.int64), RT, np.array([n], dtype=np.int64)
    while rec.size:
        starts = np.r_[0, np.cumsum(sizes)[:-1]]
        small = sizes < 2 * k  # no two parts of >= k records: final
        if small.any():
            final = np.flatnonzero(small)
            keep = np.flatnonzero(~small)
        else:
            rounds += 1
            lo = np.minimum.reduceat(XT, starts, axis=1).T
            hi = np.maximum.reduceat(XT, starts, axis=1).T
            width = _widths(attrs, XT, lo, hi, sizes, global_width)
            final, moved, parts = _choose_and_cut(
                attrs, k, relaxed, XT, rec, starts, sizes, lo, hi, width
            )
        idx = _segments(starts[final], sizes[final])
        labels[rec[idx]] = np.repeat(n_labels + np.arange(len(final)), sizes[final])
        n_labels += len(final)
        if small.any():
            moved, parts = _segments(starts[keep], sizes[keep]), sizes[keep]
        rec, XT, sizes = rec[moved], np.take(XT, moved, axis=1), parts
    first = np.unique(labels, return_index=True)[1]
    rename = np.empty(n_labels, dtype=np.int64)
    rename[np.argsort(first)] = np.arange(n_labels)
    return rename[labels], rounds
