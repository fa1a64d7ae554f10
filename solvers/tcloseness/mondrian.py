"""Mondrian for t-closeness by suppression: top-down cuts allowed only between t-close halves.

Mondrian (LeFevre, DeWitt and Ramakrishnan, ICDE 2006) starts from the whole table as one
region and cuts a region in two on one attribute as long as an *allowable* cut exists, one whose
two halves both satisfy the privacy model; the regions left are the equivalence classes. Li, Li
and Venkatasubramanian (ICDE 2007, §5) enforce t-closeness by running an existing anonymization
algorithm with the t-closeness test on each candidate equivalence class, which is sound because
merging t-close classes keeps them t-close (the EMD is convex, their §4.2). Here a cut is
allowable when both halves have ``>= k`` records and are t-close to the whole table
(:meth:`~anonratio.instances.tcloseness.TClosenessInstance.passes`).

Where the papers leave a choice, this implementation decides as follows, and why:

* **Candidate cuts.** The columns are categorical codes with no hierarchy, and Mondrian's median
  cut needs an order. Per column that is not constant on the region two cuts are tried: the
  *median* cut over the codes (codes ``<=`` the median code against the rest, LeFevre et al.'s
  strict cut, moved one value down when the median is the largest code) and the *mode* cut (the
  column's most frequent code against the rest), which makes the larger half constant on the
  column at once, the cut a categorical column has when its codes carry no order.
* **Choosing among allowable cuts.** LeFevre et al. choose the column of widest normalized range;
  here the objective is stars, so the cut that removes the most stars (``stars(region) -
  stars(left) - stars(right)``) is taken, ties broken by the most balanced halves, then by column
  and by kind (median first). A cut never adds stars (a half is constant wherever the region
  is), so, as in Mondrian, the region is cut whenever some cut is allowable, even a cut that
  removes no star yet: it may enable one that does.
* The algorithm is deterministic (no random tie-breaking), so ``seed`` is only recorded.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution, lower_bound
from anonratio.instances.tcloseness import TClosenessInstance, group_stats
from anonratio.instances.validation import check_choice, check_instance, check_seed

__all__ = ["CUTS", "mondrian", "mondrian_partition"]

#: which cuts are tried on each column
CUTS = ("both", "median", "mode")


def _candidate_masks(block: np.ndarray, cuts: str) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Boolean masks ``(C, m)`` of the left halves of the candidate cuts of ``block`` (m, d)."""
    masks: list[np.ndarray] = []
    names: list[tuple[int, str]] = []
    size = block.shape[0]
    for j in np.flatnonzero(block.min(axis=0) != block.max(axis=0)).tolist():
        col = block[:, j]
        vals, cnt = np.unique(col, return_counts=True)
        if cuts in ("both", "median"):
            at = min(int(np.searchsorted(np.cumsum(cnt), size / 2)), vals.size - 2)
            masks.append(col <= vals[at])
            names.append((j, "median"))
        if cuts in ("both", "mode"):
            mode = col == vals[int(np.argmax(cnt))]
            same = bool(masks) and names[-1][0] == j
            if not (same and (np.array_equal(mode, masks[-1]) or np.array_equal(mode, ~masks[-1]))):
                masks.append(mode)
                names.append((j, "mode"))
    if not masks:
        return np.zeros((0, size), dtype=bool), names
    return np.array(masks), names


