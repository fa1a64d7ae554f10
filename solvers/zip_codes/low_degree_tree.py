"""Low-degree spanning trees: a Warnsdorff depth-first start and Fürer–Raghavachari improvement.

The zip-code algorithm of Du et al. (2009, §2) needs a spanning tree of small maximum degree ``d``:
its cost bound is ``kappa + d (k - 1)``. A minimum-degree spanning tree is NP-hard (degree 2 is a
Hamiltonian path), but Fürer and Raghavachari (1994) find one of degree at most ``Δ* + 1`` by local
improvement, where ``Δ*`` is the optimum. We implement their improvement scheme on top of a greedy
start:

1. *Warnsdorff DFS*: a depth-first search that always moves to the unvisited neighbour with the
   fewest unvisited neighbours (Warnsdorff's rule for Hamiltonian paths). It is path-like by
   construction: a vertex gets a second child only when the search backtracks to it.
2. *FR improvement* at the current maximum degree ``k``: call degree-``k`` and degree-``(k-1)``
   vertices *bad*, the components of ``T - bad`` are the forest. A non-tree edge ``(a, b)`` between
   two good vertices in different components closes a tree cycle through bad vertices. If one of
   them has degree ``k``, swap: add ``(a, b)``, drop that vertex's cycle edge. Otherwise every bad
   vertex on the cycle has degree ``k - 1``; mark them good (each remembers ``(a, b)`` as the swap
   that can lower it later) and merge the components. A swap at ``a`` or ``b`` of degree ``k - 1``
   first applies their remembered swaps (propagation). When no edge qualifies, the bad set ``W``
   certifies ``Δ* >= ceil((|W| + c - 1) / |W|)`` with ``c`` the components of ``G - W``
   (reported as ``degree_lower_bound``); FR show this is at least ``k - 1``.
3. *Cut and link*, when FR finds nothing: replace a tree edge ``(w, c)`` at a degree-``k``
   vertex ``w`` by a graph edge ``(c, a)`` across the cut, where ``c`` has degree ``k - 1`` (one
   less after the cut) and ``a`` at most ``k - 2`` — a move FR does not consider, since it only
   links vertices already of degree ``<= k - 2``. It removes further degree-``k`` vertices and
   then FR resumes.

Every swap is checked on the current tree (the removed edge lies on the cycle of the added one, no
vertex reaches degree ``k``, the number of degree-``k`` vertices drops); a swap chain that fails a
check is rolled back, so the result is always a spanning tree of degree at most the start's.
Steps 2 and 3 are in :mod:`anonratio.solvers.zip_codes.fr_improvement`.
"""

from __future__ import annotations

from collections import deque

import networkx as nx
import numpy as np

from anonratio.instances.validation import (
    check_choice,
    check_instance,
    check_int,
    check_random_state,
)
from anonratio.solvers.zip_codes.fr_improvement import degree_witness_bound, improve_tree

__all__ = ["low_degree_spanning_tree", "TREE_METHODS", "degree_witness_bound"]

TREE_METHODS = ("fr", "warnsdorff", "dfs", "bfs")


def _tree_iv(graph, method, start, restarts, max_phases):
    check_instance(graph, nx.Graph, "graph")
    if graph.is_directed():
        raise TypeError(f"`graph` must be an undirected networkx.Graph, got {type(graph).__name__}")
    if graph.number_of_nodes() == 0 or not nx.is_connected(graph):
        raise ValueError("`graph` must be non-empty and connected to have a spanning tree")
    check_choice("method", method, TREE_METHODS)
    check_choice("start", start, TREE_METHODS[1:])
    check_int("restarts", restarts, low=1)
    if max_phases is not None:
        check_int("max_phases", max_phases, low=0)


# ---------------------------------------------------------------------------------------------
# starting trees
# ---------------------------------------------------------------------------------------------
def _warnsdorff(adj, root):
    """Parent array of a DFS that moves to the unvisited neighbour with fewest unvisited
    neighbours (adjacency order breaks ties)."""
    n = len(adj)
    visited = bytearray(n)
    free = [len(a) for a in adj]
    parent = [-1] * n

    def visit(v):
        visited[v] = 1
        for x in adj[v]:
            free[x] -= 1

    visit(root)
    stack = [root]
    while stack:
        u = stack[-1]
        best, best_free = -1, n + 1
        for v in adj[u]:
            if not visited[v] and free[v] < best_free:
                best, best_free = v, free[v]
        if best < 0:
            stack.pop()
            continue
        parent[best] = u
        visit(best)
        stack.append(best)
    return parent


def _search_tree(adj, root, depth_first):
    n = len(adj)
    parent = [-1] * n
    seen = bytearray(n)
    seen[root] = 1
    if not depth_first:
        queue = deque([root])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if not seen[v]:
                    seen[v] = 1
                    parent[v] = u
                    queue.append(v)
        return parent
    seen = bytearray(n)
    stack = [(root, -1)]
    while stack:
        u, p = stack.pop()
        if seen[u]:
            continue
        seen[u] = 1
        parent[u] = p
        stack.extend((v, u) for v in reversed(adj[u]) if not seen[v])
    return parent


