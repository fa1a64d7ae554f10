"""DECOMPOSE-COMPONENT of Aggarwal et al. (2005, §4.2), one step and applied to a whole forest.

Every component of the forest FOREST builds has at least ``k`` real vertices. DECOMPOSE-COMPONENT
cuts a component of ``s > L = max(2k − 1, 3k − 5)`` real vertices into two, each with at least
``k`` real vertices, without increasing the total edge weight: it walks to a candidate vertex ``u``
whose largest branch (subtree at a neighbour ``v``, of ``φ`` real vertices) leaves
``s − φ >= k − 1`` and applies one of four cases —

- **A** ``φ >= k`` and ``s − φ >= k``: the largest branch, and the rest;
- **B** ``s − φ = k − 1``: ``v``'s other branches joined by a Steiner copy ``v′``, and the rest
  plus ``v``;
- **C** ``φ = k − 1``: the largest branch plus ``u``, and the rest joined by a Steiner copy ``u′``;
- **D** every branch ``<= k − 2``: branches are added to a first part until it holds ``k − 1``;
  ``u`` goes to a part of exactly ``k − 1`` (else to the first), ``u′`` to the other.

A Steiner vertex is a copy of a record used only to keep a part connected; it does not count
towards the part's size, and each record still belongs to exactly one part.

:func:`decompose_component` is the literal step, on any tree. :func:`decompose_forest` applies it
until every part has ``k .. L`` real vertices, in O(V log V) time, with two changes the literal
step needs to be correct:

1. *Multiplicities.* A vertex carries ``weight >= 1`` identical records (0-distance copies). A
   part may take any number of a vertex's copies; a part that uses the vertex with none of its
   copies holds it as a Steiner vertex.
2. *Steiner centres.* Applied repeatedly, the literal step can get stuck: with ``k = 4`` a star
   whose centre ``u`` has branches of 3, 3, 3 and 2 vertices (``s = 12 > L = 7``) is split by
   case C at ``u`` (or, from a branch root, by case B with ``v = u``: the same split), which
   leaves the branches 3, 3, 2 around the Steiner ``u′`` (8 > 7 real vertices) — and no split
   of that part into two parts of ``>= 4`` exists. :func:`decompose_forest` therefore
   uses case C or D only when the part left with a Steiner centre is final (``<= L``) or still
   holds copies of ``u``; otherwise it *peels* branches off the star — a greedy prefix of them
   by decreasing size (then spare copies of ``u``), of ``k .. 2k − 2`` real vertices — and keeps
   ``u`` real in the rest. A literal step is refused only while the star holds more than
   ``L + k`` real vertices (then the rest keeps ``>= k``); below that, the part left around
   ``u′`` holds at most ``L`` and the literal C or D is always taken. The star split is
   :func:`~anonratio.solvers.kanonymity.star_split.split_star` (re-exported here).

Candidates are picked bottom-up (the paper allows any starting vertex): with the forest rooted at
FOREST's sinks, the first vertex ``u`` in post-order whose remaining subtree holds ``T >= k``
real vertices is the candidate, so every child branch has ``<= k − 1`` and the parent side
``P = s − T`` is the largest branch when ``P >= k``. Then case A cuts off ``u``'s subtree;
otherwise ``u`` is the centre of a star of branches of size ``<= k − 1`` (its subtree, when it
holds more than ``L``, or the whole component when ``P <= k − 1``), which is split as above. Case
B never arises with this choice. Cuts only drop edges and every part owns its edges, so the parts'
total edge weight is at most the forest's (the invariant behind Theorem 5).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from anonratio.solvers.kanonymity.star_split import max_component_size, split_star

__all__ = [
    "max_component_size",
    "decompose_component",
    "decompose_forest",
    "split_star",
    "ComponentPart",
    "ComponentSplit",
    "Decomposition",
]


# ---------------------------------------------------------------------------------------------
# the literal step (reference implementation on any tree)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ComponentPart:
    """One part of a split: real vertices, Steiner vertices and the tree edges it owns."""

    vertices: frozenset
    steiner: frozenset
    edges: frozenset

    @property
    def size(self) -> int:
        """Number of real vertices (Steiner vertices do not count)."""
        return len(self.vertices)


@dataclass(frozen=True)
class ComponentSplit:
    """The outcome of one DECOMPOSE-COMPONENT step: its case, candidate ``u`` and two parts."""

    case: str
    candidate: Hashable
    parts: tuple[ComponentPart, ComponentPart]


def _branches(adj, root, real):
    """Per neighbour ``y`` of ``root``: the vertex set of the branch through ``y``."""
    out = {}
    for y in sorted(adj[root]):
        seen, stack = {root, y}, [y]
        while stack:
            x = stack.pop()
            for z in adj[x]:
                if z not in seen:
                    seen.add(z)
                    stack.append(z)
        seen.discard(root)
        out[y] = seen
    return out


def _part(adj, vertices, steiner):
    vs = set(vertices) | set(steiner)
    edges = frozenset(frozenset((a, b)) for a in vs for b in adj[a] if b in vs)
    return ComponentPart(frozenset(vertices), frozenset(steiner), edges)


def decompose_component(
    edges: Iterable[tuple[Hashable, Hashable]],
    k: int,
    *,
    steiner: Iterable[Hashable] = (),
    candidate: Hashable | None = None,
) -> ComponentSplit:
    """One step of DECOMPOSE-COMPONENT (Aggarwal et al. 2005, §4.2), exactly as the paper states it.

    Splits a tree with ``s > max(2k − 1, 3k − 5)`` real vertices into two parts of at least ``k``
    real vertices each, whose edge sets are disjoint subsets of the tree's (cases A–D above).

    Parameters
    ----------
    edges : iterable of (vertex, vertex)
        The tree's edges (vertices are any sortable hashables).
    k : int
    steiner : iterable of vertex, optional
        Vertices that are Steiner copies (they do not count towards sizes).
    candidate : vertex, optional
        Where the walk starts (default: the smallest vertex).

    Returns
    -------
    ComponentSplit

    Raises
    ------
    ValueError
        When the tree has at most ``L`` real vertices, or when the case reached needs a real
        vertex where the tree has a Steiner vertex (the literal step's gap; see the module notes).

    Notes
    -----
    O(s · d) time for a walk of d steps; meant for small trees and tests, not for the driver.
    Ties between largest branches go to the smaller neighbour; case D adds branches in order of
    decreasing size.
    """
    adj = _adjacency(edges)
    steiner = frozenset(steiner)
    real = {x for x in adj if x not in steiner}
    s, big = len(real), max_component_size(k)
    if s <= big:
        raise ValueError(f"the tree has {s} real vertices, at most max(2k-1, 3k-5) = {big}")
    u = min(adj) if candidate is None else candidate
    u, br, sizes, v = _walk(adj, real, s, k, u)
    phi = sizes[v]
    if phi >= k and s - phi >= k:  # case A
        a = br[v]
        b = set(adj) - a
        parts = (_part(adj, a - steiner, a & steiner), _part(adj, b - steiner, b & steiner))
        return ComponentSplit("A", u, parts)
    if s - phi == k - 1:  # case B
        if v in steiner:
            raise ValueError("case B needs v, the root of the largest branch, to be a real vertex")
        first = br[v] - {v}
        second = set(adj) - first
        # v moves to the second part; its copy v' joins v's children in the first
        p1 = _part(adj, first - steiner, (first & steiner) | {v})
        p2 = _part(adj, second - steiner, second & steiner)
        return ComponentSplit("B", u, (p1, p2))
    if u in steiner:
        raise ValueError("cases C and D need the candidate u to be a real vertex")
    if phi == k - 1:  # case C
        return _case_c(adj, steiner, u, br, v)
    return _case_d(adj, steiner, s, k, u, br, sizes)


def _adjacency(edges):
    adj: dict[Hashable, set[Hashable]] = {}
    for a, b in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    return adj


def _walk(adj, real, s, k, u):
    """Steps 1-3: walk from ``u`` towards the largest branch until it leaves ``s − φ >= k − 1``.

    Returns the candidate ``u``, its branches, their real sizes and the first largest branch
    ``v``.
    """
    while True:
        br = _branches(adj, u, real)
        sizes = {y: len(vs & real) for y, vs in br.items()}
        v = max(sorted(sizes), key=lambda y: sizes[y])  # first largest
        if s - sizes[v] >= k - 1:
            return u, br, sizes, v
        u = v  # step 3: move to the root of the largest branch


def _case_c(adj, steiner, u, br, v):
    """Case C: the largest branch (``k − 1`` real vertices) plus ``u``, and the rest around
    the Steiner copy ``u′``."""
    rest = [y for y in sorted(br) if y != v]
    first = br[v] | {u}
    others = set().union(*(br[y] for y in rest)) if rest else set()
    p1 = _part(adj, first - steiner, first & steiner)
    p2 = _part(adj, others - steiner, (others & steiner) | {u})
    return ComponentSplit("C", u, (p1, p2))


def _case_d(adj, steiner, s, k, u, br, sizes):
    """Case D (every branch has ``<= k − 2`` real vertices): branches by decreasing size fill a
    first part up to ``k − 1``; ``u`` joins a part of exactly ``k − 1`` (else the first), its
    Steiner copy ``u′`` the other."""
    order = sorted(br, key=lambda y: (-sizes[y], y))
    first: list[int] = []
    size = 0
    while size < k - 1:
        y = order[len(first)]
        first.append(y)
        size += sizes[y]
    second = order[len(first) :]
    a = set().union(*(br[y] for y in first))
    b = set().union(*(br[y] for y in second))
    if size == k - 1 or s - 1 - size != k - 1:
        a_real, b_steiner = {u}, {u}
        p1 = _part(adj, (a - steiner) | a_real, a & steiner)
        p2 = _part(adj, b - steiner, (b & steiner) | b_steiner)
    else:
        p1 = _part(adj, a - steiner, (a & steiner) | {u})
        p2 = _part(adj, (b - steiner) | {u}, b & steiner)
    return ComponentSplit("D", u, (p1, p2))


# ---------------------------------------------------------------------------------------------
# the driver: the whole forest, bottom-up
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Decomposition:
    """Parts of a decomposed forest.

    Attributes
    ----------
    labels : list of int
        Part of every vertex (for a vertex in ``spread``: the part of its first copies).
    spread : dict of int -> list of (int, int)
        Vertices whose copies go to several parts: ``[(part, n_copies), ...]``.
    edge_part : list of int
        Part owning the edge from each vertex to its parent, ``-1`` if dropped or a root.
    sizes : list of int
        Real vertices (copies) per part.
    steiner : list of (int, int)
        ``(part, vertex)`` for every vertex a part uses as a Steiner vertex.
    cases : collections.Counter
        How often each case cut a part off (``"A"``, ``"C"``, ``"D"``, ``"peel"``).
    """

    labels: list[int]
    spread: dict[int, list[tuple[int, int]]]
    edge_part: list[int]
    sizes: list[int]
    steiner: list[tuple[int, int]]
    cases: Counter


def decompose_forest(parent: Sequence[int], weights: Sequence[int], k: int) -> Decomposition:
    """Cut every tree of a rooted forest into parts of ``k .. max(2k − 1, 3k − 5)`` real vertices.

    Repeated DECOMPOSE-COMPONENT (Aggarwal et al. 2005, §4.2) with bottom-up candidates and the
    two amendments of the module notes; each part is connected (through Steiner vertices where
    needed) by edges no other part uses.

    Parameters
    ----------
    parent : sequence of int
        Parent of each vertex, ``-1`` for a root.
    weights : sequence of int
        Copies (identical records) each vertex carries, ``>= 1``; every tree must hold ``>= k``.
    k : int

    Returns
    -------
    Decomposition

    Notes
    -----
    O(V log V) time and O(V) memory for V vertices.
    """
    roots, order, tree = _bfs_forest(parent)
    cutter = _ForestCutter(parent, weights, k, tree, roots)
    cutter.close_small_trees(roots)
    cutter.cut_bottom_up(order)
    return cutter.decomposition(order)


def _bfs_forest(parent):
    """Roots, BFS order (parents first) and the root of each vertex of a parent array."""
    nv = len(parent)
    children: list[list[int]] = [[] for _ in range(nv)]
    roots: list[int] = []
    for x, p in enumerate(parent):
        (children[p] if p >= 0 else roots).append(x)
    order, tree = [], [0] * nv  # BFS order (parents first) and the root of each vertex
    for r in roots:
        tree[r] = r
        queue = deque([r])
        while queue:
            x = queue.popleft()
            order.append(x)
            for c in children[x]:
                tree[c] = r
                queue.append(c)
    if len(order) != nv:
        raise ValueError("`parent` must describe a forest (it has a cycle)")
    return roots, order, tree


class _ForestCutter:
    """The state of :func:`decompose_forest`: the parts made so far and what is left of each tree.

    ``cut[x]`` is the part of a vertex whose subtree (what is left of it) was assigned, ``-1``
    before; ``edge_part[x]`` the part owning the edge to ``x``'s parent (``-2``: the part of
    ``x``, ``-1``: dropped or a root); ``remaining[r]`` the copies left in the tree of root ``r``;
    ``residual[x]`` the copies of a branch not yet assigned, hanging below its parent.
    """

    def __init__(self, parent, weights, k, tree, roots):
        nv = len(parent)
        self.parent, self.weights, self.k, self.tree = parent, weights, k, tree
        self.big = max_component_size(k)
        self.remaining = dict.fromkeys(roots, 0)
        for x in range(nv):
            self.remaining[tree[x]] += weights[x]
        self.cut = [-1] * nv
        self.edge_part = [-2] * nv  # -2: the edge belongs to the vertex's part
        self.residual = [0] * nv
        self.sizes: list[int] = []
        self.spread: dict[int, list[tuple[int, int]]] = {}
        self.steiner: list[tuple[int, int]] = []
        self.cases: Counter[str] = Counter()
        self.done = set()

    def new_part(self, size):
        self.sizes.append(size)
        return len(self.sizes) - 1

    def close_tree(self, r):
        self.cut[r] = self.new_part(self.remaining[r])
        self.done.add(r)

    def close_small_trees(self, roots):
        """Trees of ``k .. L`` copies are parts as they are."""
        k = self.k
        for r in roots:
            self.edge_part[r] = -1
            if self.remaining[r] < k:
                raise ValueError(f"a tree holds {self.remaining[r]} copies, fewer than k={k}")
            if self.remaining[r] <= self.big:
                self.close_tree(r)

    def star(self, u, branches, parent_side):
        """Split the star at u; ``parent_side`` is the size P of the branch above u, or 0."""
        cut, edge_part, tree = self.cut, self.edge_part, self.tree
        items = branches + ([-1] if parent_side else [])
        sz = [self.residual[c] for c in branches] + ([parent_side] if parent_side else [])
        placed = []
        for members, units, case in split_star(self.weights[u], sz, self.k):
            pid = self.new_part(units + sum(sz[i] for i in members))
            if case is not None:
                self.cases[case] += 1
            for i in members:
                c = items[i]
                if c < 0:  # the parent side: the rest of the tree, through u's parent edge
                    cut[tree[u]] = pid
                    edge_part[u] = pid
                else:
                    cut[c] = pid
                    edge_part[c] = pid
            if units:
                placed.append((pid, units))
            elif len(members) > 1:
                self.steiner.append((pid, u))
        cut[u] = placed[0][0]
        if len(placed) > 1:
            self.spread[u] = placed

    def cut_bottom_up(self, order):
        """Candidates in post-order: case A cuts a subtree off, a star split ends the tree."""
        parent, weights, tree, k, big = self.parent, self.weights, self.tree, self.k, self.big
        remaining, residual, done = self.remaining, self.residual, self.done
        nv = len(parent)
        acc = [0] * nv
        attached: list[list[int]] = [[] for _ in range(nv)]
        for u in reversed(order):
            r = tree[u]
            if r in done:
                continue
            total = weights[u] + acc[u]
            if total < k:  # not a candidate: u's subtree stays a branch of its parent
                residual[u] = total
                acc[parent[u]] += total
                attached[parent[u]].append(u)
                continue
            side = remaining[r] - total  # P: real vertices outside u's subtree
            if side >= k:  # case A: the parent side is the largest branch, and s - P = T >= k
                self.cases["A"] += 1
                self.edge_part[u] = -1
                if total <= big:
                    self.cut[u] = self.new_part(total)
                else:
                    self.star(u, attached[u], 0)
                remaining[r] -= total
                if remaining[r] <= big:
                    self.close_tree(r)
            else:  # every branch at u has <= k - 1: split the star (ends the tree)
                self.star(u, attached[u], side)
                done.add(r)

    def decomposition(self, order):
        """Every vertex inherits the part of its nearest cut ancestor (itself included)."""
        cut, edge_part, parent = self.cut, self.edge_part, self.parent
        labels = [0] * len(parent)
        for x in order:
            labels[x] = cut[x] if cut[x] >= 0 else labels[parent[x]]
            if edge_part[x] == -2:
                edge_part[x] = labels[x]
        return Decomposition(labels, self.spread, edge_part, self.sizes, self.steiner, self.cases)
