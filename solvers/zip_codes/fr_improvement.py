"""Fürer–Raghavachari improvement of a spanning tree's maximum degree (steps 2 and 3 of
:mod:`anonratio.solvers.zip_codes.low_degree_tree`).

*FR improvement* at the current maximum degree ``k``: degree-``k`` and degree-``(k-1)`` vertices
are *bad*; a non-tree edge between good vertices of different components of ``T - bad`` closes a
cycle through bad vertices, and a swap lowers a degree-``k`` vertex on it (propagating swaps
remembered by degree-``(k-1)`` vertices that became good). When no edge qualifies, the bad set
``W`` certifies ``Δ* >= ceil((|W| + c - 1) / |W|)`` (:func:`degree_witness_bound`). *Cut and link*
replaces a tree edge at a degree-``k`` vertex by a graph edge across the cut, a move FR does not
consider. Every swap is checked on the current tree and a failing swap chain is rolled back.

References
----------
Fürer, Raghavachari. Approximating the minimum-degree Steiner tree to within one of optimal.
J. Algorithms 17 (1994).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Sequence

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

__all__ = ["improve_tree", "degree_witness_bound"]


class _DSU:
    def __init__(self, n, depth):
        self.p = list(range(n))
        self.top = list(range(n))  # shallowest vertex of the component (components are subtrees)
        self.depth = depth

    def find(self, x):
        p = self.p
        while p[x] != x:
            p[x] = p[p[x]]
            x = p[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        ta, tb = self.top[ra], self.top[rb]
        self.p[rb] = ra
        self.top[ra] = ta if self.depth[ta] <= self.depth[tb] else tb


def _rooted(tadj, root):
    n = len(tadj)
    parent, depth = [-1] * n, [0] * n
    seen = bytearray(n)
    seen[root] = 1
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in tadj[u]:
            if not seen[v]:
                seen[v] = 1
                parent[v], depth[v] = u, depth[u] + 1
                queue.append(v)
    return parent, depth


def _bad_on_cycle(a, b, bad, dsu, parent, depth):
    """Bad vertices on the tree path a..b, jumping over good components in one step each."""
    out = []

    def unit(x):  # ("c", component root) for good vertices, ("v", x) for bad ones
        return ("v", x) if bad[x] else ("c", dsu.find(x))

    def top(u):
        return u[1] if u[0] == "v" else dsu.top[u[1]]

    ua, ub = unit(a), unit(b)
    while ua != ub:
        ta, tb = top(ua), top(ub)
        if depth[ta] >= depth[tb]:
            if ua[0] == "v":
                out.append(ua[1])
            ua = unit(parent[ta])
        else:
            if ub[0] == "v":
                out.append(ub[1])
            ub = unit(parent[tb])
    if ua[0] == "v":
        out.append(ua[1])
    return out


def _tree_path(tadj, a, b):
    """Vertices of the current tree path a..b (BFS; the tree may have changed since rooting)."""
    prev = {a: -1}
    queue = deque([a])
    while queue:
        u = queue.popleft()
        if u == b:
            break
        for v in tadj[u]:
            if v not in prev:
                prev[v] = u
                queue.append(v)
    path = [b]
    while path[-1] != a:
        path.append(prev[path[-1]])
    return path[::-1]


def _swap(tadj, deg, k, w, edge, remembered, visiting, log):
    """Lower ``w`` by one with the non-tree ``edge``, first making room at its endpoints."""
    a, b = edge
    for x in (a, b):
        if deg[x] >= k - 1:
            if x not in remembered or x in visiting:
                return False
            visiting.add(x)
            if not _swap(tadj, deg, k, x, remembered[x], remembered, visiting, log):
                return False
    if deg[a] > k - 2 or deg[b] > k - 2 or b in tadj[a]:
        return False
    path = _tree_path(tadj, a, b)
    try:
        i = path.index(w)
    except ValueError:
        return False
    if i == 0 or i == len(path) - 1:
        return False
    y = max(path[i - 1], path[i + 1], key=lambda v: deg[v])
    for u, v, op in ((w, y, "del"), (a, b, "add")):
        if op == "del":
            tadj[u].discard(v)
            tadj[v].discard(u)
            deg[u] -= 1
            deg[v] -= 1
        else:
            tadj[u].add(v)
            tadj[v].add(u)
            deg[u] += 1
            deg[v] += 1
        log.append((u, v, op))
    return True


def _undo(tadj, deg, log):
    for u, v, op in reversed(log):
        if op == "del":
            tadj[u].add(v)
            tadj[v].add(u)
            deg[u] += 1
            deg[v] += 1
        else:
            tadj[u].discard(v)
            tadj[v].discard(u)
            deg[u] -= 1
            deg[v] -= 1


def _fr_phase(adj, tadj, deg, k):
    """Try one improvement at degree ``k``: True when applied, else the bad (witness) set."""
    n = len(adj)
    parent, depth = _rooted(tadj, 0)
    bad = bytearray(1 if d >= k - 1 else 0 for d in deg)
    n_top = sum(1 for d in deg if d == k)
    dsu = _DSU(n, depth)
    for u in range(n):
        if not bad[u]:
            for v in tadj[u]:
                if v > u and not bad[v]:
                    dsu.union(u, v)
    remembered: dict[int, tuple[int, int]] = {}
    queue = [(u, v) for u in range(n) if not bad[u] for v in adj[u] if v > u and not bad[v]]
    queue = [e for e in queue if e[1] not in tadj[e[0]]]
    queue.reverse()
    while queue:
        a, b = queue.pop()
        if bad[a] or bad[b] or dsu.find(a) == dsu.find(b):
            continue
        on_cycle = _bad_on_cycle(a, b, bad, dsu, parent, depth)
        top = [w for w in on_cycle if deg[w] == k]
        if top:
            for w in top:
                log: list[tuple[int, int, str]] = []
                ok = _swap(tadj, deg, k, w, (a, b), remembered, set(), log)
                if ok and max(deg) <= k and sum(1 for d in deg if d == k) < n_top:
                    return True
                _undo(tadj, deg, log)
            continue
        for w in on_cycle:  # all of degree k - 1: they become good, remembering (a, b)
            bad[w] = 0
            remembered[w] = (a, b)
        for w in on_cycle:
            for v in tadj[w]:
                if not bad[v]:
                    dsu.union(w, v)
            queue.extend((w, v) for v in adj[w] if not bad[v] and v not in tadj[w])
    return [v for v in range(n) if bad[v]]


def degree_witness_bound(adj: Sequence[Sequence[int]], witness: Collection[int]) -> int:
    """``ceil((|W| + c - 1) / |W|)``: a lower bound on the degree of every spanning tree.

    A spanning tree minus ``W`` is a forest on ``n - |W|`` vertices with at least ``c``
    components (those of ``G - W``), so at least ``|W| + c - 1`` tree edges touch ``W``.
    """
    n = len(adj)
    trivial = 2 if n >= 3 else n - 1
    if not witness:
        return trivial
    w = np.zeros(n, dtype=bool)
    w[list(witness)] = True
    rows = [u for u in range(n) if not w[u] for v in adj[u] if not w[v]]
    cols = [v for u in range(n) if not w[u] for v in adj[u] if not w[v]]
    g = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    _, comp = connected_components(g, directed=False)
    c = len(np.unique(comp[~w]))
    return max(trivial, -(-(len(witness) + c - 1) // len(witness)))


def _euler(tadj, root):
    """Preorder entry/exit times: ``v`` lies in the subtree of ``u`` iff
    ``tin[u] <= tin[v] < tout[u]``."""
    n = len(tadj)
    tin, tout, parent = [0] * n, [0] * n, [-1] * n
    clock, stack = 0, [(root, False)]
    while stack:
        u, done = stack.pop()
        if done:
            tout[u] = clock
            continue
        tin[u] = clock
        clock += 1
        stack.append((u, True))
        for v in tadj[u]:
            if v != parent[u]:
                parent[v] = u
                stack.append((v, False))
    return tin, tout, parent


def _cut_and_link(adj, tadj, deg, k):
    """A swap FR does not try: replace the tree edge ``(w, c)`` at a degree-``k`` vertex ``w`` by
    a graph edge ``(c, a)`` across the cut, where ``c`` has degree ``k - 1`` (it drops to
    ``k - 2`` with the cut) and ``a`` has degree ``<= k - 2``. (FR only links vertices that are
    already of degree ``<= k - 2``.) True when applied. O(n + sum of degrees)."""
    n = len(adj)
    tin, tout, parent = _euler(tadj, 0)
    for w in (v for v in range(n) if deg[v] == k):
        for c in tadj[w]:
            if deg[c] != k - 1:
                continue
            sub = c if parent[c] == w else w  # the cut separates the subtree of ``sub``
            lo, hi = tin[sub], tout[sub]
            c_in = lo <= tin[c] < hi
            for a in adj[c]:
                if deg[a] <= k - 2 and a != w and (lo <= tin[a] < hi) != c_in:
                    tadj[w].discard(c)
                    tadj[c].discard(w)
                    tadj[a].add(c)
                    tadj[c].add(a)
                    deg[w] -= 1
                    deg[a] += 1
                    return True
    return False


def improve_tree(
    adj: Sequence[Sequence[int]], tadj: list[set[int]], max_phases: int | None
) -> tuple[int, list[int]]:
    """Lower the maximum degree of the spanning tree ``tadj`` (adjacency sets, in place).

    FR phases at the current maximum degree ``k``, each followed by cut and link when FR finds
    nothing, until the degree is 2, no move applies, or ``max_phases`` swaps were made.

    Returns
    -------
    swaps : int
        Improvements applied.
    witness : list of int
        FR's bad set when it stopped at a local optimum (empty at degree <= 2 or when the cap
        stopped it): :func:`degree_witness_bound` turns it into a lower bound on ``Δ*``.

    Notes
    -----
    Each phase costs O(n + m) plus O(n) per attempted swap chain and applies one swap; at most
    ``n`` phases per degree level (Fürer and Raghavachari 1994).
    """
    deg = [len(t) for t in tadj]
    swaps, witness = 0, list[int]()
    while max_phases is None or swaps < max_phases:
        k = max(deg)
        if k <= 2:
            witness = []
            break
        res = _fr_phase(adj, tadj, deg, k)
        if res is not True and _cut_and_link(adj, tadj, deg, k):
            res = True
        if res is True:
            swaps += 1
            continue
        witness = res
        break
    return swaps, witness
