"""Incumbents of the exact k-anonymity loop: a hint's partition, a greedy start, the
nearest-neighbour groups, and a partition decoded back to record labels.

The loop (:mod:`anonratio.exact.kanonymity.set_partitioning`) starts from the cheaper of a hint
and the greedy partition, and keeps the cheapest partition its rounds find.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

import numpy as np

from anonratio.exact.kanonymity.columns import Columns, KAnonData

__all__ = ["Incumbent", "decode", "greedy_incumbent", "group_cost", "hint_incumbent", "nn_groups"]


@dataclass
class Incumbent:
    """A partition as groups used ``z`` times plus deleted copies; ``cost`` in objective units."""

    columns: Columns
    z: np.ndarray
    dele: np.ndarray
    cost: float


def group_cost(d, members):
    """Cost (objective units) of groups given as padded member rows."""
    rep = members[:, 0]
    lev = np.zeros((len(members), d.levels.shape[2]), dtype=np.int8)
    for c in range(members.shape[1]):
        i = members[:, c]
        lev = np.where((i >= 0)[:, None], np.maximum(lev, d.levels[rep, np.maximum(i, 0)]), lev)
    return (members >= 0).sum(axis=1) * (lev @ d.a)


def _incumbent(d, groups):
    """An incumbent from groups given as arrays of unique-record ids (with repeats); groups above
    ``2k − 1`` copies are cut into pieces of ``k .. 2k − 1`` (never dearer: levels only drop in a
    subset); copies in no group are deleted."""
    rows = []
    for members in groups:
        for piece in np.array_split(np.sort(members), len(members) // d.k):
            row = np.full(d.width, -1, dtype=np.int64)
            row[: len(piece)] = piece
            rows.append(row)
    table = np.array(rows, dtype=np.int64).reshape(-1, d.width)
    mem, z = np.unique(table, axis=0, return_counts=True)
    cols = Columns(mem, group_cost(d, mem))
    used = np.repeat(mem, z, axis=0).reshape(-1)
    dele = d.counts - np.bincount(used[used >= 0], minlength=d.u)
    return Incumbent(cols, z, dele, float(cols.cost @ z + d.del_coef * dele.sum()))


def hint_incumbent(d: KAnonData, labels: np.ndarray) -> Incumbent:
    """The incumbent of a feasible labelling (label -1: deleted)."""
    inverse = np.empty(d.instance.n, dtype=np.int64)
    for i, r in enumerate(d.records):
        inverse[r] = i
    keep = np.flatnonzero(labels >= 0)
    order = keep[np.argsort(labels[keep], kind="stable")]
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return _incumbent(d, [inverse[g] for g in np.split(order, cuts)] if len(keep) else [])


def _nearest_first(d, i, left):
    """Unique records with copies left, nearest to ``i`` first (``i`` itself first of all)."""
    dist = d.levels[i] @ d.a
    dist[i] = -1.0
    cand = np.argsort(dist, kind="stable")
    return cand[left[cand] > 0]


def _fill(cand, left, k):
    """Copies taken from ``cand`` in order until there are ``k``: ``(records, copies)``."""
    before = np.cumsum(left[cand]) - left[cand]
    take = np.clip(k - before, 0, left[cand])
    return cand[take > 0], take[take > 0]


def greedy_incumbent(d: KAnonData, deadline: float | None = None) -> Incumbent | None:
    """A quick feasible partition: records in increasing order of their nearest-neighbour price
    (tight neighbourhoods first) each gather their nearest remaining copies into a group of
    ``k``; the last fewer than ``k`` copies join the group of the record nearest to them.
    ``O(n u (m + log u) / k)``; None when ``deadline`` passes first."""
    left, groups, first = d.counts.copy(), [], []
    for i in np.argsort(d.nn, kind="stable"):
        if deadline is not None and perf_counter() > deadline:
            return None
        while left[i] > 0 and left.sum() >= d.k:
            rec, take = _fill(_nearest_first(d, i, left), left, d.k)
            left[rec] -= take
            groups.append(np.repeat(rec, take))
            first.append(i)
    for j in np.flatnonzero(left):  # fewer than k copies remain
        g = int(np.argmin(d.levels[j][first] @ d.a))
        groups[g] = np.concatenate([groups[g], np.full(left[j], j)])
    return _incumbent(d, groups)


def nn_groups(d: KAnonData, deadline: float | None = None) -> Columns:
    """For every unique record, the group of ``k`` copies nearest to it (starting columns); only
    the records reached before ``deadline`` (a ``perf_counter`` reading) when it passes first."""
    rows = []
    for i in range(d.u):
        if deadline is not None and perf_counter() > deadline:
            break
        rec, take = _fill(_nearest_first(d, i, d.counts), d.counts, d.k)
        row = np.full(d.width, -1, dtype=np.int64)
        row[: d.k] = np.sort(np.repeat(rec, take))
        rows.append(row)
    mem = np.unique(np.array(rows, dtype=np.int64).reshape(-1, d.width), axis=0)
    return Columns(mem, group_cost(d, mem))


def decode(d: KAnonData, inc: Incumbent) -> np.ndarray:
    """Labels of an incumbent: group ``g`` gets label ``g``; deleted copies get ``-1``."""
    labels = np.full(d.instance.n, -1, dtype=np.int64)
    nxt = np.zeros(d.u, dtype=np.int64)
    g = 0
    for row, times in zip(inc.columns.members, inc.z, strict=True):
        members = row[row >= 0]
        for _ in range(int(round(times))):
            for i in members:
                labels[d.records[i][nxt[i]]] = g
                nxt[i] += 1
            g += 1
    return labels
