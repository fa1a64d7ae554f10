"""Utility metrics of an l-diverse table published by suppression (Xiao, Yi and Tao 2010, §6.2).

:func:`kl_divergence` is the KL-divergence between the distribution of the microdata over QI x SA
and the one induced by the published table, where a suppressed cell is uniform over its
attribute's domain (§6.2, Equation (2); Kifer and Gehrke, SIGMOD 2006). :func:`suppression_counts`
gives stars and suppressed tuples of a partition without verifying it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.ldiversity.instance import LDiversityInstance, group_stats, qi_groups

__all__ = ["kl_divergence", "suppression_counts", "domain_sizes"]


def domain_sizes(instance: LDiversityInstance) -> np.ndarray:
    """Domain size of each QI attribute: its number of value labels (at least the largest code
    + 1)."""
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    labels = np.array([len(v) for v in instance.table.values], dtype=np.int64)
    return np.maximum(labels, codes.max(axis=0, initial=-1) + 1)


def suppression_counts(instance: LDiversityInstance, labels: ArrayLike) -> dict[str, int]:
    """``{"stars", "suppressed_tuples", "n_groups"}`` of the partition ``labels`` (all >= 0)."""
    _, sizes, differ, _ = group_stats(instance, labels)
    return {
        "stars": int(sizes @ differ),
        "suppressed_tuples": int(sizes[differ > 0].sum()),
        "n_groups": int(sizes.size),
    }


def kl_divergence(instance: LDiversityInstance, labels: ArrayLike) -> float:
    """KL-divergence ``sum_x P(x) ln(P(x) / P*(x))`` (nats) of the published table (§6.2, Eq. 2).

    ``P`` is the microdata's distribution over the points of ``QI x SA`` (the fraction of
    records at each point). The table published from the partition ``labels`` stars, in each
    group, the QI attributes that are not constant on it; ``P*`` treats every starred cell as
    uniform over its attribute's domain (:func:`domain_sizes`), the other cells and the
    sensitive value as published: a record of group ``G`` spreads mass ``1/n`` uniformly over
    the ``prod_{A starred in G} |dom A|`` points that agree with it on ``G``'s constant
    attributes and its sensitive value. Zero when nothing is suppressed (``P* = P``); positive
    whenever ``P*`` leaks mass off ``P``'s support.

    Notes
    -----
    O(n log n · p) with ``p`` the number of distinct star patterns (sets of starred attributes)
    among the groups: per pattern, the groups' mass is keyed by (constant attributes, sensitive
    value) and looked up at every support point of ``P``.
    """
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    s = np.asarray(instance.sensitive, dtype=np.int64)
    n, d = codes.shape
    labels = np.asarray(labels, dtype=np.int64)
    _, inverse = np.unique(labels, return_inverse=True)
    inverse = inverse.reshape(-1)
    n_groups = int(inverse.max()) + 1
    starred = np.zeros((n_groups, d), dtype=bool)
    for j in range(d):
        low = np.full(n_groups, np.iinfo(np.int64).max)
        high = np.full(n_groups, np.iinfo(np.int64).min)
        np.minimum.at(low, inverse, codes[:, j])
        np.maximum.at(high, inverse, codes[:, j])
        starred[:, j] = low != high
    full = np.column_stack([codes, s])
    point = qi_groups(full)
    _, first, p_count = np.unique(point, return_index=True, return_counts=True)
    support = full[first]  # distinct points of P
    p = p_count / n
    q = np.zeros(support.shape[0])
    dom = domain_sizes(instance).astype(float)
    pattern_of_record = starred[inverse]
    patterns, pat_inv = np.unique(pattern_of_record, axis=0, return_inverse=True)
    pat_inv = pat_inv.reshape(-1)
    for k, pattern in enumerate(patterns):
        rows = np.flatnonzero(pat_inv == k)
        keep = np.r_[~pattern, True]  # constant attributes and the sensitive value
        volume = float(np.prod(dom[pattern])) if pattern.any() else 1.0
        block = np.concatenate([full[rows][:, keep], support[:, keep]])
        key = qi_groups(block)
        mass = np.bincount(key[: rows.size], minlength=int(key.max()) + 1) / (n * volume)
        q += mass[key[rows.size :]]
    return float(np.sum(p * np.log(p / q)))
