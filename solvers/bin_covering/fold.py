"""Fold: the greedy 3-approximation for Min-Max Bin Covering (Du et al. 2009, Theorem 7).

Also holds the helpers the other bin-covering solvers share (validation, item order, the greedy
fill of Theorem 7, solution assembly).
"""

from __future__ import annotations

from collections.abc import Mapping
from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import BinCoveringInstance, bin_covering_lower_bound
from anonratio.instances.validation import (
    check_choice,
    check_instance,
    check_random_state,
    check_seed,
)

__all__ = ["fold", "fold_bound", "fold_guarantee", "ORDERS"]

#: item orders every bin-covering solver accepts
ORDERS = ("sorted", "random", "input")


# ---------------------------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------------------------
def bin_solver_iv(instance: Any, order: Any, seed: Any) -> tuple[np.random.Generator, int | None]:
    """Validate the common arguments; return ``(rng, seed_to_record)``."""
    check_instance(instance, BinCoveringInstance)
    check_choice("order", order, ORDERS)
    return check_random_state(seed), check_seed(seed)


def item_order(sizes: np.ndarray, order: str, rng: np.random.Generator) -> np.ndarray:
    """Item indices in processing order: ``sorted`` = decreasing size (stable), ``random`` = a
    uniform permutation drawn from ``rng``, ``input`` = as given."""
    if order == "sorted":
        return np.argsort(-sizes, kind="stable")
    if order == "random":
        return rng.permutation(sizes.size)
    return np.arange(sizes.size)


