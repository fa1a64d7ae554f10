"""Samarati's binary search over the heights of the generalization lattice.

Samarati (2001), as presented by Ciriani, De Capitani di Vimercati, Foresti and Samarati (2009,
§3.2.1, Algorithm 3.1). A full-domain generalization is *k-minimal* when it satisfies the
privacy models suppressing at most ``MaxSup`` tuples and no generalization below it in the
lattice does (Definition 3.4). Since the property holds upward (Theorem 3.4: a generalization
of a satisfying node satisfies), if no node at height ``h`` satisfies, none below does: a binary
search over ``0 .. sum_j l_j`` finds the lowest height with a satisfying node, and every
satisfying node there is k-minimal.

The survey's ``Satisfy`` counts the outliers with a matrix of distance vectors between distinct
tuples; here a node's frequency set (:class:`~anonratio.solvers.kanonymity.full_domain.Lattice`)
gives the same count. At the lowest satisfying height, the nodes below a node that failed are
known to fail without a check; among the k-minimal nodes there the one that minimizes
``metric`` is returned (ties: lexicographically smallest levels).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.privacy import PrivacyModel
from anonratio.solvers.kanonymity.frequency_keys import SourceCache, failing_within
from anonratio.solvers.kanonymity.full_domain import Lattice
from anonratio.solvers.kanonymity.lattice_search import (
    best_node,
    full_domain_solution,
    infeasible_solution,
    lattice_of,
)

__all__ = ["samarati"]

ALGORITHM = "samarati"


class _Marks:
    """Known outcomes of the lattice's nodes.

    No outcome is propagated during the search: a binary search never returns below a failing
    height nor above a satisfying one, and nodes of one height are incomparable. At the end,
    the nodes of the lowest satisfying height below a node that failed (at a greater height)
    are known to fail without a check.
    """

    def __init__(self, lattice: Lattice) -> None:
        self.lattice = lattice
        self.nodes = lattice.all_nodes()
        self.height = self.nodes.sum(axis=1)
        self.state = np.zeros(len(self.nodes), dtype=np.int8)  # 1 satisfies, -1 fails
        self.cache = SourceCache(lattice.m, capacity=64)
        self.attrs = tuple(range(lattice.m))

    def test(self, i: int) -> bool:
        if self.state[i] == 0:
            node = self.nodes[i]
            # a satisfying node lies at the lowest height found so far, below no node checked
            # later: only failing sets serve as sources, those the cache would hold
            room = self.cache.room()
            ok, fs = self.lattice.check(
                self.attrs, node, self.cache.below(node), keep=failing_within(room)
            )
            if fs is not None:
                self.cache.add(node, fs)
            self.state[i] = 1 if ok else -1
        return bool(self.state[i] == 1)

    def exists_at(self, h: int) -> bool:
        at = np.flatnonzero(self.height == h)
        if np.any(self.state[at] == 1):
            return True
        return any(self.test(int(i)) for i in at if self.state[i] == 0)

    def all_at(self, h: int) -> np.ndarray:
        at = np.flatnonzero((self.height == h) & (self.state == 0))
        failed = self.nodes[self.state == -1].astype(np.int8)  # levels < 128
        below = np.zeros(len(at), dtype=bool)
        for start in range(0, len(failed), 256):  # under a failed node: fails (monotone)
            block = failed[start : start + 256]
            below |= np.any(np.all(self.nodes[at, None, :] <= block[None], axis=2), axis=1)
        self.state[at[below]] = -1
        at = np.flatnonzero(self.height == h)
        return self.nodes[[i for i in at if self.test(int(i))]]


def samarati(
    instance: KAnonymityInstance,
    *,
    max_suppression: float = 0.0,
    privacy: PrivacyModel | Sequence[PrivacyModel] | None = None,
    metric: str = "non-uniform-entropy",
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """A k-minimal full-domain generalization by binary search over the lattice's heights.

    Parameters
    ----------
    instance : KAnonymityInstance
        The table, ``k`` and the hierarchies in force (its ``model``).
    max_suppression : float
        ``MaxSup`` as a fraction of the records, in ``[0, 1)``; positive values need
        ``instance.row_deletion`` (suppressed tuples are labelled ``-1``).
    privacy : PrivacyModel or sequence of them, optional
        Models every equivalence class must satisfy besides ``k``-anonymity; they must have the
        generalization property (:attr:`~anonratio.instances.privacy.PrivacyModel.monotone`, and
        ``monotone_with_suppression`` when tuples may be suppressed).
    metric : str
        Utility that picks among the k-minimal nodes at the lowest height (one of
        :data:`~anonratio.solvers.kanonymity.full_domain.NODE_METRICS`).
    seed : int, numpy.random.Generator or None
        Recorded only: the search is deterministic.

    Returns
    -------
    Solution
        Labels = the published equivalence classes (global recoding), ``-1`` for suppressed
        tuples; ``info`` holds the ``levels`` per attribute, the ``recoding``, the
        ``published_cost`` (levels plus suppressed tuples) and ``nodes_checked``. Status
        ``infeasible`` when even the top node fails.

    Notes
    -----
    No approximation guarantee for the partition cost: optimal only among full-domain
    generalizations at the lowest height. O(log H) heights, each costing at most the number of
    its nodes frequency-set evaluations of O(u m) (``u`` distinct rows); the lattice has
    ``prod_j (l_j + 1)`` nodes.
    """
    t0 = time.perf_counter()
    lattice = lattice_of(
        instance, max_suppression=max_suppression, privacy=privacy, algorithm=ALGORITHM
    )
    marks = _Marks(lattice)
    low, high = 0, int(lattice.heights.sum())
    if not marks.exists_at(high):
        return infeasible_solution(instance, lattice, ALGORITHM, seed, t0)
    while low < high:
        mid = (low + high) // 2
        if marks.exists_at(mid):
            high = mid
        else:
            low = mid + 1
    levels, _, _ = best_node(lattice, marks.all_at(low), metric)
    return full_domain_solution(
        instance,
        lattice,
        levels,
        algorithm=ALGORITHM,
        metric=metric,
        seed=seed,
        t0=t0,
        info={"height": low},
    )