def low_degree_spanning_tree(
    graph: nx.Graph,
    *,
    method: str = "fr",
    start: str = "warnsdorff",
    restarts: int = 1,
    seed: int | np.random.Generator | None = None,
    max_phases: int | None = None,
) -> nx.Graph:
    """A spanning tree of small maximum degree.

    With ``method="fr"`` the maximum degree is at most ``Δ* + 1`` whenever the improvement runs to
    completion (``Δ*`` = the least maximum degree of any spanning tree; Fürer and Raghavachari
    1994), and usually ``Δ*`` on planar triangulations and grids; 3-connected planar graphs have
    ``Δ* <= 3`` (Barnette 1966), 4-connected ones ``Δ* <= 2`` (Tutte 1956). The other methods
    return their start tree without improvement: ``"warnsdorff"`` (greedy DFS, module docstring),
    ``"dfs"`` and ``"bfs"`` (plain search trees, for comparison).

    Parameters
    ----------
    graph : networkx.Graph
        Connected and undirected.
    method : {"fr", "warnsdorff", "dfs", "bfs"}
    start : {"warnsdorff", "dfs", "bfs"}
        ``"fr"`` only: the start tree the improvement begins from.
    restarts : int
        Number of starts (random roots among the
        minimum-degree vertices, shuffled adjacency); the best tree wins (smallest maximum
        degree, then fewest vertices of that degree).
    seed : int, numpy.random.Generator or None
        Root and tie-breaking; ``None`` is nondeterministic.
    max_phases : int or None
        Cap on FR swaps (``None``: run to the local optimum).

    Returns
    -------
    networkx.Graph
        The tree on the same nodes. ``tree.graph`` holds ``max_degree``, ``method``, ``swaps``
        (FR improvements applied) and ``degree_lower_bound`` (FR witness bound on ``Δ*``; 2 or
        the trivial bound for the other methods).

    Notes
    -----
    Warnsdorff DFS: O(Σ_v deg(v)²). Each FR phase costs O(n + m) plus O(n) per attempted swap
    chain and applies one swap; at most ``n`` phases per degree level (each lowers the count of
    maximum-degree vertices by one). From the Warnsdorff start few swaps are needed (about 1 s
    for a 5000-node Delaunay triangulation); from a BFS tree thousands are (minutes at 5000
    nodes).

    References
    ----------
    Fürer, Raghavachari. Approximating the minimum-degree Steiner tree to within one of optimal.
    J. Algorithms 17 (1994). Du, Eppstein, Goodrich, Lueker. WADS 2009, §2 (use in the zip-code
    algorithm; Barnette's and Tutte's theorems).

    Examples
    --------
    >>> import networkx as nx
    >>> t = low_degree_spanning_tree(nx.grid_2d_graph(4, 5), seed=0)
    >>> nx.is_tree(t), t.graph["max_degree"]
    (True, 2)
    """
    _tree_iv(graph, method, start, restarts, max_phases)
    rng = check_random_state(seed)
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    base = [[index[v] for v in graph.adj[u]] for u in nodes]
    degs = np.array([len(a) for a in base])
    how = start if method == "fr" else method
    best = None
    for _ in range(restarts):
        adj, tadj = _start_tree(base, degs, how, rng)
        swaps, witness = improve_tree(adj, tadj, max_phases) if method == "fr" else (0, None)
        key = _degree_key(tadj)
        if best is None or key < best[0]:
            best = (key, tadj, swaps, _tree_lower_bound(adj, tadj, witness, key[0]))
    assert best is not None  # restarts >= 1 (checked above)
    (d, _), tadj, swaps, lb = best
    tree = _as_graph(nodes, tadj)
    tree.graph.update(max_degree=d, method=method, swaps=swaps, degree_lower_bound=min(lb, d))
    return tree


def _as_graph(nodes, tadj):
    """The tree with adjacency sets ``tadj`` over vertex indices, on the original ``nodes``."""
    tree = nx.Graph()
    tree.add_nodes_from(nodes)
    tree.add_edges_from((nodes[u], nodes[v]) for u in range(len(nodes)) for v in tadj[u] if u < v)
    return tree


def _start_tree(base, degs, how, rng):
    """One start: a shuffled copy of the adjacency and the start tree's adjacency sets.

    Warnsdorff shuffles every neighbour list and starts at a random minimum-degree vertex; the
    plain searches start at a random vertex.
    """
    n = len(base)
    adj = [list(a) for a in base]
    if how == "warnsdorff":
        for a in adj:
            rng.shuffle(a)
        lows = np.flatnonzero(degs == degs.min())
        root = int(rng.choice(lows))
        parent = _warnsdorff(adj, root)
    else:
        root = int(rng.integers(n))
        parent = _search_tree(adj, root, depth_first=how == "dfs")
    tadj: list[set[int]] = [set() for _ in range(n)]
    for v, p in enumerate(parent):
        if p >= 0:
            tadj[v].add(p)
            tadj[p].add(v)
    return adj, tadj


def _degree_key(tadj):
    """``(maximum degree, number of vertices of that degree)``: smaller is better."""
    deg = [len(t) for t in tadj]
    d = max(deg) if len(tadj) > 1 else 0
    return d, sum(1 for x in deg if x == d)


def _tree_lower_bound(adj, tadj, witness, d):
    """Lower bound on the least maximum degree: FR's bad set and the maximum-degree vertices
    alone as witnesses (:func:`degree_witness_bound`), else the trivial ``min(d, 2)``."""
    lb = min(d, 2)
    if witness is not None:  # FR's bad set, and the maximum-degree vertices alone
        top = [v for v in range(len(tadj)) if len(tadj[v]) == d] if d > 2 else []
        lb = max(degree_witness_bound(adj, witness), degree_witness_bound(adj, top))
    return lb