def greedy_fill(sizes: np.ndarray, items: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """Theorem 7's greedy: fill bins in the order ``items`` until each reaches ``k``.

    With ``c`` the prefix sums of ``sizes[items]``, a bin closes at the first position ``j`` with
    ``c[j] >= c[previous end] + k``, i.e. the ends follow ``next(j) = searchsorted(c, c[j] + k)``
    from ``searchsorted(c, k)`` (:func:`_bin_ends`).

    Returns
    -------
    bin_of : ndarray of int64, shape (len(items),)
        Bin number (0, 1, ...) of each item of ``items``; the last bin may stay below ``k``.
    n_full : int
        Number of bins that reach ``k``; a bin ``n_full`` exists iff some items are left over.
    """
    c = np.cumsum(sizes[items])
    ends = _bin_ends(c, k)
    bin_of = np.searchsorted(ends, np.arange(c.size), side="left")
    return bin_of.astype(np.int64), int(ends.size)


#: the scalar walk runs while ``sum // k <= max(_SCALAR_BINS, n // _DOUBLING_ITEMS_PER_BIN)``:
#: measured on 2,000-88,799 Zipf sizes, one binary search per bin (~2 us) costs about as much as
#: the O(n log n) of the doubling once there are ~n/30 bins
_SCALAR_BINS = 64
_DOUBLING_ITEMS_PER_BIN = 32


def _bin_ends(c: np.ndarray, k: int) -> np.ndarray:
    """Positions where the greedy bins close, given the prefix sums ``c`` (non-decreasing).

    The chain ``e_0 = searchsorted(c, k)``, ``e_{i+1} = next(e_i)`` with
    ``next(j) = searchsorted(c, c[j] + k, side="left") > j`` stops at the first ``e_i >= n``.
    With few possible bins (at most ``c[-1] // k``, each holding ``>= k``; few meaning at most
    ``max(64, n // 32)``) the chain is followed one binary search at a time, the cheaper way
    then. Otherwise by pointer doubling: ``next`` is computed for every position at once
    (sentinel ``next(n) = n``) and the known prefix ``e_0..e_{2^r - 1}`` is extended by
    ``next^(2^r)`` of itself while ``next^(2^r)`` is squared. Both give the same ends.
    Complexity: O(B log n) for the scalar walk (``B`` bins), O(n log n) numpy work for the
    doubling.
    """
    n = c.size
    if n == 0 or int(c[-1]) < k:
        return np.empty(0, dtype=np.int64)
    if int(c[-1]) // k <= max(_SCALAR_BINS, n // _DOUBLING_ITEMS_PER_BIN):
        ends: list[int] = []
        base = 0
        while True:  # one binary search per bin
            j = int(np.searchsorted(c, base + k, side="left"))
            if j >= n:
                return np.asarray(ends, dtype=np.int64)
            ends.append(j)
            base = int(c[j])
    jump = np.append(np.searchsorted(c, c + k, side="left"), n)  # next(j); next(n) = n
    path = np.searchsorted(c, [k], side="left")  # e_0 (< n here)
    while path[-1] < n:  # O(log B) rounds
        path = np.concatenate([path, jump[path]])
        jump = jump[jump]
    return path[path < n].astype(np.int64)


def loads_of(sizes: np.ndarray, labels: np.ndarray, n_bins: int) -> np.ndarray:
    """Load of each of ``n_bins`` bins (integer sizes summed per label)."""
    return np.bincount(labels, weights=sizes, minlength=n_bins).round().astype(np.int64)


def compact_labels(labels: np.ndarray) -> np.ndarray:
    """Renumber the used labels ``0..B-1`` in increasing order (as ``np.unique``'s inverse).

    Non-negative labels below ``2 n`` are mapped through a prefix count of the used values
    (O(n + max label), no sort); any other labels fall back to ``np.unique`` (O(n log n)).
    """
    labels = np.asarray(labels)
    n = labels.size
    if n and labels.dtype.kind in "iu" and labels.min() >= 0 and labels.max() < 2 * n:
        used = np.bincount(labels) > 0
        return (np.cumsum(used) - 1)[labels]
    return np.unique(labels, return_inverse=True)[1].reshape(-1)


def finish(
    instance: BinCoveringInstance,
    labels: np.ndarray,
    *,
    algorithm: str,
    params: Mapping[str, Any],
    seed: int | None,
    t0: float,
    info: dict[str, Any],
) -> Solution:
    """Assemble the :class:`Solution` (bins renumbered 0..B-1) with the shared info fields."""
    labels = compact_labels(labels)
    loads = loads_of(instance.sizes, labels, int(labels.max()) + 1)
    info = {
        "n_bins": int(loads.size),
        "overfull_ratio": float(loads.max() / instance.k),
        "min_load": int(loads.min()),
        **info,
    }
    return Solution(
        labels=labels,
        algorithm=algorithm,
        params={**instance.params, **params},
        seed=seed,
        status="feasible",
        objective=float(loads.max()),
        time_s=perf_counter() - t0,
        info=info,
    )


def fold_labels(
    sizes: np.ndarray, k: int, order_items: np.ndarray
) -> tuple[np.ndarray, dict[str, Any]]:
    """Fold on items in the given order: labels and which case applied."""
    n = sizes.size
    labels = np.empty(n, dtype=np.int64)
    is_big = sizes[order_items] >= k
    big, small = order_items[is_big], order_items[~is_big]
    labels[big] = np.arange(big.size)
    bin_of, n_full = greedy_fill(sizes, small, k)
    labels[small] = big.size + bin_of
    n_bins = big.size + n_full
    merged = bool(small.size) and (bin_of.size > 0 and bin_of[-1] == n_full)
    if merged:  # the leftover bin joins the lightest bin
        loads = loads_of(sizes, labels, n_bins + 1)[:n_bins]
        labels[labels == n_bins] = int(np.argmin(loads))
    return labels, {"n_big": int(big.size), "merged_leftover": merged}


# ---------------------------------------------------------------------------------------------
# Fold
# ---------------------------------------------------------------------------------------------
def fold_bound(instance: BinCoveringInstance) -> int:
    """Theorem 7's bound on Fold's cost: ``max(k - 1 + max x, 3k - 3)``."""
    k = instance.k
    return max(k - 1 + instance.max_size, 3 * k - 3)


def fold_guarantee(instance: BinCoveringInstance, solution: Solution | None = None) -> float:
    """Proven ratio of Fold on ``instance``: ``fold_bound / lower bound`` (always < 3).

    ``solution`` is not needed: the ratio is known before the run. Fold costs at most
    ``max(k-1+max x, 3k-3)`` (Theorem 7) and the optimum is at least
    ``max(k, max x, ceil(S/floor(S/k)))``; the paper's ratio 3 follows since the optimum is at
    least ``max(k, max x)``.
    """
    return fold_bound(instance) / bin_covering_lower_bound(instance)[0]


def fold(
    instance: BinCoveringInstance,
    *,
    order: str = "sorted",
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """Fold (Du et al. 2009, Theorem 7): cost at most ``max(k - 1 + max x, 3k - 3)`` < 3 OPT.

    Every item of size ``>= k`` gets its own bin; the other items fill bins greedily in the given
    order, moving on when a bin reaches ``k`` (so each such bin holds at most ``2k - 2``). The last
    bin, if it stays below ``k``, is merged into the lightest other bin. Needs ``sum x >= k``
    (guaranteed by the instance).

    Parameters
    ----------
    instance : BinCoveringInstance
    order : {"sorted", "random", "input"}
        Item order of the greedy fill: decreasing size, a random permutation (``seed``), or the
        instance's order (Figure 7 compares sorted and random).
    seed : int, numpy.random.Generator or None
        Used by ``order="random"``; recorded when an int.

    Returns
    -------
    Solution
        ``labels`` = bin per item; ``info``: ``n_bins``, ``overfull_ratio`` (max load / k),
        ``min_load``, ``n_big``, ``merged_leftover``, ``bound`` (Theorem 7), ``order``.

    Notes
    -----
    O(n log n): the sort (``order="sorted"``) and the greedy's bin ends, found by one binary
    search per bin when ``S // k <= max(64, n // 32)`` and otherwise by pointer doubling over all
    positions (O(n log n) numpy work, no per-bin Python loop).

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, "On the Approximability of Geometric and
    Geographic Generalization and the Min-Max Bin Covering Problem", WADS 2009, §4, Theorem 7
    and §5 ("Fold").

    Examples
    --------
    >>> from anonratio.instances.bin_covering.instance import BinCoveringInstance
    >>> sol = fold(BinCoveringInstance([4, 3, 3, 2, 2, 1], k=5))
    >>> sol.objective, sol.info["n_bins"]
    (8.0, 2)
    """
    t0 = perf_counter()
    rng, seed_rec = bin_solver_iv(instance, order, seed)
    items = item_order(instance.sizes, order, rng)
    labels, info = fold_labels(instance.sizes, instance.k, items)
    info["bound"] = fold_bound(instance)
    info["order"] = order
    return finish(
        instance,
        labels,
        algorithm=f"fold-{order}",
        params={"order": order},
        seed=seed_rec,
        t0=t0,
        info=info,
    )