def _differ(block: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Columns not constant on each masked subset of ``block`` (rows of ``masks``, non-empty)."""
    big = np.iinfo(np.int64).max
    differ = np.zeros(masks.shape[0], dtype=np.int64)
    for j in range(block.shape[1]):
        col = block[:, j][None, :]
        low = np.where(masks, col, big).min(axis=1)
        high = np.where(masks, col, -big).max(axis=1)
        differ += low != high
    return differ


def _best_cut(
    instance: TClosenessInstance, rows: np.ndarray, cuts: str
) -> tuple[np.ndarray, tuple[int, str], int] | None:
    """The chosen allowable cut of the region ``rows``: ``(left mask, (column, kind), gain)``."""
    block = np.asarray(instance.table.codes, dtype=np.int64)[rows]
    masks, names = _candidate_masks(block, cuts)
    if not names:
        return None
    onehot = np.zeros((rows.size, instance.n_values), dtype=np.int64)
    onehot[np.arange(rows.size), instance.sensitive[rows]] = 1
    hist_left = masks.astype(np.int64) @ onehot
    hist_right = onehot.sum(axis=0)[None, :] - hist_left
    ok = np.flatnonzero(instance.passes(hist_left) & instance.passes(hist_right))
    if ok.size == 0:
        return None
    masks = masks[ok]
    left = masks.sum(axis=1)
    right = rows.size - left
    whole = rows.size * int(np.count_nonzero(block.min(axis=0) != block.max(axis=0)))
    gain = whole - left * _differ(block, masks) - right * _differ(block, ~masks)
    best = int(np.lexsort((np.arange(ok.size), np.abs(left - right), -gain))[0])
    return masks[best], names[int(ok[best])], int(gain[best])


def mondrian_partition(
    instance: TClosenessInstance, *, cuts: str = "both"
) -> tuple[np.ndarray, dict[str, Any]]:
    """Group ids of Mondrian's regions (module docstring) and ``info`` (``cuts``, the cuts made
    per kind)."""
    made = {"median": 0, "mode": 0}
    stack = [np.arange(instance.n, dtype=np.int64)]
    labels = np.empty(instance.n, dtype=np.int64)
    n_groups = 0
    while stack:
        rows = stack.pop()
        cut = _best_cut(instance, rows, cuts)
        if cut is None:
            labels[rows] = n_groups
            n_groups += 1
            continue
        mask, (_, kind), _ = cut
        made[kind] += 1
        stack.extend([rows[~mask], rows[mask]])
    return labels, {"cuts": cuts, "median_cuts": made["median"], "mode_cuts": made["mode"]}


def mondrian(
    instance: TClosenessInstance,
    *,
    seed: int | np.random.Generator | None = None,
    cuts: str = "both",
) -> Solution:
    """Mondrian with the t-closeness test on both halves of every cut; no proven ratio.

    Parameters
    ----------
    instance : TClosenessInstance
    seed : ignored
        The algorithm is deterministic; recorded when an int.
    cuts : {"both", "median", "mode"}
        The cuts tried on each column (module docstring).

    Returns
    -------
    Solution
        ``algorithm="tclose-mondrian"``; ``lower_bound``: the instance's
        (:func:`~anonratio.instances.tcloseness.tcloseness_lower_bound`); ``info``: ``cuts``,
        ``median_cuts``, ``mode_cuts``, ``n_groups``, ``stars``.

    Raises
    ------
    TypeError
        ``instance`` is not a :class:`TClosenessInstance`.
    ValueError
        A bad ``seed`` or ``cuts``, naming it.

    Notes
    -----
    A region of ``m`` records costs O(m d^2 + m d S) (``2 d`` candidate cuts, each halves'
    columns and histograms); over the recursion O(n d (d + S)) per level of regions, at most
    ``n`` levels (about ``log n`` when the median cuts are taken).

    References
    ----------
    K. LeFevre, D. J. DeWitt, R. Ramakrishnan, "Mondrian Multidimensional K-Anonymity", ICDE
    2006, §4 (greedy top-down partitioning, allowable cuts); N. Li, T. Li, S. Venkatasubramanian,
    "t-Closeness: Privacy Beyond k-Anonymity and l-Diversity", ICDE 2007, §4-§5.
    """
    t0 = perf_counter()
    check_instance(instance, TClosenessInstance)
    seed_rec = check_seed(seed)
    cuts = check_choice("cuts", cuts, CUTS)
    labels, info = mondrian_partition(instance, cuts=cuts)
    _, sizes, differ, _ = group_stats(instance, labels)
    info["n_groups"], info["stars"] = int(sizes.size), int(sizes @ differ)
    return Solution.with_bound(
        labels,
        "tclose-mondrian",
        params={**instance.params, "cuts": cuts},
        seed=seed_rec,
        status="feasible",
        objective=float(info["stars"]),
        bound=float(lower_bound(instance)[0]),
        t0=t0,
        info=info,
    )
