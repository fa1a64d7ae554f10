"""Hardness gadgets for k-anonymity with known optima (Aggarwal et al. 2005, §3 and §4).

* :func:`triangle_gadget` — the ternary table of the NP-hardness proof (§3): one row per edge of a
  graph with ``|E| = 3m`` edges, ``t = ceil(log2(3m + 1))`` blocks of one column per vertex. Its
  3-anonymity (suppression) optimum is ``9mt`` exactly when the edges partition into ``m``
  triangles, and every 3-anonymous suppression of it costs at least ``9mt``.
* :func:`triangle_union_graph` — a random union of edge-disjoint triangles, so the gadget's
  optimum is known without a solver (:func:`triangle_union_gadget` does both).
* :func:`graph_representation_pair` — the two binary tables of §4 ("Limitations of the graph
  representation") with identical graphs (a k-clique of weight ``2^(k-1)``) whose optima differ by
  a factor of about ``k / 4``.
"""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import networkx as nx
import numpy as np

from anonratio.instances.base import verify
from anonratio.instances.kanonymity.instance import KAnonymityInstance
from anonratio.instances.table import Table
from anonratio.instances.validation import SeedLike, check_int, check_random_state

__all__ = [
    "Gadget",
    "triangle_gadget",
    "triangle_union_graph",
    "triangle_union_gadget",
    "graph_representation_pair",
]


@dataclass(frozen=True, eq=False)
class Gadget:
    """A hardness instance with what is known about it.

    Parameters
    ----------
    instance : KAnonymityInstance
    optimum : float or None
        The exact optimum when it is known without a solver, else ``None``.
    description : str
        What the instance is and why its optimum is what it is (paper and section).
    witness : ndarray of int64, optional
        A partition of cost ``optimum`` (checked with :func:`~anonratio.instances.verify`).
    lower_bound : float, optional
        A valid lower bound on the optimum proved by the construction.
    info : dict
        Construction details (``m``, ``t``, edge order, ...), JSON-serializable.
    """

    instance: KAnonymityInstance
    optimum: float | None
    description: str
    witness: np.ndarray | None = None
    lower_bound: float | None = None
    info: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# §3: edge partition into triangles
# ---------------------------------------------------------------------------------------------
def _edge_order(
    graph: nx.Graph, edge_order: Sequence[tuple[Hashable, Hashable]] | None
) -> list[tuple[Any, ...]]:
    if edge_order is None:
        return list(graph.edges)
    edges = [tuple(e) for e in edge_order]
    keys = [frozenset(e) for e in edges]
    bad = [e for e in edges if len(e) != 2 or not graph.has_edge(*e)]
    if bad or len(set(keys)) != len(keys) or len(keys) != graph.number_of_edges():
        raise ValueError(
            f"`edge_order` must list every edge of the graph exactly once; got {len(keys)} "
            f"entries for {graph.number_of_edges()} edges"
            + (f", {bad[0]!r} is not an edge" if bad else "")
        )
    return edges


def _triangle_iv(
    graph: Any, k: Any, triangles: Sequence[Sequence[Hashable]] | None
) -> dict[frozenset[Hashable], int] | None:
    if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
        raise ValueError(f"`graph` must be a simple undirected networkx.Graph, got {graph!r}")
    if nx.number_of_selfloops(graph):
        raise ValueError("`graph` must be simple: it has self-loops")
    n_edges = graph.number_of_edges()
    if n_edges < 3:
        raise ValueError(f"`graph` must have at least 3 edges, got {n_edges}")
    check_int("k", k, low=2, high=n_edges)
    if triangles is None:
        return None
    seen: dict[frozenset[Hashable], int] = {}
    for idx, tri in enumerate(triangles):
        if len(tri) != 3:
            raise ValueError(f"`triangles` must hold vertex triples; entry {idx} is {tri!r}")
        a, b, c = tri
        for u, v in ((a, b), (b, c), (c, a)):
            e = frozenset((u, v))
            if len(e) != 2 or not graph.has_edge(u, v) or e in seen:
                raise ValueError(
                    f"`triangles` must partition the edges into edge-disjoint triangles of the "
                    f"graph; triangle {idx} {tuple(tri)!r} fails at edge {(u, v)!r}"
                )
            seen[e] = idx
    if len(seen) != n_edges:
        raise ValueError(
            f"`triangles` cover {len(seen)} of the {n_edges} edges; they must cover all of them"
        )
    return seen


