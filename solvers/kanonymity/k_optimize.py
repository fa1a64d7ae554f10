"""k-Optimize: branch and bound over a set-enumeration tree of single-dimensional interval cuts.

Bayardo and Agrawal (ICDE 2005), as presented by Ciriani, De Capitani di Vimercati, Foresti and
Samarati (2009, §4.1.1, Algorithm 4.1 and Figure 13).

Search space
------------
Each attribute's values are ordered: numerically when all its labels parse as numbers (or the
attributes ``numeric`` names), else in the depth-first order of its hierarchy in force (so that a
hierarchy's nodes are intervals). An anonymization is a set of *cuts*: a cut at rank ``r`` of
attribute ``j`` starts a new interval there; the least value of every attribute always starts
one (implicit), so the empty set is the most general anonymization (one interval per attribute,
one class). Every value is published as the interval that holds it, for the whole table
(single-dimensional global recoding); the records of an equivalence class smaller than ``k`` are
suppressed (withheld, label ``-1``) where suppression is allowed.

The cuts of all attributes form one ordered alphabet (attribute by attribute, ranks ascending),
and the set-enumeration tree over it enumerates every anonymization once: a node is a head set
``H`` with a tail ``T`` of the values it may still add. Only ranks that some record holds are
cuts (a cut at a rank no record holds splits like the next held rank, or splits nothing), and
the least held rank of each attribute is left out (it splits nothing): the optimum over this
alphabet is the optimum over every interval recoding.

Objective
---------
The discernibility metric with the suppression penalty of the original:
``C(H) = sum_{|E| >= k} |E|^2 + |D| * (tuples in classes with |E| < k)``, ``|D|`` the number of
records. Without row deletion (or beyond ``max_suppression``) a node that suppresses too many
tuples is infeasible (cost infinite).

The search (K-OPTIMIZE of the paper, on an explicit stack)
----------------------------------------------------------
At a node ``(H, T)``:

1. ``PRUNE-USELESS-VALUES``: a tail value that splits no equivalence class of ``H`` of ``k`` or
   more records is dropped from ``T``: in any descendant it splits only classes that ``H``
   already suppresses (suppressed in every descendant) or none, so a descendant with it costs
   exactly what the one without it costs. (Only the paper's abstract and the survey's account
   were at hand: the test is the one the step's name and the cost imply.)
2. The node's cost updates the best cost ``c`` (and the best anonymization, kept for the
   anytime answer).
3. ``PRUNE(H, T, c)``: with the *allset* ``A = H ∪ T`` (the most specialized anonymization of the
   subtree), every descendant suppresses at least the tuples ``H`` suppresses (classes only
   shrink) and leaves every other tuple ``t`` in a class of at least ``max(k, |E_A(t)|)``
   records, or suppresses it at cost ``|D| >= k``. So
   ``LB(H, A) = sum_t (|D| if H suppresses t else max(k, |E_A(t)|))`` (infinite when ``H``
   already suppresses more than allowed) bounds every descendant. If ``LB(H, A) >= c`` the
   subtree is pruned; else every ``v`` of ``T`` with ``LB(H ∪ {v}, A) >= c`` is removed from
   ``T`` (it can improve on ``c`` in no descendant of ``H``, not only as a child: the survey's
   ``Prune(root, node)``), and the test repeats with the smaller allset until nothing changes.
   The survey gives the bound's idea (a subtree's solutions suppress more tuples than its
   root); the per-tuple ``max(k, |E_A(t)|)`` term is derived here from the same monotonicity.
4. ``REORDER-TAIL``: ``T`` is sorted by the number of classes of ``H ∪ {v}``, most first (ties in
   alphabet order): the values that split most, likely to be pruned soon, get the largest
   subtrees and then leave the allset of their later siblings, whose bounds tighten. (The
   paper's criterion was not at hand; on kanon-random tables this order visited fewer nodes
   than the ascending one and than the alphabet order: 80 against 227 and 227 nodes at
   n = 100, m = 3, k = 5, 4 to 8 values per attribute, seed 0.)
5. For each ``v`` of ``T`` in turn: ``v`` leaves ``T``, the child ``(H ∪ {v}, T)`` is searched,
   and ``PRUNE(H, T, c)`` runs again with the improved ``c``.

The classes of a child refine its parent's: a record's class under ``H ∪ {v}`` is its class
under ``H`` and the side of the cut ``v`` it lies on. The bounds of all tail values are computed
at once on ``(|T|, u)`` arrays (``u`` distinct records).

Anytime
-------
With ``time_limit`` the search stops at the deadline and returns the best anonymization found,
``status="time_limit"``. ``status="feasible"`` with ``info["complete"]`` means the tree was
searched to its end: optimal for the objective above among single-dimensional interval
recodings with suppression, *not* for the partition cost of the suite (Aggarwal et al.'s
generalization cost, which the verifier computes from each class's lowest common hierarchy
levels); the status is never ``"optimal"``, which the suite keeps for proven optima of its own
problems.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.kanonymity.recoding import (
    Domain,
    Recoding,
    _spans,
    hierarchy_domain,
    numeric_values,
    range_levels,
    row_ids,
)
from anonratio.instances.validation import check_instance, check_seed, check_time_limit
from anonratio.solvers.kanonymity.full_domain import max_suppressed
from anonratio.solvers.kanonymity.mondrian import _numeric_iv
from anonratio.solvers.kanonymity.mondrian_partition import Attr

__all__ = ["k_optimize", "discernibility"]

ALGORITHM = "k-optimize"


def discernibility(sizes: np.ndarray, k: int, n: int) -> float:
    """The objective of k-Optimize on classes of the given sizes: ``|E|^2`` for a class of at
    least ``k`` records, ``|D| |E|`` (``n |E|``) for a smaller (suppressed) one."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return float(np.where(sizes >= k, sizes * sizes, n * sizes).sum())


