"""The cost a k-anonymity solver reports, computed from the groups it formed.

A solver states its own ``Solution.objective`` from its own groups: which records (or unique
records) each group holds and how many records it has. The independent verifier
(:func:`anonratio.instances.verify`) recomputes the cost from the labels alone, and the runner
compares the two, so a solver whose bookkeeping drifts from its labels is caught.

The cost model is the instance's (Aggarwal et al. 2005, §2): attribute ``j`` of a group is
generalized to the lowest level ``L`` of its hierarchy at which the group's values coincide, and
the group costs ``|g| · sum_j w_j L / l_j`` (the number of stars under suppression). The sum is
formed as ``sizes @ (levels @ (w / l))`` over the groups in label order, the verifier's own order
of operations, so on the same partition the two agree exactly, not just up to rounding.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from anonratio.instances import KAnonymityInstance

__all__ = ["member_levels", "generalization_cost", "groups_cost"]


def member_levels(
    instance: KAnonymityInstance,
    group: np.ndarray,
    rows: np.ndarray,
    n_groups: int,
    codes: np.ndarray | None = None,
) -> np.ndarray:
    """Generalization level of every attribute in every group, from membership pairs.

    Parameters
    ----------
    instance : KAnonymityInstance
    group, rows : array_like of int, shape (p,)
        Pair ``t`` says that row ``rows[t]`` of ``codes`` belongs to group ``group[t]``. A row
        may appear in several groups (the copies of a unique record split between groups) and
        twice in one group; every group ``0 .. n_groups - 1`` needs at least one pair.
    n_groups : int
    codes : ndarray of int, shape (r, m), optional
        The code rows the pairs refer to: the table's records (default) or its unique records.

    Returns
    -------
    ndarray of int64, shape (n_groups, m)
        ``L`` per group and attribute.

    Raises
    ------
    ValueError
        If a group has no member.

    Notes
    -----
    O(p log p + p · sum_j l_j) time: one sort, then per attribute and level one reduction.
    """
    codes = instance.table.codes if codes is None else codes
    group = np.asarray(group, dtype=np.int64).reshape(-1)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    order = np.argsort(group, kind="stable")
    group, rows = group[order], rows[order]
    starts = np.searchsorted(group, np.arange(n_groups), side="left")
    ends = np.searchsorted(group, np.arange(n_groups), side="right")
    if np.any(ends <= starts):
        raise ValueError(f"`group` must name every group in 0..{n_groups - 1} at least once")
    levels = np.zeros((n_groups, codes.shape[1]), dtype=np.int64)
    if n_groups == 0:
        return levels
    member_codes = codes[rows]
    for j, h in enumerate(instance.hierarchies):
        for t in range(h.height):
            g = h.groups[member_codes[:, j], t]
            differ = np.maximum.reduceat(g, starts) != np.minimum.reduceat(g, starts)
            levels[:, j] += differ  # levels refine: differing at t means differing below t
    return levels


def generalization_cost(
    instance: KAnonymityInstance, sizes: Sequence[int] | np.ndarray, levels: np.ndarray
) -> float:
    """``sum_g |g| sum_j w_j L_gj / l_j``: the cost of groups of ``sizes`` at ``levels``.

    No record is deleted. O(G m) for G groups of m attributes.
    """
    scale = instance.table.weights / instance.heights
    return float(np.asarray(sizes, dtype=np.int64) @ (levels @ scale))


def groups_cost(instance: KAnonymityInstance, groups: Sequence[np.ndarray]) -> float:
    """Cost of a partition given as a list of record-index arrays (group ``g`` = ``groups[g]``).

    O(n log n + n · sum_j l_j) for n records.
    """
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    group = np.repeat(np.arange(len(groups)), sizes)
    rows = np.concatenate(groups) if groups else np.empty(0, dtype=np.int64)
    return generalization_cost(instance, sizes, member_levels(instance, group, rows, len(groups)))
