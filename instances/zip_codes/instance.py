"""Zip codes: connected partition of a planar graph (Du et al. 2009, §2).

Each node of a connected planar graph is a zip code; its non-negative integer weight is the number
of records carrying it. A feasible generalization partitions the nodes into parts that induce
*connected* subgraphs and weigh at least ``k`` each; the objective is the weight of the heaviest
part (minimized). Labels give the part id per node, nodes indexed ``0..n-1`` in the order of
``graph.nodes`` at construction.

Lower bounds (all valid for every feasible partition):

- ``kappa = max(k, max_v w_v)``: every part weighs at least ``k`` and holds its heaviest node
  (Du et al. 2009, §2).
- subset sums: a part's weight is a sum of node weights, so it is at least ``ss(k)``, the smallest
  achievable subset sum ``>= k``; there are at most ``p = floor(S / ss(k))`` parts, so the
  heaviest weighs at least ``ss(ceil(S / p))``.
- neighbours: a node ``v`` with ``w_v < k`` shares its part with some neighbour ``u`` (parts are
  connected), so that part weighs at least ``min_u ss(max(k, w_v + w_u))``.
"""

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Real
from typing import TYPE_CHECKING, Any, ClassVar, Self

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from anonratio.instances.base import (
    Verification,
    _labels_of,
    finish_verification,
    instance_fields,
    lower_bound,
    register_problem,
    verify,
)
from anonratio.instances.errors import InfeasibleInstanceError, InstanceFormatError
from anonratio.instances.validation import as_array, check_counts, check_instance, check_int

__all__ = [
    "ZipCodesInstance",
    "PlanarPartitionInstance",
    "planar_lower_bound",
    "part_weights",
]

#: subset-sum bitsets longer than this many bits are skipped (the bound falls back to kappa)
_MAX_SUBSET_BITS = 20_000_000


def _as_weights(graph: nx.Graph, weights: Any) -> np.ndarray:
    nodes = list(graph.nodes)
    if isinstance(weights, Mapping):
        missing = [v for v in nodes if v not in weights]
        if missing:
            raise InstanceFormatError(f"`weights` has no entry for node {missing[0]!r}")
        raw: Any = [weights[v] for v in nodes]
    else:
        if weights is None or isinstance(weights, str | bytes):
            raise InstanceFormatError(
                f"`weights` must be a sequence or a mapping of node weights, got {weights!r}"
            )
        raw = weights
        arr = as_array("weights", weights, error=InstanceFormatError)
        if arr.ndim != 1 or len(arr) != len(nodes):
            raise InstanceFormatError(
                f"`weights` must have one entry per node ({len(nodes)}), got shape {arr.shape}"
            )
    return check_counts("weights", raw, where="node", labels=nodes, error=InstanceFormatError)


def _planar_iv(
    graph: Any, weights: Any, k: Any, positions: Any, check_planarity: bool
) -> tuple[np.ndarray, int, np.ndarray | None]:
    check_instance(graph, nx.Graph, "graph")
    if graph.is_directed() or graph.is_multigraph():
        raise InstanceFormatError("`graph` must be a simple undirected networkx.Graph")
    k = check_int("k", k, low=1)
    n = graph.number_of_nodes()
    if n == 0:
        raise InstanceFormatError("`graph` must have at least one node")
    if not nx.is_connected(graph):
        c = nx.number_connected_components(graph)
        raise InstanceFormatError(f"`graph` must be connected, it has {c} connected components")
    m = graph.number_of_edges() - nx.number_of_selfloops(graph)
    if n >= 3 and m > 3 * n - 6:
        raise InstanceFormatError(
            f"`graph` must be planar: it has {m} edges, more than 3n - 6 = {3 * n - 6}"
        )
    if check_planarity and not nx.check_planarity(graph)[0]:
        raise InstanceFormatError("`graph` must be planar (networkx.check_planarity failed)")
    w = _as_weights(graph, weights)
    total = int(w.sum())
    if total < k:
        raise InfeasibleInstanceError(
            f"the total node weight {total} is below k={k}: no part can reach weight k"
        )
    pos = None
    if positions is not None:
        if isinstance(positions, Mapping):
            positions = [positions[v] for v in graph.nodes]
        raw = as_array("positions", positions, error=InstanceFormatError)
        rule = f"`positions` must be finite (x, y) pairs, one per node: shape ({n}, 2)"
        if raw.shape != (n, 2):
            raise InstanceFormatError(f"{rule}, got shape {raw.shape}")
        items = raw if isinstance(positions, np.ndarray) else np.asarray(positions, dtype=object)
        for i, x in enumerate(items.reshape(-1).tolist()):
            if not isinstance(x, Real) or isinstance(x, bool) or not np.isfinite(float(x)):
                raise InstanceFormatError(f"{rule}, got {x!r} at node {i // 2}")
        pos = raw.astype(float)
        pos.setflags(write=False)
    w.setflags(write=False)
    return w, k, pos


