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
:func:`member_levels` lives with the instance (the verifier and the exact layer's lattice use it
too) and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonratio.instances import KAnonymityInstance
from anonratio.instances.kanonymity.instance import member_levels

__all__ = ["member_levels", "generalization_cost", "groups_cost", "labels_cost"]


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


def labels_cost(instance: KAnonymityInstance, labels: np.ndarray) -> float:
    """Cost of a partition given as record labels (``-1``: deleted, at ``sum_j w_j`` each).

    O(n log n + n · sum_j l_j) for n records.
    """
    labels = np.asarray(labels, dtype=np.int64)
    kept = np.flatnonzero(labels >= 0)
    n_groups = int(labels.max(initial=-1)) + 1
    sizes = np.bincount(labels[kept], minlength=n_groups)
    levels = member_levels(instance, labels[kept], kept, n_groups)
    deleted = len(labels) - len(kept)
    return generalization_cost(instance, sizes, levels) + deleted * instance.deletion_cost
