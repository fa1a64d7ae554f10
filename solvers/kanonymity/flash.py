"""Flash: the optimal full-domain generalization by greedy paths and binary search.

Kohlmayer, Prasser, Eckert, Kemper and Kuhn, "Flash: Efficient, Stable and Optimal
k-Anonymity" (PASSAT/SocialCom 2012), the algorithm of the ARX tool. Every node of the
generalization lattice gets one of two tags, *satisfies* the privacy models within ``MaxSup``
or *fails*, with as few frequency-set checks as the strategy allows:

- the nodes are visited level by level (height ``0 .. sum_j l_j``), in each level in the order
  of the *strategy* (lower height, then lower mean relative level, then more distinct values
  kept; ARX's ``FLASHStrategy``); a node still untagged starts a *binary phase*;
- the binary phase keeps a priority queue (same order) seeded with that node; each node taken
  from it that is still untagged starts a *path*: greedily the first untagged successor by the
  strategy, up to the top or a tagged node. A binary search on the path checks its middle
  node: one that satisfies makes the search go down, one that fails go up, and the successors
  of every failing node join the queue;
- *predictive tagging*, correct because the models are monotone (the generalization property
  under suppression, :meth:`~anonratio.solvers.kanonymity.full_domain.Lattice.check_models`):
  a node that satisfies tags all its successors as satisfying, one that fails all its
  predecessors as failing, without a check.

A checked node's frequency set is *rolled up* from the smallest frequency set already computed
at a node below it (a failing node's; the successors of a satisfying node are never checked),
kept as integer arrays of a bounded number of nodes (:class:`FlashHistory`, after ARX's
history of snapshots). A node whose predecessors were all tagged by prediction has no such set
but the table's distinct rows; it first builds an *anchor*, the set of its highest meet with a
recent node in the same case, which the nodes above both then roll up from (on UCI Adult with
nine quasi-identifiers it replaces about 550 passes over the table's rows by about 60).

Once every node is tagged, the satisfying node that minimizes ``metric`` is found as Incognito
finds it (:func:`~anonratio.solvers.kanonymity.lattice_search.best_node`):
same set of satisfying nodes, same tie-breaking, hence the same node as Incognito and as the
exhaustive search. ARX evaluates only the checked nodes, which is exact for a metric monotone
along the lattice; with suppressed tuples charged as fully generalized, none of
:data:`~anonratio.solvers.kanonymity.full_domain.NODE_METRICS` is (a node above may suppress
fewer tuples and cost less), so the satisfying nodes are visited by increasing lower bound
(the metric with nothing suppressed, monotone) until it exceeds the best value: exact for a
monotone metric and for the others alike.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.privacy import PrivacyModel
from anonratio.instances.validation import check_choice
from anonratio.solvers.kanonymity.frequency_keys import failing_within
from anonratio.solvers.kanonymity.full_domain import NODE_METRICS, FrequencySet, Lattice
from anonratio.solvers.kanonymity.lattice_search import (
    best_node,
    full_domain_solution,
    infeasible_solution,
    lattice_of,
)

__all__ = ["flash", "flash_tags", "strategy_order", "FlashHistory"]

ALGORITHM = "flash"

#: how many frequency sets the history keeps
HISTORY_SIZE = 512

#: a frequency set is kept only when it has at most this share of the rows of its source
SHRINK = 0.8

#: a source with more than this share of the table's distinct rows calls for an anchor
ANCHOR_SHARE = 0.5

#: the lowest height of an anchor (one lower would serve the nodes above it too little)
ANCHOR_HEIGHT = 3

#: how many recent nodes that lacked a small source are met with a new one
ANCHOR_RECENT = 2

SATISFIES, UNKNOWN, FAILS = 1, 0, -1

_EMPTY = np.iinfo(np.int64).max  # the size of an empty slot of the history


def strategy_order(lattice: Lattice, nodes: np.ndarray) -> np.ndarray:
    """The rank of each node in Flash's strategy (0 first).

    Nodes are ordered by height, then by the mean of ``L_j / l_j`` (lower first), then by
    ``1 - mean_j d_j(L_j) / d_j(0)`` where ``d_j(t)`` counts the distinct values of attribute
    ``j`` in the table at level ``t`` (more distinct values kept first), then by index.
    """
    heights = lattice.heights
    m = max(lattice.m, 1)
    level = nodes.sum(axis=1)
    prec = np.zeros(len(nodes))
    kept = np.zeros(len(nodes))
    for j, h in enumerate(heights):
        if h > 0:
            prec += nodes[:, j] / h
        values = lattice.held_values(j)
        distinct = np.array([len(np.unique(g[values])) for g in lattice.groups[j]], dtype=float)
        kept += distinct[nodes[:, j]] / distinct[0]
    order = np.lexsort((np.arange(len(nodes)), 1.0 - kept / m, prec / m, level))
    rank = np.empty(len(nodes), dtype=np.int64)
    rank[order] = np.arange(len(nodes))
    return rank


class FlashHistory:
    """Frequency sets of checked nodes, to roll a new node's up from the smallest below it.

    Keeps at most ``capacity`` sets, dropping the least recently used (stored or served) when
    full. :class:`_Flash` stores a set only when it has at most :data:`SHRINK` times the rows
    of the set it was rolled up from, or of the table's distinct rows when computed from them
    (else that source serves as well).
    """

    def __init__(self, width: int, capacity: int = HISTORY_SIZE, top: int = 127) -> None:
        # each node packed into int64 words, ``bits`` per level (levels <= top) whose highest is
        # a guard: ``(v | guard) - held`` keeps a field's guard exactly when v's level there is
        # at least the held node's, so one subtraction tests every level of a word at once
        bits = int(top).bit_length() + 1
        per = 63 // bits  # fields per word
        self.words = max(1, -(-width // per))
        self.pack = np.zeros((width, self.words), dtype=np.int64)
        self.guard = np.zeros(self.words, dtype=np.int64)
        for j in range(width):
            w, p = divmod(j, per)
            self.pack[j, w] = 1 << (bits * p)
            self.guard[w] |= 1 << (bits * p + bits - 1)
        self.nodes = np.zeros((capacity, self.words), dtype=np.int64)  # empty: below all
        self.sizes = np.full(capacity, _EMPTY, dtype=np.int64)  # empty: max
        self.used = np.zeros(capacity, dtype=np.int64)  # last use, for LRU eviction
        self.sets: list[FrequencySet | None] = [None] * capacity
        self.clock = 0

    def code(self, nodes: np.ndarray) -> np.ndarray:
        """The packed words of ``nodes`` (one node, or one per row), as :meth:`below_code`
        and :meth:`add` read them."""
        return np.asarray(nodes) @ self.pack

    def below(self, node: np.ndarray) -> FrequencySet | None:
        """The held set with the fewest rows among the nodes at or below ``node``."""
        return self.below_code(self.code(node))

    def below_code(self, code: np.ndarray) -> FrequencySet | None:
        """:meth:`below` of the node packed as ``code``."""
        kept = (code | self.guard) - self.nodes
        kept &= self.guard
        ok = kept == self.guard
        ok = ok.reshape(-1) if self.words == 1 else ok.all(axis=1)
        sizes = np.where(ok, self.sizes, _EMPTY)
        i = int(sizes.argmin())
        if self.sets[i] is None or sizes[i] == _EMPTY:
            return None
        self.clock += 1
        self.used[i] = self.clock
        return self.sets[i]

    def add(self, node: np.ndarray, fs: FrequencySet, code: np.ndarray | None = None) -> None:
        """Hold ``fs``, the frequency set of ``node`` (packed as ``code`` when given), in place
        of the least recently used."""
        i = int(self.used.argmin())
        self.clock += 1
        self.nodes[i] = self.code(node) if code is None else code
        self.sizes[i], self.used[i] = len(fs.counts), self.clock
        self.sets[i] = fs


class _Flash:
    """The traversal's state: the tags of the nodes (an array of the lattice's shape), the
    strategy's ranks and the history."""

    def __init__(self, lattice: Lattice) -> None:
        self.lattice = lattice
        self.shape = tuple(int(h) + 1 for h in lattice.heights)
        self.nodes = lattice.all_nodes()  # refuses a lattice of more than MAX_NODES
        self.rank = strategy_order(lattice, self.nodes)
        self.state = np.zeros(self.shape, dtype=np.int8)
        self.flat = self.state.reshape(-1)  # a view: index = position in all_nodes()
        self.strides = np.array(
            [int(np.prod(self.shape[j + 1 :])) for j in range(lattice.m)], dtype=np.int64
        )
        self.history = FlashHistory(lattice.m, top=int(lattice.heights.max(initial=0)))
        self.codes = self.history.code(self.nodes)  # every node packed for the history
        self.u = len(lattice.base_counts)  # the table's distinct rows: the source of last resort
        self.checked = 0
        self.recent: list[np.ndarray] = []  # the last nodes that lacked a small source
        self.attrs = tuple(range(lattice.m))
        # each node's direct successors in the strategy's order (n_up[i] of them, then -1s)
        up = np.arange(len(self.nodes))[:, None] + self.strides[None, :]
        valid = self.nodes < lattice.heights
        up = np.where(valid, up, -1)
        order = np.argsort(np.where(valid, self.rank[np.maximum(up, 0)], len(up)), axis=1)
        self.up = np.take_along_axis(up, order, axis=1)
        self.n_up = valid.sum(axis=1)
        self._up_lists: list[list[int] | None] = [None] * len(self.nodes)

    def successors(self, i: int) -> list[int]:
        """The direct successors of node ``i``, in the strategy's order."""
        out = self._up_lists[i]
        if out is None:
            out = self._up_lists[i] = self.up[i, : self.n_up[i]].tolist()
        return out

    def source(self, i: int) -> FrequencySet | None:
        """The set to roll node ``i``'s up from: the smallest held below it; when that is large
        (more than :data:`ANCHOR_SHARE` of the table's distinct rows), first an *anchor*, the
        highest meet of ``node`` with a recent node that lacked a small source, rolled up and
        held for the nodes above it."""
        source = self.history.below_code(self.codes[i])
        if source is not None and len(source.counts) <= ANCHOR_SHARE * self.u:
            return source
        node, best, height = self.nodes[i], None, ANCHOR_HEIGHT - 1
        for other in self.recent:
            meet = np.minimum(node, other)
            if int(meet.sum()) > height:
                best, height = meet, int(meet.sum())
        self.recent = [*self.recent, node][-ANCHOR_RECENT:]
        if best is None:
            return source
        anchor = self.lattice.rollup(self.attrs, best, self.history.below(best))
        self.history.add(best, anchor)
        return anchor if source is None or len(anchor.counts) < len(source.counts) else source

    def check(self, i: int) -> bool:
        """Check node ``i`` on its frequency set and tag it with its successors or its
        predecessors."""
        source = self.source(i)
        rows = self.u if source is None else len(source.counts)
        levels = self.levels(i)
        # a failing set is kept when it shrinks enough (else its source serves as well)
        ok, fs = self.lattice.check(self.attrs, levels, source, keep=failing_within(SHRINK * rows))
        self.checked += 1
        if ok:
            self.state[tuple(slice(v, None) for v in levels)] = SATISFIES
        else:
            self.state[tuple(slice(0, v + 1) for v in levels)] = FAILS
            if fs is not None:
                self.history.add(self.nodes[i], fs, self.codes[i])
        return ok

    def levels(self, i: int) -> tuple[int, ...]:
        """The levels of node ``i``."""
        return tuple(self.nodes[i].tolist())

    def path(self, i: int) -> list[int]:
        """The greedy path from node ``i``: the first untagged successor, while one exists."""
        path, flat = [i], self.flat
        while True:
            for j in self.successors(path[-1]):
                if flat[j] == UNKNOWN:
                    path.append(j)
                    break
            else:
                return path

    def binary_phase(self, start: int) -> None:
        """Flash's binary phase from node ``start``: paths checked by binary search, the
        successors of failing nodes queued."""
        queue = [(int(self.rank[start]), start)]
        while queue:
            _, i = heapq.heappop(queue)
            if self.flat[i] != UNKNOWN:
                continue
            path = self.path(i)
            low, high = 0, len(path) - 1
            while low <= high:
                mid = (low + high) // 2
                j = path[mid]
                tag = self.flat[j]
                ok = self.check(j) if tag == UNKNOWN else tag == SATISFIES
                if ok:
                    high = mid - 1
                    continue
                low = mid + 1
                if tag == UNKNOWN:
                    for s in self.successors(j):
                        if self.flat[s] == UNKNOWN:
                            heapq.heappush(queue, (int(self.rank[s]), s))

    def run(self) -> None:
        """Visit every node in the strategy's order (height first) and start a binary phase
        from each one still untagged."""
        for i in np.argsort(self.rank).tolist():
            if self.flat[i] == UNKNOWN:
                self.binary_phase(i)