def triangle_gadget(
    graph: nx.Graph,
    *,
    k: int = 3,
    triangles: Sequence[Sequence[Hashable]] | None = None,
    preliminary: bool = False,
    edge_order: Sequence[tuple[Hashable, Hashable]] | None = None,
) -> Gadget:
    """The ternary table of the NP-hardness reduction from EDGE PARTITION INTO TRIANGLES.

    For a simple graph ``G = (V, E)`` with ``|E| = 3m`` the table ``T'`` has one row per edge and
    ``t`` blocks of ``|V|`` columns (one per vertex), ``t = ceil(log2(3m + 1))``. Ranking the
    edges ``1 .. 3m`` (in ``edge_order``) and writing the rank of ``e = (a, b)`` in binary
    as ``e_1 ... e_t``, block ``i`` of row ``e`` is zero except in columns ``a`` and ``b``, where
    it holds ``(1, 2)`` if ``e_i = 0`` and ``(2, 1)`` if ``e_i = 1``. Under suppression with
    ``k = 3`` the optimum is ``9mt`` if and only if ``E`` partitions into ``m`` triangles, and
    ``9mt`` is a lower bound for any ``k >= 3`` (every row of a group of ``>= 3`` edges has at
    least ``3t`` stars). With ``preliminary=True`` the table is the binary ``T`` (one block of
    ones, ``t = 1``), whose optimum ``9m`` characterises partitions into triangles *and* 4-stars.

    Parameters
    ----------
    graph : networkx.Graph
        Simple undirected graph with at least 3 edges; ``|E|`` need not be a multiple of 3 (then
        the bound ``3t|E|`` still holds, with ``t = ceil(log2(|E| + 1))``, but no optimum is
        known). Columns follow ``graph.nodes`` order and are named ``"b<i>.<vertex>"``
        (``"<vertex>"`` for the preliminary table).
    k : int
        Anonymity parameter of the instance, in ``[2, |E|]`` (the reduction uses 3).
    triangles : sequence of (a, b, c), optional
        A partition of the edges into triangles; default ``graph.graph.get("triangles")`` (set by
        :func:`triangle_union_graph`). With ``k = 3`` it makes the optimum known: ``9mt``.
    preliminary : bool
        Build the binary table ``T`` instead of ``T'``.
    edge_order : sequence of (a, b), optional
        The ranking of the edges (row ``r`` is the edge of rank ``r + 1``), each edge once, with
        its orientation: ``conf_0`` puts 1 at ``a`` and 2 at ``b``. Default ``graph.edges``.

    Returns
    -------
    Gadget
        ``optimum = 9mt`` and a witness partition (one group per triangle) when a triangle
        partition is known and ``k == 3``, else ``optimum = None``; ``lower_bound = 3t|E|`` when
        ``k >= 3``; ``info`` holds ``m``, ``t``, the edge order and the vertex order.

    Notes
    -----
    O(|E| · |V| · t) time and memory for the table.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §3, Theorem 1 and
    Figure 2; Kann (1994) for EDGE PARTITION INTO TRIANGLES.

    Examples
    --------
    >>> g = triangle_gadget(nx.complete_graph(3), triangles=[(0, 1, 2)])
    >>> g.optimum, g.instance.table.codes.shape   # m = 1, t = 2: 9 * 1 * 2 stars
    (18.0, (3, 6))
    """
    if triangles is None and isinstance(graph, nx.Graph):
        triangles = graph.graph.get("triangles")
    edge_triangle = _triangle_iv(graph, k, triangles)
    nodes = list(graph.nodes)
    edges = _edge_order(graph, edge_order)
    n_edges = len(edges)
    t = 1 if preliminary else int(np.ceil(np.log2(n_edges + 1)))
    instance = KAnonymityInstance(_triangle_table(nodes, edges, t, preliminary), k, "suppression")
    m = n_edges // 3 if n_edges % 3 == 0 else n_edges / 3
    bound = 3.0 * t * n_edges if k >= 3 else None
    info = {
        "m": m,
        "t": t,
        "edges": [[str(a), str(b)] for a, b in edges],
        "vertices": [str(v) for v in nodes],
        "preliminary": bool(preliminary),
    }
    optimum = witness = None
    if edge_triangle is not None and k == 3:
        witness = np.array([edge_triangle[frozenset(e)] for e in edges], dtype=np.int64)
        optimum = 9.0 * m * t
        got = verify(instance, witness).cost
        assert got == optimum, f"triangle witness costs {got}, expected {optimum}"  # noqa: S101
    description = _triangle_description(instance, len(nodes), m, t, optimum, bound, preliminary)
    return Gadget(instance, optimum, description, witness, bound, info)


