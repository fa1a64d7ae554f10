"""Incognito: every full-domain generalization that satisfies the models, by subset pruning.

LeFevre, DeWitt and Ramakrishnan (SIGMOD 2005), as presented by Ciriani, De Capitani di
Vimercati, Foresti and Samarati (2009, §3.2.2, Algorithm 3.2). Two properties prune the search:

- *subset property*: a table that satisfies the models on the quasi-identifier ``QI``
  satisfies them on every subset of ``QI``; so iteration ``i`` builds the lattices of the
  ``i``-attribute subsets only from the nodes whose every ``(i-1)``-attribute projection
  survived iteration ``i-1`` (``Compose``);
- *generalization property*: a node above a satisfying node satisfies; so each subset lattice
  is visited bottom-up, breadth first, and a satisfying node marks every node above it without
  computing it.

A node's frequency set is *rolled up* from the frequency set of a node just below it when one was
computed (fewer rows than the table). The nodes that survive on the whole ``QI`` are all the
full-domain generalizations that satisfy the models within ``MaxSup``; the one that minimizes
``metric`` is returned. :func:`exhaustive_lattice` checks every node from scratch: it returns
the same node, and the tests compare them.
"""

from __future__ import annotations

import itertools
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

__all__ = ["incognito", "exhaustive_lattice", "satisfying_nodes"]

ALGORITHM = "incognito"


def _grid(heights: np.ndarray) -> np.ndarray:
    """All level vectors below ``heights``, in mixed-radix (lexicographic) order."""
    grids = np.meshgrid(*[np.arange(h + 1) for h in heights], indexing="ij")
    return np.column_stack([g.reshape(-1) for g in grids]).astype(np.int64)


