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
   ``u′`` holds at most ``L`` and the literal C or D is always taken.

Candidates are picked bottom-up (the paper allows any starting vertex): with the forest rooted at
FOREST's sinks, the first vertex ``u`` in post-order whose remaining subtree holds ``T >= k``
real vertices is the candidate, so every child branch has ``<= k − 1`` and the parent side
``P = s − T`` is the largest branch when ``P >= k``. Then case A cuts off ``u``'s subtree;
otherwise ``u`` is the centre of a star of branches of size ``<= k − 1`` (its subtree, when it
holds more than ``L``, or the whole component when ``P <= k − 1``), which is split as above. Case
B never arises with this choice. Cuts only drop edges and every part owns its edges, so the parts'
total edge weight is at most the forest's (the invariant behind Theorem 5).
"""

from collections import Counter, deque
from dataclasses import dataclass

__all__ = [
    "max_component_size",
    "decompose_component",
    "decompose_forest",
    "split_star",
    "ComponentPart",
    "ComponentSplit",
    "Decomposition",
]


def max_component_size(k):
    """``L = max(2k − 1, 3k − 5)``: the largest part DECOMPOSE-COMPONENT leaves."""
    return max(2 * k - 1, 3 * k - 5)


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
    def size(self):
        """Number of real vertices (Steiner vertices do not count)."""
        return len(self.vertices)


@dataclass(frozen=True)
class ComponentSplit:
    """The outcome of one DECOMPOSE-COMPONENT step: its case, candidate ``u`` and two parts."""

    case: str
    candidate: object
    parts: tuple


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


def decompose_component(edges, k, *, steiner=(), candidate=None):
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
    adj = {}
    for a, b in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    steiner = frozenset(steiner)
    real = {x for x in adj if x not in steiner}
    s, big = len(real), max_component_size(k)
    if s <= big:
        raise ValueError(f"the tree has {s} real vertices, at most max(2k-1, 3k-5) = {big}")
    u = min(adj) if candidate is None else candidate
    while True:
        br = _branches(adj, u, real)
        sizes = {y: len(vs & real) for y, vs in br.items()}
        v = max(sorted(sizes), key=lambda y: sizes[y])  # first largest
        phi = sizes[v]
        if s - phi >= k - 1:
            break
        u = v  # step 3: move to the root of the largest branch
    rest = [y for y in sorted(br) if y != v]
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
        first = br[v] | {u}
        others = set().union(*(br[y] for y in rest)) if rest else set()
        p1 = _part(adj, first - steiner, first & steiner)
        p2 = _part(adj, others - steiner, (others & steiner) | {u})
        return ComponentSplit("C", u, (p1, p2))
    # case D: every branch has <= k - 2 real vertices
    order = sorted(br, key=lambda y: (-sizes[y], y))
    first, size = [], 0
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
# splitting a star of small branches around a real centre
# ---------------------------------------------------------------------------------------------
def split_star(units, sizes, k):
    """Split a star into parts of ``k .. L`` real vertices, ``L = max(2k − 1, 3k − 5)``.

    The star is a centre carrying ``units >= 1`` copies and branches of ``sizes[i]`` real vertices
    (each ``1 .. k − 1``). Every part gets a set of whole branches and some of the centre's
    copies; a part with branches and no copy uses the centre as a Steiner vertex.

    Returns
    -------
    list of (branch indices, units, case)
        ``case`` is the DECOMPOSE-COMPONENT case that cut the part off (``"C"``, ``"D"``,
        ``"peel"``) or ``None`` for the part left at the end.
    """
    big = max_component_size(k)
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    pos, total = 0, units + sum(sizes)
    pieces = []

    def prefix(target, spare):
        """Greedy prefix (branches by decreasing size, then spare copies) reaching ``target``."""
        j, acc = pos, 0
        while acc < target and j < len(order):
            acc += sizes[order[j]]
            j += 1
        extra = min(spare, max(0, target - acc))
        return j, acc + extra, extra

    while total > big:
        spare = units - 1  # copies beyond the one that keeps the centre real
        phi = sizes[order[pos]] if pos < len(order) else (1 if spare else 0)
        if phi == k - 1:  # case C: the largest branch plus u
            if pos < len(order) and sizes[order[pos]] == k - 1:
                members, used = [order[pos]], 1
            else:  # k = 2 and the largest "branch" is a spare copy of u
                members, used = [], 2
            if units - used >= 1 or total - k <= big:
                pieces.append((members, used, "C"))
                pos += len(members)
                units -= used
                total -= k
                if units == 0:  # the rest is final, around a Steiner centre
                    pieces.append((order[pos:], 0, None))
                    return pieces
                continue
        elif phi <= k - 2:  # case D
            j, f, extra = prefix(k - 1, spare)
            rest = total - 1 - f
            if f == k - 1 or rest != k - 1:  # u joins the first part
                rest_units = units - 1 - extra
                if rest_units >= 1 or rest <= big:
                    pieces.append((order[pos:j], extra + 1, "D"))
                    pos, units, total = j, rest_units, rest
                    if units == 0:
                        pieces.append((order[pos:], 0, None))
                        return pieces
                    continue
            else:  # u joins the rest, which then holds exactly k: both parts are final
                pieces.append((order[pos:j], extra, "D"))
                pieces.append((order[j:], units - extra, None))
                return pieces
        # peel: branches (and spare copies) of k .. 2k - 2 real vertices; u stays real. Only
        # reached when total > L + k, so the rest keeps at least k.
        j, p, extra = prefix(k, spare)
        if not k <= p <= total - k:  # pragma: no cover - excluded by the module notes
            raise RuntimeError("no admissible split of a star; please report this instance")
        pieces.append((order[pos:j], extra, "peel"))
        pos, units, total = j, units - extra, total - p
    pieces.append((order[pos:], units, None))
    return pieces


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

    labels: list
    spread: dict
    edge_part: list
    sizes: list
    steiner: list
    cases: Counter


def decompose_forest(parent, weights, k):
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
    nv, big = len(parent), max_component_size(k)
    children = [[] for _ in range(nv)]
    roots = []
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
    remaining = dict.fromkeys(roots, 0)
    for x in range(nv):
        remaining[tree[x]] += weights[x]
    cut = [-1] * nv  # part of a vertex whose subtree (what is left of it) was assigned
    edge_part = [-2] * nv  # -2: the edge belongs to the vertex's part
    sizes, spread, steiner, cases = [], {}, [], Counter()
    done = set()

    def new_part(size):
        sizes.append(size)
        return len(sizes) - 1

    def close_tree(r):
        cut[r] = new_part(remaining[r])
        done.add(r)

    for r in roots:
        edge_part[r] = -1
        if remaining[r] < k:
            raise ValueError(f"a tree holds {remaining[r]} copies, fewer than k={k}")
        if remaining[r] <= big:
            close_tree(r)

    def star(u, branches, parent_side):
        """Split the star at u; ``parent_side`` is the size P of the branch above u, or 0."""
        items = branches + ([-1] if parent_side else [])
        sz = [residual[c] for c in branches] + ([parent_side] if parent_side else [])
        placed = []
        for members, units, case in split_star(weights[u], sz, k):
            pid = new_part(units + sum(sz[i] for i in members))
            if case is not None:
                cases[case] += 1
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
                steiner.append((pid, u))
        cut[u] = placed[0][0]
        if len(placed) > 1:
            spread[u] = placed

    residual = [0] * nv
    acc = [0] * nv
    attached = [[] for _ in range(nv)]
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
            cases["A"] += 1
            edge_part[u] = -1
            if total <= big:
                cut[u] = new_part(total)
            else:
                star(u, attached[u], 0)
            remaining[r] -= total
            if remaining[r] <= big:
                close_tree(r)
        else:  # every branch at u has <= k - 1: split the star (ends the tree)
            star(u, attached[u], side)
            done.add(r)
    labels = [0] * nv
    for x in order:
        labels[x] = cut[x] if cut[x] >= 0 else labels[parent[x]]
        if edge_part[x] == -2:
            edge_part[x] = labels[x]
    return Decomposition(labels, spread, edge_part, sizes, steiner, cases)