def _triangle_description(
    instance: KAnonymityInstance,
    n_nodes: int,
    m: float,
    t: int,
    optimum: float | None,
    bound: float | None,
    preliminary: bool,
) -> str:
    """The :attr:`Gadget.description` of :func:`triangle_gadget`."""
    kind = "binary T" if preliminary else "ternary T'"
    return (
        f"{kind} of the edge-partition-into-triangles reduction (Aggarwal et al. 2005, §3): "
        f"{instance.n} edges (m = {m:g}), {n_nodes} vertices, t = {t} block(s), k = {instance.k}; "
        + (
            f"the edges partition into triangles, so the optimum is 9mt = {optimum:g}"
            if optimum is not None
            else "no triangle partition given, optimum unknown"
            + (f" (at least 3t|E| = {bound:g})" if bound is not None else "")
        )
    )


def _triangle_table(
    nodes: list[Hashable], edges: list[tuple[Any, ...]], t: int, preliminary: bool
) -> Table:
    """The table of :func:`triangle_gadget`: one row per edge, ``t`` blocks of one column per
    vertex (the binary ``T``, ``t = 1``, when ``preliminary``)."""
    where = {v: i for i, v in enumerate(nodes)}
    n_edges, n_nodes = len(edges), len(nodes)
    ends = np.array([[where[a], where[b]] for a, b in edges], dtype=np.int64)
    ranks = np.arange(1, n_edges + 1)
    bits = (ranks[:, None] >> np.arange(t - 1, -1, -1)[None, :]) & 1  # e_1 .. e_t, e_1 first
    codes = np.zeros((n_edges, t * n_nodes), dtype=np.int32)
    rows = np.arange(n_edges)[:, None]
    offsets = np.arange(t)[None, :] * n_nodes
    if preliminary:
        codes[rows, offsets + ends[:, :1]] = 1
        codes[rows, offsets + ends[:, 1:]] = 1
        names = tuple(str(v) for v in nodes)
        alphabet: tuple[str, ...] = ("0", "1")
    else:
        codes[rows, offsets + ends[:, :1]] = 1 + bits  # conf_0: 1 at a, 2 at b; conf_1 swaps
        codes[rows, offsets + ends[:, 1:]] = 2 - bits
        names = tuple(f"b{i}.{v}" for i in range(t) for v in nodes)
        alphabet = ("0", "1", "2")
    return Table(codes, names, (alphabet,) * len(names))


def triangle_union_graph(n_triangles: int, n_vertices: int, *, seed: SeedLike = None) -> nx.Graph:
    """A random graph that is the union of ``n_triangles`` edge-disjoint triangles.

    Triangles are drawn uniformly among vertex triples ``0 .. n_vertices-1`` and kept when none of
    their edges is used yet, so the edges partition into the drawn triangles (stored in
    ``G.graph["triangles"]``; the graph may contain other triangles too). Isolated vertices are
    kept: they add all-zero columns to the gadget, which cost nothing.

    Parameters
    ----------
    n_triangles : int
        Number ``m`` of triangles (>= 1); the graph has ``3m`` edges.
    n_vertices : int
        Number of vertices (>= 3), with ``3m <= n_vertices * (n_vertices - 1) / 2``.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    networkx.Graph

    Raises
    ------
    ValueError
        If the triangles do not fit, or rejection sampling fails to place them (dense requests,
        about ``3m`` close to ``n_vertices² / 6``).

    Notes
    -----
    Rejection sampling: expected O(m) draws while the graph is sparse, at most ``2000 · m``.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §3.

    Examples
    --------
    >>> g = triangle_union_graph(3, 7, seed=0)
    >>> g.number_of_edges(), len(g.graph["triangles"])
    (9, 3)
    """
    n_triangles = check_int("n_triangles", n_triangles, low=1)
    n_vertices = check_int("n_vertices", n_vertices, low=3)
    if 3 * n_triangles > comb(n_vertices, 2):
        raise ValueError(
            f"`n_triangles` must be at most n_vertices*(n_vertices-1)/6 = "
            f"{comb(n_vertices, 2) // 3} for {n_vertices} vertices, got {n_triangles}"
        )
    rng = check_random_state(seed)
    graph = nx.Graph()
    graph.add_nodes_from(range(n_vertices))
    triangles: list[tuple[int, int, int]] = []
    for _ in range(2000 * n_triangles):
        if len(triangles) == n_triangles:
            break
        a, b, c = sorted(int(x) for x in rng.choice(n_vertices, size=3, replace=False))
        if graph.has_edge(a, b) or graph.has_edge(b, c) or graph.has_edge(a, c):
            continue
        graph.add_edges_from([(a, b), (b, c), (a, c)])
        triangles.append((a, b, c))
    if len(triangles) < n_triangles:
        raise ValueError(
            f"could not place {n_triangles} edge-disjoint triangles on {n_vertices} vertices "
            f"(placed {len(triangles)}); use more `n_vertices`"
        )
    graph.graph["triangles"] = triangles
    return graph