def _index(nodes: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """Position of each node in :func:`_grid` of ``heights``."""
    idx = np.zeros(len(nodes), dtype=np.int64)
    for a, h in enumerate(heights):
        idx = idx * (h + 1) + nodes[:, a]
    return idx


def _compose(
    attrs: tuple[int, ...], heights: np.ndarray, passing: dict[tuple[int, ...], np.ndarray]
) -> np.ndarray:
    """The candidate nodes of subset ``attrs``: every projection on ``i - 1`` attributes
    survived (all nodes when ``i = 1``)."""
    nodes = _grid(heights[list(attrs)])
    if len(attrs) == 1:
        return nodes
    keep = np.ones(len(nodes), dtype=bool)
    for drop in range(len(attrs)):
        sub = attrs[:drop] + attrs[drop + 1 :]
        cols = [c for c in range(len(attrs)) if c != drop]
        keep &= passing[sub][_index(nodes[:, cols], heights[list(sub)])]
    return nodes[keep]


def _search_subset(lattice: Lattice, attrs: tuple[int, ...], nodes: np.ndarray) -> np.ndarray:
    """Bottom-up breadth-first search of one subset lattice: which candidates satisfy."""
    height = nodes.sum(axis=1)
    # marks on the subset's whole grid (the nodes above a node are a box of it)
    grid = np.zeros(tuple(int(lattice.heights[a]) + 1 for a in attrs), dtype=bool)
    flat = grid.reshape(-1)  # a view: index = position in _grid()
    at = _index(nodes, lattice.heights[list(attrs)])
    cache = SourceCache(len(attrs))
    cache.add((0,) * len(attrs), lattice.frequency_set(attrs, (0,) * len(attrs)))
    for i in np.argsort(height, kind="stable").tolist():
        if flat[at[i]]:
            continue  # marked by a satisfying node below: not computed
        # a satisfying node's successors are marked, never computed: only failing sets serve,
        # those the cache would hold
        room = cache.room()
        ok, fs = lattice.check(attrs, nodes[i], cache.below(nodes[i]), keep=failing_within(room))
        if fs is not None:
            cache.add(nodes[i], fs)
        if ok:
            grid[tuple(slice(v, None) for v in nodes[i].tolist())] = True
    return flat[at]


def satisfying_nodes(lattice: Lattice) -> np.ndarray:
    """Every full-domain node that satisfies the lattice's models within ``MaxSup`` (Incognito's
    iterations over the attribute subsets), shape ``(count, m)``."""
    heights = lattice.heights
    passing: dict[tuple[int, ...], np.ndarray] = {}
    survivors = np.zeros((0, lattice.m), dtype=np.int64)
    for size in range(1, lattice.m + 1):
        for attrs in itertools.combinations(range(lattice.m), size):
            nodes = _compose(attrs, heights, passing)
            ok = _search_subset(lattice, attrs, nodes) if len(nodes) else np.zeros(0, bool)
            mask = np.zeros(int(np.prod(heights[list(attrs)] + 1)), dtype=bool)
            mask[_index(nodes[ok], heights[list(attrs)])] = True
            passing[attrs] = mask
            if size == lattice.m:
                survivors = nodes[ok]
    return survivors


def incognito(
    instance: KAnonymityInstance,
    *,
    max_suppression: float = 0.0,
    privacy: PrivacyModel | Sequence[PrivacyModel] | None = None,
    metric: str = "non-uniform-entropy",
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """The full-domain generalization that minimizes ``metric`` among all that satisfy the
    models, found by Incognito.

    Parameters
    ----------
    instance : KAnonymityInstance
    max_suppression : float
        ``MaxSup`` as a fraction of the records, in ``[0, 1)``; positive values need
        ``instance.row_deletion``.
    privacy : PrivacyModel or sequence of them, optional
        Models besides ``k``-anonymity; they must have the generalization and subset
        properties (``monotone``; ``monotone_with_suppression`` when tuples may be suppressed).
    metric : str
        One of :data:`~anonratio.solvers.kanonymity.full_domain.NODE_METRICS`.
    seed : int, numpy.random.Generator or None
        Recorded only: the search is deterministic.

    Returns
    -------
    Solution
        As :func:`~anonratio.solvers.kanonymity.samarati.samarati`; ``info["n_satisfying"]``
        counts the satisfying nodes found.

    Notes
    -----
    Optimal among full-domain generalizations for the chosen metric; no guarantee for the
    partition cost. Worst case ``O(2^|Dom| · u · m)`` (every subset lattice complete); the
    pruning usually checks a small fraction of the nodes.
    """
    t0 = time.perf_counter()
    lattice = lattice_of(
        instance, max_suppression=max_suppression, privacy=privacy, algorithm=ALGORITHM
    )
    nodes = satisfying_nodes(lattice)
    if len(nodes) == 0:
        return infeasible_solution(instance, lattice, ALGORITHM, seed, t0)
    levels, _, evaluated = best_node(lattice, nodes, metric)
    info = {"n_satisfying": int(len(nodes)), "nodes_evaluated": evaluated}
    return full_domain_solution(
        instance, lattice, levels, algorithm=ALGORITHM, metric=metric, seed=seed, t0=t0, info=info
    )


def exhaustive_lattice(
    instance: KAnonymityInstance,
    *,
    max_suppression: float = 0.0,
    privacy: PrivacyModel | Sequence[PrivacyModel] | None = None,
    metric: str = "non-uniform-entropy",
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """The same optimum as :func:`incognito` by checking every node of the lattice from the
    table (no pruning, no roll-up) and evaluating ``metric`` on every satisfying node.

    The reference Incognito and Samarati are tested against; ``O(prod_j (l_j + 1) · u · m)``.
    Parameters as :func:`incognito`.
    """
    algorithm = "lattice-exhaustive"
    t0 = time.perf_counter()
    lattice = lattice_of(
        instance, max_suppression=max_suppression, privacy=privacy, algorithm=algorithm
    )
    nodes = lattice.all_nodes()
    ok = np.array([lattice.satisfies(lattice.node_set(v)) for v in nodes], dtype=bool)
    if not ok.any():
        return infeasible_solution(instance, lattice, algorithm, seed, t0)
    values = np.array([lattice.utility(metric, v) for v in nodes[ok]])
    good = nodes[ok]
    best = np.flatnonzero(values <= values.min() + 1e-9 * max(1.0, abs(values.min())))
    key = min(best, key=lambda i: (int(good[i].sum()), tuple(good[i])))
    info = {"n_satisfying": int(ok.sum()), "nodes_evaluated": int(ok.sum())}
    return full_domain_solution(
        instance,
        lattice,
        good[key],
        algorithm=algorithm,
        metric=metric,
        seed=seed,
        t0=t0,
        info=info,
    )