def flash_tags(lattice: Lattice) -> tuple[np.ndarray, np.ndarray, int]:
    """Tag every node of ``lattice`` by Flash's traversal.

    Returns
    -------
    nodes, satisfies, checked : the nodes (:meth:`Lattice.all_nodes`), whether each satisfies
    the models within ``MaxSup``, and how many frequency sets were checked.
    """
    run = _Flash(lattice)
    run.run()
    return run.nodes, run.flat == SATISFIES, run.checked


def flash(
    instance: KAnonymityInstance,
    *,
    max_suppression: float = 0.0,
    privacy: PrivacyModel | Sequence[PrivacyModel] | None = None,
    metric: str = "non-uniform-entropy",
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """The full-domain generalization that minimizes ``metric`` among all that satisfy the
    models, found by Flash.

    Parameters
    ----------
    instance : KAnonymityInstance
    max_suppression : float
        ``MaxSup`` as a fraction of the records, in ``[0, 1)``; positive values need
        ``instance.row_deletion``.
    privacy : PrivacyModel or sequence of them, optional
        Models besides ``k``-anonymity; they must have the generalization property
        (``monotone``; ``monotone_with_suppression`` when tuples may be suppressed).
    metric : str
        One of :data:`~anonratio.solvers.kanonymity.full_domain.NODE_METRICS`.
    seed : int, numpy.random.Generator or None
        Recorded only: the search is deterministic.

    Returns
    -------
    Solution
        As :func:`~anonratio.solvers.kanonymity.incognito.incognito` (the same node);
        ``info["nodes_checked"]`` counts the frequency sets checked against the models.

    Notes
    -----
    Optimal among full-domain generalizations for the chosen metric; no guarantee for the
    partition cost. Worst case one check of ``O(u m)`` per node of the lattice
    (``prod_j (l_j + 1)`` nodes, at most
    :data:`~anonratio.solvers.kanonymity.full_domain.MAX_NODES`), and at most one anchor of the
    same cost per check; the binary search on paths and the predictive tagging usually check a
    small fraction. Memory: the tags (a byte per node) and at most :data:`HISTORY_SIZE`
    frequency sets, two integer arrays of at most ``u`` rows each.
    """
    t0 = time.perf_counter()
    check_choice("metric", metric, NODE_METRICS)
    lattice = lattice_of(
        instance, max_suppression=max_suppression, privacy=privacy, algorithm=ALGORITHM
    )
    nodes, ok, _ = flash_tags(lattice)
    if not ok.any():
        return infeasible_solution(instance, lattice, ALGORITHM, seed, t0)
    levels, _, evaluated = best_node(lattice, nodes[ok], metric)
    info = {"n_satisfying": int(ok.sum()), "nodes_evaluated": evaluated}
    return full_domain_solution(
        instance, lattice, levels, algorithm=ALGORITHM, metric=metric, seed=seed, t0=t0, info=info
    )