def triangle_union_gadget(
    n_triangles: int, n_vertices: int, *, seed: SeedLike = None, preliminary: bool = False
) -> Gadget:
    """:func:`triangle_gadget` (``k = 3``) of :func:`triangle_union_graph`: optimum ``9mt`` known.

    Parameters
    ----------
    n_triangles, n_vertices : int
        As in :func:`triangle_union_graph` (``m = n_triangles``).
    seed : int, numpy.random.Generator or None
    preliminary : bool
        Build the binary table ``T`` (optimum ``9m``) instead of ``T'`` (optimum ``9mt``).

    Returns
    -------
    Gadget

    Notes
    -----
    O(m · n_vertices · log m) time.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §3, Theorem 1.

    Examples
    --------
    >>> g = triangle_union_gadget(2, 5, seed=0)   # m = 2, t = ceil(log2 7) = 3
    >>> g.optimum
    54.0
    """
    graph = triangle_union_graph(n_triangles, n_vertices, seed=seed)
    return triangle_gadget(graph, k=3, preliminary=preliminary)


# ---------------------------------------------------------------------------------------------
# §4: two instances with the same graph representation
# ---------------------------------------------------------------------------------------------
#: largest k for :func:`graph_representation_pair` (the tables have k · 2^(k-2) and 2^k columns)
MAX_PAIR_K = 14


def graph_representation_pair(k: int) -> tuple[Gadget, Gadget]:
    """Two binary k-anonymity instances with the same graph but optima ``k²l`` and ``k(4l - 2)``.

    With ``l = 2^(k-2)`` and ``k`` records each (so the only feasible partition is one group):

    * first: ``k`` vectors of ``kl`` bits; vector ``i`` is one on its ``i``-th block of ``l`` bits
      and zero elsewhere. Every column is suppressed: optimum ``k · kl = k²l``.
    * second: ``k`` vectors of ``4l = 2^k`` bits; vector ``i`` cuts its bits into ``2^i`` equal
      blocks, ones on the odd blocks (1st, 3rd, ...) and zeros on the even ones. Column ``c``
      (0-based) of vector ``i`` is the complement of bit ``k - i`` of ``c``, so the vectors agree
      only on the first column (all ones) and the last (all zeros): optimum ``k(2^k - 2)``.

    Any two vectors differ in ``2l = 2^(k-1)`` positions in both instances, so both graphs are the
    k-clique with weight ``2l`` on every edge, while the optima differ by the factor
    ``k²l / (k(4l - 2)) >= k/4``: no algorithm that sees only the graph can beat ``Θ(k)``.

    Parameters
    ----------
    k : int
        In ``[2, MAX_PAIR_K]`` (14; the first table has ``k · 2^(k-2)`` columns).

    Returns
    -------
    (Gadget, Gadget)
        The first and the second instance, suppression model, with their exact optima and the
        witness partition (all records in group 0).

    Notes
    -----
    The paper states the second cost as ``4kl``; that counts the two columns on which all the
    vectors agree, which stay published, so the exact optimum is ``k(4l - 2)``. The ratio is
    still ``k²l / (k(4l - 2)) = Θ(k)``, and at least ``k/4`` as in the paper's conclusion.
    O(k · 2^k) time and memory.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §4 ("Limitations of the
    graph representation") and §7.

    Examples
    --------
    >>> first, second = graph_representation_pair(4)
    >>> first.optimum, second.optimum
    (64.0, 56.0)
    """
    k = check_int("k", k, low=2, high=MAX_PAIR_K)
    ell = 2 ** (k - 2)
    binary = ("0", "1")
    first_codes = np.kron(np.eye(k, dtype=np.int32), np.ones((1, ell), dtype=np.int32))
    cols = np.arange(4 * ell)
    second_codes = 1 - ((cols[None, :] >> (k - np.arange(1, k + 1))[:, None]) & 1)
    out: list[Gadget] = []
    for name, codes, opt in (
        ("first", first_codes, float(k * k * ell)),
        ("second", second_codes, float(k * (4 * ell - 2))),
    ):
        width = codes.shape[1]
        table = Table(codes, tuple(f"c{j}" for j in range(width)), (binary,) * width)
        instance = KAnonymityInstance(table, k, "suppression")
        witness = np.zeros(k, dtype=np.int64)
        got = verify(instance, witness).cost
        assert got == opt, f"{name} gap instance costs {got}, expected {opt}"  # noqa: S101
        description = (
            f"{name} instance of the graph-representation pair (Aggarwal et al. 2005, §4), "
            f"k = {k}, l = 2^(k-2) = {ell}: {k} records, {width} binary columns, every pair at "
            f"Hamming distance 2l = {2 * ell}; one group, optimum {opt:g}"
        )
        info = {"k": k, "l": ell, "member": name, "pair_distance": 2 * ell}
        out.append(Gadget(instance, opt, description, witness, opt, info))
    first, second = out
    return first, second