@register_problem("zip-codes")
@dataclass(frozen=True, eq=False)
class ZipCodesInstance:
    """Partition a connected planar graph into connected parts of weight ``>= k``.

    Parameters
    ----------
    graph : networkx.Graph
        Connected, planar, simple and undirected. Nodes may have any hashable names; the instance
        keeps a copy relabelled ``0..n-1`` in the order of ``graph.nodes`` (``node_names`` maps
        back). Self-loops are dropped.
    weights : sequence of int or mapping node -> int
        Non-negative integer weight per node (records with that zip code).
    k : int
        Every part must weigh at least ``k >= 1``; needs ``sum(weights) >= k``.
    positions : array (n, 2) or mapping node -> (x, y), optional
        Drawing coordinates (kept for plots and serialization only).
    check_planarity : bool, keyword-only
        Run ``networkx.check_planarity`` (default). It is the slow part of the validation
        (about 5 s for 10⁴ nodes); generators of graphs that are planar by construction skip it.
        Not serialized: :meth:`from_dict` always checks.

    Raises
    ------
    InstanceFormatError
        Disconnected, non-planar, directed or empty graph; negative or non-integer weights.
    InfeasibleInstanceError
        Total weight below ``k``.
    ValueError
        ``k`` not an integer ``>= 1``.

    Examples
    --------
    >>> import networkx as nx
    >>> inst = ZipCodesInstance(nx.path_graph(4), [2, 1, 1, 2], 3)
    >>> verify(inst, [0, 0, 1, 1]).cost, lower_bound(inst)
    (3.0, (3.0, 'k'))
    """

    #: the registered problem name (set by :func:`~anonratio.instances.base.register_problem`)
    problem: ClassVar[str]

    graph: nx.Graph
    weights: np.ndarray
    k: int
    positions: np.ndarray | None = None
    check_planarity: bool = field(default=True, kw_only=True, repr=False)
    #: the input graph's node names, in the order of the relabelled nodes ``0..n-1``
    node_names: tuple[Hashable, ...] = field(init=False, repr=False)

    if TYPE_CHECKING:  # what the constructor accepts; __post_init__ normalizes it

        def __init__(
            self,
            graph: nx.Graph,
            weights: ArrayLike | Mapping[Hashable, int],
            k: int,
            positions: ArrayLike | Mapping[Hashable, Sequence[float]] | None = None,
            *,
            check_planarity: bool = True,
        ) -> None: ...

    def __post_init__(self) -> None:
        w, k, pos = _planar_iv(
            self.graph, self.weights, self.k, self.positions, self.check_planarity
        )
        names = tuple(self.graph.nodes)
        index = {v: i for i, v in enumerate(names)}
        g = nx.Graph()
        g.add_nodes_from(range(len(names)))
        g.add_edges_from((index[u], index[v]) for u, v in self.graph.edges if u != v)
        g = nx.freeze(g)
        object.__setattr__(self, "graph", g)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "positions", pos)
        object.__setattr__(self, "node_names", names)

    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.weights)

    @property
    def params(self) -> dict[str, Any]:
        """The problem parameters of a run: ``{"k": k}``."""
        return {"k": self.k}

    @property
    def total_weight(self) -> int:
        """The sum of the node weights."""
        return int(self.weights.sum())

    @property
    def kappa(self) -> int:
        """``max(k, max_v w_v)``: the paper's lower bound on the optimum (Du et al. 2009, §2)."""
        return max(self.k, int(self.weights.max()))

    @cached_property
    def edges(self) -> np.ndarray:
        """Edges as an int64 array of shape (m, 2), ``u < v``, sorted."""
        e = np.array(sorted((min(u, v), max(u, v)) for u, v in self.graph.edges), dtype=np.int64)
        e = e.reshape(-1, 2)
        e.setflags(write=False)
        return e

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``n``, edges, weights, ``k`` and (when set) positions."""
        d: dict[str, Any] = {
            "n": self.n,
            "edges": self.edges.tolist(),
            "weights": self.weights.tolist(),
            "k": self.k,
        }
        if self.positions is not None:
            d["positions"] = self.positions.tolist()
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output (planarity checked), validated as the
        constructor validates: nodes ``0..n-1``, edges as pairs of node numbers."""
        d = instance_fields(
            d, cls.problem, required=("n", "edges", "weights", "k"), optional=("positions",)
        )
        n = check_int("n", d["n"], low=1)
        edges = as_array("edges", d["edges"], error=InstanceFormatError)
        if edges.size == 0:
            edges = edges.reshape(0, 2)
        if edges.ndim != 2 or edges.shape[1] != 2:
            raise InstanceFormatError(
                f"`edges` must be a list of [u, v] node pairs, got shape {edges.shape}"
            )
        ends: np.ndarray | list[int] = (
            check_counts("edges", d["edges"], error=InstanceFormatError) if edges.size else []
        )
        bad = [i for i, v in enumerate(ends) if v >= n]
        if bad:
            raise InstanceFormatError(
                f"`edges` must name nodes 0..{n - 1}, got {int(ends[bad[0]])} in edge "
                f"{bad[0] // 2}: outside 0..{n - 1}"
            )
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from(np.asarray(ends, dtype=np.int64).reshape(-1, 2).tolist())
        return cls(g, d["weights"], d["k"], d.get("positions"))


