"""The simplified Spread of the paper's experiments (Du et al. 2009, §5, Figure 7).

Du et al. ran "a simplified version of the method of Theorem 10": the greedy fill, then the
left-over items (the last bin, below ``k``) are distributed among the existing bins, first
greedily "to classes that have less than the current maximum until adding an item to any class
would increase the maximum", then "in a round-robin fashion".

The paper proves no guarantee for it. One follows from Theorem 7's argument when, as here,
items ``>= k`` get bins of their own: closed greedy bins hold at most ``2k - 2``, big bins ``M``
(the largest item), the greedy phase never raises the maximum and the round-robin phase adds at
most the whole left-over (``<= k - 1``) to any bin, so the cost is at most
``max(k - 1 + M, 3k - 3)``, Fold's bound (:func:`simplified_spread_guarantee`).
"""

from __future__ import annotations

import heapq
from time import perf_counter

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import BinCoveringInstance, bin_covering_lower_bound
from anonratio.solvers.bin_covering.fold import (
    bin_solver_iv,
    finish,
    fold_bound,
    greedy_fill,
    item_order,
    loads_of,
)

__all__ = ["simplified_spread", "simplified_spread_guarantee"]


def simplified_spread_guarantee(
    instance: BinCoveringInstance, solution: Solution | None = None
) -> float:
    """Ratio derived here (not in the paper): Fold's bound / lower bound, always < 3.

    ``solution`` is not needed: the ratio is known before the run.
    """
    return fold_bound(instance) / bin_covering_lower_bound(instance)[0]


def simplified_spread(
    instance: BinCoveringInstance,
    *,
    order: str = "sorted",
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """Simplified Spread (Du et al. 2009, §5): no ratio proven by the paper; cost at most
    ``max(k - 1 + max x, 3k - 3)`` (derived from Theorem 7's argument, see the module docstring).

    Items ``>= k`` get their own bins and the others fill bins greedily in the given order (a bin
    closes at ``>= k``). The left-over items of the last, unfinished bin are then distributed, in
    their order: each goes to the currently lightest bin if that keeps the maximum load (the
    maximum over the closed bins when the phase starts) unchanged, else it is deferred; the
    deferred items go round-robin over the bins, lightest first.

    Parameters
    ----------
    instance : BinCoveringInstance
    order : {"sorted", "random", "input"}
        Greedy order: decreasing size, a random permutation (``seed``), or the instance's order.
    seed : int, numpy.random.Generator or None
        Used by ``order="random"``; recorded when an int.

    Returns
    -------
    Solution
        ``info``: ``n_bins``, ``overfull_ratio`` (max load / k), ``n_leftover``,
        ``n_greedy_placed``, ``n_round_robin``, ``order``.

    Notes
    -----
    O(n log n): the greedy fill plus one heap operation per left-over item.

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, "On the Approximability of Geometric and
    Geographic Generalization and the Min-Max Bin Covering Problem", WADS 2009, §5 and Figure 7.

    Examples
    --------
    >>> from anonratio.instances.bin_covering.instance import BinCoveringInstance
    >>> sol = simplified_spread(BinCoveringInstance([4, 3, 3, 2, 2, 1], k=5))
    >>> sol.objective, sol.info["n_greedy_placed"], sol.info["n_round_robin"]
    (8.0, 1, 1)
    """
    t0 = perf_counter()
    rng, seed_rec = bin_solver_iv(instance, order, seed)
    x = instance.sizes
    labels, left, n_bins = _greedy_bins(x, instance.k, item_order(x, order, rng))
    placed, deferred = _distribute_leftover(x, labels, left, n_bins)
    info = {
        "n_leftover": int(left.size),
        "n_greedy_placed": placed,
        "n_round_robin": deferred,
        "order": order,
    }
    return finish(
        instance,
        labels,
        algorithm=f"simplified-spread-{order}",
        params={"order": order},
        seed=seed_rec,
        t0=t0,
        info=info,
    )


def _greedy_bins(x, k, items):
    """Items ``>= k`` alone, the others filled greedily in the order ``items``.

    Returns the labels, the left-over items (the last bin, below ``k``, in greedy order) and the
    number of closed bins.
    """
    labels = np.empty(x.size, dtype=np.int64)
    is_big = x[items] >= k
    big, small = items[is_big], items[~is_big]
    labels[big] = np.arange(big.size)
    bin_of, n_full = greedy_fill(x, small, k)
    labels[small] = big.size + bin_of
    n_bins = big.size + n_full
    left = small[bin_of == n_full] if small.size else small
    return labels, left, n_bins


def _distribute_leftover(x, labels, left, n_bins):
    """Move the left-over items into the ``n_bins`` closed bins (``labels`` in place).

    Each goes to the lightest bin if that keeps the maximum load, else it is deferred; the
    deferred ones go round-robin over the bins, lightest first. Returns the numbers placed in
    each phase.
    """
    placed = deferred = 0
    if left.size:
        loads = loads_of(x, labels, n_bins + 1)[:n_bins]
        top = int(loads.max())
        heap = [(int(v), b) for b, v in enumerate(loads)]
        heapq.heapify(heap)
        rest = []
        for i in left:  # greedy phase: below the current maximum only
            v, b = heap[0]
            if v + int(x[i]) <= top:
                labels[i] = b
                heapq.heapreplace(heap, (v + int(x[i]), b))
                placed += 1
            else:
                rest.append(i)
        if rest:  # round robin over the bins, lightest first
            cycle = np.array([b for _, b in sorted(heap)], dtype=np.int64)
            labels[np.asarray(rest)] = cycle[np.arange(len(rest)) % cycle.size]
            deferred = len(rest)
    return placed, deferred
