"""What the suppression models of l-diversity and t-closeness share: QI patterns and their counts.

Both exact models (:mod:`anonratio.exact.ldiversity`, :mod:`anonratio.exact.tcloseness`) assign
records to *patterns*, rows of QI codes with ``-1`` for a star that generalize the QI-groups
compatible with them, and count per (QI-group, pattern) pair and sensitive value. This module
builds the patterns and the pairs (:func:`pattern_pairs`), the counts of a given partition
(:func:`pattern_counts`: a model's warm start) and the checks every such solver starts with
(:func:`pattern_solve_iv`, :func:`verified_cost`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonratio.exact.options import check_hint_labels, check_run_options, check_upper_bound
from anonratio.instances import verify
from anonratio.instances.validation import check_instance

__all__ = [
    "pattern_pairs",
    "pattern_counts",
    "decode_counts",
    "pattern_solve_iv",
    "verified_cost",
]


def pattern_pairs(
    qcodes: np.ndarray, *, tuples: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(patterns, pair_q, pair_p, stars)`` of the QI-groups' codes ``qcodes`` (one row each).

    Patterns are rows with ``-1`` for a star; pairs are the compatible (QI-group, pattern) ones;
    ``stars`` counts each pattern's stars. Every generalization of every QI-group, less those
    starring a value that every compatible QI-group shares (never cheaper); with ``tuples``
    (tuple minimization: a record is suppressed or not) only each QI-group's own values and the
    table's pattern, starring every attribute that varies.
    """
    g, d = qcodes.shape
    varying = qcodes.min(axis=0) != qcodes.max(axis=0)
    if tuples:
        masks = np.stack([np.zeros(d, bool), varying])
    else:
        cols = np.flatnonzero(varying)
        bits = (np.arange(1 << cols.size)[:, None] >> np.arange(cols.size)) & 1
        masks = np.zeros((bits.shape[0], d), bool)
        masks[:, cols] = bits.astype(bool)
    rows = np.where(masks[:, None, :], -1, qcodes[None, :, :]).reshape(-1, d)
    pair_q = np.tile(np.arange(g, dtype=np.int64), masks.shape[0])
    patterns, pair_p = np.unique(rows, axis=0, return_inverse=True)
    pair_p = pair_p.reshape(-1)
    if not tuples:  # drop stars over a value every compatible QI-group shares
        low = np.full(patterns.shape, np.iinfo(np.int64).max)
        high = np.full(patterns.shape, np.iinfo(np.int64).min)
        np.minimum.at(low, pair_p, qcodes[pair_q])
        np.maximum.at(high, pair_p, qcodes[pair_q])
        useful = ~np.any((patterns == -1) & (low == high), axis=1)
        keep = useful[pair_p]
        new_id = np.cumsum(useful) - 1
        pair_q, pair_p, patterns = pair_q[keep], new_id[pair_p[keep]], patterns[useful]
    stars = np.count_nonzero(patterns == -1, axis=1).astype(np.int64)
    return patterns, pair_q, pair_p.astype(np.int64), stars


def pattern_counts(
    patterns: np.ndarray,
    pair_q: np.ndarray,
    pair_p: np.ndarray,
    qi_group: np.ndarray,
    value: np.ndarray,
    n_values: int,
    codes: np.ndarray,
    labels: np.ndarray,
    *,
    tuples: bool = False,
) -> np.ndarray:
    """The counts ``y[k, v]`` of the feasible partition ``labels``: each record (QI-group
    ``qi_group``, sensitive value ``value``) under its group's pattern, as pair ``k`` of
    :func:`pattern_pairs`. With ``tuples``, a group with a star goes under the table's pattern.

    Raises
    ------
    RuntimeError
        A group's pattern is not among ``patterns`` (cannot happen: a group's own pattern is
        never dropped).
    """
    n_patterns = patterns.shape[0]
    _, inv = np.unique(labels, return_inverse=True)
    inv = inv.reshape(-1)
    low = np.full((int(inv.max()) + 1, codes.shape[1]), np.iinfo(np.int64).max)
    high = np.full_like(low, np.iinfo(np.int64).min)
    np.minimum.at(low, inv, codes)
    np.maximum.at(high, inv, codes)
    differ = low != high
    if tuples:
        varying = codes.min(axis=0) != codes.max(axis=0)
        differ = np.any(differ, axis=1, keepdims=True) & varying[None, :]
    group_pattern = np.where(differ, -1, low)
    _, where = np.unique(np.concatenate([patterns, group_pattern]), axis=0, return_inverse=True)
    where = where.reshape(-1)
    pattern_of_row = np.full(int(where.max()) + 1, -1, dtype=np.int64)
    pattern_of_row[where[:n_patterns]] = np.arange(n_patterns)
    p = pattern_of_row[where[n_patterns:]][inv]
    keys = pair_q * n_patterns + pair_p
    want = qi_group * n_patterns + np.maximum(p, 0)
    k = np.full(want.shape, -1, dtype=np.int64)
    if keys.size:
        order = np.argsort(keys)
        at = np.minimum(np.searchsorted(keys[order], want), keys.size - 1)
        k = np.where(keys[order][at] == want, order[at], -1)
    if np.any((p < 0) | (k < 0)):
        raise RuntimeError("a group of the start has a pattern the model left out")
    y = np.zeros((pair_q.size, n_values), dtype=np.int64)
    np.add.at(y, (k, value), 1)
    return y


def decode_counts(
    pair_q: np.ndarray, pair_p: np.ndarray, qi_group: np.ndarray, value: np.ndarray, y: np.ndarray
) -> np.ndarray:
    """Labels (pattern per record, renumbered 0..) from the counts ``y[k, v]`` of the pairs: in
    each (QI-group, value) block, as many records under each pair's pattern as it counts."""
    k, v = np.nonzero(y > 0)
    order = np.lexsort((k, v, pair_q[k]))  # (q, v) blocks, as records sorted by (q, v)
    k, v = k[order], v[order]
    pattern = np.repeat(pair_p[k], y[k, v])
    labels = np.empty(value.size, dtype=np.int64)
    labels[np.lexsort((value, qi_group))] = pattern
    _, labels = np.unique(labels, return_inverse=True)
    return labels.reshape(-1)


def pattern_solve_iv(
    cls: type,
    instance: Any,
    time_limit: Any,
    seed: Any,
    threads: Any,
    hint: Any,
    upper_bound: Any,
) -> tuple[float, int, int, np.ndarray | None, int | None]:
    """Validate the common arguments of a pattern model's solvers; an upper bound is rounded
    down to an integer (the costs are integers)."""
    check_instance(instance, cls)
    time_limit, solver_seed, threads = check_run_options(time_limit, seed, threads)
    upper_bound = check_upper_bound(upper_bound)
    if upper_bound is not None:
        upper_bound = int(np.floor(upper_bound + 1e-9)) if np.isfinite(upper_bound) else None
    return time_limit, solver_seed, threads, check_hint_labels(instance, hint), upper_bound


def verified_cost(instance: Any, labels: Any) -> float:
    """The cost of a feasible partition (verified strictly: an infeasible one raises)."""
    cost = verify(instance, labels).cost
    assert cost is not None  # a strict verification returns only for a feasible partition
    return cost