# ---------------------------------------------------------------------------------------------
# verification
# ---------------------------------------------------------------------------------------------
def part_weights(instance: ZipCodesInstance, labels: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Weight of every part: ``(part_ids, weights)`` for the labels present (sorted ids)."""
    parts, inv = np.unique(np.asarray(labels), return_inverse=True)
    return parts, np.bincount(inv, weights=instance.weights, minlength=len(parts)).astype(np.int64)


@verify.register
def _verify_planar(
    instance: ZipCodesInstance, solution: Any, *, strict: bool = True
) -> Verification:
    labels, violations = _labels_of(solution, instance.n)
    if labels is None:
        return finish_verification(violations, None, strict)
    if np.any(labels < 0):
        bad = int(np.flatnonzero(labels < 0)[0])
        violations.append(f"every node needs a part id >= 0 (node {bad} has {labels[bad]})")
        return finish_verification(violations, None, strict)
    parts, weight = part_weights(instance, labels)
    for p, w in zip(parts, weight, strict=True):
        if w < instance.k:
            violations.append(f"part {int(p)} weighs {int(w)}, less than k={instance.k}")
    # a part is connected iff the edges inside parts give it exactly one component
    e = instance.edges
    inside = e[labels[e[:, 0]] == labels[e[:, 1]]]
    adj = coo_matrix(
        (np.ones(len(inside)), (inside[:, 0], inside[:, 1])), shape=(instance.n, instance.n)
    )
    _, comp = connected_components(adj, directed=False)
    pairs = np.unique(np.stack([labels, comp]), axis=1)
    ids, n_comp = np.unique(pairs[0], return_counts=True)
    for p, c in zip(ids[n_comp > 1], n_comp[n_comp > 1], strict=True):
        violations.append(f"part {int(p)} is not connected ({int(c)} components)")
    value = float(weight.max()) if not violations else None
    return finish_verification(violations, value, strict)


# ---------------------------------------------------------------------------------------------
# lower bounds
# ---------------------------------------------------------------------------------------------
def _subset_sums(weights: np.ndarray, cap: int) -> int:
    """Bitset (Python int) of the subset sums ``<= cap`` of ``weights`` (bit ``s`` set iff
    some subset sums to ``s``), by binary splitting of repeated values."""
    mask = (1 << (cap + 1)) - 1
    reach = 1
    values, counts = np.unique(weights[weights > 0], return_counts=True)
    for x, c in zip(values.tolist(), counts.tolist(), strict=True):
        step = 1
        while c > 0:  # 1, 2, 4, ... copies, then the rest: every count 0..c is reachable
            take = min(step, c)
            reach = (reach | (reach << (x * take))) & mask
            c -= take
            step *= 2
    return reach


def _smallest_at_least(reach: int, t: int, cap: int) -> int:
    """Smallest set bit ``>= t`` of ``reach``; when none is set up to ``cap`` the true value is
    above ``cap`` (and at least ``t``), so ``max(t, cap + 1)`` is returned."""
    high = reach >> t
    if high == 0:
        return max(t, cap + 1)
    return t + ((high & -high).bit_length() - 1)


def planar_lower_bound(instance: ZipCodesInstance) -> tuple[int, str]:
    """The best of the bounds in the module docstring: ``(value, source)``.

    Notes
    -----
    O(n · (k + 2 max_w) / 64) word operations for the subset-sum bitset (skipped beyond
    2·10⁷ bits) plus O(m) for the neighbour bound.
    """
    w, k = instance.weights, instance.k
    best, source = k, "k"
    if int(w.max()) > best:
        best, source = int(w.max()), "max-weight"
    s_total = instance.total_weight
    max_w = int(w.max())
    cap = k + 2 * max_w  # from any t <= k + max_w, adding items reaches [t, t + max_w) ⊂ [0, cap]
    if cap > _MAX_SUBSET_BITS:
        p = s_total // k
        v = -(-s_total // p)
        return (v, "part-count") if v > best else (best, source)
    reach = _subset_sums(w, cap)

    def ss(t: Any) -> int:
        return _smallest_at_least(reach, int(t), cap)

    smallest = ss(k)
    if smallest > best:
        best, source = smallest, "subset-sum"
    p = s_total // smallest  # at most this many parts
    v = ss(-(-s_total // p))
    if v > best:
        best, source = v, "part-count"
    # a light node shares its part with a neighbour
    e = instance.edges
    if len(e):
        both = np.concatenate([e, e[:, ::-1]])
        light = w[both[:, 0]] < k
        both = both[light]
        if len(both):
            need = np.maximum(k, w[both[:, 0]] + w[both[:, 1]])
            uniq, inv = np.unique(need, return_inverse=True)
            val = np.array([ss(t) for t in uniq.tolist()], dtype=np.int64)[inv]
            per_node = np.full(instance.n, np.iinfo(np.int64).max)
            np.minimum.at(per_node, both[:, 0], val)
            v = int(per_node[per_node < np.iinfo(np.int64).max].max())
            if v > best:
                best, source = v, "neighbour"
    return best, source


@lower_bound.register
def _lower_bound_planar(instance: ZipCodesInstance) -> tuple[float, str]:
    """``max(kappa, subset-sum, part-count, neighbour)`` bounds; see the module docstring."""
    value, source = planar_lower_bound(instance)
    return float(value), source


#: former name, kept so that existing code keeps working
PlanarPartitionInstance = ZipCodesInstance