@dataclass
class _Node:
    """A node of the tree being searched: its head, its classes and what its tail needs."""

    head: tuple[int, ...]
    cls: np.ndarray  # class of each distinct record, 0 .. C-1
    sup: np.ndarray  # records in classes smaller than k
    n_sup: int
    tail: np.ndarray  # alphabet indices still to add, in visiting order
    side: np.ndarray  # (|T|, u): the record lies at or above the tail value's cut
    child_sup: np.ndarray  # (|T|, u): the record is suppressed by H ∪ {v}
    stale: bool = False  # PRUNE must run before the next child


class _Search:
    """The data in rank space and the best anonymization found."""

    def __init__(self, instance: KAnonymityInstance, attrs: list[Attr], max_sup: int) -> None:
        unique, _, counts = instance.unique_records
        self.k, self.n, self.max_sup = instance.k, instance.n, max_sup
        self.cnt = counts.astype(np.int64)
        self.R = np.stack([a.order[unique[:, j]] for j, a in enumerate(attrs)])  # (m, u)
        held = [np.unique(r) for r in self.R]
        self.attr_of = np.concatenate(
            [np.full(len(h) - 1, j, dtype=np.int64) for j, h in enumerate(held)]
        )
        self.rank_of = np.concatenate([h[1:] for h in held]).astype(np.int64)
        self.best_cost, self.nodes = np.inf, 0
        self.best_head: tuple[int, ...] = ()

    # -- classes --------------------------------------------------------------------------
    def _sizes(self, cls: np.ndarray) -> np.ndarray:
        return np.bincount(cls, weights=self.cnt).astype(np.int64)

    def allset_sizes(self, cuts: np.ndarray) -> np.ndarray:
        """Class size of every distinct record under the anonymization ``cuts``."""
        columns, radices = [], []
        for j, ranks in enumerate(self.R):
            at = np.sort(self.rank_of[cuts[self.attr_of[cuts] == j]])
            columns.append(np.searchsorted(at, ranks, side="right"))
            radices.append(len(at) + 1)
        ids, _ = row_ids(columns, radices)
        return self._sizes(ids)[ids]

    def _penalized(self, sup: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Per record: ``|D|`` when suppressed, else ``max(k, its allset class size)``."""
        return np.where(sup, self.n, np.maximum(self.k, sizes))

    # -- a node ---------------------------------------------------------------------------
    def enter(self, head: tuple[int, ...], cls: np.ndarray, tail: np.ndarray) -> _Node | None:
        """Cost the node, drop its useless and pruned tail values and order the rest; the node
        to search below, or ``None`` when its tail is empty."""
        self.nodes += 1
        sizes = self._sizes(cls)
        row_size = sizes[cls]
        sup = row_size < self.k
        n_sup = int(self.cnt[sup].sum())
        if n_sup <= self.max_sup:
            cost = float(self.cnt[~sup] @ row_size[~sup]) + n_sup * self.n
            if cost < self.best_cost:
                self.best_cost, self.best_head = cost, head
        if len(tail) == 0:
            return None
        # each tail value's two sides of every class of H: (|T|, C, 2) record counts
        side = self.R[self.attr_of[tail]] >= self.rank_of[tail][:, None]
        t, C = len(tail), len(sizes)
        key = (np.arange(t)[:, None] * C + cls[None, :]) * 2 + side
        weights = np.broadcast_to(self.cnt, key.shape).ravel()
        parts = np.bincount(key.ravel(), weights=weights, minlength=t * C * 2).reshape(t, C, 2)
        # PRUNE-USELESS-VALUES: values that split no class H keeps
        splits = (parts[:, :, 0] > 0) & (parts[:, :, 1] > 0) & (sizes >= self.k)[None, :]
        useful = splits.any(axis=1)
        tail, side, parts = tail[useful], side[useful], parts[useful]
        child_size = parts[np.arange(len(tail))[:, None], cls[None, :], side.astype(np.intp)]
        node = _Node(head, cls, sup, n_sup, tail, side, child_size < self.k)
        self.prune(node, np.asarray(head, dtype=np.int64))
        if len(node.tail) == 0:
            return None
        # REORDER-TAIL: most classes of H ∪ {v} first (stable: ties in alphabet order)
        n_classes = self._child_classes(node)
        order = np.argsort(-n_classes, kind="stable")
        node.tail, node.side = node.tail[order], node.side[order]
        node.child_sup = node.child_sup[order]
        return node

    def _child_classes(self, node: _Node) -> np.ndarray:
        """Number of classes of ``H ∪ {v}`` for every tail value ``v``."""
        C = int(node.cls.max()) + 1 if len(node.cls) else 0
        t = len(node.tail)
        key = (np.arange(t)[:, None] * C + node.cls[None, :]) * 2 + node.side
        seen = np.zeros(t * C * 2, dtype=bool)
        seen[key.ravel()] = True
        return seen.reshape(t, -1).sum(axis=1)

    def prune(self, node: _Node, head: np.ndarray) -> None:
        """``PRUNE(H, T, c)``: drop the tail values no descendant with them can improve on the
        best cost, repeating with the smaller allset until none goes; all of them when the
        whole subtree is bounded below by the best cost."""
        while len(node.tail):
            sizes = self.allset_sizes(np.concatenate([head, node.tail]))
            if node.n_sup > self.max_sup or self.cnt @ self._penalized(node.sup, sizes) >= (
                self.best_cost
            ):
                keep = np.zeros(len(node.tail), dtype=bool)
            else:
                bound = self._penalized(node.child_sup, sizes[None, :]) @ self.cnt
                n_sup = node.child_sup @ self.cnt
                keep = (bound < self.best_cost) & (n_sup <= self.max_sup)
            if keep.all():
                return
            node.tail, node.side = node.tail[keep], node.side[keep]
            node.child_sup = node.child_sup[keep]

    def child(self, node: _Node) -> _Node | None:
        """Take the first tail value ``v`` out of the tail and enter ``(H ∪ {v}, T)``."""
        v, side = int(node.tail[0]), node.side[0]
        node.tail, node.side, node.child_sup = node.tail[1:], node.side[1:], node.child_sup[1:]
        node.stale = True
        _, cls = np.unique(node.cls * 2 + side, return_inverse=True)
        return self.enter((*node.head, v), cls.reshape(-1), node.tail.copy())

    def run(self, deadline: float | None) -> bool:
        """Search the whole tree (True) or until the deadline (False)."""
        u = self.R.shape[1]
        root = self.enter((), np.zeros(u, dtype=np.int64), np.arange(len(self.attr_of)))
        stack = [root] if root is not None else []
        while stack:
            node = stack[-1]
            if node.stale:
                node.stale = False
                self.prune(node, np.asarray(node.head, dtype=np.int64))
            if len(node.tail) == 0:
                stack.pop()
                continue
            if deadline is not None and time.perf_counter() > deadline:
                return False
            below = self.child(node)
            if below is not None:
                stack.append(below)
        return True

    def cuts(self, j: int) -> np.ndarray:
        """The interval starts of attribute ``j`` in the best anonymization (rank 0 first)."""
        head = np.asarray(self.best_head, dtype=np.int64)
        return np.r_[0, np.sort(self.rank_of[head[self.attr_of[head] == j]])].astype(np.int64)


# ---------------------------------------------------------------------------------------------
# the published table
# ---------------------------------------------------------------------------------------------
def _interval_domain(a: Attr, labels: tuple[str, ...], starts: np.ndarray) -> Domain:
    """The intervals starting at ``starts`` (ranks, 0 first) as a :class:`Domain`: numeric ones
    labelled ``"a"`` or ``"a-b"``; categorical ones by the hierarchy node they equal, else by
    their values ``"{x,y,...}"``."""
    lo = starts.astype(np.int64)
    hi = np.r_[lo[1:] - 1, a.n_values - 1].astype(np.int64)
    by_rank = [labels[c] for c in a.perm]
    if a.numeric:
        text = [
            by_rank[x] if x == y else f"{by_rank[x]}-{by_rank[y]}"
            for x, y in zip(lo, hi, strict=True)
        ]
        values = numeric_values(labels)
    else:
        nodes, _ = hierarchy_domain(a.h)
        named = {
            (int(x), int(y)): nodes.labels[p]
            for p, (x, y) in enumerate(zip(nodes.lo, nodes.hi, strict=True))
        }
        text = [
            by_rank[x]
            if x == y
            else named.get((int(x), int(y)), "{" + ",".join(by_rank[x : y + 1]) + "}")
            for x, y in zip(lo, hi, strict=True)
        ]
        values = None
    span = _spans(a.order, lo, hi, values)
    levels = range_levels(a.h, a.order, lo, hi)
    return Domain(a.order, lo, hi, tuple(text), levels, a.h.height, span)


def _recoding(instance: KAnonymityInstance, attrs: list[Attr], search: _Search) -> Recoding:
    """The best anonymization as a global :class:`Recoding`, its small classes suppressed."""
    table = instance.table
    domains, cells = [], np.empty(table.codes.shape, dtype=np.int64)
    for j, a in enumerate(attrs):
        starts = search.cuts(j)
        domains.append(_interval_domain(a, table.values[j], starts))
        cells[:, j] = np.searchsorted(starts, a.order[table.codes[:, j]], side="right") - 1
    ids, _ = row_ids([cells[:, j] for j in range(len(attrs))], [d.n_nodes for d in domains])
    small = np.bincount(ids)[ids] < instance.k
    return Recoding(table, tuple(domains), cells, small, "global", ALGORITHM)


def k_optimize(
    instance: KAnonymityInstance,
    *,
    max_suppression: float | None = None,
    numeric: str | Sequence[str] = "auto",
    time_limit: float | None = None,
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """k-Optimize (Bayardo and Agrawal 2005): the interval recoding of least discernibility.

    Parameters
    ----------
    instance : KAnonymityInstance
        The table, ``k`` and the hierarchies in force (they order categorical attributes and
        name the published intervals that are hierarchy nodes).
    max_suppression : float or None
        The most tuples a release may suppress, as a fraction of the records in ``[0, 1)``
        (``MaxSup``, as Samarati's); positive values need ``instance.row_deletion``. ``None``
        (default): the original algorithm, any number of tuples when the instance allows row
        deletion, none otherwise.
    numeric : "auto" or list of str
        Attributes ordered by number (default: every attribute whose labels all parse as
        numbers); the others follow their hierarchy's depth-first order.
    time_limit : float or None
        Seconds before the search stops with the best anonymization found (anytime); ``None``
        searches to the end.
    seed : int, numpy.random.Generator or None
        Recorded only: the search is deterministic.

    Returns
    -------
    Solution
        Labels = the published equivalence classes, ``-1`` for suppressed tuples. Status
        ``"feasible"`` with ``info["complete"]`` when the search finished (optimal for its own
        objective and space only, see Notes), ``"time_limit"`` when the deadline stopped it
        (the best found so far; a k-anonymous release all the same). ``info``: the
        ``recoding`` (global), ``scheme``, ``intervals`` (each attribute's published values),
        ``discernibility`` (the objective value), ``suppressed``, ``max_suppressed``, ``nodes``
        (tree nodes visited), ``complete``, ``numeric``.

    Raises
    ------
    TypeError
        ``instance`` not a KAnonymityInstance; ``numeric`` neither a string nor a list.
    ValueError
        ``max_suppression`` outside ``[0, 1)`` or positive without row deletion; ``numeric``
        naming an unknown or non-numeric attribute; ``time_limit`` not a positive number.

    Notes
    -----
    Guarantee: none for the suite's partition cost (Aggarwal et al. 2005). Optimal, when
    ``info["complete"]``, for the discernibility metric with the ``|D|``-per-tuple
    suppression penalty among single-dimensional interval recodings of the chosen value orders.
    Assumptions: one fixed total order per attribute; intervals need not be hierarchy nodes.
    Complexity: the tree has ``2^N`` nodes (``N`` held values less one per attribute), searched
    by branch and bound; each node costs O(|T| u) array work per pruning pass (``u`` distinct
    records). Source: R. J. Bayardo, R. Agrawal, "Data Privacy through Optimal
    k-Anonymization", ICDE 2005; Ciriani et al. (2009), §4.1.1. The steps as implemented, and
    what was chosen where the available material is silent, are in the module docstring.
    """
    t0 = time.perf_counter()
    check_instance(instance, KAnonymityInstance, "instance")
    seed = check_seed(seed)
    limit = check_time_limit(time_limit, allow_none=True)
    n = instance.n
    if max_suppression is None:
        max_sup = n if instance.row_deletion else 0
    else:
        max_sup = max_suppressed(max_suppression, n, instance.row_deletion)
    table = instance.table
    flags = _numeric_iv(table, numeric)
    attrs = [Attr(table, j, h, flags[j]) for j, h in enumerate(instance.hierarchies)]
    search = _Search(instance, attrs, max_sup)
    complete = search.run(None if limit is None else t0 + limit)
    recoding = _recoding(instance, attrs, search)
    sizes = np.bincount(recoding.classes[recoding.classes >= 0])
    info = {
        "recoding": recoding,
        "scheme": "global",
        "intervals": {
            name: list(d.labels) for name, d in zip(table.attributes, recoding.domains, strict=True)
        },
        "discernibility": discernibility(sizes, instance.k, n) + n * recoding.n_suppressed,
        "suppressed": recoding.n_suppressed,
        "max_suppressed": max_sup,
        "nodes": search.nodes,
        "complete": complete,
        "numeric": tuple(a for a, f in zip(table.attributes, flags, strict=True) if f),
    }
    return Solution(
        labels=recoding.classes,
        algorithm=ALGORITHM,
        params=dict(instance.params),
        seed=seed,
        status="feasible" if complete else "time_limit",
        objective=None,
        time_s=time.perf_counter() - t0,
        info=info,
    )
