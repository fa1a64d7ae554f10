"""The KL-divergence of a published table (Kifer and Gehrke 2006; Xiao, Yi and Tao 2010, §6.2).

:func:`kl_divergence` compares the distribution of the original records over the QI domain (times
the sensitive attribute) with the one the release induces, summing *every* class whose published
box covers a point: local recodings publish overlapping boxes. Two exact methods find the
covering classes: ``"layers"`` (classes grouped by the pattern of non-overlapping node layers
they use, looked up by key) and ``"boxes"`` (blocked box stabbing).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from anonratio.instances.kanonymity.recoding import KEY_CAP, Domain, Recoding, row_ids
from anonratio.instances.validation import check_choice, check_instance

__all__ = ["kl_divergence", "KL_METHODS"]

#: how :func:`kl_divergence` finds the classes covering each point
KL_METHODS = ("auto", "layers", "boxes")

#: candidate (class, point) pairs tested at once by the box-stabbing method
_BLOCK = 1 << 22


def _classes(rec: Recoding) -> tuple[np.ndarray, int]:
    """Equivalence class of each record (``-1`` suppressed) and the number of classes."""
    check_instance(rec, Recoding, "rec")
    ids = rec.classes
    return ids, int(ids.max()) + 1 if ids.size else 0


def _used_nodes(col: np.ndarray, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct nodes of ``col`` (sorted) and each entry's index among them: O(len + nodes)."""
    used = np.flatnonzero(np.bincount(col, minlength=n_nodes))
    index = np.zeros(n_nodes, dtype=np.int64)
    index[used] = np.arange(len(used))
    return used, index[col]


def _layers(d: Domain, used: np.ndarray) -> np.ndarray:
    """Split the nodes ``used`` into layers of pairwise disjoint ranges: by level when each
    level's ranges are disjoint (hierarchy nodes), else greedy interval partitioning (fewest
    layers). Returns the layer of each node of ``used``."""
    lo, hi, lev = d.lo[used], d.hi[used], d.levels[used]
    o = np.lexsort((lo, lev))
    same = lev[o][1:] == lev[o][:-1]
    if np.all(~same | (hi[o][:-1] < lo[o][1:])):
        return np.unique(lev, return_inverse=True)[1].reshape(-1)
    out = np.empty(len(used), dtype=np.int64)
    heap: list[tuple[int, int]] = []  # (last rank of the layer, layer)
    for p in np.lexsort((hi, lo)).tolist():
        if heap and heap[0][0] < lo[p]:
            _, layer = heapq.heappop(heap)
        else:
            layer = len(heap)
        out[p] = layer
        heapq.heappush(heap, (int(hi[p]), layer))
    return out


def _signatures(domains: Sequence[Domain], nodes: list[np.ndarray]) -> tuple[np.ndarray, int]:
    """Each class's vector of :func:`_layers` (its signature) as dense ids, and their number."""
    layer, n_layers = [], []
    for d, col in zip(domains, nodes, strict=True):
        used, local = _used_nodes(col, d.n_nodes)
        lay = _layers(d, used)
        layer.append(lay[local])
        n_layers.append(int(lay.max()) + 1)
    return row_ids(layer, n_layers)


def _lookup(keys: np.ndarray, mass: np.ndarray, probe: np.ndarray) -> np.ndarray:
    """``mass`` of each ``probe`` key among the distinct ``keys`` (0 when absent): a dense table
    when the key range is small, else a sort and a binary search."""
    if not len(keys) or not len(probe):
        return np.zeros(len(probe))
    size = int(max(keys.max(), probe.max())) + 1
    if size <= 8 * (len(keys) + len(probe)) + 4096:
        table = np.zeros(size)
        table[keys] = mass
        return table[probe]
    order = np.argsort(keys)
    keys, mass = keys[order], mass[order]
    pos = np.minimum(np.searchsorted(keys, probe), len(keys) - 1)
    return np.where(keys[pos] == probe, mass[pos], 0.0)


