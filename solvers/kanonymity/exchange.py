"""Pair exchange: the best re-partition of two neighbouring k-anonymity groups, exactly.

The move behind the local search's third stage. Two groups ``A`` and ``B`` with ``s = |A| + |B|``
records are replaced by the cheapest split of their union into two parts of at least ``k``
records, which covers every relocation and swap between the two (``2^(s-1)`` candidate splits;
the union as one group is never cheaper than the best split, since a part's levels are at most
the union's). The cost
of a part is ``|part| sum_j w_j L_j(part) / l_j`` (Aggarwal et al. 2005, §2): its level ``L_j`` is
the height in hierarchy ``j`` of the members' lowest common ancestor, and in a tree the common
ancestor of a set is that of one member with each of the others. So the levels of every subset
of the union follow from the pairwise levels by one pass over the subsets (a subset with top
member ``b`` takes the maximum of the levels of the subset without ``b`` and of ``b`` paired
with the subset's lowest member), vectorized over all candidate pairs of the same union size.

Unions above :data:`MAX_UNION` records are left alone (the subsets double with each record).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from anonratio.instances import KAnonymityInstance
from anonratio.instances.kanonymity.instance import member_levels

__all__ = ["MAX_UNION", "best_pair_splits"]

#: largest union of two groups re-partitioned (2^(MAX_UNION - 1) splits)
MAX_UNION = 18
#: subset entries (pairs times subsets times attributes) held at once
_CHUNK = 3_000_000


@cache
def _subset_tables(s: int) -> tuple[np.ndarray, np.ndarray]:
    """For the subsets (bit masks) of ``s`` members: each one's lowest member and its size."""
    x = np.arange(1 << s, dtype=np.int64)
    low = np.zeros(1 << s, dtype=np.int64)
    low[1:] = np.log2(x[1:] & -x[1:]).astype(np.int64)
    size = np.zeros(1 << s, dtype=np.int64)
    for b in range(s):
        size += (x >> b) & 1
    return low, size


def _subset_costs(instance: KAnonymityInstance, members: np.ndarray) -> np.ndarray:
    """Cost of every subset (bit mask) of each row of ``members`` (shape ``(B, s)``)."""
    n_rows, s = members.shape
    m = instance.table.codes.shape[1]
    ii, jj = np.triu_indices(s, 1)
    pairs = np.stack([members[:, ii], members[:, jj]], axis=-1).reshape(-1)
    group = np.repeat(np.arange(n_rows * len(ii)), 2)
    pl = member_levels(instance, group, pairs, n_rows * len(ii)).reshape(n_rows, len(ii), m)
    pair_levels = np.zeros((n_rows, s, s, m), dtype=np.int8)
    pair_levels[:, ii, jj] = pl
    pair_levels[:, jj, ii] = pl
    low, size = _subset_tables(s)
    levels = np.zeros((n_rows, 1 << s, m), dtype=np.int8)
    for b in range(1, s):  # the subsets 2^b + x whose top member is b (x > 0: not alone)
        h = 1 << b
        with_b = np.take(pair_levels[:, :, b], low[1:h], axis=1)  # b with x's lowest member
        np.maximum(levels[:, 1:h], with_b, out=levels[:, h + 1 : 2 * h])
    scale = instance.table.weights / instance.heights
    return size * (levels.reshape(-1, m).astype(np.float64) @ scale).reshape(n_rows, -1)


def best_pair_splits(
    instance: KAnonymityInstance, members: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The cheapest re-partition of each union of two groups (one row of ``members``).

    Parameters
    ----------
    instance : KAnonymityInstance
    members : ndarray of int, shape (B, s)
        Record ids of each union (``2k <= s <= MAX_UNION``).

    Raises
    ------
    ValueError
        If ``s`` is outside ``[2k, MAX_UNION]``.

    Returns
    -------
    cost : ndarray, shape (B,)
        The least cost of a split in two parts of at least ``k``.
    part : ndarray of bool, shape (B, s)
        The members of the first part (the one holding member 0).

    Notes
    -----
    O(B 2^s m) time and memory per call, in chunks of pairs.
    """
    members = np.asarray(members, dtype=np.int64)
    n_rows, s = members.shape
    k = instance.k
    if not 2 * k <= s <= MAX_UNION:
        raise ValueError(
            f"`members` must have 2k={2 * k} to MAX_UNION={MAX_UNION} columns, not {s}"
        )
    _, size = _subset_tables(s)
    full = (1 << s) - 1
    split = np.arange(1, 1 << s, 2)  # the subsets holding member 0: one per split
    split = split[(size[split] >= k) & (s - size[split] >= k)]
    cost = np.empty(n_rows)
    best = np.empty(n_rows, dtype=np.int64)
    step = max(1, _CHUNK // ((1 << s) * instance.table.codes.shape[1]))
    for lo in range(0, n_rows, step):
        c = _subset_costs(instance, members[lo : lo + step])
        total = c[:, split] + c[:, full ^ split]
        i = np.argmin(total, axis=1)
        cost[lo : lo + step] = total[np.arange(len(i)), i]
        best[lo : lo + step] = split[i]
    part = ((best[:, None] >> np.arange(s)[None, :]) & 1).astype(bool)
    return cost, part