class _Points:
    """The support points of ``P``: ranks per attribute, their prefix counts by rank and (lazily)
    the points sorted by rank, so that the points in a rank range are one slice."""

    def __init__(self, ranks: list[np.ndarray], n_values: list[int], s: np.ndarray) -> None:
        self.ranks, self.s, self.u = ranks, s, len(s)
        self.cums = [
            np.r_[0, np.bincount(r, minlength=v).cumsum()]
            for r, v in zip(ranks, n_values, strict=True)
        ]
        self._by_rank: dict[int, np.ndarray] = {}

    def by_rank(self, j: int) -> np.ndarray:
        if j not in self._by_rank:  # a radix sort for small ranks
            r = self.ranks[j]
            small = r.astype(np.uint16) if len(self.cums[j]) <= 2**16 else r
            self._by_rank[j] = np.argsort(small, kind="stable")
        return self._by_rank[j]

    def in_ranges(self, j: int, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The points whose rank on ``j`` lies in ``[lo[r], hi[r]]``, and that ``r``."""
        start, length = self.cums[j][lo], self.cums[j][hi + 1] - self.cums[j][lo]
        offset = np.repeat(start - np.cumsum(np.r_[0, length[:-1]]), length)
        which = np.repeat(np.arange(len(lo)), length)
        return self.by_rank(j)[offset + np.arange(length.sum())], which


def _stab_layers(domains, nodes, sig, n_sig, entries, pts: _Points, n_s) -> np.ndarray:
    """The mass of the classes covering each point, one class signature at a time."""
    entry_class, entry_s, entry_mass = entries
    q = np.zeros(pts.u)
    n_classes = len(sig)
    if n_sig == 1:
        groups = [(np.arange(n_classes), np.arange(len(entry_class)))]
    else:
        by_sig = np.argsort(sig, kind="stable")
        cuts = np.searchsorted(sig[by_sig], np.arange(n_sig + 1))
        entry_sig = sig[entry_class]
        by_entry = np.argsort(entry_sig, kind="stable")
        entry_cuts = np.searchsorted(entry_sig[by_entry], np.arange(n_sig + 1))
        groups = [
            (by_sig[cuts[t] : cuts[t + 1]], by_entry[entry_cuts[t] : entry_cuts[t + 1]])
            for t in range(n_sig)
        ]
    position = np.empty(n_classes, dtype=np.int64)
    for cls, ent in groups:
        position[cls] = np.arange(len(cls))
        luts, locals_, radices, cover, ranges = [], [], [], [], []
        for j, (d, col) in enumerate(zip(domains, nodes, strict=True)):
            used, local = _used_nodes(col[cls], d.n_nodes)
            lo, hi = d.lo[used], d.hi[used]  # disjoint ranges: one node per rank at most
            size = hi - lo + 1
            lut = np.full(d.n_values, -1, dtype=np.int64)
            start = np.repeat(lo - np.cumsum(np.r_[0, size[:-1]]), size)
            lut[start + np.arange(size.sum())] = np.repeat(np.arange(len(used)), size)
            luts.append(lut)
            locals_.append(local)
            radices.append(len(used))
            cover.append(int((pts.cums[j][hi + 1] - pts.cums[j][lo]).sum()))
            ranges.append((lo, hi))
        # the most selective attribute first, its points as slices: the others only shrink them
        order = np.argsort(cover, kind="stable").tolist()
        if n_sig == 1:
            alive = np.arange(pts.u)
        else:
            alive, _ = pts.in_ranges(order[0], *ranges[order[0]])
        key_c, key_p, bound = np.zeros(len(cls), dtype=np.int64), np.zeros(len(alive), np.int64), 1
        for j in order:
            hit = luts[j][pts.ranks[j][alive]]
            ok = np.flatnonzero(hit >= 0)
            if len(ok) < len(alive):
                alive, hit, key_p = alive[ok], hit[ok], key_p[ok]
            if bound * radices[j] * n_s >= KEY_CAP:  # renumber both key sets jointly
                _, inv = np.unique(np.concatenate([key_c, key_p]), return_inverse=True)
                key_c, key_p = inv[: len(key_c)], inv[len(key_c) :]
                bound = int(inv.max()) + 1
            key_c = key_c * radices[j] + locals_[j]
            key_p = key_p * radices[j] + hit
            bound *= radices[j]
        ekey = key_c[position[entry_class[ent]]] * n_s + entry_s[ent]
        q[alive] += _lookup(ekey, entry_mass[ent], key_p * n_s + pts.s[alive])
    return q


def _stab_boxes(lo, hi, slab, entries, pts: _Points, n_s) -> np.ndarray:
    """The same sums by box stabbing: each class tests the points of its thinnest slab."""
    entry_keys, entry_mass = entries
    q = np.zeros(pts.u)
    best = np.argmin(np.column_stack(slab), axis=1)
    for j in range(len(lo)):
        cls = np.flatnonzero(best == j)
        ends = np.cumsum(slab[j][cls])
        a = 0
        while a < len(cls):  # blocks of about _BLOCK candidate (class, point) pairs
            b = max(int(np.searchsorted(ends, ends[a] - slab[j][cls[a]] + _BLOCK, "right")), a + 1)
            block = cls[a:b]
            found, which = pts.in_ranges(j, lo[j][block], hi[j][block])
            c = block[which]
            inside = np.ones(len(found), dtype=bool)
            for t in range(len(lo)):
                if t != j:
                    r = pts.ranks[t][found]
                    inside &= (lo[t][c] <= r) & (r <= hi[t][c])
            c, found = c[inside], found[inside]
            mass = _lookup(entry_keys, entry_mass, c * n_s + pts.s[found])
            q += np.bincount(found, weights=mass, minlength=pts.u)
            a = b
    return q


def kl_divergence(rec: Recoding, *, method: str = "auto") -> float:
    """KL-divergence ``KL(P || P*) = sum_x P(x) ln(P(x) / P*(x))`` in nats.

    ``P`` is the distribution of the original records over the points ``x`` of the QI domain
    (times the sensitive attribute when the table has one). ``P*`` is the one the release
    induces: each published record spreads mass ``1/n`` uniformly over the product of its cells'
    covers (a suppressed tuple over the whole QI domain), its sensitive value as is (Kifer and
    Gehrke 2006; Xiao, Yi and Tao 2010, §6.2, Eq. (2)). ``P*(x)`` sums over *every* class whose
    box covers ``x``: local recodings publish overlapping boxes. Zero iff nothing is generalized.

    Parameters
    ----------
    rec : Recoding
    method : {"auto", "layers", "boxes"}
        Both are exact. ``"layers"`` splits each attribute's published nodes into layers of
        disjoint ranges (hierarchy levels), groups the classes by their layer vector (their
        *signature*) and, per signature, looks every support point's covering nodes up and its
        class by key: O(n log n + s (u m + sum_j |dom A_j|)) for ``s`` signatures and ``u``
        support points; a global recoding has one signature. ``"boxes"`` stabs the class boxes
        in blocks, each class testing the points of its thinnest one-attribute slab:
        O(n log n + m sum_c min_j slab_j(c)), at most O(C u m) for ``C`` classes.
        ``"auto"`` picks the smaller of ``s u`` and ``sum_c min_j slab_j(c)``.

    Notes
    -----
    Float64 throughout: box volumes beyond ~1e308 values (hundreds of attributes) would overflow.

    References
    ----------
    Kifer and Gehrke, "Injecting Utility into Anonymized Datasets", SIGMOD 2006. Xiao, Yi and
    Tao, "The Hardness and Approximation Algorithms for L-Diversity", EDBT 2010.
    """
    method = check_choice("method", method, KL_METHODS)
    ids, n_classes = _classes(rec)
    t, domains = rec.table, rec.domains
    n, m = t.codes.shape
    if n == 0:
        return 0.0
    n_values = [d.n_values for d in domains]
    if t.sensitive is None:
        s, n_s = np.zeros(n, dtype=np.int64), 1
    else:
        s = t.sensitive.astype(np.int64)
        n_s = max(len(t.sensitive_values or ()), int(s.max()) + 1)
    # the support of P: u distinct points, a record at each, their ranks per attribute
    point, u = row_ids([t.codes[:, j] for j in range(m)] + [s], n_values + [n_s])
    p = np.bincount(point, minlength=u) / n
    rep = np.empty(u, dtype=np.int64)
    rep[point] = np.arange(n)
    rep_codes, s_pts = t.codes[rep], s[rep]
    pts = _Points([d.order[rep_codes[:, j]] for j, d in enumerate(domains)], n_values, s_pts)
    q = np.zeros(u)
    if rec.n_suppressed:  # a suppressed tuple covers every QI point with its sensitive value
        sup = np.bincount(s[rec.suppressed], minlength=n_s)
        q += sup[s_pts] / (n * float(np.prod(np.asarray(n_values, dtype=float))))
    if n_classes:
        kept = np.flatnonzero(ids >= 0)
        first = np.empty(n_classes, dtype=np.int64)
        first[ids[kept]] = kept
        nodes = list(rec.cells[first].T.copy())
        volume = np.ones(n_classes)
        for d, c in zip(domains, nodes, strict=True):
            volume *= d.size[c]
        # mass 1/n per record over its class's box, kept apart per sensitive value
        entry_keys, entry_count = np.unique(ids[kept] * n_s + s[kept], return_counts=True)
        entry_class = entry_keys // n_s
        entry_mass = entry_count / (n * volume[entry_class])
        sig, n_sig = _signatures(domains, nodes) if method != "boxes" else (None, 0)
        if method != "layers" and n_sig != 1:
            lo = [d.lo[c] for d, c in zip(domains, nodes, strict=True)]
            hi = [d.hi[c] for d, c in zip(domains, nodes, strict=True)]
            slab = [pts.cums[j][hi[j] + 1] - pts.cums[j][lo[j]] for j in range(m)]
            if method == "auto":
                method = "layers" if n_sig * u <= np.min(slab, axis=0).sum() else "boxes"
        if method == "boxes":
            q += _stab_boxes(lo, hi, slab, (entry_keys, entry_mass), pts, n_s)
        else:
            entries = (entry_class, entry_keys % n_s, entry_mass)
            q += _stab_layers(domains, nodes, sig, n_sig, entries, pts, n_s)
    return float(np.sum(p * np.log(p / q)))
